/**
 * The two public conversion-webhook incidents of test/incidents, scanned as a user would: the
 * steps follow what each capture shows about the CRD's stored versions and its Service.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';

async function scan(slug: string, now: string) {
  const dir = fileURLToPath(new URL(`../../../incidents/${slug}/`, import.meta.url));
  const { snapshot } = await loadSnapshot([dir]);
  const report = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(now) });
  return report.findings.find((f) => f.code === 'CRD_CONVERSION_WEBHOOK_BROKEN');
}

describe('CRD_CONVERSION_WEBHOOK_BROKEN on the public incidents', () => {
  it('conversion-webhook-no-port-8443: the Helm-installed Service lacks 8443, so the established fix webhook.enabled=true leads', async () => {
    const f = await scan('conversion-webhook-no-port-8443', '2024-07-18T10:00:00Z');

    expect(f?.cause?.code).toBe('PORT_MISMATCH');
    expect(f?.remediation?.steps[0]).toContain(
      'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n kube-system --reuse-values --set webhook.enabled=true',
    );
    // The CRD defines v1beta1 alone: strategy None is offered as safe, after the fix.
    expect(f?.remediation?.steps[1]).toMatch(/^# or, only v1beta1 is stored/);
  });

  it('conversion-webhook-service-wrong-namespace: storedVersions not captured, so its check leads; the repoint keeps the path', async () => {
    const f = await scan('conversion-webhook-service-wrong-namespace', '2024-09-13T10:00:00Z');

    expect(f?.cause?.code).toBe('SERVICE_MISSING');
    expect(f?.remediation?.steps[0]).toContain("kubectl get crd nodeclaims.karpenter.sh -o jsonpath='{.status.storedVersions}'");
    expect(f?.remediation?.steps[1]).toContain(
      '"value":{"name":"karpenter","namespace":"karpenter","port":8443,"path":"/conversion/karpenter.sh"}',
    );
    expect(f?.remediation?.steps.join('\n')).not.toContain('webhook.enabled');
  });
});
