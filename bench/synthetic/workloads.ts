/** Pods, Deployments, ReplicaSets and Services: the Karpenter controller, DaemonSet pods and workloads. */
import type {
  Condition,
  Deployment,
  OwnerReference,
  Pod,
  PodSpec,
  ReplicaSet,
  Service,
  Toleration,
} from '../../src/domain/kube.ts';
import { KUBE_SUFFIX_ALPHABET } from '../rng.ts';
import { DAY, HOUR, MINUTE, condition, iso, type Generation } from './context.ts';
import type { Fleet } from './fleet.ts';

/**
 * Why a synthetic pod is Pending: `oversized-requests` pods ask for more cpu than any instance type has;
 * `recent` ones are not yet past the 10 min threshold.
 */
export type PendingCause = 'nodepool-limit' | 'nodeclass-not-ready' | 'no-nodepool-match' | 'oversized-requests' | 'recent';

/** The share of pending Deployments per cause, as a repeating pattern. */
const PENDING_PATTERN: readonly PendingCause[] = [
  'nodepool-limit',
  'nodeclass-not-ready',
  'no-nodepool-match',
  'nodepool-limit',
  'oversized-requests',
  'nodeclass-not-ready',
  'nodepool-limit',
  'no-nodepool-match',
  'recent',
  'nodepool-limit',
  'nodeclass-not-ready',
  'no-nodepool-match',
];
const PENDING_GROUP_SIZE = 10;

export interface PendingPod {
  pod: Pod;
  cause: PendingCause;
  /** The NodePool the pod asks for, when it asks for one. */
  nodePool?: string;
}

export interface Workloads {
  pods: Pod[];
  deployments: Deployment[];
  replicaSets: ReplicaSet[];
  services: Service[];
  pending: PendingPod[];
  /** Running workload pods (not DaemonSet or controller pods), for routine events. */
  running: Pod[];
}

