/**
 * Second-wave problems planted on the generated fleet (issue 14 and 15): nodes stuck terminating
 * behind PDBs, drift blocked by a budget, a churning NodePool, NodeClaims that never initialise.
 * Drawn from a random sequence of their own, so the rest of the cluster stays as generated.
 */
import type { KubeEvent, Node, NodeClaim, NodePool, PodDisruptionBudget, Taint } from '../../src/domain/kube.ts';
import { KUBE_SUFFIX_ALPHABET } from '../rng.ts';
import { DAY, HOUR, MINUTE, condition, iso, type Generation } from './context.ts';
import type { Fleet, PoolPlan } from './fleet.ts';
import { addWorkloadObjects, workloadPod, workloadShape, type Workloads } from './workloads.ts';

const DISRUPTED_TAINT: Taint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
const STARTUP_TAINT: Taint = { key: 'ebs.csi.aws.com/agent-not-ready', effect: 'NoExecute' };

export interface AfterProvisioning {
  /** The terminating nodes' PDBs (disruptionsAllowed 0). */
  pdbs: PodDisruptionBudget[];
  /** Karpenter's events about them, to come before every other event. */
  events: KubeEvent[];
  /** Nodes whose workload pods moved away (terminating, uninitialised). */
  vacated: Set<string>;
  /** The NodePools planted in: drift blocked, churn, NodeClaims not initialising, a nearly full subnet (its EC2NodeClass). */
  pools: { drift: string; churn: string; uninitialized: string; lowSubnet: string };
}

interface Worker {
  node: Node;
  claim: NodeClaim;
  pool: PoolPlan;
}

export function plantAfterProvisioning(gen: Generation, fleet: Fleet, workloads: Workloads): AfterProvisioning {
  const { options } = gen;
  const nodes = new Map(fleet.nodes.map((n) => [n.metadata?.name, n]));
  const claims = new Map(fleet.nodeClaims.map((c) => [c.status?.nodeName, c]));
  const workers: Worker[] = fleet.workerNodes.flatMap(({ name, pool }) => {
    const node = nodes.get(name);
    const claim = claims.get(name);
    return node && claim ? [{ node, claim, pool }] : [];
  });
  const general = fleet.pools.filter((p) => p.role === 'general');
  const drift = general[0];
  if (!drift) throw new RangeError('synthetic cluster: no general NodePool to plant in');
  const others = general.filter((p) => p !== drift);
  const churn = others[0] ?? drift;
  // The uninitialised NodeClaims' NodePool: the other general one with the most nodes (default when none has any).
  const size = (p: PoolPlan) => workers.filter((w) => w.pool === p).length;
  const uninitialized = others.reduce<PoolPlan>((best, p) => (size(p) > size(best) ? p : best), others[0] ?? drift);
  const pickedUninitialized = size(uninitialized) > 0 ? uninitialized : drift;
  const taken = new Set<Worker>();
  const take = (count: number, what: string, fits: (w: Worker) => boolean): Worker[] => {
    const candidates = workers.filter((w) => !taken.has(w) && fits(w));
    if (candidates.length < count)
      throw new RangeError(`synthetic cluster: ${what} needs ${count} worker nodes, only ${candidates.length} fit`);
    const step = Math.max(1, Math.floor(candidates.length / Math.max(count, 1)));
    const chosen = Array.from({ length: count }, (_, i) => candidates[i * step] as Worker);
    for (const w of chosen) taken.add(w);
    return chosen;
  };
  const oldEnough = (w: Worker) => Date.parse(w.claim.metadata?.creationTimestamp ?? '') < gen.nowMs - 4 * HOUR;
  const drifted = take(options.driftedNodeClaims, 'driftedNodeClaims', (w) => w.pool === drift && oldEnough(w));
  const starting = take(options.uninitializedNodeClaims, 'uninitializedNodeClaims', (w) => w.pool === pickedUninitialized);
  const terminating = take(options.terminatingNodes, 'terminatingNodes', (w) => w.pool !== pickedUninitialized);

  const out: AfterProvisioning = {
    pdbs: [],
    events: [],
    vacated: new Set(),
    pools: {
      drift: drift.name,
      churn: churn.name,
      uninitialized: pickedUninitialized.name,
      lowSubnet: (others[1] ?? churn).name,
    },
  };
  const poolObject = (plan: PoolPlan) => fleet.nodePools.find((p) => p.metadata?.name === plan.name) as NodePool;
  blockDrift(gen, drifted, poolObject(drift), out);
  for (const w of starting) neverInitialise(gen, fleet, w, out);
  const template = poolObject(pickedUninitialized).spec?.template?.spec;
  if (template && starting.length > 0) template.startupTaints = [{ ...STARTUP_TAINT }];
  terminating.forEach((w, i) => terminate(gen, workloads, w, i, out));
  churnPool(gen, churn, poolObject(churn), out);
  rehome(workloads, out.vacated, workers);
  return out;
}

