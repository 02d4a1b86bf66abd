/**
 * Third-wave problems planted on the generated fleet (issue 23), at scale: idle nodes that
 * Karpenter wants to consolidate but a PodDisruptionBudget allowing no disruption holds, and nodes
 * that went NotReady after they had initialised, with pods stuck Terminating on them. Drawn from a
 * random sequence of their own, on nodes the second wave left alone, so the rest stays as generated.
 * Strings are Kubernetes' and Karpenter's own (docs/findings.md quotes them).
 */
import type { Condition, KubeEvent, Node, NodeClaim, Pod, PodDisruptionBudget, Taint } from '../../src/domain/kube.ts';
import { isConditionTrue } from '../../src/domain/kube-helpers.ts';
import { DAY, HOUR, MINUTE, condition, iso, type Generation } from './context.ts';
import type { Fleet, PoolPlan } from './fleet.ts';
import { addWorkloadObjects, workloadPod, workloadShape, type Workloads } from './workloads.ts';

export interface ThirdWave {
  /** The idle nodes' PDBs (disruptionsAllowed 0). */
  pdbs: PodDisruptionBudget[];
  /** Karpenter's DisruptionBlocked events about the idle nodes. */
  events: KubeEvent[];
}

interface Worker {
  node: Node;
  claim: NodeClaim;
  pool: PoolPlan;
}

/** The kubelet stopped reporting (Ready Unknown), as the node lifecycle controller writes it. */
const STOPPED_POSTING = { reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' };
/** The kubelet reports not ready (Ready False): the CNI never came back after a restart. */
const NETWORK_NOT_READY = {
  reason: 'KubeletNotReady',
  message:
    'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
};
/** The taint manager's eviction of a pod on a NotReady node, once its 300 s toleration ran out. */
const EVICTED_BY_TAINT: Omit<Condition, 'lastTransitionTime'> = {
  type: 'DisruptionTarget',
  status: 'True',
  reason: 'DeletionByTaintManager',
  message: 'Taint manager: deleting due to NoExecute taint',
};

export function plantThirdWave(gen: Generation, fleet: Fleet, workloads: Workloads): ThirdWave {
  const { options } = gen;
  const nodes = new Map(fleet.nodes.map((n) => [n.metadata?.name, n]));
  const claims = new Map(fleet.nodeClaims.map((c) => [c.status?.nodeName, c]));
  // Nodes the second wave planted in (terminating, drifted, not initialised) are not candidates.
  const untouched = fleet.workerNodes.flatMap(({ name, pool }) => {
    const node = nodes.get(name);
    const claim = claims.get(name);
    const planted =
      !node ||
      !claim ||
      node.metadata?.deletionTimestamp !== undefined ||
      claim.metadata?.deletionTimestamp !== undefined ||
      isConditionTrue(claim, 'Drifted') ||
      !isConditionTrue(claim, 'Initialized');
    return planted ? [] : [{ node, claim, pool } satisfies Worker];
  });
  const idleCount = options.idleNodesBehindPdbs;
  const wanted = idleCount + options.notReadyNodes;
  if (untouched.length < wanted)
    throw new RangeError(`synthetic cluster: the third wave needs ${wanted} worker nodes, only ${untouched.length} fit`);
  // Spread over the fleet: the first ones idle, the rest NotReady.
  const step = Math.max(1, Math.floor(untouched.length / Math.max(wanted, 1)));
  const chosen = Array.from({ length: wanted }, (_, i) => untouched[i * step] as Worker);
  const idle = chosen.slice(0, idleCount);
  const notReady = chosen.slice(idleCount);
  const out: ThirdWave = { pdbs: [], events: [] };
  const idleNames = new Set(idle.map((w) => w.node.metadata?.name ?? ''));
  const planted = new Set([...idleNames, ...notReady.map((w) => w.node.metadata?.name ?? '')]);
  moveWorkloadsOff(workloads, idleNames, planted, untouched);
  idle.forEach((w, i) => holdIdleNode(gen, workloads, w, i, out));
  notReady.forEach((w, i) => fallOver(gen, workloads, w, i));
  return out;
}

/**
 * Consolidatable for 2–30 h, its one workload pod a single replica whose PDB allows nothing:
 * Karpenter says so in a DisruptionBlocked event on the Node (v1.7+ wording).
 */
function holdIdleNode(gen: Generation, workloads: Workloads, { node, claim, pool }: Worker, i: number, out: ThirdWave): void {
  const { rng } = gen;
  const sinceMs = gen.nowMs - rng.int(2 * HOUR, 30 * HOUR);
  claim.status?.conditions?.push(condition('Consolidatable', 'True', sinceMs, { reason: 'Consolidatable', message: '' }));
  const shape = workloadShape(gen, 0, 1);
  shape.name = `${shape.app}-singleton-${String(i).padStart(3, '0')}`;
  shape.labels = { 'app.kubernetes.io/name': shape.name, 'app.kubernetes.io/part-of': shape.namespace };
  addWorkloadObjects(gen, workloads, shape, 1);
  const tolerations = pool.taint ? [{ key: pool.taint.key, operator: 'Exists', effect: pool.taint.effect }] : [];
  const name = node.metadata?.name ?? '';
  workloads.pods.push(workloadPod(gen, shape, { nodeName: name, createdMs: sinceMs - rng.int(MINUTE, 2 * DAY), tolerations }));
  out.pdbs.push({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: shape.name, namespace: shape.namespace, uid: rng.uuid(), creationTimestamp: iso(gen.nowMs - 90 * DAY) },
    spec: { maxUnavailable: 0, selector: { matchLabels: { 'app.kubernetes.io/name': shape.name } } },
    status: {
      disruptionsAllowed: 0,
      currentHealthy: 1,
      desiredHealthy: 1,
      expectedPods: 1,
      observedGeneration: 1,
      conditions: [condition('DisruptionAllowed', 'False', sinceMs, { reason: 'InsufficientPods', message: '' })],
    },
  });
  out.events.push({
    regarding: { kind: 'Node', name },
    namespace: 'default',
    reason: 'DisruptionBlocked',
    message: `Pdb prevents pod evictions (PodDisruptionBudget=[${shape.namespace}/${shape.name}])`,
    type: 'Normal',
    source: 'karpenter',
    firstTime: iso(sinceMs + 30_000),
    lastTime: iso(gen.nowMs - rng.int(0, 2 * MINUTE)),
    count: Math.max(1, Math.floor((gen.nowMs - sinceMs) / (2 * MINUTE))),
  });
}

