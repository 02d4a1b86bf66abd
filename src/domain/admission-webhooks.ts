/**
 * Admission webhooks as kube-apiserver calls them (k8s.io/apiserver pkg/admission/plugin/webhook
 * and pkg/util/proxy): which writes a webhook's rules select, how the Service it posts to resolves
 * to endpoints, and the error text when it cannot be reached. Read by the simulator, which refuses
 * a write as the API server would, and available to ADMISSION_WEBHOOK_BROKEN (docs/findings.md);
 * declared here, below both.
 */
import type { AdmissionWebhook, CustomResourceDefinition, Service, ServiceEndpoints, WebhookConfiguration } from './kube.ts';
import { hasControllerLabel } from './snapshot-index.ts';
import { KARPENTER_API_GROUPS } from './tags.ts';

/** One write as admission sees it: `karpenter.sh` `v1` `nodepools` `CREATE`. */
export interface AdmissionRequest {
  group: string;
  version: string;
  /** Plural resource, without subresource. */
  resource: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
}

/** Whether a webhook's rules select this write (a rule's `*` matches anything in its place). */
export function webhookMatches(
  webhook: AdmissionWebhook,
  request: AdmissionRequest,
  crds: readonly CustomResourceDefinition[],
): boolean {
  return (webhook.rules ?? []).some((rule) => {
    const has = (list: readonly string[] | undefined, value: string) => (list ?? []).some((v) => v === value || v === '*');
    if (!has(rule.apiGroups, request.group) || !has(rule.operations, request.operation)) return false;
    if (!(rule.resources ?? []).some((r) => r === request.resource || r === '*' || r === '*/*')) return false;
    if (has(rule.apiVersions, request.version)) return true;
    // matchPolicy Equivalent (the default): the same resource written through another served version.
    if (webhook.matchPolicy === 'Exact') return false;
    const served = servedVersions(crds, request.group, request.resource);
    return served.includes(request.version) && served.some((v) => has(rule.apiVersions, v));
  });
}

function servedVersions(crds: readonly CustomResourceDefinition[], group: string, plural: string): string[] {
  const crd = crds.find((c) => c.spec?.group === group && c.spec.names?.plural === plural);
  return (crd?.spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
}

/** A webhook refuses the write when it cannot answer: `failurePolicy` Fail, which absent means. */
export function failsClosed(webhook: AdmissionWebhook): boolean {
  return (webhook.failurePolicy ?? 'Fail') === 'Fail';
}

/** The Service a webhook posts to, with the API server's defaults (port 443, path `/`); undefined for a `url` webhook. */
export interface WebhookServiceRef {
  namespace: string;
  name: string;
  port: number;
  path: string;
}

export function webhookServiceRef(webhook: AdmissionWebhook): WebhookServiceRef | undefined {
  const service = webhook.clientConfig?.service;
  if (!service?.name || !service.namespace) return undefined;
  return { namespace: service.namespace, name: service.name, port: service.port ?? 443, path: service.path ?? '/' };
}

/** `https://karpenter.kube-system.svc:8443/validate/karpenter.sh?timeout=10s`, as the API server's error quotes it. */
export function webhookUrl(ref: WebhookServiceRef, timeoutSeconds = 10): string {
  return `https://${ref.name}.${ref.namespace}.svc:${ref.port}${ref.path}?timeout=${timeoutSeconds}s`;
}

/**
 * Why the API server cannot reach the Service, in its words (pkg/util/proxy ResolveEndpoint), or
 * undefined when a ready endpoint serves the port. The endpoint port must carry the Service port's
 * name; EndpointSlices are read when there are any (API servers from 1.34 read only these), else
 * Endpoints. `services` and `endpoints` must cover the Service's namespace; `endpoints` undefined
 * (not read) judges only the Service and its port.
 */
export function unreachableCause(
  ref: WebhookServiceRef,
  services: readonly Service[],
  endpoints: readonly ServiceEndpoints[] | undefined,
): string | undefined {
  const service = services.find((s) => s.metadata?.namespace === ref.namespace && s.metadata.name === ref.name);
  if (!service) return `service "${ref.name}" not found`;
  const port = (service.spec?.ports ?? []).find((p) => p.port === ref.port);
  if (!port) return `no service port ${ref.port} found for service "${ref.name}"`;
  if (endpoints === undefined) return undefined;
  return hasReadyEndpoint(ref, port.name ?? '', endpoints) ? undefined : `no endpoints available for service "${ref.name}"`;
}

/** Whether a ready endpoint serves the Service port named `portName` (the resolver's test; ADMISSION_WEBHOOK_BROKEN reads it too). */
export function hasReadyEndpoint(ref: WebhookServiceRef, portName: string, endpoints: readonly ServiceEndpoints[]): boolean {
  const inNamespace = endpoints.filter((e) => e.metadata?.namespace === ref.namespace);
  const slices = inNamespace.filter(
    (e) => e.kind === 'EndpointSlice' && e.metadata?.labels?.['kubernetes.io/service-name'] === ref.name,
  );
  if (slices.length > 0) {
    return slices.some(
      (s) =>
        'ports' in s &&
        (s.ports ?? []).some((p) => (p.name ?? '') === portName) &&
        (s.endpoints ?? []).some((e) => (e.addresses ?? []).length > 0 && e.conditions?.ready !== false),
    );
  }
  const legacy = inNamespace.find((e) => e.kind === 'Endpoints' && e.metadata?.name === ref.name);
  return (
    legacy !== undefined &&
    'subsets' in legacy &&
    (legacy.subsets ?? []).some((s) => (s.addresses ?? []).length > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName))
  );
}

