/**
 * What the API server's webhook calls and Karpenter's Services share, for the two webhook findings
 * (CRD_CONVERSION_WEBHOOK_BROKEN: a CRD's conversion webhook; ADMISSION_WEBHOOK_BROKEN: a
 * Validating/MutatingWebhookConfiguration). Both read the Service a webhook posts to out of the
 * API server's error (k8s.io/apiserver builds `https://<service>.<namespace>.svc:<port><path>`)
 * and judge it against the captured Services.
 */
import type { Service } from '../../domain/kube.ts';
import { hasControllerLabel } from '../../domain/snapshot-index.ts';

/** The Service a webhook posts to, as the URL in the API server's error names it. */
export interface WebhookService {
  namespace: string;
  name: string;
  port?: number;
  path?: string;
}

const SERVICE_URL = /Post "?https:\/\/([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?(?::(\d+))?(\/[^?"\s]*)?/;

/** `Post "https://karpenter.karpenter.svc:8443/validate/karpenter.sh?timeout=10s"` → karpenter/karpenter 8443 /validate/karpenter.sh. */
export function webhookServiceOf(text: string): WebhookService | undefined {
  const url = SERVICE_URL.exec(text);
  if (!url?.[1] || !url[2]) return undefined;
  return {
    name: url[1],
    namespace: url[2],
    ...(url[3] ? { port: Number(url[3]) } : {}),
    ...(url[4] && url[4] !== '/' ? { path: url[4] } : {}),
  };
}

/**
 * A Service's absence is known only when the capture covers its namespace: some Service of it was
 * captured, or the capture is cluster-wide (every cluster has `default/kubernetes`). Services of
 * namespace karpenter alone (`kubectl get svc -n karpenter`) say nothing about kube-system.
 */
export function coversNamespace(services: readonly Service[], namespace: string): boolean {
  return (
    services.length === 0 ||
    services.some(
      (s) => s.metadata?.namespace === namespace || (s.metadata?.namespace === 'default' && s.metadata?.name === 'kubernetes'),
    )
  );
}

/** Karpenter's own Service: the chart's label, or a name that says so. */
export function isKarpenterService(s: Service): boolean {
  return hasControllerLabel(s.metadata?.labels) || /karpenter/.test(s.metadata?.name ?? '');
}

/** `karpenter/karpenter 8000/TCP (http-metrics), 8443/TCP (https-webhook)`: a Service for evidence. */
export function describeService(s: Service): string {
  const ports = (s.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? 'TCP'}${p.name ? ` (${p.name})` : ''}`);
  return `${s.metadata?.namespace}/${s.metadata?.name} ${ports.join(', ') || 'no ports'}`;
}
