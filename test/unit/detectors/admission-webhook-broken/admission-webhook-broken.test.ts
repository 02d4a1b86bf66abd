import { describe, expect, it } from 'vitest';
import { admissionWebhookBroken } from '../../../../src/detectors/admission-webhook-broken/detector.ts';
import { crdConversionWebhookBroken } from '../../../../src/detectors/crd-conversion-webhook-broken/detector.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { logLine, snapshotOf } from '../../../factories/aws.ts';
import { T0, crd } from '../../../factories/kube.ts';
import { apiServerService, chartWebhook, controllerAt, foreignWebhook, karpenterService, slice } from './fixtures.ts';

function detect(snapshot: ClusterSnapshot) {
  const ctx = {
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(T0),
  };
  return admissionWebhookBroken.detect(ctx);
}

const stepsOf = (f: { remediation: { steps: string[] } | null } | undefined) => f?.remediation?.steps ?? [];
const allText = (f: unknown) => JSON.stringify(f);

/** The controller's log line when the API server refused its write (the messages are the reporters', verbatim). */
const refusedLog = (message: string, extra: Record<string, unknown> = {}) =>
  logLine({ level: 'ERROR', time: '2024-01-22T12:51:50.645Z', message, ...extra });

/** #5504 (v0.33.0, webhook.enabled=false, configurations left): Karpenter's provisioner log line, one NodeClaim. */
const PORT_GONE =
  'creating node claim, Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: Post "https://karpenter-controller.kube-system.svc:8443/validate/karpenter.sh?timeout=10s": no service port 8443 found for service "karpenter-controller"';

/** #6879 (v1.0.1 behind the v0.37 webhooks): the nodeclaim.tagging Reconciler error. */
const REJECTED_V1 =
  'Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: the server rejected our request for an unknown reason';

const FOUR = [
  'validation.webhook.karpenter.sh',
  'validation.webhook.config.karpenter.sh',
  'validation.webhook.karpenter.k8s.aws',
  'defaulting.webhook.karpenter.k8s.aws',
];

/** A v0.37 cluster whose webhook is served: Service with https-webhook, a ready endpoint on it, CA bundles. */
const served = (version: string) =>
  snapshotOf({
    webhookConfigurations: FOUR.map((n) => chartWebhook(n)),
    services: [apiServerService, karpenterService()],
    endpoints: [slice({ ready: true })],
    pods: [controllerAt(version, { webhook: true })],
  });