const NAMESPACES = [
  'payments',
  'checkout',
  'catalog',
  'search',
  'identity',
  'notifications',
  'analytics',
  'ml-serving',
  'data-ingest',
  'web',
  'api',
  'batch',
  'reporting',
  'media',
  'inventory',
  'shipping',
  'ledger',
  'messaging',
  'observability',
  'platform',
];
const APPS = [
  'api',
  'worker',
  'web',
  'consumer',
  'scheduler',
  'gateway',
  'indexer',
  'renderer',
  'sync',
  'processor',
  'exporter',
  'cache',
];
const CPU_REQUESTS = ['100m', '250m', '500m', '1'];
const MEMORY_REQUESTS = ['128Mi', '256Mi', '512Mi', '1Gi', '2Gi'];
const KARPENTER_LABELS = { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' };
const AWS_NODE_DAEMONSET_UID = '5f1d3c2e-7a41-4b8e-9c0d-2e6f8a1b3c4d';
const DEFAULT_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

export interface WorkloadShape {
  name: string;
  namespace: string;
  app: string;
  hash: string;
  image: string;
  cpu: string;
  memory: string;
  replicas: number;
  labels: Record<string, string>;
  nodeSelector?: Record<string, string>;
  /** Set once the ReplicaSet exists; its pods' owner reference points at it. */
  replicaSetUid?: string;
}

export function buildWorkloads(gen: Generation, fleet: Fleet): Workloads {
  const { options } = gen;
  const out: Workloads = { pods: [], deployments: [], replicaSets: [], services: [], pending: [], running: [] };
  addController(gen, fleet, out);
  // The terminating and idle nodes' pods come later (after-provisioning.ts, third-wave.ts), one per node.
  let runningBudget = options.pods - options.pendingPods - 2 - options.terminatingNodes - options.idleNodesBehindPdbs;
  const allNodes = [...fleet.systemNodes, ...fleet.workerNodes.map((n) => n.name)];
  const daemonPods = Math.min(allNodes.length, runningBudget);
  for (let i = 0; i < daemonPods; i += 1) addDaemonPod(gen, out, allNodes[i] as string);
  runningBudget -= daemonPods;

  let workloadIndex = 0;
  let nodeCursor = 0;
  while (runningBudget > 0) {
    const shape = workloadShape(gen, workloadIndex, Math.min(runningBudget, gen.rng.int(5, 35)));
    workloadIndex += 1;
    addWorkloadObjects(gen, out, shape, shape.replicas);
    for (let r = 0; r < shape.replicas; r += 1) {
      const node = fleet.workerNodes[nodeCursor % Math.max(fleet.workerNodes.length, 1)];
      const nodeName = node?.name ?? (fleet.systemNodes[0] as string);
      nodeCursor += 1;
      const tolerations = node?.pool.taint
        ? [{ key: node.pool.taint.key, operator: 'Exists', effect: node.pool.taint.effect }]
        : [];
      const pod = workloadPod(gen, shape, { nodeName, createdMs: gen.nowMs - gen.rng.int(HOUR, 20 * DAY), tolerations });
      out.pods.push(pod);
      out.running.push(pod);
    }
    runningBudget -= shape.replicas;
  }

  let pendingLeft = options.pendingPods;
  for (let group = 0; pendingLeft > 0; group += 1) {
    const cause = PENDING_PATTERN[group % PENDING_PATTERN.length] as PendingCause;
    const nodePool = pendingNodePool(fleet, cause, group);
    const size = Math.min(pendingLeft, PENDING_GROUP_SIZE);
    const shape = workloadShape(gen, workloadIndex, size);
    workloadIndex += 1;
    if (nodePool) shape.nodeSelector = { 'karpenter.sh/nodepool': nodePool };
    if (cause === 'no-nodepool-match')
      shape.nodeSelector = { 'workload-class': 'hpc', 'node.kubernetes.io/instance-type': 'hpc7a.96xlarge' };
    if (cause === 'oversized-requests') shape.cpu = '48';
    addWorkloadObjects(gen, out, shape, 0);
    for (let r = 0; r < size; r += 1) {
      const createdMs = gen.nowMs - (cause === 'recent' ? gen.rng.int(MINUTE, 8 * MINUTE) : gen.rng.int(15 * MINUTE, 3 * HOUR));
      const pod = workloadPod(gen, shape, {
        createdMs,
        pendingMessage: schedulerMessage(fleet, shape.nodeSelector !== undefined),
      });
      out.pods.push(pod);
      out.pending.push({ pod, cause, ...(nodePool ? { nodePool } : {}) });
    }
    pendingLeft -= size;
  }
  out.services.push(
    service(gen, 'karpenter', 'karpenter', { ...KARPENTER_LABELS }, [
      { name: 'http-metrics', port: 8080, targetPort: 'http-metrics', protocol: 'TCP' },
    ]),
  );
  out.services.push(
    service(gen, 'kube-dns', 'kube-system', { 'k8s-app': 'kube-dns' }, [
      { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, targetPort: 53, protocol: 'TCP' },
      { name: 'metrics', port: 9153, targetPort: 9153, protocol: 'TCP' },
    ]),
  );
  return out;
}

function pendingNodePool(fleet: Fleet, cause: PendingCause, group: number): string | undefined {
  if (cause === 'nodepool-limit') return fleet.pools.find((p) => p.role === 'limited')?.name;
  if (cause !== 'nodeclass-not-ready') return undefined;
  const notReady = fleet.pools.filter((p) => p.role === 'not-ready');
  return notReady[group % Math.max(notReady.length, 1)]?.name;
}

function schedulerMessage(fleet: Fleet, hasSelector: boolean): string {
  const total = fleet.nodes.length;
  const system = fleet.systemNodes.length;
  const taint = `${system} node(s) had untolerated taint {CriticalAddonsOnly: true}`;
  return hasSelector
    ? `0/${total} nodes are available: ${total - system} node(s) didn't match Pod's node affinity/selector, ${taint}. preemption: 0/${total} nodes are available: ${total} Preemption is not helpful for scheduling.`
    : `0/${total} nodes are available: ${total - system} Insufficient cpu, ${taint}. preemption: 0/${total} nodes are available: ${total - system} No preemption victims found for incoming pod, ${system} Preemption is not helpful for scheduling.`;
}

export function workloadShape(gen: Generation, index: number, replicas: number): WorkloadShape {
  const { rng, options } = gen;
  const namespace = rng.pick(NAMESPACES);
  const app = rng.pick(APPS);
  const name = `${app}-${String(index).padStart(4, '0')}`;
  return {
    name,
    namespace,
    app,
    hash: rng.chars(KUBE_SUFFIX_ALPHABET, 10),
    image: `${options.accountId}.dkr.ecr.${options.region}.amazonaws.com/${namespace}/${app}:1.${rng.int(0, 40)}.${rng.int(0, 9)}`,
    cpu: rng.pick(CPU_REQUESTS),
    memory: rng.pick(MEMORY_REQUESTS),
    replicas,
    labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': namespace },
  };
}

function podSpecOf(shape: WorkloadShape, extra: Partial<PodSpec> = {}): PodSpec {
  return {
    schedulerName: 'default-scheduler',
    serviceAccountName: shape.name,
    containers: [
      {
        name: shape.app,
        image: shape.image,
        env: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'PORT', value: '8080' },
        ],
        resources: { requests: { cpu: shape.cpu, memory: shape.memory }, limits: { memory: shape.memory } },
      },
    ],
    ...(shape.nodeSelector ? { nodeSelector: { ...shape.nodeSelector } } : {}),
    ...extra,
  };
}