function blockDrift(gen: Generation, drifted: readonly Worker[], pool: NodePool, out: AfterProvisioning): void {
  const { rng } = gen;
  const previousAmi = `ami-0${rng.hex(16)}`;
  for (const { claim } of drifted) {
    const createdMs = Date.parse(claim.metadata?.creationTimestamp ?? '');
    const atMs = rng.int(Math.max(createdMs + 10 * MINUTE, gen.nowMs - 30 * HOUR), gen.nowMs - 3 * HOUR);
    claim.status?.conditions?.push(condition('Drifted', 'True', atMs, { reason: 'AMIDrift', message: 'AMIDrift' }));
    if (claim.status) claim.status.imageID = previousAmi;
  }
  if (pool.spec?.disruption) pool.spec.disruption.budgets = [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }];
  out.events.push(
    karpenterEvent(gen, 'NodePool', pool.metadata?.name ?? '', {
      reason: 'DisruptionBlocked',
      message: 'No allowed disruptions for disruption reason Drifted due to blocking budget',
      firstMs: gen.nowMs - 30 * HOUR,
      count: rng.int(500, 3_000),
    }),
  );
}

function neverInitialise(gen: Generation, fleet: Fleet, { node, claim }: Worker, out: AfterProvisioning): void {
  const registeredMs = gen.nowMs - gen.rng.int(20 * MINUTE, 60 * MINUTE);
  const createdMs = registeredMs - 45_000;
  const taint = `${STARTUP_TAINT.key}:${STARTUP_TAINT.effect}`;
  claim.metadata = { ...claim.metadata, creationTimestamp: iso(createdMs) };
  if (claim.spec) claim.spec.startupTaints = [{ ...STARTUP_TAINT }];
  if (claim.status) {
    claim.status.conditions = [
      condition('Launched', 'True', createdMs + 5_000),
      condition('Registered', 'True', registeredMs),
      condition('Initialized', 'Unknown', registeredMs, {
        reason: 'StartupTaintsExist',
        message: `StartupTaint "${taint}" still exists`,
      }),
      condition('Ready', 'Unknown', registeredMs, { reason: 'UnhealthyDependents', message: 'Initialized=Unknown' }),
    ];
  }
  const labels = { ...node.metadata?.labels };
  delete labels['karpenter.sh/initialized'];
  node.metadata = { ...node.metadata, creationTimestamp: iso(registeredMs - 5_000), labels };
  node.spec = { ...node.spec, taints: [...(node.spec?.taints ?? []), { ...STARTUP_TAINT }] };
  const instance = fleet.instances.find((i) => node.spec?.providerID?.endsWith(`/${i.id}`));
  if (instance) instance.launchTime = iso(createdMs + 3_000);
  out.vacated.add(node.metadata.name ?? '');
}