describe('ADMISSION_WEBHOOK_BROKEN', () => {
  it('STALE_AFTER_V1_UPGRADE: the v0.37 configurations under a v1.0.1 controller are deleted, never re-enabled (#6879)', () => {
    // Prepare
    const snapshot = { ...served('1.0.1'), logs: [refusedLog(REJECTED_V1, { controller: 'nodeclaim.tagging' })] };
    snapshot.captured.add('logs');

    // Act
    const findings = detect(snapshot);

    // Assert
    expect(findings.map((f) => [f.resource.name, f.cause?.code])).toEqual(FOUR.map((n) => [n, 'STALE_AFTER_V1_UPGRADE']));
    const vwc = findings.find((f) => f.resource.name === 'validation.webhook.karpenter.sh');
    expect(vwc?.severity).toBe('critical');
    expect(stepsOf(vwc)[0]).toMatch(/\nkubectl delete validatingwebhookconfiguration validation\.webhook\.karpenter\.sh$/);
    expect(vwc?.evidence.join('\n')).toContain('the server rejected our request for an unknown reason');
    const mwc = findings.find((f) => f.resource.name === 'defaulting.webhook.karpenter.k8s.aws');
    expect(stepsOf(mwc)[0]).toMatch(/\nkubectl delete mutatingwebhookconfiguration defaulting\.webhook\.karpenter\.k8s\.aws$/);
    expect(allText(findings)).not.toContain('webhook.enabled=true');
  });

  it('a v0.37 controller serving its webhook (ready endpoint on https-webhook, CA bundle, no failure text) is not broken', () => {
    expect(detect(served('0.37.2'))).toEqual([]);
  });

  it('the same stale configuration with v1.1 CRDs serving only v1 refuses nothing: warning, still deleted', () => {
    // Prepare
    const onlyV1 = (plural: string, group: string, kind: string) => crd({ plural, group, kind });
    const snapshot = {
      ...served('1.1.0'),
      crds: [
        onlyV1('nodeclaims', 'karpenter.sh', 'NodeClaim'),
        onlyV1('nodepools', 'karpenter.sh', 'NodePool'),
        onlyV1('ec2nodeclasses', 'karpenter.k8s.aws', 'EC2NodeClass'),
      ],
    };
    snapshot.captured.add('crds');

    // Act
    const f = detect(snapshot).find((x) => x.resource.name === 'validation.webhook.karpenter.sh');

    // Assert
    expect(f?.cause?.code).toBe('STALE_AFTER_V1_UPGRADE');
    expect(f?.severity).toBe('warning');
  });

  it('SERVICE_MISSING as #5504 happens (v0.33.0, webhook.enabled=false: no DISABLE_WEBHOOK, which defaults to true): the delete leads', () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh', { service: 'karpenter-controller' })],
      services: [apiServerService, karpenterService({ name: 'karpenter-controller', webhookPort: false })],
      pods: [controllerAt('0.33.0', { name: 'karpenter-controller-6f9d8b7c5d-x8k2p' })],
      logs: [refusedLog(PORT_GONE)],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('SERVICE_MISSING');
    expect(f?.title).toContain('has no port 8443');
    expect(f?.severity).toBe('critical');
    expect(stepsOf(f)[0]).toContain('Karpenter v0.33.0 runs with its webhook off');
    expect(stepsOf(f)[0]).toMatch(/\nkubectl delete validatingwebhookconfiguration validation\.webhook\.karpenter\.sh$/);
  });

  it('SERVICE_MISSING with DISABLE_WEBHOOK=true set by hand, or --disable-webhook: the delete leads', () => {
    for (const pod of [
      controllerAt('0.32.1', { disableWebhook: true }),
      {
        ...controllerAt('0.36.2', { webhook: true }),
        spec: {
          containers: [{ name: 'controller', image: 'public.ecr.aws/karpenter/controller:0.36.2', args: ['--disable-webhook'] }],
        },
      },
    ]) {
      const snapshot = snapshotOf({
        webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh')],
        services: [apiServerService, karpenterService({ webhookPort: false })],
        pods: [pod],
      });
      const [f] = detect(snapshot);
      expect(stepsOf(f)[0]).toContain('DISABLE_WEBHOOK=true');
      expect(stepsOf(f)[0]).toMatch(/\nkubectl delete validatingwebhookconfiguration validation\.webhook\.karpenter\.sh$/);
    }
  });

  it('a v0.37 controller with its webhook off and a configuration without caBundle: no restart (it would serve nothing)', () => {
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('defaulting.webhook.karpenter.k8s.aws', { caBundle: null })],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: true })],
      pods: [controllerAt('0.37.0')],
    });
    const steps = stepsOf(detect(snapshot)[0]);
    expect(steps.some((s) => s.includes('rollout restart'))).toBe(false);
    expect(
      steps.some((s) => s.includes('kubectl delete mutatingwebhookconfiguration defaulting.webhook.karpenter.k8s.aws')),
    ).toBe(true);
  });

  it('SERVICE_MISSING while a v0.36 controller serves webhooks: no delete, the Service check', () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.k8s.aws')],
      services: [apiServerService],
      pods: [controllerAt('0.36.1', { webhook: true })],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('SERVICE_MISSING');
    expect(stepsOf(f).some((s) => s.includes('kubectl delete'))).toBe(false);
    expect(stepsOf(f)[0]).toMatch(/\nkubectl get service -n kube-system karpenter -o yaml$/);
  });

  it('SERVICE_MISSING with the version unknown: the image check first, the delete only under its condition', () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh')],
      services: [apiServerService],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('SERVICE_MISSING');
    const steps = stepsOf(f);
    expect(steps[0]).toContain("-o jsonpath='{.spec.template.spec.containers[*].image}'");
    const del = steps.findIndex((s) => s.includes('kubectl delete'));
    expect(del).toBeGreaterThan(0);
    expect(steps[del]).toMatch(/^# if the controller is v1\.0 or later, v0\.33–v0\.37 without DISABLE_WEBHOOK=false/);
  });

  it('a Service not seen (its namespace not captured) is no finding without a failure text', () => {
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh', { namespace: 'karpenter' })],
      services: [karpenterService({ namespace: 'kube-system' })],
    });
    expect(detect(snapshot)).toEqual([]);
  });

  it('NO_ENDPOINTS: the only endpoint is not ready (a v0.32 controller down): no delete', () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh')],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: false })],
      pods: [controllerAt('0.32.1')],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('NO_ENDPOINTS');
    expect(stepsOf(f)[0]).toContain('kubectl get endpointslices -n kube-system -l kubernetes.io/service-name=karpenter');
    expect(stepsOf(f).some((s) => s.includes('kubectl delete'))).toBe(false);
  });

  it('NO_ENDPOINTS as the API server resolves it: its EndpointSlice not ready wins over a ready legacy Endpoints', () => {
    // Prepare
    const legacy = {
      apiVersion: 'v1',
      kind: 'Endpoints' as const,
      metadata: { name: 'karpenter', namespace: 'kube-system' },
      subsets: [{ addresses: [{ ip: '10.0.12.34' }], ports: [{ name: 'https-webhook', port: 8443, protocol: 'TCP' }] }],
    };
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh')],
      services: [apiServerService, karpenterService()],
      endpoints: [legacy, slice({ ready: false })],
      pods: [controllerAt('0.32.1')],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('NO_ENDPOINTS');
  });

  it('NO_ENDPOINTS: ready pods serve only http-metrics (#5758): they serve no webhook, so the delete leads', () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh')],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: true, ports: ['http-metrics'] })],
      pods: [controllerAt('0.34.1')],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('NO_ENDPOINTS');
    expect(stepsOf(f)[0]).toContain('serve no port named https-webhook');
    expect(stepsOf(f)[0]).toMatch(/\nkubectl delete validatingwebhookconfiguration validation\.webhook\.karpenter\.sh$/);
  });

  it('CERTIFICATE_INVALID: no caBundle on a served webhook of a v0.37 controller: key names and a restart, no delete', () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('defaulting.webhook.karpenter.k8s.aws', { caBundle: null })],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: true })],
      pods: [controllerAt('0.37.0', { webhook: true })],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('CERTIFICATE_INVALID');
    const steps = stepsOf(f);
    expect(steps[0]).toContain('kubectl get secret -n kube-system karpenter-cert -o go-template=');
    expect(steps.some((s) => s.endsWith('\nkubectl rollout restart deployment -n kube-system karpenter'))).toBe(true);
    expect(steps.some((s) => s.includes('kubectl delete'))).toBe(false);
  });

  it("CERTIFICATE_INVALID from knative's reconciler: secret karpenter-cert is missing ca-cert.pem", () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.config.karpenter.sh')],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: true })],
      pods: [controllerAt('0.37.0', { webhook: true })],
      logs: [
        logLine({
          level: 'ERROR',
          time: '2024-07-08T19:19:38.181Z',
          logger: 'webhook.ConfigMapWebhook',
          message: 'Reconcile error',
          commit: '3a61217',
          'knative.dev/key': 'validation.webhook.config.karpenter.sh',
          error: 'secret "karpenter-cert" is missing "ca-cert.pem" key',
        }),
      ],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('CERTIFICATE_INVALID');
    // No rules: it refuses no write Karpenter makes.
    expect(f?.severity).toBe('warning');
  });

  it('UNKNOWN: the text gives a cause none of the others (#4554, Address is not allowed), quoted', () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('defaulting.webhook.karpenter.k8s.aws', { namespace: 'karpenter' })],
      services: [apiServerService, karpenterService({ namespace: 'karpenter' })],
      endpoints: [slice({ ready: true, namespace: 'karpenter' })],
      pods: [controllerAt('0.30.0', { namespace: 'karpenter' })],
      logs: [
        refusedLog(
          'Internal error occurred: failed calling webhook "defaulting.webhook.karpenter.k8s.aws": failed to call webhook: Post "https://karpenter.karpenter.svc:8443/default/karpenter.k8s.aws?timeout=10s": Address is not allowed',
        ),
      ],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('Address is not allowed');
    expect(stepsOf(f).some((s) => s.includes('kubectl delete'))).toBe(false);
  });

  it('from the log alone (configurations not captured): the cause from the text, the configuration confirmed first', () => {
    // Prepare
    const snapshot = snapshotOf({ logs: [refusedLog(PORT_GONE)] });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.resource).toEqual({ kind: 'ValidatingWebhookConfiguration', name: 'validation.webhook.karpenter.sh' });
    expect(f?.cause?.code).toBe('SERVICE_MISSING');
    expect(f?.severity).toBe('critical');
    expect(stepsOf(f)[0]).toMatch(/\nkubectl get validatingwebhookconfiguration validation\.webhook\.karpenter\.sh -o yaml$/);
  });

  it('from the log of a v1.0.1 controller alone: stale, confirmed then deleted', () => {
    // Prepare
    const snapshot = snapshotOf({ logs: [refusedLog(REJECTED_V1)], pods: [controllerAt('1.0.1')] });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('STALE_AFTER_V1_UPGRADE');
    expect(stepsOf(f)[1]).toMatch(/\nkubectl delete validatingwebhookconfiguration validation\.webhook\.karpenter\.sh$/);
  });

  it('a failure text for a webhook the captured configurations no longer list is over: no finding', () => {
    const snapshot = snapshotOf({ webhookConfigurations: [], logs: [refusedLog(PORT_GONE)] });
    expect(detect(snapshot)).toEqual([]);
  });

  it("another tool's webhook over karpenter.sh whose Service is gone: reported, never deleted by our steps", () => {
    // Prepare
    const snapshot = snapshotOf({
      webhookConfigurations: [foreignWebhook({ service: 'policy-webhook', namespace: 'policy', groups: ['karpenter.sh'] })],
      services: [apiServerService],
      pods: [controllerAt('1.2.0')],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('SERVICE_MISSING');
    expect(stepsOf(f).some((s) => s.includes('kubectl delete'))).toBe(false);
    expect(stepsOf(f).join('\n')).toContain("is not Karpenter's");
  });

  it("a policy engine's catch-all (`*` groups) is not Karpenter's business, until it refuses a Karpenter write", () => {
    // Prepare: Kyverno's fail-closed catch-all with its Service's pods gone.
    const kyverno = foreignWebhook({
      service: 'kyverno-svc',
      namespace: 'kyverno',
      groups: ['*'],
      name: 'kyverno-resource-validating-webhook-cfg',
      webhook: 'validate.kyverno.svc-fail',
    });
    const quiet = snapshotOf({ webhookConfigurations: [kyverno], services: [apiServerService] });
    const refusedNodeClaim = refusedLog(
      'creating node claim, Internal error occurred: failed calling webhook "validate.kyverno.svc-fail": failed to call webhook: Post "https://kyverno-svc.kyverno.svc:443/validate/fail?timeout=10s": no endpoints available for service "kyverno-svc"',
    );
    const refused = snapshotOf({ webhookConfigurations: [kyverno], logs: [refusedNodeClaim] });
    const logOnly = snapshotOf({ logs: [refusedNodeClaim] });

    // Act
    const [withConfig] = detect(refused);
    const [fromLog] = detect(logOnly);

    // Assert
    expect(detect(quiet)).toEqual([]);
    expect(withConfig?.resource).toEqual({
      kind: 'ValidatingWebhookConfiguration',
      name: 'kyverno-resource-validating-webhook-cfg',
    });
    expect(withConfig?.cause?.code).toBe('NO_ENDPOINTS');
    expect(withConfig?.severity).toBe('critical');
    expect(fromLog?.cause?.code).toBe('NO_ENDPOINTS');
    for (const f of [withConfig, fromLog]) {
      expect(stepsOf(f).some((s) => s.includes('kubectl delete'))).toBe(false);
      expect(stepsOf(f).join('\n')).toContain("is not Karpenter's");
    }
  });

  it("knative's certificate reconciler line alone: a warning, no refused write, no delete (the controller serves it)", () => {
    // Prepare
    const snapshot = snapshotOf({
      logs: [
        logLine({
          level: 'ERROR',
          time: '2024-07-08T19:19:38.181Z',
          logger: 'webhook.ConfigMapWebhook',
          message: 'Reconcile error',
          'knative.dev/key': 'validation.webhook.config.karpenter.sh',
          error: 'secret "karpenter-cert" is missing "ca-cert.pem" key',
        }),
      ],
    });

    // Act
    const [f] = detect(snapshot);

    // Assert
    expect(f?.cause?.code).toBe('CERTIFICATE_INVALID');
    expect(f?.severity).toBe('warning');
    expect(f?.title).not.toContain('refuses');
    expect(f?.cause?.detail).not.toContain('refused a write');
    expect(stepsOf(f).some((s) => s.includes('kubectl delete'))).toBe(false);
    expect(stepsOf(f).some((s) => s.includes('rollout restart'))).toBe(true);
  });

  it("#6879's webhooks and log without the controller's pods: the first check looks where the webhook's Service is", () => {
    // Prepare
    const snapshot = {
      ...snapshotOf({
        webhookConfigurations: FOUR.map((n) => chartWebhook(n)),
        services: [apiServerService, karpenterService()],
        endpoints: [slice({ ready: true })],
      }),
      logs: [refusedLog(REJECTED_V1, { controller: 'nodeclaim.tagging' })],
    };
    const logOnly = snapshotOf({ logs: [refusedLog(PORT_GONE)] });

    // Act
    const [f] = detect(snapshot);
    const [g] = detect(logOnly);

    // Assert
    expect(stepsOf(f)[0]).toMatch(/\nkubectl get deployment -n kube-system karpenter -o jsonpath=/);
    expect(stepsOf(g).join('\n')).toContain('kubectl get deployment -n kube-system karpenter-controller -o jsonpath=');
  });

  it('a v1.0.1 controller with a v0.37.2 pod still running: no delete before the old pod is gone, the old pod named first', () => {
    // Prepare
    const snapshot = {
      ...served('1.0.1'),
      pods: [controllerAt('1.0.1'), controllerAt('0.37.2', { webhook: true, name: 'karpenter-5c7f9d8b6d-q2w9z' })],
      logs: [refusedLog(REJECTED_V1, { controller: 'nodeclaim.tagging' })],
    };
    snapshot.captured.add('logs');

    // Act
    const findings = detect(snapshot);

    // Assert
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(f.cause?.code).not.toBe('STALE_AFTER_V1_UPGRADE');
      const steps = stepsOf(f);
      expect(steps[0]).toContain('pod kube-system/karpenter-5c7f9d8b6d-q2w9z still runs Karpenter v0.37.2');
      const del = steps.filter((s) => s.includes('kubectl delete'));
      expect(del.every((s) => s.startsWith('# once no pod or Deployment runs a Karpenter before v1.0'))).toBe(true);
    }
  });

  it('failurePolicy Ignore: the write goes through, so a warning', () => {
    const snapshot = snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh', { failurePolicy: 'Ignore' })],
      services: [apiServerService],
      pods: [controllerAt('0.36.0')],
    });
    expect(detect(snapshot).map((f) => [f.cause?.code, f.severity])).toEqual([['SERVICE_MISSING', 'warning']]);
  });

  it('a CRD conversion failure is never an admission webhook finding, and the admission failure never a CRD one', () => {
    // Prepare
    const conversion =
      'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.kube-system.svc:8443/?timeout=30s": no service port 8443 found for service "karpenter"';
    const snapshot = {
      ...snapshotOf({ logs: [refusedLog(PORT_GONE)] }),
      gaps: [{ source: 'nodeclaims' as const, error: conversion }],
    };
    const ctx = {
      snapshot,
      index: new SnapshotIndex(snapshot),
      prices: priceBookOf(snapshot),
      settings: DEFAULT_DETECTION,
      now: new Date(T0),
    };

    // Act
    const admission = admissionWebhookBroken.detect(ctx);
    const crdFindings = crdConversionWebhookBroken.detect(ctx);

    // Assert
    expect(admission.map((f) => f.resource.name)).toEqual(['validation.webhook.karpenter.sh']);
    expect(crdFindings.map((f) => f.resource)).toEqual([{ kind: 'CustomResourceDefinition', name: 'nodeclaims.karpenter.sh' }]);
  });
});