export function addWorkloadObjects(gen: Generation, out: Workloads, shape: WorkloadShape, ready: number): void {
  const { rng } = gen;
  const createdMs = gen.nowMs - rng.int(2 * DAY, 200 * DAY);
  const deploymentUid = rng.uuid();
  shape.replicaSetUid = rng.uuid();
  const rsName = `${shape.name}-${shape.hash}`;
  const podLabels = { ...shape.labels, 'pod-template-hash': shape.hash };
  out.deployments.push({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: shape.name,
      namespace: shape.namespace,
      uid: deploymentUid,
      resourceVersion: String(rng.int(1_000_000, 99_999_999)),
      creationTimestamp: iso(createdMs),
      labels: { ...shape.labels },
      annotations: { 'deployment.kubernetes.io/revision': String(rng.int(1, 30)) },
    },
    spec: {
      replicas: shape.replicas,
      selector: { matchLabels: { 'app.kubernetes.io/name': shape.name } },
      template: { metadata: { labels: { ...shape.labels } }, spec: podSpecOf(shape) },
    },
    status: {
      replicas: shape.replicas,
      readyReplicas: ready,
      availableReplicas: ready,
      updatedReplicas: shape.replicas,
      ...(ready < shape.replicas ? { unavailableReplicas: shape.replicas - ready } : {}),
      conditions: [
        condition('Available', ready === shape.replicas ? 'True' : 'False', createdMs, {
          reason: ready === shape.replicas ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
        }),
        condition('Progressing', 'True', createdMs, { reason: 'NewReplicaSetAvailable' }),
      ],
    },
  });
  out.replicaSets.push({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: rsName,
      namespace: shape.namespace,
      uid: shape.replicaSetUid,
      creationTimestamp: iso(createdMs),
      labels: podLabels,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: shape.name, uid: deploymentUid, controller: true }],
    },
    spec: {
      replicas: shape.replicas,
      selector: { matchLabels: { 'app.kubernetes.io/name': shape.name, 'pod-template-hash': shape.hash } },
      template: { metadata: { labels: { ...podLabels } }, spec: podSpecOf(shape) },
    },
    status: { replicas: shape.replicas, readyReplicas: ready },
  });
  if (shape.namespace !== 'karpenter') {
    out.services.push(
      service(gen, shape.name, shape.namespace, { 'app.kubernetes.io/name': shape.name }, [
        { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
      ]),
    );
  }
}

export function workloadPod(
  gen: Generation,
  shape: WorkloadShape,
  at: { createdMs: number; nodeName?: string; tolerations?: Toleration[]; pendingMessage?: string },
): Pod {
  const { rng } = gen;
  const rsName = `${shape.name}-${shape.hash}`;
  const name = rng.unique(gen.seen.pods, () => `${rsName}-${rng.chars(KUBE_SUFFIX_ALPHABET, 5)}`);
  const owner: OwnerReference = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    name: rsName,
    uid: shape.replicaSetUid ?? '',
    controller: true,
  };
  const spec = podSpecOf(shape, {
    ...(at.nodeName ? { nodeName: at.nodeName } : {}),
    tolerations: [...(at.tolerations ?? []), ...DEFAULT_TOLERATIONS.map((t) => ({ ...t }))],
  });
  return podOf(gen, {
    name,
    namespace: shape.namespace,
    labels: { ...shape.labels, 'pod-template-hash': shape.hash },
    owner,
    spec,
    ...at,
  });
}