/** Deleted 40–100 min ago; the drain waits on the one pod left, a single replica whose PDB allows nothing. */
function terminate(
  gen: Generation,
  workloads: Workloads,
  { node, claim, pool }: Worker,
  i: number,
  out: AfterProvisioning,
): void {
  const { rng } = gen;
  const deletedMs = gen.nowMs - rng.int(40 * MINUTE, 100 * MINUTE);
  const name = node.metadata?.name ?? '';
  node.metadata = { ...node.metadata, deletionTimestamp: iso(deletedMs) };
  node.spec = { ...node.spec, taints: [...(node.spec?.taints ?? []), { ...DISRUPTED_TAINT }] };
  claim.metadata = { ...claim.metadata, deletionTimestamp: iso(deletedMs - 2_000) };
  out.vacated.add(name);

  const shape = workloadShape(gen, 0, 1);
  shape.name = `${shape.app}-leader-${String(i).padStart(3, '0')}`;
  shape.labels = { 'app.kubernetes.io/name': shape.name, 'app.kubernetes.io/part-of': shape.namespace };
  addWorkloadObjects(gen, workloads, shape, 1);
  const tolerations = pool.taint ? [{ key: pool.taint.key, operator: 'Exists', effect: pool.taint.effect }] : [];
  const pod = workloadPod(gen, shape, { nodeName: name, createdMs: gen.nowMs - rng.int(2 * DAY, 20 * DAY), tolerations });
  workloads.pods.push(pod);
  out.pdbs.push({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: shape.name,
      namespace: shape.namespace,
      uid: rng.uuid(),
      creationTimestamp: iso(gen.nowMs - 60 * DAY),
    },
    spec: { minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': shape.name } } },
    status: {
      disruptionsAllowed: 0,
      currentHealthy: 1,
      desiredHealthy: 1,
      expectedPods: 1,
      observedGeneration: 1,
      conditions: [condition('DisruptionAllowed', 'False', deletedMs, { reason: 'InsufficientPods', message: '' })],
    },
  });
  out.events.push(
    karpenterEvent(gen, 'Node', name, {
      reason: 'FailedDraining',
      message: 'Failed to drain node, 1 pods are waiting to be evicted',
      firstMs: deletedMs + 15_000,
      count: Math.max(1, Math.floor((gen.nowMs - deletedMs) / 10_000)),
    }),
  );
}

/** Nodes of `pool` consolidated in the last hour (their NodeClaims gone since), `consolidateAfter: 0s`. */
function churnPool(gen: Generation, plan: PoolPlan, pool: NodePool, out: AfterProvisioning): void {
  const { rng } = gen;
  if (pool.spec?.disruption) pool.spec.disruption.consolidateAfter = '0s';
  for (let i = 0; i < gen.options.consolidatedNodeClaims; i += 1) {
    const claim = rng.unique(gen.seen.nodeClaims, () => `${plan.name}-${rng.chars(KUBE_SUFFIX_ALPHABET, 5)}`);
    const atMs = gen.nowMs - rng.int(MINUTE, 55 * MINUTE);
    out.events.push(
      karpenterEvent(gen, 'NodeClaim', claim, {
        reason: 'DisruptionTerminating',
        message: 'Disrupting NodeClaim: Underutilized',
        firstMs: atMs,
        lastMs: atMs,
        count: 1,
      }),
    );
  }
}

/** The workload pods on `vacated` nodes move, round-robin, to the other nodes of their NodePool (DaemonSet pods stay). */
function rehome(workloads: Workloads, vacated: ReadonlySet<string>, workers: readonly Worker[]): void {
  const poolOf = new Map(workers.map((w) => [w.node.metadata?.name, w.pool]));
  const targets = new Map<PoolPlan, string[]>();
  for (const w of workers) {
    const name = w.node.metadata?.name ?? '';
    if (vacated.has(name)) continue;
    const list = targets.get(w.pool) ?? [];
    list.push(name);
    targets.set(w.pool, list);
  }
  let cursor = 0;
  for (const pod of workloads.running) {
    const on = pod.spec?.nodeName;
    if (on === undefined || !vacated.has(on) || !pod.spec) continue;
    const to = targets.get(poolOf.get(on) as PoolPlan) ?? [];
    if (to.length === 0) continue;
    pod.spec.nodeName = to[cursor % to.length];
    cursor += 1;
  }
}

function karpenterEvent(
  gen: Generation,
  kind: string,
  name: string,
  what: { reason: string; message: string; firstMs: number; lastMs?: number; count: number },
): KubeEvent {
  return {
    regarding: { kind, name },
    namespace: 'default',
    reason: what.reason,
    message: what.message,
    type: what.reason === 'DisruptionTerminating' ? 'Normal' : 'Warning',
    source: 'karpenter',
    firstTime: iso(what.firstMs),
    lastTime: iso(what.lastMs ?? gen.nowMs - gen.rng.int(0, 60_000)),
    count: what.count,
  };
}
