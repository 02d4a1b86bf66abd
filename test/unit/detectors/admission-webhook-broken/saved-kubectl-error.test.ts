import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';

const dir = mkdtempSync(join(tmpdir(), 'sentinel-webhook-error-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ADMISSION_WEBHOOK_BROKEN from a saved kubectl error', () => {
  it('a refused `kubectl apply` saved as the EC2NodeClass capture (#2983) names the webhook and the untrusted certificate', async () => {
    // Prepare: what kubectl printed, verbatim, where `kubectl get ec2nodeclasses -o yaml` would have gone.
    writeFileSync(
      join(dir, 'ec2nodeclasses.yaml'),
      'Error from server (InternalError): error when creating "od-provisioner.yaml": Internal error occurred: failed calling webhook "defaulting.webhook.karpenter.k8s.aws": Post "https://karpenter.karpenter.svc:443/?timeout=10s": x509: certificate signed by unknown authority\n',
    );

    // A capture holds something readable besides the error (an input of errors alone is refused).
    writeFileSync(join(dir, 'services.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));

    // Act
    const { snapshot } = await loadSnapshot([dir]);
    const report = analyze(snapshot, {
      detection: DEFAULT_DETECTION,
      actions: CLI_ACTIONS,
      now: new Date('2026-01-01T01:00:00Z'),
    });

    // Assert
    const f = report.findings.find((x) => x.code === 'ADMISSION_WEBHOOK_BROKEN');
    expect(f?.resource).toEqual({ kind: 'MutatingWebhookConfiguration', name: 'defaulting.webhook.karpenter.k8s.aws' });
    expect(f?.cause?.code).toBe('CERTIFICATE_INVALID');
    expect(f?.cause?.detail).toContain('(creating "od-provisioner.yaml")');
    expect(report.notCaptured).toContain('webhookconfigurations');
    // The version is unknown: nothing is deleted before it is read.
    expect(f?.remediation?.steps.some((s) => s.includes('kubectl delete') && !s.startsWith('# if '))).toBe(false);
  });
});