function podOf(
  gen: Generation,
  input: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    owner: OwnerReference;
    spec: PodSpec;
    createdMs: number;
    pendingMessage?: string;
  },
): Pod {
  const scheduled = input.spec.nodeName !== undefined;
  const created = input.createdMs;
  const conditions: Condition[] = scheduled
    ? [
        condition('PodReadyToStartContainers', 'True', created + 4_000),
        condition('Initialized', 'True', created + 2_000),
        condition('Ready', 'True', created + 9_000),
        condition('ContainersReady', 'True', created + 9_000),
        condition('PodScheduled', 'True', created + 1_000),
      ]
    : [
        condition('PodScheduled', 'False', created + 1_000, {
          reason: 'Unschedulable',
          message: input.pendingMessage ?? 'no nodes available to schedule pods',
        }),
      ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      uid: gen.rng.uuid(),
      resourceVersion: String(gen.rng.int(1_000_000, 99_999_999)),
      creationTimestamp: iso(created),
      labels: input.labels,
      ownerReferences: [input.owner],
    },
    spec: input.spec,
    status: scheduled
      ? {
          phase: 'Running',
          conditions,
          startTime: iso(created + 1_000),
          containerStatuses: (input.spec.containers ?? []).map((c) => ({
            name: c.name,
            ready: true,
            restartCount: gen.rng.int(0, 2),
          })),
        }
      : { phase: 'Pending', conditions },
  };
}

function addController(gen: Generation, fleet: Fleet, out: Workloads): void {
  const { rng } = gen;
  const hash = rng.chars(KUBE_SUFFIX_ALPHABET, 10);
  const shape: WorkloadShape = {
    name: 'karpenter',
    namespace: 'karpenter',
    app: 'controller',
    hash,
    image: 'public.ecr.aws/karpenter/controller:1.8.1@sha256:' + rng.hex(64),
    cpu: '1',
    memory: '1Gi',
    replicas: 2,
    labels: { ...KARPENTER_LABELS },
  };
  addWorkloadObjects(gen, out, shape, 2);
  const controllerSpec: Partial<PodSpec> = {
    serviceAccountName: 'karpenter',
    priorityClassName: 'system-cluster-critical',
    tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, ...DEFAULT_TOLERATIONS.map((t) => ({ ...t }))],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }],
        },
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { ...KARPENTER_LABELS } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    },
  };
  const rsName = `karpenter-${hash}`;
  for (let i = 0; i < 2; i += 1) {
    const nodeName = fleet.systemNodes[i % fleet.systemNodes.length] as string;
    out.pods.push(
      podOf(gen, {
        name: rng.unique(gen.seen.pods, () => `${rsName}-${rng.chars(KUBE_SUFFIX_ALPHABET, 5)}`),
        namespace: 'karpenter',
        labels: { ...KARPENTER_LABELS, 'pod-template-hash': hash },
        owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rsName, uid: shape.replicaSetUid ?? '', controller: true },
        spec: podSpecOf(shape, { ...controllerSpec, nodeName }),
        createdMs: gen.nowMs - rng.int(DAY, 10 * DAY),
      }),
    );
  }
}

function addDaemonPod(gen: Generation, out: Workloads, nodeName: string): void {
  const { rng, options } = gen;
  out.pods.push(
    podOf(gen, {
      name: rng.unique(gen.seen.pods, () => `aws-node-${rng.chars(KUBE_SUFFIX_ALPHABET, 5)}`),
      namespace: 'kube-system',
      labels: { 'k8s-app': 'aws-node', 'app.kubernetes.io/name': 'aws-node', 'controller-revision-hash': '5d8c7b9f4d' },
      owner: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'aws-node', uid: AWS_NODE_DAEMONSET_UID, controller: true },
      spec: {
        schedulerName: 'default-scheduler',
        serviceAccountName: 'aws-node',
        priorityClassName: 'system-node-critical',
        nodeName,
        tolerations: [{ operator: 'Exists' }],
        containers: [
          {
            name: 'aws-node',
            image: `602401143452.dkr.ecr.${options.region}.amazonaws.com/amazon-k8s-cni:v1.20.4-eksbuild.1`,
            resources: { requests: { cpu: '25m' } },
          },
        ],
      },
      createdMs: gen.nowMs - rng.int(HOUR, 30 * DAY),
    }),
  );
}

function service(
  gen: Generation,
  name: string,
  namespace: string,
  selector: Record<string, string>,
  ports: NonNullable<Service['spec']>['ports'],
): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, uid: gen.rng.uuid(), creationTimestamp: iso(gen.nowMs - 100 * DAY), labels: { ...selector } },
    spec: { type: 'ClusterIP', selector, ports },
  };
}
