/**
 * Whether Karpenter will replace a NodePool's NotReady nodes itself: its node repair
 * (docs/findings.md#node_not_ready, "Node repair"). Karpenter runs it only with the `NodeRepair`
 * feature gate on (alpha, off by default, since v1.1.0). It replaces a node once a condition of
 * the AWS provider's repair policies has held past its toleration: `Ready=False` 30 min (v1.1.0+),
 * `Ready=Unknown` 30 min (v1.2.0+ only), the node monitoring agent's `AcceleratedHardwareReady=False`
 * 10 min and `StorageReady`/`NetworkingReady`/`KernelReady`/`ContainerRuntimeReady=False` 30 min
 * (v1.2.0+). It does nothing while more of the pool's nodes match a policy condition (at once, not
 * after the toleration) than 20% of them rounded up, and says so on the Node: `NodeRepairBlocked`,
 * "more than 20% nodes are unhealthy in the nodepool" ("more then" before v1.3.0; "in the cluster",
 * always "then", for NodeClaims without a NodePool, counted over all nodes).
 */
import type { Condition, KubeEvent, Node } from '../../domain/kube.ts';
import { eventLastSeenMs, newestFirst } from '../../domain/kube-helpers.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import type { DetectContext } from '../detector.ts';
import { controllerVersionOf, featureGates, type FeatureGates } from '../karpenter/feature-gates.ts';
import { versionAtLeast } from '../karpenter/version.ts';
import type { NotReadyNode } from './not-ready-nodes.ts';
import { preRepairApiProof } from './served-api.ts';

interface RepairPolicy {
  type: string;
  status: string;
  tolerationMs: number;
  /** The first minor version of v1 with it. */
  since: [number, number];
}

const MINUTE = 60_000;

const REPAIR_POLICIES: readonly RepairPolicy[] = [
  { type: 'Ready', status: 'False', tolerationMs: 30 * MINUTE, since: [1, 1] },
  { type: 'Ready', status: 'Unknown', tolerationMs: 30 * MINUTE, since: [1, 2] },
  { type: 'AcceleratedHardwareReady', status: 'False', tolerationMs: 10 * MINUTE, since: [1, 2] },
  { type: 'StorageReady', status: 'False', tolerationMs: 30 * MINUTE, since: [1, 2] },
  { type: 'NetworkingReady', status: 'False', tolerationMs: 30 * MINUTE, since: [1, 2] },
  { type: 'KernelReady', status: 'False', tolerationMs: 30 * MINUTE, since: [1, 2] },
  { type: 'ContainerRuntimeReady', status: 'False', tolerationMs: 30 * MINUTE, since: [1, 2] },
];

/**
 * How recent a `NodeRepairBlocked` event must be to say repair is blocked now. Karpenter re-emits it
 * every 5 minutes while blocked (requeue) and its recorder folds repeats for 15 minutes, so a blocked
 * pool's event was seen within 20 minutes; an older one is history (the pool may have recovered),
 * and the 20% arithmetic on the captured nodes decides instead.
 */
const BLOCKED_EVENT_FRESH_MS = 20 * MINUTE;

/** How long Karpenter's repair tolerates this condition (the newest version's policies); undefined when none covers it. */
export function tolerationOf(type: string, status: string): number | undefined {
  return REPAIR_POLICIES.find((p) => p.type === type && p.status === status)?.tolerationMs;
}

/** Karpenter's `NodeRepairBlocked` message, either spelling, either scope. */
const BLOCKED_MESSAGE = /more th[ae]n 20% nodes are unhealthy in the (nodepool|cluster)/;

export type RepairVerdict =
  /** The controller's spec was not captured (or its gates come from a reference): unknown. */
  | { kind: 'unknown'; gates: FeatureGates; version: string | undefined }
  /** Before v1.1.0 Karpenter had no node repair: its version says so, or (`proof`) the API versions of its objects. */
  | { kind: 'no-repair-in-version'; version: string; proof?: string }
  /**
   * Off. `covered`: whether this version's policies cover any of the nodes' conditions once the gate
   * is on (v1.1.x never repairs Ready=Unknown: enabling the gate there changes nothing for them).
   */
  | { kind: 'gate-off'; gates: FeatureGates; version: string | undefined; covered: boolean }
  /** On, but no policy of this version covers the node's condition (v1.1.x and Ready=Unknown). */
  | { kind: 'not-covered'; version: string | undefined; gates: FeatureGates }
  /** On; more unhealthy nodes than the 20% rule allows (now, or as Karpenter's own event says). */
  | {
      kind: 'blocked';
      gates: FeatureGates;
      version: string | undefined;
      rule: PoolHealth;
      event: KubeEvent | undefined;
      expectedText: string;
      /** The NodePool whose nodes are counted; undefined for NodeClaims without one (all the cluster's). */
      pool: string | undefined;
    }
  /** On; the earliest node is repaired at `at`. */
  | {
      kind: 'waiting';
      gates: FeatureGates;
      version: string | undefined;
      at: Date;
      rule: PoolHealth;
      /** The policy whose toleration ends first. */
      policy: { type: string; status: string; tolerationMs: number };
    }
  /** On, past the toleration, not blocked, yet the nodes are still there. */
  | { kind: 'overdue'; gates: FeatureGates; version: string | undefined; at: Date; rule: PoolHealth };

interface PoolHealth {
  /** Nodes of the pool (or, without one, of the cluster), as Karpenter counts them. */
  total: number;
  /** Of those, the ones matching a repair policy's condition and status. */
  unhealthy: number;
  /** ceil(20% × total): more unhealthy than this blocks repair. */
  allowed: number;
}

