/**
 * A deterministic synthetic EKS cluster with Karpenter, at the scale of a large production
 * cluster, for benchmarking the analysis and the loader. Same seed and options → same snapshot.
 *
 * Defaults: 50,000 pods (2,000 Pending), 5,000 Nodes, 5,000 NodeClaims (20 never registered),
 * ~5,080 EC2 instances (50 orphans), 20 NodePools / EC2NodeClasses (2 not Ready), the Karpenter
 * controller Running with 2 replicas, 5,000 events, 1,000 controller log lines (5 AccessDenied),
 * aws-auth and describe-cluster. Every source is captured.
 *
 * The second wave (synthetic/after-provisioning.ts, drawn from a random sequence of its own):
 * 20 nodes stuck terminating (deletionTimestamp, `karpenter.sh/disrupted` taint, a FailedDraining
 * event), each holding one pod of a single-replica Deployment under a PDB with disruptionsAllowed 0;
 * 30 `Drifted=True` (AMIDrift) NodeClaims of `default`, whose budget `nodes: "0"` for Drifted blocks
 * them; 15 NodeClaims consolidated (Underutilized) in the last hour in a NodePool with
 * `consolidateAfter: 0s`; 10 NodeClaims registered 20–60 min ago whose Node keeps the
 * `ebs.csi.aws.com/agent-not-ready` startup taint; 20 oversized pending pods whose Karpenter event
 * says `no instance type met …` (v1.3+). Across the healthy part (synthetic/healthy-objects.ts): a PDB
 * allowing disruptions per 50 running Deployments plus the controller's, a VolumeAttachment per 10
 * worker nodes, and the EC2NodeClasses' 4 subnets as described (one /24 with 9 free addresses, in one
 * EC2NodeClass only). The controller stays healthy: one replica restarted once, long ago, and its
 * previous log (5 lines) is captured (synthetic/controller-restart.ts).
 *
 * The third wave (synthetic/third-wave.ts, a random sequence of its own, on nodes the second wave
 * left alone): 25 idle nodes `Consolidatable=True` for hours, each held by one single-replica pod
 * under a PDB with disruptionsAllowed 0 (Karpenter's DisruptionBlocked event on the Node); 15 nodes
 * NotReady for 1–8 h after they initialised (Ready Unknown "Kubelet stopped posting node status." or
 * Ready False with the CNI not ready), every other workload pod on them Terminating.
 */
import { SOURCE_NAMES, type ClusterSnapshot } from '../src/domain/snapshot.ts';
import { Rng } from './rng.ts';
import { accessEntries, clusterInfo, configMaps, crds, fargateProfiles } from './synthetic/account.ts';
import type { Generation, SyntheticClusterOptions } from './synthetic/context.ts';
import { buildFleet } from './synthetic/fleet.ts';
import { buildEvents, buildLogs } from './synthetic/signals.ts';
import { buildWorkloads } from './synthetic/workloads.ts';
import { plantAfterProvisioning } from './synthetic/after-provisioning.ts';
import { restartController } from './synthetic/controller-restart.ts';
import { plantThirdWave } from './synthetic/third-wave.ts';
import { describedSubnets, healthyPdbs, volumeAttachments } from './synthetic/healthy-objects.ts';

export type { SyntheticClusterOptions } from './synthetic/context.ts';
export type { PendingCause } from './synthetic/workloads.ts';

export const DEFAULT_SYNTHETIC_CLUSTER: Readonly<SyntheticClusterOptions> = {
  seed: 20_260_101,
  clusterName: 'bench',
  region: 'us-east-1',
  accountId: '069057294951',
  now: '2026-01-01T12:00:00Z',
  scale: 1,
  pods: 50_000,
  pendingPods: 2_000,
  nodes: 5_000,
  nodeClaims: 5_000,
  unregisteredNodeClaims: 20,
  orphanInstances: 50,
  terminatedInstances: 10,
  nodePools: 20,
  notReadyNodeClasses: 2,
  events: 5_000,
  logLines: 1_000,
  accessDeniedLogLines: 5,
  terminatingNodes: 20,
  driftedNodeClaims: 30,
  consolidatedNodeClaims: 15,
  uninitializedNodeClaims: 10,
  noInstanceTypeMetPods: 20,
  idleNodesBehindPdbs: 25,
  notReadyNodes: 15,
  deploymentsPerPdb: 50,
  nodesPerVolumeAttachment: 10,
};

