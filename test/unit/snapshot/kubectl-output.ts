/**
 * Objects as a real cluster returns them: server-side apply bookkeeping (`managedFields`),
 * `kubectl apply`'s copy of the manifest, container statuses, init and ephemeral containers.
 * The loader tests use them to check what users really capture.
 */
import { stringify } from 'yaml';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** `kubectl get pod -o json` of a Karpenter controller replica stuck Pending. */
export function realKarpenterPod(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      annotations: {
        'kubectl.kubernetes.io/restartedAt': '2025-01-08T10:00:00Z',
        [LAST_APPLIED]: `${JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'karpenter' }, spec: { containers: [{ name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.1.1' }] } })}\n`,
      },
      creationTimestamp: '2025-01-08T10:00:00Z',
      generateName: 'karpenter-5697769d6c-',
      labels: {
        'app.kubernetes.io/instance': 'karpenter',
        'app.kubernetes.io/name': 'karpenter',
        'pod-template-hash': '5697769d6c',
      },
      managedFields: [
        {
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:generateName': {},
              'f:labels': { '.': {}, 'f:app.kubernetes.io/instance': {}, 'f:app.kubernetes.io/name': {} },
              'f:ownerReferences': { '.': {}, 'k:{"uid":"2b0e5d53-1b7b-4a3c-9d3e-0f8a6c2e9b11"}': {} },
            },
            'f:spec': {
              'f:containers': {
                'k:{"name":"controller"}': {
                  '.': {},
                  'f:env': { '.': {}, 'k:{"name":"CLUSTER_NAME"}': { '.': {}, 'f:name': {} } },
                },
              },
            },
          },
          manager: 'kube-controller-manager',
          operation: 'Update',
          time: '2025-01-08T10:00:00Z',
        },
        {
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"PodScheduled"}': { '.': {}, 'f:message': {} } } } },
          manager: 'kube-scheduler',
          operation: 'Update',
          subresource: 'status',
          time: '2025-01-08T10:00:00Z',
        },
      ],
      name,
      namespace: 'karpenter',
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          blockOwnerDeletion: true,
          controller: true,
          kind: 'ReplicaSet',
          name: 'karpenter-5697769d6c',
          uid: '2b0e5d53-1b7b-4a3c-9d3e-0f8a6c2e9b11',
        },
      ],
      resourceVersion: '48213',
      uid: '6f1c3b2a-8e4d-4f5a-b6c7-d8e9f0a1b2c3',
    },
    spec: {
      containers: [
        {
          env: [
            { name: 'CLUSTER_NAME', value: 'pattern-infra-eks-dev' },
            { name: 'KUBERNETES_MIN_VERSION', value: '1.19.0-0' },
          ],
          image: 'public.ecr.aws/karpenter/controller:1.1.1',
          name: 'controller',
          ports: [{ containerPort: 8000, name: 'http-metrics', protocol: 'TCP' }],
          resources: {},
        },
      ],
      initContainers: [{ name: 'wait-for-webhook', image: 'busybox:1.36' }],
      ephemeralContainers: [{ name: 'debugger-x7k2p', image: 'busybox:1.36', targetContainerName: 'controller' }],
      priorityClassName: 'system-cluster-critical',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'karpenter',
      tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }],
    },
    status: {
      conditions: [
        {
          lastProbeTime: null,
          lastTransitionTime: '2025-01-08T10:00:00Z',
          message: 'no nodes available to schedule pods',
          reason: 'Unschedulable',
          status: 'False',
          type: 'PodScheduled',
        },
      ],
      initContainerStatuses: [
        { name: 'wait-for-webhook', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
      ],
      containerStatuses: [
        {
          image: 'public.ecr.aws/karpenter/controller:1.1.1',
          imageID: '',
          lastState: {},
          name: 'controller',
          ready: false,
          restartCount: 0,
          started: false,
          state: { waiting: { reason: 'ContainerCreating' } },
        },
      ],
      phase: 'Pending',
      qosClass: 'BestEffort',
    },
  };
}

/** `kubectl get ... -o json`: a List, indented by four spaces. */
export function kubectlJson(items: readonly object[]): string {
  return `${JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, 4)}\n`;
}

/** `kubectl get ... -o yaml`: go-yaml's style, sequences not indented under their key, strings quoted only when needed. */
export function kubectlYaml(items: readonly object[]): string {
  // Through JSON first: objects a factory shares would come out as YAML aliases, which kubectl never prints.
  const list: unknown = JSON.parse(JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }));
  return stringify(list, { indentSeq: false, lineWidth: 0 });
}

/** The same object without what the loader drops, as the snapshot should hold it. */
export function withoutUnusedFields(object: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(object);
  const metadata = copy.metadata as Record<string, unknown>;
  delete metadata.managedFields;
  if (metadata.annotations) delete (metadata.annotations as Record<string, string>)[LAST_APPLIED];
  return copy;
}
