/**
 * Record factories for Kubernetes objects. Each takes the few fields a test cares about and
 * fills the rest with realistic defaults (shapes as `kubectl get -o json` prints them).
 * Add new factories here with small, additive edits.
 */
import type {
  Condition,
  ConfigMap,
  ContainerStatus,
  CustomResourceDefinition,
  Deployment,
  KubeEvent,
  Node,
  Pod,
  PodDisruptionBudget,
  PodSpec,
  Service,
  ServiceEndpoints,
  Taint,
  VolumeAttachment,
  WebhookConfiguration,
} from '../../src/domain/kube.ts';

export const T0 = '2026-01-01T00:00:00Z';
/** `minutesAfter(T0, 12)` → ISO string 12 minutes after T0. */
export function minutesAfter(iso: string, minutes: number): string {
  return new Date(Date.parse(iso) + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function condition(type: string, status: string, extra: Partial<Condition> = {}): Condition {
  return { type, status, lastTransitionTime: T0, ...extra };
}

export interface PodInput {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  phase?: string;
  createdAt?: string;
  nodeName?: string;
  ready?: boolean;
  ownerReplicaSet?: string;
  ownerKind?: string;
  spec?: Partial<PodSpec>;
  /** PodScheduled=False/Unschedulable with this message. */
  unschedulableMessage?: string;
  containerStatuses?: ContainerStatus[];
}

export function pod(input: PodInput): Pod {
  const phase = input.phase ?? (input.nodeName ? 'Running' : 'Pending');
  const createdAt = input.createdAt ?? T0;
  const conditions: Condition[] = [];
  if (phase === 'Pending' && !input.nodeName) {
    conditions.push(
      condition('PodScheduled', 'False', {
        reason: 'Unschedulable',
        message: input.unschedulableMessage ?? '0/0 nodes are available: no nodes available to schedule pods.',
        lastTransitionTime: createdAt,
      }),
    );
  } else {
    conditions.push(condition('PodScheduled', 'True', { lastTransitionTime: createdAt }));
    conditions.push(condition('Ready', input.ready === false ? 'False' : 'True', { lastTransitionTime: createdAt }));
  }
  const owner = input.ownerReplicaSet
    ? [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: input.ownerReplicaSet,
          uid: `uid-${input.ownerReplicaSet}`,
          controller: true,
        },
      ]
    : input.ownerKind
      ? [
          {
            apiVersion: 'apps/v1',
            kind: input.ownerKind,
            name: `${input.name}-owner`,
            uid: `uid-${input.name}-owner`,
            controller: true,
          },
        ]
      : undefined;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: input.name,
      namespace: input.namespace ?? 'default',
      uid: `uid-${input.name}`,
      creationTimestamp: createdAt,
      labels: input.labels ?? {},
      ...(owner ? { ownerReferences: owner } : {}),
    },
    spec: {
      schedulerName: 'default-scheduler',
      containers: [
        {
          name: 'main',
          image: 'public.ecr.aws/docker/library/nginx:1.27',
          resources: { requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
      ...(input.nodeName ? { nodeName: input.nodeName } : {}),
      ...input.spec,
    },
    status: {
      phase,
      conditions,
      ...(input.nodeName ? { startTime: createdAt } : {}),
      ...(input.containerStatuses ? { containerStatuses: input.containerStatuses } : {}),
    },
  };
}

/**
 * A container's status as the kubelet reports it: `restarts`, waiting (`CrashLoopBackOff`) or
 * running, and the last run's termination (`OOMKilled`, exit code 137, when it ended).
 */
export function containerStatus(
  input: {
    name?: string;
    restarts?: number;
    waiting?: string;
    lastTerminated?: { reason?: string; exitCode?: number; finishedAt?: string; message?: string };
  } = {},
): ContainerStatus {
  const waiting = input.waiting !== undefined;
  return {
    name: input.name ?? 'controller',
    ready: !waiting,
    restartCount: input.restarts ?? 0,
    state: waiting
      ? { waiting: { reason: input.waiting, message: 'back-off 5m0s restarting failed container=controller' } }
      : { running: { startedAt: input.lastTerminated?.finishedAt ?? T0 } },
    ...(input.lastTerminated ? { lastState: { terminated: { startedAt: T0, ...input.lastTerminated } } } : {}),
  };
}

const KARPENTER_LABELS = { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' };

/** A Karpenter controller pod of Deployment `karpenter` in `namespace`. */
export function karpenterPod(input: Omit<PodInput, 'labels' | 'namespace'> & { namespace?: string }): Pod {
  return pod({
    namespace: 'karpenter',
    ownerReplicaSet: 'karpenter-5697769d6c',
    ...input,
    labels: { ...KARPENTER_LABELS, 'pod-template-hash': '5697769d6c' },
  });
}

export function deployment(input: {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  replicas?: number;
  readyReplicas?: number;
  restartedAt?: string;
  spec?: Partial<PodSpec>;
}): Deployment {
  const labels = input.labels ?? {};
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: input.name,
      namespace: input.namespace ?? 'default',
      uid: `uid-${input.name}`,
      resourceVersion: '1000',
      creationTimestamp: T0,
      labels,
    },
    spec: {
      replicas: input.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels,
          ...(input.restartedAt ? { annotations: { 'kubectl.kubernetes.io/restartedAt': input.restartedAt } } : {}),
        },
        spec: { schedulerName: 'default-scheduler', containers: [{ name: 'main' }], ...input.spec },
      },
    },
    status: { replicas: input.replicas ?? 1, readyReplicas: input.readyReplicas ?? 0 },
  };
}