/** The controller whose spec says whether repair runs: its gates and version, the same for every NodePool. */
export interface RepairController {
  info: ControllerInfo | undefined;
  gates: FeatureGates;
  version: string | undefined;
}

/** Looked up once per scan: the controller with a Deployment, else the first found. */
export function repairControllerOf(ctx: DetectContext): RepairController {
  const info = ctx.index.controllers.find((c) => c.deployment) ?? ctx.index.controllers[0];
  return { info, gates: featureGates(info), version: controllerVersionOf(info) };
}

/**
 * `counted` are the nodes Karpenter counts for the 20% rule: the pool's (labelled with it), or all
 * the cluster's for NodeClaims without a NodePool.
 */
export function repairVerdict(
  ctx: DetectContext,
  controller: RepairController,
  counted: readonly Node[],
  pool: string | undefined,
  nodes: readonly NotReadyNode[],
): RepairVerdict {
  const { gates, version } = controller;
  const { any: repairRan, fresh: event } = blockedEvents(ctx, nodes);
  // Karpenter's own event, however old, proves the repair runs, whatever the captured spec says.
  const on = repairRan || gates.gates.get('NodeRepair') === true;
  if (!on && versionAtLeast(version, 1, 1) === false) return { kind: 'no-repair-in-version', version: version as string };
  const proof = !on && versionAtLeast(version, 1, 1) === undefined ? preRepairApiProof(ctx.snapshot) : undefined;
  if (proof) return { kind: 'no-repair-in-version', version: 'v1.0 or older', proof };
  const policies = policiesOf(version);
  const covered = nodes.some((n) => matches(n.node, policies).length > 0);
  if (!on) return gates.text === undefined ? { kind: 'unknown', gates, version } : { kind: 'gate-off', gates, version, covered };
  const rule = poolHealth(counted, policies);
  if (event || rule.unhealthy > rule.allowed)
    return { kind: 'blocked', gates, version, rule, event, expectedText: blockedText(version, pool), pool };
  const earliest = nodes
    .map((n) => repairAt(n.node, policies))
    .filter((r): r is RepairAt => r !== undefined)
    .sort((a, b) => a.at.getTime() - b.at.getTime())[0];
  if (!earliest) return { kind: 'not-covered', version, gates };
  const { at, policy } = earliest;
  return at.getTime() > ctx.now.getTime()
    ? { kind: 'waiting', gates, version, at, rule, policy }
    : { kind: 'overdue', gates, version, at, rule };
}

/** The policies of this version; an unknown version is read as the newest. */
function policiesOf(version: string | undefined): RepairPolicy[] {
  return REPAIR_POLICIES.filter((p) => versionAtLeast(version, ...p.since) !== false);
}

function matches(node: Node, policies: readonly RepairPolicy[]): Condition[] {
  return (node.status?.conditions ?? []).filter((c) => policies.some((p) => p.type === c.type && p.status === c.status));
}

interface RepairAt {
  at: Date;
  policy: RepairPolicy;
}

/** When Karpenter repairs the node, and by which policy: the earliest lastTransitionTime + toleration of its matching conditions. */
function repairAt(node: Node, policies: readonly RepairPolicy[]): RepairAt | undefined {
  const times = matches(node, policies).flatMap((c) => {
    const policy = policies.find((p) => p.type === c.type && p.status === c.status) as RepairPolicy;
    const t = Date.parse(c.lastTransitionTime ?? '');
    return Number.isNaN(t) ? [] : [{ at: new Date(t + policy.tolerationMs), policy }];
  });
  return times.sort((a, b) => a.at.getTime() - b.at.getTime())[0];
}

/** Karpenter's arithmetic over the nodes it counts: unhealthy ones against ceil(20%). */
function poolHealth(nodes: readonly Node[], policies: readonly RepairPolicy[]): PoolHealth {
  const unhealthy = nodes.filter((n) => matches(n, policies).length > 0).length;
  return { total: nodes.length, unhealthy, allowed: Math.ceil(0.2 * nodes.length) };
}

/**
 * Karpenter's `NodeRepairBlocked` events on the nodes, newest first (by last, else first, time):
 * `any` proves the repair ran, `fresh` (seen within BLOCKED_EVENT_FRESH_MS of now) that it is blocked now.
 */
function blockedEvents(ctx: DetectContext, nodes: readonly NotReadyNode[]): { any: boolean; fresh: KubeEvent | undefined } {
  const events = nodes.flatMap((n) =>
    ctx.index
      .eventsFor('Node', undefined, n.name)
      .filter((e) => e.reason === 'NodeRepairBlocked' && BLOCKED_MESSAGE.test(e.message ?? '')),
  );
  const fresh = newestFirst(events).find((e) => ctx.now.getTime() - eventLastSeenMs(e) <= BLOCKED_EVENT_FRESH_MS);
  return { any: events.length > 0, fresh };
}

/** The text this version's Karpenter writes on the Node when the rule blocks it (the typo was fixed in v1.3.0, for NodePools only). */
function blockedText(version: string | undefined, pool: string | undefined): string {
  if (!pool) return 'more then 20% nodes are unhealthy in the cluster';
  return versionAtLeast(version, 1, 3) === false
    ? 'more then 20% nodes are unhealthy in the nodepool'
    : 'more than 20% nodes are unhealthy in the nodepool';
}
