/**
 * The Services whose endpoints a scan reads (src/domain/admission-webhooks.ts, the collector's
 * set) are those of every webhook ADMISSION_WEBHOOK_BROKEN judges: a configuration it judges
 * without the endpoints read would say "no endpoints" about endpoints nobody looked at.
 */
import { describe, expect, it } from 'vitest';
import { karpenterWebhookServices } from '../../../src/domain/admission-webhooks.ts';
import type { WebhookConfiguration } from '../../../src/domain/kube.ts';
import { coversKarpenter, isKarpenterConfiguration } from '../../../src/detectors/admission-webhook-broken/karpenter-webhooks.ts';

function configuration(
  name: string,
  labels: Record<string, string>,
  webhook: string,
  service: string,
  groups: string[],
): WebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name, labels },
    webhooks: [
      {
        name: webhook,
        clientConfig: { service: { name: service, namespace: 'karpenter', port: 8443 } },
        failurePolicy: 'Fail',
        rules: [{ apiGroups: groups, apiVersions: ['*'], operations: ['CREATE'], resources: ['*'] }],
      },
    ],
  };
}

const CONFIGURATIONS: WebhookConfiguration[] = [
  // The chart's, by name and rules.
  configuration('validation.webhook.karpenter.sh', {}, 'validation.webhook.karpenter.sh', 'karpenter', ['karpenter.sh']),
  // The chart's config webhook: rules on core ConfigMaps, found by its name.
  configuration('validation.webhook.config.karpenter.sh', {}, 'validation.webhook.config.karpenter.sh', 'karpenter', ['']),
  // Labelled by Karpenter's chart under a renamed release, rules on ConfigMaps only.
  configuration('config-validation', { 'helm.sh/chart': 'karpenter-0.37.2' }, 'config.example.com', 'kp-karpenter', ['']),
  // Labelled as the controller's.
  configuration('controller-labelled', { 'app.kubernetes.io/name': 'karpenter' }, 'labelled.example.com', 'kp-labelled', ['']),
  // A policy engine's catch-all: not Karpenter's.
  configuration('kyverno-resource-validating-webhook-cfg', {}, 'validate.kyverno.svc-fail', 'kyverno-svc', ['*']),
];

describe('karpenterWebhookServices', () => {
  it("reads the Service of every configuration the finding judges as Karpenter's, labelled ones too, and not a policy engine's catch-all", () => {
    const read = karpenterWebhookServices(CONFIGURATIONS).map((r) => r.name);
    const judged = CONFIGURATIONS.filter((c) => isKarpenterConfiguration(c) || (c.webhooks ?? []).some(coversKarpenter)).flatMap(
      (c) => (c.webhooks ?? []).map((w) => w.clientConfig?.service?.name),
    );

    expect(read).toEqual(['karpenter', 'kp-karpenter', 'kp-labelled']);
    expect(read).toEqual(expect.arrayContaining([...new Set(judged)]));
  });
});
