/**
 * Karpenter's admission webhook configurations as its chart (v0.37) renders them, their Service
 * and its endpoints, and the controller at a given version: the pieces the tests and cause
 * scenarios of ADMISSION_WEBHOOK_BROKEN put together.
 */
import type { Pod, Service, ServiceEndpoints, WebhookConfiguration } from '../../../../src/domain/kube.ts';
import type { AdmissionWebhook } from '../../../../src/detectors/admission-webhook-broken/karpenter-webhooks.ts';

type WebhookRule = NonNullable<AdmissionWebhook['rules']>[number];
type EndpointSlice = Extract<ServiceEndpoints, { kind?: 'EndpointSlice' }>;
import { karpenterPod } from '../../../factories/kube.ts';

/** A CA certificate's base64 as knative writes it (shortened: only its presence is read). */
const CA = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t';

const v1beta1 = (group: string, resources: string[]): WebhookRule => ({
  apiGroups: [group],
  apiVersions: ['v1beta1'],
  operations: ['CREATE', 'UPDATE'],
  resources,
  scope: '*',
});

/** aws@v0.37.0 charts/karpenter/templates/webhooks-core.yaml and webhooks.yaml, as rendered into `namespace`. */
export function chartWebhook(
  name: string,
  input: {
    namespace?: string;
    service?: string;
    port?: number;
    caBundle?: string | null;
    failurePolicy?: string;
    chart?: string;
  } = {},
): WebhookConfiguration {
  const mutating = name.startsWith('defaulting.');
  const rules = name.endsWith('karpenter.k8s.aws')
    ? [v1beta1('karpenter.k8s.aws', ['ec2nodeclasses', 'ec2nodeclasses/status'])]
    : name === 'validation.webhook.karpenter.sh'
      ? [v1beta1('karpenter.sh', ['nodeclaims', 'nodeclaims/status']), v1beta1('karpenter.sh', ['nodepools', 'nodepools/status'])]
      : undefined;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: { 'helm.sh/chart': input.chart ?? 'karpenter-0.37.2', 'app.kubernetes.io/name': 'karpenter' },
    },
    webhooks: [
      {
        name,
        clientConfig: {
          service: { name: input.service ?? 'karpenter', namespace: input.namespace ?? 'kube-system', port: input.port ?? 8443 },
          ...(input.caBundle === null ? {} : { caBundle: input.caBundle ?? CA }),
        },
        failurePolicy: input.failurePolicy ?? 'Fail',
        ...(rules ? { rules } : {}),
      },
    ],
  };
}

/** A policy engine's webhook that names Karpenter's group: not Karpenter's, never to be deleted by our steps. */
export function foreignWebhook(input: {
  service: string;
  namespace: string;
  groups: string[];
  name?: string;
  webhook?: string;
}): WebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: input.name ?? 'policy-validator', uid: 'uid-policy' },
    webhooks: [
      {
        name: input.webhook ?? 'validate.policy.example.com',
        clientConfig: { service: { name: input.service, namespace: input.namespace, port: 443 }, caBundle: CA },
        failurePolicy: 'Fail',
        rules: [{ apiGroups: input.groups, apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*'] }],
      },
    ],
  };
}

/** The chart's Service: `http-metrics` 8000, and `https-webhook` 8443 only with webhook.enabled. */
export function karpenterService(input: { namespace?: string; name?: string; webhookPort?: boolean } = {}): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: input.name ?? 'karpenter',
      namespace: input.namespace ?? 'kube-system',
      labels: { 'app.kubernetes.io/name': 'karpenter' },
    },
    spec: {
      ports: [
        { name: 'http-metrics', port: 8000, targetPort: 'http-metrics', protocol: 'TCP' },
        ...(input.webhookPort === false
          ? []
          : [{ name: 'https-webhook', port: 8443, targetPort: 'https-webhook', protocol: 'TCP' }]),
      ],
    },
  };
}

/** `default/kubernetes`: in every cluster-wide Service capture. */
export const apiServerService: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'kubernetes', namespace: 'default' },
  spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
};

/** The EndpointSlice of Service `service`: one endpoint, ready or not, on the given port names. */
export function slice(input: { service?: string; namespace?: string; ready: boolean; ports?: string[] }): EndpointSlice {
  const service = input.service ?? 'karpenter';
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${service}-x7k2p`,
      namespace: input.namespace ?? 'kube-system',
      labels: { 'kubernetes.io/service-name': service },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.12.34'], conditions: { ready: input.ready, serving: input.ready, terminating: false } }],
    ports: (input.ports ?? ['http-metrics', 'https-webhook']).map((name) => ({
      name,
      port: name === 'https-webhook' ? 8443 : 8000,
      protocol: 'TCP',
    })),
  };
}

/**
 * The controller's pod at `version` (`public.ecr.aws/karpenter/controller:<version>`), Running and
 * Ready. `webhook`: the chart's webhook.enabled (aws@v0.33.0–v0.37.0 charts/karpenter/templates/deployment.yaml
 * then writes WEBHOOK_PORT, WEBHOOK_METRICS_PORT, DISABLE_WEBHOOK "false" and the https-webhook port;
 * without it, none of them). `disableWebhook`: a DISABLE_WEBHOOK the user set through controller.env.
 */
export function controllerAt(
  version: string,
  input: { namespace?: string; name?: string; webhook?: boolean; disableWebhook?: boolean } = {},
): Pod {
  const env = [
    ...(input.webhook
      ? [
          { name: 'WEBHOOK_PORT', value: '8443' },
          { name: 'WEBHOOK_METRICS_PORT', value: '8001' },
          { name: 'DISABLE_WEBHOOK', value: 'false' },
        ]
      : []),
    ...(input.disableWebhook === undefined ? [] : [{ name: 'DISABLE_WEBHOOK', value: String(input.disableWebhook) }]),
  ];
  return karpenterPod({
    name: input.name ?? 'karpenter-6f9d8b7c5d-x8k2p',
    namespace: input.namespace ?? 'kube-system',
    nodeName: 'ip-10-0-1-10.ec2.internal',
    spec: {
      containers: [
        {
          name: 'controller',
          image: `public.ecr.aws/karpenter/controller:${version}`,
          ...(env.length ? { env } : {}),
          ...(input.webhook
            ? {
                ports: [
                  { name: 'http-metrics', containerPort: 8000, protocol: 'TCP' },
                  { name: 'webhook-metrics', containerPort: 8001, protocol: 'TCP' },
                  { name: 'https-webhook', containerPort: 8443, protocol: 'TCP' },
                  { name: 'http', containerPort: 8081, protocol: 'TCP' },
                ],
              }
            : {}),
        },
      ],
    },
  });
}