const SCALED = [
  'pods',
  'pendingPods',
  'nodes',
  'nodeClaims',
  'events',
  'logLines',
] as const satisfies readonly (keyof SyntheticClusterOptions)[];
/** Planted problems round up, so a small scale still has at least one of each. */
const SCALED_UP = [
  'unregisteredNodeClaims',
  'orphanInstances',
  'terminatedInstances',
  'terminatingNodes',
  'driftedNodeClaims',
  'uninitializedNodeClaims',
  'idleNodesBehindPdbs',
  'notReadyNodes',
] as const satisfies readonly (keyof SyntheticClusterOptions)[];

/** Defaults, overridden, then scaled; throws a RangeError when the counts cannot fit together. */
export function resolveOptions(overrides: Partial<SyntheticClusterOptions> = {}): SyntheticClusterOptions {
  const options = { ...DEFAULT_SYNTHETIC_CLUSTER, ...overrides };
  for (const key of SCALED) options[key] = Math.round(options[key] * options.scale);
  for (const key of SCALED_UP) options[key] = Math.ceil(options[key] * options.scale);
  const registered = options.nodeClaims - options.unregisteredNodeClaims;
  const problems = [
    options.pods < options.pendingPods + 2 + options.terminatingNodes + options.idleNodesBehindPdbs &&
      'pods must hold pendingPods + 2 controller pods + one per terminating node and per idle node',
    registered < 0 && 'unregisteredNodeClaims exceeds nodeClaims',
    options.nodes - registered < 1 &&
      'nodes must exceed registered NodeClaims by at least one (a system node for the controller)',
    options.accessDeniedLogLines > options.logLines && 'accessDeniedLogLines exceeds logLines',
    Number.isNaN(Date.parse(options.now)) && 'now is not a timestamp',
  ].filter((p): p is string => typeof p === 'string');
  if (problems.length > 0) throw new RangeError(`synthetic cluster: ${problems.join('; ')}`);
  return options;
}

export function syntheticCluster(overrides: Partial<SyntheticClusterOptions> = {}): ClusterSnapshot {
  const options = resolveOptions(overrides);
  const gen: Generation = {
    rng: new Rng(options.seed),
    options,
    nowMs: Date.parse(options.now),
    seen: { ips: new Set(), instanceIds: new Set(), nodeClaims: new Set(), pods: new Set() },
  };
  const fleet = buildFleet(gen);
  const workloads = buildWorkloads(gen, fleet);
  // The second wave's objects draw from a sequence of their own: the rest stays as generated.
  const own: Generation = { ...gen, rng: new Rng(options.seed ^ 0x5eed_14) };
  const planted = plantAfterProvisioning(own, fleet, workloads);
  // The third wave's draw from a sequence of their own too; its Deployments get no healthy PDB
  // (their pods have one allowing nothing already).
  const deploymentsBefore = workloads.deployments.length;
  const third = plantThirdWave({ ...gen, rng: new Rng(options.seed ^ 0x5eed_23) }, fleet, workloads);
  const previousLog = restartController(
    own,
    workloads.pods.filter((p) => p.metadata?.namespace === 'karpenter'),
  );
  const subnets = describedSubnets(own, fleet, planted.pools.lowSubnet);
  return {
    clusterName: options.clusterName,
    captured: new Set(SOURCE_NAMES),
    gaps: [],
    pods: workloads.pods,
    deployments: workloads.deployments,
    replicaSets: workloads.replicaSets,
    nodes: fleet.nodes,
    events: buildEvents(gen, fleet, workloads, [...planted.events, ...third.events]),
    configMaps: configMaps(gen, fleet),
    services: workloads.services,
    crds: crds(gen),
    nodeClaims: fleet.nodeClaims,
    nodePools: fleet.nodePools,
    nodeClasses: fleet.nodeClasses,
    pdbs: [...planted.pdbs, ...third.pdbs, ...healthyPdbs(own, workloads.deployments.slice(0, deploymentsBefore))],
    volumeAttachments: volumeAttachments(own, fleet, planted.vacated),
    cluster: clusterInfo(gen),
    instances: fleet.instances,
    fargateProfiles: fargateProfiles(gen),
    accessEntries: accessEntries(gen, fleet),
    launchTemplates: fleet.launchTemplates,
    instanceProfiles: fleet.instanceProfiles,
    subnets,
    instanceTypes: [],
    logs: [...previousLog, ...buildLogs(gen, fleet)],
  };
}