export function karpenterDeployment(
  input: { namespace?: string; replicas?: number; readyReplicas?: number; restartedAt?: string; spec?: Partial<PodSpec> } = {},
): Deployment {
  return deployment({ name: 'karpenter', namespace: 'karpenter', labels: KARPENTER_LABELS, replicas: 2, ...input });
}

export function node(input: {
  name: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  ready?: boolean;
  providerID?: string;
  createdAt?: string;
  allocatable?: Record<string, string>;
  /** The kubelet's words when `ready` is false (`KubeletNotReady`, `container runtime network not ready: ...`). */
  notReady?: { reason?: string; message?: string };
}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: input.name,
      uid: `uid-${input.name}`,
      creationTimestamp: input.createdAt ?? T0,
      labels: {
        'kubernetes.io/hostname': input.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        ...input.labels,
      },
    },
    spec: { ...(input.providerID ? { providerID: input.providerID } : {}), ...(input.taints ? { taints: input.taints } : {}) },
    status: {
      conditions: [
        condition('Ready', input.ready === false ? 'False' : 'True', input.ready === false ? (input.notReady ?? {}) : {}),
      ],
      allocatable: input.allocatable ?? { cpu: '1930m', memory: '3388304Ki', pods: '17' },
    },
  };
}

export function event(input: {
  kind: string;
  name: string;
  namespace?: string;
  reason: string;
  message: string;
  type?: string;
  source?: string;
  lastTime?: string;
  firstTime?: string;
  count?: number;
}): KubeEvent {
  return {
    regarding: { kind: input.kind, name: input.name, ...(input.namespace ? { namespace: input.namespace } : {}) },
    ...(input.namespace ? { namespace: input.namespace } : {}),
    reason: input.reason,
    message: input.message,
    type: input.type ?? 'Warning',
    source: input.source ?? 'default-scheduler',
    firstTime: input.firstTime ?? T0,
    lastTime: input.lastTime ?? input.firstTime ?? T0,
    count: input.count ?? 1,
  };
}

export function awsAuth(mapRoles: string): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'aws-auth', namespace: 'kube-system' },
    data: { mapRoles },
  };
}

export function service(input: { name: string; namespace: string; ports: number[] }): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: input.name, namespace: input.namespace },
    spec: { type: 'ClusterIP', ports: input.ports.map((p) => ({ name: `p${p}`, port: p, protocol: 'TCP', targetPort: p })) },
  };
}