/**
 * Initialised, then NotReady for 1–8 h: two in three stopped posting status (Ready Unknown,
 * tainted unreachable), the others report the network not ready (Ready False, tainted not-ready).
 * The taint manager deleted every other pod on it 5 min later; the kubelet cannot confirm, so they
 * stay Terminating.
 */
function fallOver(gen: Generation, workloads: Workloads, { node }: Worker, i: number): void {
  const { rng } = gen;
  const sinceMs = gen.nowMs - rng.int(HOUR, 8 * HOUR);
  const unknown = i % 3 !== 2;
  const why = unknown ? STOPPED_POSTING : NETWORK_NOT_READY;
  const status = unknown ? 'Unknown' : 'False';
  const taintKey = unknown ? 'node.kubernetes.io/unreachable' : 'node.kubernetes.io/not-ready';
  const pressure = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];
  node.status = {
    ...node.status,
    conditions: (node.status?.conditions ?? []).map((c) =>
      c.type === 'Ready' || (unknown && pressure.includes(c.type))
        ? { ...c, status: c.type === 'Ready' ? status : 'Unknown', ...why, lastTransitionTime: iso(sinceMs) }
        : c,
    ),
  };
  const taints: Taint[] = [
    { key: taintKey, effect: 'NoSchedule' },
    { key: taintKey, effect: 'NoExecute' },
  ];
  node.spec = { ...node.spec, taints: [...(node.spec?.taints ?? []), ...taints] };
  const name = node.metadata?.name;
  const evictedMs = sinceMs + 5 * MINUTE;
  const onNode = workloads.running.filter((p) => p.spec?.nodeName === name);
  onNode.forEach((pod, j) => {
    if (j % 2 === 0) evict(pod, evictedMs);
  });
}

function evict(pod: Pod, atMs: number): void {
  pod.metadata = { ...pod.metadata, deletionTimestamp: iso(atMs + 30_000) };
  if (pod.status)
    pod.status.conditions = [...(pod.status.conditions ?? []), { ...EVICTED_BY_TAINT, lastTransitionTime: iso(atMs) }];
}

/** Workload pods on the idle nodes move, round-robin, to unplanted nodes of their NodePool (DaemonSet pods stay). */
function moveWorkloadsOff(
  workloads: Workloads,
  idle: ReadonlySet<string>,
  planted: ReadonlySet<string>,
  workers: readonly Worker[],
): void {
  const poolOf = new Map(workers.map((w) => [w.node.metadata?.name, w.pool]));
  const targets = new Map<PoolPlan, string[]>();
  for (const w of workers) {
    const name = w.node.metadata?.name ?? '';
    if (planted.has(name)) continue;
    const list = targets.get(w.pool) ?? [];
    list.push(name);
    targets.set(w.pool, list);
  }
  let cursor = 0;
  for (const pod of workloads.running) {
    const on = pod.spec?.nodeName;
    if (on === undefined || !idle.has(on) || !pod.spec) continue;
    const to = targets.get(poolOf.get(on) as PoolPlan) ?? [];
    if (to.length === 0) continue;
    pod.spec.nodeName = to[cursor % to.length];
    cursor += 1;
  }
}