/** The API server's error for a webhook it could not call (`failed calling webhook "<name>": failed to call webhook: Post "<url>": <cause>`). */
export function failedCallingWebhook(webhookName: string, url: string, cause: string): string {
  return `failed calling webhook "${webhookName}": failed to call webhook: Post "${url}": ${cause}`;
}

/**
 * Karpenter's webhooks: named for its API groups (`validation.webhook.karpenter.sh`,
 * `validation.webhook.config.karpenter.sh`, `defaulting.webhook.karpenter.k8s.aws`, the older
 * `*.provisioners.karpenter.sh`), with a rule naming one of them, or in a configuration Karpenter's
 * chart or controller labelled (docs/findings.md ADMISSION_WEBHOOK_BROKEN judges all of these, so
 * the endpoints of all their Services are read).
 */
export function isKarpenterWebhook(webhook: AdmissionWebhook, configuration: WebhookConfiguration): boolean {
  const name = webhook.name ?? '';
  if (KARPENTER_API_GROUPS.some((group) => name.endsWith(`.${group}`))) return true;
  if ((webhook.rules ?? []).some((rule) => (rule.apiGroups ?? []).some((g) => KARPENTER_API_GROUPS.includes(g)))) return true;
  const labels = configuration.metadata?.labels;
  return (labels?.['helm.sh/chart'] ?? '').startsWith('karpenter-') || hasControllerLabel(labels);
}

/** The Services Karpenter's webhooks post to, each once, in the configurations' order. */
export function karpenterWebhookServices(configurations: readonly WebhookConfiguration[]): WebhookServiceRef[] {
  const found = new Map<string, WebhookServiceRef>();
  for (const configuration of configurations) {
    for (const webhook of configuration.webhooks ?? []) {
      const ref = isKarpenterWebhook(webhook, configuration) ? webhookServiceRef(webhook) : undefined;
      if (ref && !found.has(`${ref.namespace}/${ref.name}`)) found.set(`${ref.namespace}/${ref.name}`, ref);
    }
  }
  return [...found.values()];
}

/**
 * The API server's words for an admission webhook it could not call (k8s.io/apiserver since 1.16;
 * the CRD conversion webhook's are CONVERSION_WEBHOOK_FAILED): the webhook's name is the group.
 */
export const FAILED_CALLING_WEBHOOK = /failed calling webhook "([^"\r\n]{1,253})"/;