/** A policy/v1 PodDisruptionBudget selecting `matchLabels`, its status as the disruption controller writes it. */
export function pdb(input: {
  name: string;
  namespace?: string;
  matchLabels: Record<string, string>;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
}): PodDisruptionBudget {
  const expectedPods = input.expectedPods ?? 2;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: input.name, namespace: input.namespace ?? 'default', uid: `uid-pdb-${input.name}`, creationTimestamp: T0 },
    spec: {
      ...(input.maxUnavailable === undefined
        ? { minAvailable: input.minAvailable ?? 1 }
        : { maxUnavailable: input.maxUnavailable }),
      selector: { matchLabels: input.matchLabels },
    },
    status: {
      disruptionsAllowed: input.disruptionsAllowed ?? 1,
      currentHealthy: input.currentHealthy ?? expectedPods,
      desiredHealthy: input.desiredHealthy ?? expectedPods - 1,
      expectedPods,
    },
  };
}

/** A storage.k8s.io/v1 VolumeAttachment of an EBS volume to a node. */
export function volumeAttachment(input: {
  name: string;
  nodeName: string;
  persistentVolumeName: string;
  attached?: boolean;
  deletionTimestamp?: string;
}): VolumeAttachment {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: {
      name: input.name,
      uid: `uid-va-${input.name}`,
      creationTimestamp: T0,
      ...(input.deletionTimestamp
        ? { deletionTimestamp: input.deletionTimestamp, finalizers: ['external-attacher/ebs-csi-aws-com'] }
        : {}),
    },
    spec: { attacher: 'ebs.csi.aws.com', nodeName: input.nodeName, source: { persistentVolumeName: input.persistentVolumeName } },
    status: { attached: input.attached ?? true },
  };
}

export function crd(input: {
  plural: string;
  group: string;
  kind: string;
  webhook?: { name: string; namespace: string; port?: number };
}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${input.plural}.${input.group}` },
    spec: {
      group: input.group,
      names: { kind: input.kind, plural: input.plural },
      versions: [{ name: 'v1', served: true, storage: true }],
      conversion: input.webhook
        ? {
            strategy: 'Webhook',
            webhook: {
              conversionReviewVersions: ['v1beta1', 'v1'],
              clientConfig: {
                service: {
                  name: input.webhook.name,
                  namespace: input.webhook.namespace,
                  ...(input.webhook.port ? { port: input.webhook.port } : {}),
                },
              },
            },
          }
        : { strategy: 'None' },
    },
  };
}

/** The object with these `metadata.annotations` added (e.g. the sentinel's restart history). */
export function withAnnotations<T extends { metadata?: { annotations?: Record<string, string> } }>(
  object: T,
  annotations: Record<string, string>,
): T {
  return { ...object, metadata: { ...object.metadata, annotations: { ...object.metadata?.annotations, ...annotations } } };
}

/**
 * A Validating (default) or MutatingWebhookConfiguration with one webhook on Karpenter's Service,
 * rules on `group` v1beta1 CREATE/UPDATE as chart 0.37 renders them, failurePolicy Fail.
 */
export function admissionWebhookConfiguration(input: {
  name: string;
  kind?: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
  service?: { name: string; namespace: string; port?: number; path?: string };
  group?: string;
  resources?: string[];
  caBundle?: string;
}): WebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: input.kind ?? 'ValidatingWebhookConfiguration',
    metadata: { name: input.name, uid: `uid-${input.name}`, creationTimestamp: T0 },
    webhooks: [
      {
        name: input.name,
        clientConfig: {
          service: input.service ?? { name: 'karpenter', namespace: 'karpenter', port: 8443 },
          ...(input.caBundle ? { caBundle: input.caBundle } : {}),
        },
        failurePolicy: 'Fail',
        rules: [
          {
            apiGroups: [input.group ?? 'karpenter.sh'],
            apiVersions: ['v1beta1'],
            operations: ['CREATE', 'UPDATE'],
            resources: input.resources ?? ['nodepools', 'nodepools/status'],
          },
        ],
      },
    ],
  };
}

/** The discovery.k8s.io/v1 EndpointSlice of a Service: one address, ready or not, on the named ports. */
export function endpointSlice(input: {
  service: string;
  namespace: string;
  ports: { name: string; port: number }[];
  ready?: boolean;
  address?: string;
}): ServiceEndpoints {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${input.service}-x7k2p`,
      namespace: input.namespace,
      labels: { 'kubernetes.io/service-name': input.service },
      creationTimestamp: T0,
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [input.address ?? '10.0.12.40'], conditions: { ready: input.ready ?? true } }],
    ports: input.ports.map((p) => ({ ...p, protocol: 'TCP' })),
  };
}
