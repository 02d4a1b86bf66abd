import type { Condition } from '../../src/domain/kube.ts';
import type { Rng } from '../rng.ts';

/** What the synthetic cluster holds. Counts marked "scaled" are multiplied by `scale`. */
export interface SyntheticClusterOptions {
  /** Same seed and options → the same snapshot, on any machine. */
  seed: number;
  clusterName: string;
  region: string;
  accountId: string;
  /** Capture time (ISO-8601); every timestamp in the cluster is relative to it. */
  now: string;
  /** Multiplier for the scaled counts (rounded). */
  scale: number;
  /** Scaled. Every pod: 2 Karpenter controller pods + `pendingPods` + Running workload and DaemonSet pods. */
  pods: number;
  /** Scaled. Workload pods in phase Pending (most past the 10 min threshold), spread over a handful of causes. */
  pendingPods: number;
  /** Scaled. Every Node: one per registered NodeClaim, the rest a managed node group for system pods. */
  nodes: number;
  /** Scaled. Every NodeClaim; each launched an instance. */
  nodeClaims: number;
  /** Scaled. NodeClaims whose instance runs but whose Node never registered (launched 11–14 min ago). */
  unregisteredNodeClaims: number;
  /** Scaled. Running instances tagged for the cluster and a NodePool, matched by no NodeClaim. */
  orphanInstances: number;
  /** Scaled. Karpenter instances already terminated (no NodeClaim; not orphans). */
  terminatedInstances: number;
  /** NodePools, one EC2NodeClass each. At least 3 + `notReadyNodeClasses`. */
  nodePools: number;
  /** EC2NodeClasses whose Ready condition is False (the last ones). */
  notReadyNodeClasses: number;
  /** Scaled. Kubernetes events (scheduling failures of the pending pods first, then routine ones). */
  events: number;
  /** Scaled. Karpenter controller log lines. */
  logLines: number;
  /** Log lines that are AccessDenied errors (iam:ListInstanceProfiles). */
  accessDeniedLogLines: number;
  /**
   * Scaled (up). Karpenter nodes being deleted for 40–100 min, each drain held by the one pod left on
   * it: a single-replica Deployment's, under a PDB with `disruptionsAllowed` 0 (its pods come out of `pods`).
   */
  terminatingNodes: number;
  /** Scaled (up). `Drifted=True` (AMIDrift) NodeClaims of the `default` NodePool, whose budget `nodes: "0"` blocks Drifted. */
  driftedNodeClaims: number;
  /** NodeClaims consolidated (`DisruptionTerminating` … `Underutilized`) in the last hour, in one NodePool with `consolidateAfter: 0s`. */
  consolidatedNodeClaims: number;
  /** Scaled (up). Registered NodeClaims whose Node still has a startup taint (`Initialized=Unknown`), in one NodePool. */
  uninitializedNodeClaims: number;
  /** Pending pods (of the oversized ones) whose Karpenter event uses the v1.3+ wording `no instance type met …`. */
  noInstanceTypeMetPods: number;
  /**
   * Scaled (up). Karpenter nodes `Consolidatable=True` for 2–30 h, each left with one pod of a
   * single-replica Deployment under a PDB with `disruptionsAllowed` 0 (synthetic/third-wave.ts).
   */
  idleNodesBehindPdbs: number;
  /** Scaled (up). Initialised Karpenter nodes gone NotReady 1–8 h ago, every other workload pod on them Terminating. */
  notReadyNodes: number;
  /** One PodDisruptionBudget (allowing disruptions) per this many running Deployments. */
  deploymentsPerPdb: number;
  /** One VolumeAttachment per this many healthy worker nodes. */
  nodesPerVolumeAttachment: number;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Shared by the builders of one synthetic cluster. */
export interface Generation {
  rng: Rng;
  options: SyntheticClusterOptions;
  nowMs: number;
  /** Every name handed out so far, per kind, to keep names unique. */
  seen: { ips: Set<string>; instanceIds: Set<string>; nodeClaims: Set<string>; pods: Set<string> };
}

/** Second-precision ISO-8601, as Kubernetes prints it. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function condition(type: string, status: string, atMs: number, extra: Omit<Condition, 'type' | 'status'> = {}): Condition {
  return { type, status, lastTransitionTime: iso(atMs), ...extra };
}

/** A private IPv4 address not used yet in this cluster, and its EC2 private DNS name. */
export function privateAddress(gen: Generation): { ip: string; dnsName: string } {
  const ip = gen.rng.unique(gen.seen.ips, () => `10.${gen.rng.int(0, 15)}.${gen.rng.int(0, 255)}.${gen.rng.int(1, 254)}`);
  return { ip, dnsName: `ip-${ip.replaceAll('.', '-')}.${gen.options.region}.compute.internal` };
}

export function instanceId(gen: Generation): string {
  return gen.rng.unique(gen.seen.instanceIds, () => `i-0${gen.rng.hex(16)}`);
}

export function roleArn(gen: Generation, role: string): string {
  return `arn:aws:iam::${gen.options.accountId}:role/${role}`;
}
