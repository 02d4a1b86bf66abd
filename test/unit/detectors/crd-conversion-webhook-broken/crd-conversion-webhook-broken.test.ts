import { describe, expect, it } from 'vitest';
import { crdConversionWebhookBroken } from '../../../../src/detectors/crd-conversion-webhook-broken/detector.ts';
import type { CustomResourceDefinition, Service } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { CLI_ACTIONS } from '../../../../src/domain/settings.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';
import { T0, crd, service } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

function detect(snapshot: ClusterSnapshot) {
  return crdConversionWebhookBroken.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(T0),
  });
}

/** A Karpenter CRD still serving v1beta1 next to v1, as after an upgrade from 0.37. */
function upgradedCrd(plural: string, group: string, kind: string, webhook?: { name: string; namespace: string; port?: number }) {
  const c = crd({ plural, group, kind, ...(webhook ? { webhook } : {}) });
  return {
    ...c,
    spec: {
      ...c.spec,
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v1beta1', served: true, storage: false },
      ],
    },
  };
}

const seedTarget = { name: 'karpenter', namespace: 'kube-system', port: 8443 };
const metricsOnly = service({ name: 'karpenter', namespace: 'karpenter', ports: [8000] });
/** In every cluster-wide Service capture (`kubectl get svc -A`). */
const apiServer = service({ name: 'kubernetes', namespace: 'default', ports: [443] });

function patchFor(name: string): string {
  return `kubectl patch crd ${name} --type='json' -p='[{"op": "replace", "path": "/spec/conversion", "value": {"strategy": "None"}}]'`;
}

function checkFor(name: string): string {
  return `kubectl get crd ${name} -o jsonpath='{.status.storedVersions}'`;
}

/** The step that runs the command (its `# why` line aside). */
const stepRunning = (steps: readonly string[] | undefined, command: string) =>
  (steps ?? []).find((s) => s.endsWith(`\n${command}`));

describe('CRD_CONVERSION_WEBHOOK_BROKEN', () => {
  it('SERVICE_MISSING: CRDs point at kube-system/karpenter:8443, the Service is karpenter/karpenter:8000 (seed 004 #2)', () => {
    // Prepare
    const snapshot = snapshotOf({
      crds: [
        upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', seedTarget),
        upgradedCrd('nodepools', 'karpenter.sh', 'NodePool', seedTarget),
        upgradedCrd('ec2nodeclasses', 'karpenter.k8s.aws', 'EC2NodeClass', seedTarget),
      ],
      services: [apiServer, metricsOnly],
    });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings.map((f) => f.resource)).toEqual([
      { kind: 'CustomResourceDefinition', name: 'nodeclaims.karpenter.sh' },
      { kind: 'CustomResourceDefinition', name: 'nodepools.karpenter.sh' },
      { kind: 'CustomResourceDefinition', name: 'ec2nodeclasses.karpenter.k8s.aws' },
    ]);
    const f = findings[0]!;
    expect(f).toMatchObject({ code: 'CRD_CONVERSION_WEBHOOK_BROKEN', severity: 'critical', cause: { code: 'SERVICE_MISSING' } });
    expect(f.cause?.detail).toContain(
      'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.kube-system.svc:8443/?timeout=30s": service "karpenter" not found',
    );
    expect(f.evidence).toContain('Service kube-system/karpenter: not found');
    expect(f.evidence).toContain('Karpenter Services: karpenter/karpenter 8000/TCP (p8000)');
    expect(f.remediation).toMatchObject({ action: 'MANUAL', status: 'manual' });
    // storedVersions not captured: the check leads, strategy None only under its condition.
    expect(f.remediation?.steps[0]).toMatch(/^# FIRST: which versions are stored/);
    expect(f.remediation?.steps[0]).toContain(checkFor('nodeclaims.karpenter.sh'));
    expect(stepRunning(f.remediation?.steps, patchFor('nodeclaims.karpenter.sh'))).toMatch(/^# if it lists v1 alone/);
    expect(findings[2]?.remediation?.steps[0]).toContain(checkFor('ec2nodeclasses.karpenter.k8s.aws'));
    expect(new Set(findings.map((x) => x.id)).size).toBe(3);
  });

  it('PORT_MISMATCH: the Service exists but does not expose the webhook port', () => {
    const snapshot = snapshotOf({
      crds: [upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', { name: 'karpenter', namespace: 'karpenter', port: 8443 })],
      services: [metricsOnly],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('PORT_MISMATCH');
    expect(f?.cause?.detail).toContain('Service karpenter/karpenter exposes port 8000, not 8443');
    expect(f?.remediation?.steps[0]).toContain(checkFor('nodeclaims.karpenter.sh'));
  });

  it('an unset port means 443', () => {
    const target = { name: 'karpenter', namespace: 'karpenter' };
    const crds = [upgradedCrd('nodepools', 'karpenter.sh', 'NodePool', target)];

    const on443 = detect(snapshotOf({ crds, services: [service({ name: 'karpenter', namespace: 'karpenter', ports: [443] })] }));
    const on8443 = detect(
      snapshotOf({ crds, services: [service({ name: 'karpenter', namespace: 'karpenter', ports: [8443] })] }),
    );

    expect(on443).toEqual([]);
    expect(on8443[0]?.cause?.code).toBe('PORT_MISMATCH');
    expect(on8443[0]?.evidence[0]).toBe('spec.conversion: strategy Webhook, service karpenter/karpenter port 443 (default)');
  });

  it('a reachable webhook, strategy None, a URL webhook and non-Karpenter CRDs are no finding', () => {
    const healthy = upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', {
      name: 'karpenter',
      namespace: 'karpenter',
      port: 8000,
    });
    const none = upgradedCrd('nodepools', 'karpenter.sh', 'NodePool');
    const byUrl: CustomResourceDefinition = {
      ...none,
      metadata: { name: 'ec2nodeclasses.karpenter.k8s.aws' },
      spec: {
        ...none.spec,
        group: 'karpenter.k8s.aws',
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.internal/convert' } } },
      },
    };
    const other = upgradedCrd('certificates', 'cert-manager.io', 'Certificate', seedTarget);

    expect(detect(snapshotOf({ crds: [healthy, none, byUrl, other], services: [metricsOnly] }))).toEqual([]);
  });

  it('when a Karpenter Service exposes a webhook port, the alternative points the CRD at it', () => {
    const withWebhook: Service = {
      ...metricsOnly,
      spec: {
        ports: [
          { name: 'http-metrics', port: 8080, protocol: 'TCP' },
          { name: 'https-webhook', port: 8443, protocol: 'TCP' },
        ],
      },
    };

    const [f] = detect(
      snapshotOf({
        crds: [upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', seedTarget)],
        services: [apiServer, withWebhook],
      }),
    );

    expect(f?.remediation?.steps[0]).toContain(checkFor('nodeclaims.karpenter.sh'));
    expect(f?.remediation?.steps[1]).toMatch(/^# whatever it lists, this makes conversion answer again/);
    expect(f?.remediation?.steps[1]).toContain(
      `kubectl patch crd nodeclaims.karpenter.sh --type=json -p '[{"op":"replace","path":"/spec/conversion/webhook/clientConfig/service","value":{"name":"karpenter","namespace":"karpenter","port":8443}}]'`,
    );
  });

  it('without any Karpenter Service the evidence says so', () => {
    const [f] = detect(snapshotOf({ crds: [upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', seedTarget)], services: [] }));

    expect(f?.evidence).toContain('no Karpenter Service exists');
  });
});

describe('CRD_CONVERSION_WEBHOOK_BROKEN: healthy webhooks and partial captures', () => {
  const target = { name: 'karpenter', namespace: 'karpenter', port: 8443 };

  it('a webhook on the right Service and port, whose targetPort is named, is no finding', () => {
    const svc: Service = {
      ...service({ name: 'karpenter', namespace: 'karpenter', ports: [] }),
      spec: {
        type: 'ClusterIP',
        ports: [
          { name: 'http-metrics', port: 8080, targetPort: 'http-metrics', protocol: 'TCP' },
          { name: 'https-webhook', port: 8443, targetPort: 'https-webhook', protocol: 'TCP' },
        ],
      },
    };
    expect(
      detect(snapshotOf({ crds: [upgradedCrd('nodepools', 'karpenter.sh', 'NodePool', target)], services: [apiServer, svc] })),
    ).toEqual([]);
  });

  it('Services of namespace karpenter only (kubectl get svc -n karpenter): kube-system/karpenter was not seen, and the finding says so', () => {
    const crds = [upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', seedTarget)];

    const [unseen] = detect(snapshotOf({ crds, services: [metricsOnly] }));

    expect(unseen?.title).toBe(
      'CRD nodeclaims.karpenter.sh converts through a webhook that cannot be reached (Service kube-system/karpenter not seen, Karpenter runs in karpenter)',
    );
    expect(unseen?.cause?.detail).toContain('the capture holds no Service of namespace kube-system, so its absence was not seen');
    expect(unseen?.evidence).toContain(
      'Service kube-system/karpenter: not seen (no Service of namespace kube-system was captured)',
    );
    expect(unseen?.remediation?.steps[0]).toBe(
      '# Confirm that Service kube-system/karpenter is missing\nkubectl get service -n kube-system karpenter',
    );
    expect(detect(snapshotOf({ crds, services: [apiServer, metricsOnly] }))[0]?.cause?.detail).not.toContain('not seen');
  });

  it('says nothing when the Service namespace was not captured and nothing shows Karpenter running elsewhere', () => {
    const crds = [upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', seedTarget)];
    const other = service({ name: 'web', namespace: 'shop', ports: [80] });

    expect(detect(snapshotOf({ crds, services: [other] }))).toEqual([]);
  });
});

describe("CRD_CONVERSION_WEBHOOK_BROKEN from the API server's own error (a saved `kubectl get` or a failed live list)", () => {
  const failed = (tail: string) =>
    `conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.karpenter.svc:8443/conversion/karpenter.sh?timeout=30s": ${tail}`;
  const onlyTheError = (error: string): ClusterSnapshot => ({ ...snapshotOf({}), gaps: [{ source: 'nodeclaims', error }] });

  it.each([
    ['service "karpenter" not found', 'SERVICE_MISSING', 'Service karpenter not found'],
    ['no service port 8443 found for service "karpenter"', 'PORT_MISMATCH', 'Service karpenter has no port 8443'],
    ['no endpoints available for service "karpenter"', 'UNKNOWN', 'no pod serves Service karpenter'],
    ['dial tcp 10.100.12.7:8443: connect: connection refused', 'UNKNOWN', 'connection refused'],
  ])('%s → %s, with no CRD or Service captured', (tail, cause, why) => {
    // Act
    const report = analyze(onlyTheError(`500 InternalError: ${failed(tail)}`), {
      detection: DEFAULT_DETECTION,
      actions: CLI_ACTIONS,
      now: new Date(T0),
    });

    // Assess
    const [finding] = report.findings;
    expect(finding?.code).toBe('CRD_CONVERSION_WEBHOOK_BROKEN');
    expect(finding?.resource).toEqual({ kind: 'CustomResourceDefinition', name: 'nodeclaims.karpenter.sh' });
    expect(finding?.cause?.code).toBe(cause);
    expect(finding?.title).toContain(why);
    expect(finding?.evidence[0]).toBe(`the API server answered: ${failed(tail)}`);
    expect(finding?.remediation?.steps[1]).toContain(checkFor('nodeclaims.karpenter.sh'));
    expect(stepRunning(finding?.remediation?.steps, patchFor('nodeclaims.karpenter.sh'))).toMatch(/^# if it lists /);
    expect(report.notCaptured).toEqual(expect.arrayContaining(['services', 'crds']));
  });

  it('adds the error to the finding of the captured CRD rather than a second finding', () => {
    const snapshot = snapshotOf({
      crds: [upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', seedTarget)],
      services: [apiServer, metricsOnly],
    });
    snapshot.gaps.push({ source: 'nodeclaims', error: failed('service "karpenter" not found') });

    const findings = detect(snapshot);

    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence.at(-1)).toBe(`the API server answered: ${failed('service "karpenter" not found')}`);
  });
});

describe('CRD_CONVERSION_WEBHOOK_BROKEN: status.storedVersions decides whether strategy None is safe', () => {
  const stored = (c: CustomResourceDefinition, storedVersions: string[]): CustomResourceDefinition => ({
    ...c,
    status: { storedVersions },
  });
  const nodeClaims = () => upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', seedTarget);

  it('only v1 stored: strategy None leads, said to be safe', () => {
    const [f] = detect(snapshotOf({ crds: [stored(nodeClaims(), ['v1'])], services: [apiServer, metricsOnly] }));

    expect(f?.evidence).toContain('status.storedVersions: v1');
    expect(f?.remediation?.steps[0]).toMatch(/^# only v1 is stored: no stored object needs conversion, so strategy None is safe/);
    expect(f?.remediation?.steps[0]).toContain(patchFor('nodeclaims.karpenter.sh'));
  });

  it('v1beta1 still stored: never leads with strategy None; keep the webhook, migrate, drop v1beta1, and only then None', () => {
    const [f] = detect(snapshotOf({ crds: [stored(nodeClaims(), ['v1beta1', 'v1'])], services: [apiServer, metricsOnly] }));
    const steps = f?.remediation?.steps ?? [];

    expect(f?.evidence).toContain('status.storedVersions: v1beta1, v1');
    expect(steps[0]).toMatch(/^status.storedVersions still lists v1beta1: .*strategy None would serve them unconverted/);
    expect(steps[0]).not.toContain(patchFor('nodeclaims.karpenter.sh'));
    const migrate = steps.findIndex((s) => s.endsWith('\nkubectl get nodeclaims.karpenter.sh -o json | kubectl replace -f -'));
    const prune = steps.findIndex((s) =>
      s.endsWith(
        `\nkubectl patch crd nodeclaims.karpenter.sh --subresource=status --type=merge -p '{"status":{"storedVersions":["v1"]}}'`,
      ),
    );
    const none = steps.findIndex((s) => s.endsWith(`\n${patchFor('nodeclaims.karpenter.sh')}`));
    expect(migrate).toBeGreaterThan(0);
    expect(prune).toBeGreaterThan(migrate);
    expect(none).toBeGreaterThan(prune);
  });

  it('a CRD that defines one version can store no other: strategy None is safe without status', () => {
    const single = crd({ plural: 'nodepools', group: 'karpenter.sh', kind: 'NodePool', webhook: seedTarget });

    const [f] = detect(snapshotOf({ crds: [single], services: [apiServer, metricsOnly] }));

    expect(f?.evidence).toContain(
      'status.storedVersions: not in the capture, but the CRD defines v1 alone, so nothing else can be stored',
    );
    expect(f?.remediation?.steps[0]).toContain(patchFor('nodepools.karpenter.sh'));
  });
});

describe('CRD_CONVERSION_WEBHOOK_BROKEN: the repair the capture shows', () => {
  const helmInstalled = (ports: { name: string; port: number }[], labels: Record<string, string> = {}): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'karpenter',
      namespace: 'kube-system',
      annotations: { 'meta.helm.sh/release-name': 'karpenter', 'meta.helm.sh/release-namespace': 'kube-system' },
      labels: { 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/name': 'karpenter', ...labels },
    },
    spec: { type: 'ClusterIP', ports: ports.map((p) => ({ ...p, protocol: 'TCP', targetPort: p.name })) },
  });
  const helmFlag = '--set webhook.enabled=true';

  it("the CRD's Service, installed by Helm without the webhook port: the one-flag fix, pinned to the chart version", () => {
    const svc = helmInstalled([{ name: 'http-metrics', port: 8000 }], { 'helm.sh/chart': 'karpenter-0.37.0' });
    const crds = [upgradedCrd('nodepools', 'karpenter.sh', 'NodePool', seedTarget)];

    const [f] = detect(snapshotOf({ crds, services: [apiServer, svc] }));

    expect(f?.cause?.code).toBe('PORT_MISMATCH');
    expect(
      stepRunning(f?.remediation?.steps, "kubectl get crd nodepools.karpenter.sh -o jsonpath='{.status.storedVersions}'"),
    ).toBe(f?.remediation?.steps[0]);
    expect(f?.remediation?.steps[1]).toContain(
      `helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n kube-system --version 0.37.0 --reuse-values ${helmFlag}`,
    );
  });

  it('no flag when the Service was not installed by Helm, or already has the webhook port', () => {
    const notHelm = service({ name: 'karpenter', namespace: 'kube-system', ports: [8000] });
    const withPort = helmInstalled([
      { name: 'http-metrics', port: 8000 },
      { name: 'https-webhook', port: 443 },
    ]);
    const crds = [upgradedCrd('nodepools', 'karpenter.sh', 'NodePool', seedTarget)];

    const steps = [notHelm, withPort].flatMap(
      (svc) => detect(snapshotOf({ crds, services: [apiServer, svc] }))[0]?.remediation?.steps ?? [],
    );

    expect(steps.length).toBeGreaterThan(0);
    expect(steps.join('\n')).not.toContain(helmFlag);
  });

  it("points the CRD at a Service's https-webhook port, never at webhook-metrics, and keeps the CRD's path", () => {
    const target = { ...seedTarget };
    const c = upgradedCrd('nodeclaims', 'karpenter.sh', 'NodeClaim', target);
    const service = c.spec.conversion?.webhook?.clientConfig?.service;
    if (service) service.path = '/conversion/karpenter.sh';
    const elsewhere: Service = {
      ...metricsOnly,
      spec: {
        ports: [
          { name: 'http-metrics', port: 8000, protocol: 'TCP' },
          { name: 'webhook-metrics', port: 8001, protocol: 'TCP' },
          { name: 'https-webhook', port: 8443, protocol: 'TCP' },
        ],
      },
    };

    const [f] = detect(snapshotOf({ crds: [c], services: [apiServer, elsewhere] }));

    expect(f?.remediation?.steps.join('\n')).toContain(
      `"value":{"name":"karpenter","namespace":"karpenter","port":8443,"path":"/conversion/karpenter.sh"}`,
    );
    expect(f?.remediation?.steps.join('\n')).not.toContain('"port":8001');
  });
});
