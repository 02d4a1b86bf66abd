import type { KubeEvent } from '../../domain/kube.ts';
import { eventLastSeenMs } from '../../domain/kube-helpers.ts';
import {
  parseInstanceTypeShortfall,
  parseTopologyConflict,
  type InstanceTypeShortfall,
  type TopologyConflict,
} from './instance-type-messages.ts';

/**
 * The words kube-scheduler and Karpenter use when a pod cannot be placed, parsed into facts.
 *
 * kube-scheduler (FailedScheduling event, PodScheduled=False message):
 *   `0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 node(s) had untolerated
 *    taint {workload-type: system}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`
 *   `no nodes available to schedule pods`
 * Older releases: `1 node(s) had taint {k: v}, that the pod didn't tolerate`; 1.32+: `had untolerated taint(s)`.
 *
 * Karpenter (FailedScheduling event from `karpenter`, `Failed to schedule pod, <errors>`; log line
 * `could not schedule pod` with the same errors in `error`), errors joined by `; ` (multierr):
 *   `incompatible with nodepool "default", daemonset overhead={"cpu":"150m","pods":"3"}, incompatible requirements, ...`
 *   `all available instance types exceed limits for nodepool: "default"` (v1.0; later `nodepool "x"` or `nodepool (NodePool=x)`)
 *   `node limits have been exhausted for nodepool (NodePool=x)`
 */

export type SchedulerReasonKind =
  | 'anti-affinity'
  | 'affinity'
  | 'taint'
  | 'node-selector'
  | 'insufficient'
  | 'too-many-pods'
  | 'node-condition'
  | 'volume'
  | 'ports'
  | 'topology-spread'
  | 'other';

interface SchedulerReason {
  count: number;
  kind: SchedulerReasonKind;
  /** The reason as the scheduler wrote it, without the count. */
  text: string;
  /** For `taint`: the taint the scheduler named, when it named one. */
  taint?: { key: string; value: string };
  /** For `insufficient`: the resource (`cpu`, `memory`, ...). */
  resource?: string;
}

export interface SchedulerMessage {
  /** Nodes the scheduler considered (`0/3` → 3), when stated. */
  totalNodes: number | undefined;
  /** `no nodes available to schedule pods`, or `0/0 nodes are available`. */
  noNodesAvailable: boolean;
  reasons: SchedulerReason[];
}

const AVAILABLE = /^\s*\d+\/(\d+) nodes are available:?\s*([\s\S]*)$/;
/** Where the filter reasons end: the preemption summary (and 1.31+'s DRA note) follow. */
const TAIL = /\.?\s*(?:preemption:|no new claims to deallocate)[\s\S]*$/;
/** Taints the node lifecycle controller sets: a node state, not a toleration the pod lacks. */
const NODE_STATE_TAINT = /^node\.(?:kubernetes\.io|cloudprovider\.kubernetes\.io)\//;

export function parseSchedulerMessage(message: string | undefined): SchedulerMessage {
  const text = (message ?? '').trim();
  if (/no nodes available to schedule pods/i.test(text)) return { totalNodes: 0, noNodesAvailable: true, reasons: [] };
  const match = AVAILABLE.exec(text);
  if (!match) return { totalNodes: undefined, noNodesAvailable: false, reasons: [] };
  const totalNodes = Number(match[1]);
  const body = (match[2] ?? '').replace(TAIL, '').replace(/\.\s*$/, '');
  const reasons: SchedulerReason[] = [];
  for (const part of body.split(/,\s+(?=\d+\s)/)) {
    const m = /^(\d+)\s+([\s\S]+)$/.exec(part.trim());
    if (m) reasons.push(classify(Number(m[1]), (m[2] ?? '').trim()));
  }
  return { totalNodes, noNodesAvailable: totalNodes === 0, reasons };
}

function classify(count: number, text: string): SchedulerReason {
  const insufficient = /^Insufficient (\S+)/.exec(text);
  if (insufficient) return { count, kind: 'insufficient', text, resource: insufficient[1] ?? '' };
  if (/had (?:untolerated )?taints?\b/.test(text)) {
    const braces = /\{([^}]*)\}/.exec(text);
    if (!braces) return { count, kind: 'taint', text };
    const inner = braces[1] ?? '';
    const colon = inner.indexOf(':');
    const key = (colon >= 0 ? inner.slice(0, colon) : inner).trim();
    const value = colon >= 0 ? inner.slice(colon + 1).trim() : '';
    return { count, kind: NODE_STATE_TAINT.test(key) ? 'node-condition' : 'taint', text, taint: { key, value } };
  }
  const kind: SchedulerReasonKind = /didn't match pod anti-affinity rules|didn't satisfy existing pods anti-affinity rules/.test(
    text,
  )
    ? 'anti-affinity'
    : /didn't match pod affinity rules/.test(text)
      ? 'affinity'
      : /node affinity\/selector|didn't match node selector/i.test(text)
        ? 'node-selector'
        : /Too many pods/.test(text)
          ? 'too-many-pods'
          : /were unschedulable|were not ready|(?:memory|disk|pid) pressure/i.test(text)
            ? 'node-condition'
            : /volume node affinity|PersistentVolume|PersistentVolumeClaim/.test(text)
              ? 'volume'
              : /free ports/.test(text)
                ? 'ports'
                : /topology spread constraints/.test(text)
                  ? 'topology-spread'
                  : 'other';
  return { count, kind, text };
}

/** Nodes the scheduler rejected for one kind of reason (a node can count under several). */
export function nodesRejectedFor(message: SchedulerMessage, kind: SchedulerReasonKind): number {
  return message.reasons.filter((r) => r.kind === kind).reduce((sum, r) => sum + r.count, 0);
}

// --- Karpenter ------------------------------------------------------------------------------

interface NodePoolIncompatibility {
  nodePool: string;
  /** What Karpenter said after the daemonset overhead, e.g. `incompatible requirements, label "role" does not have known values`. */
  detail: string;
}

export interface KarpenterSchedulingError {
  incompatible: NodePoolIncompatibility[];
  /** NodePools whose limits stopped the launch ('' when the message did not name one). */
  limitsExceeded: string[];
  noNodePools: boolean;
  nodeClassNotReady: boolean;
  /** A NodePool matched but no instance type it allows fits (the InstanceTypeFilterError family, minValues). */
  instanceTypes: InstanceTypeShortfall[];
  /** A zone, topology-spread or volume-topology requirement no NodePool meets. */
  topology: TopologyConflict[];
  other: string[];
}

const INCOMPATIBLE = /^incompatible with (?:nodepool|provisioner) "([^"]*)"(?:,\s*daemonset overhead=\{[^}]*\})?,?\s*([\s\S]*)$/;
const LIMITS =
  /(?:exceed limits for|limits have been exhausted for) (?:nodepool|provisioner):?\s*(?:"([^"]*)"|\((?:NodePool|Provisioner)=([^)]*)\))?/;

/** Parses a Karpenter `Failed to schedule pod, ...` event message or a `could not schedule pod` log error. */
export function parseKarpenterMessage(message: string | undefined): KarpenterSchedulingError {
  const result: KarpenterSchedulingError = {
    incompatible: [],
    limitsExceeded: [],
    noNodePools: false,
    nodeClassNotReady: false,
    instanceTypes: [],
    topology: [],
    other: [],
  };
  const text = (message ?? '').trim().replace(/^(?:Failed to schedule pod|Could not schedule pod),\s*/i, '');
  if (!text) return result;
  for (const raw of text.split(/;\s+/)) {
    const part = raw.trim();
    const incompatible = INCOMPATIBLE.exec(part);
    const limits = LIMITS.exec(part);
    const subject = incompatible ? (incompatible[2] ?? '').trim() : part;
    const pool = incompatible ? (incompatible[1] ?? '') : undefined;
    const shortfall = parseInstanceTypeShortfall(subject, pool);
    const topology = shortfall ? undefined : parseTopologyConflict(subject, pool);
    if (shortfall) result.instanceTypes.push(shortfall);
    else if (topology) result.topology.push(topology);
    else if (incompatible) result.incompatible.push({ nodePool: incompatible[1] ?? '', detail: (incompatible[2] ?? '').trim() });
    else if (limits) result.limitsExceeded.push(limits[1] ?? limits[2] ?? '');
    else if (/no (?:nodepools|provisioners) found/i.test(part)) result.noNodePools = true;
    else if (/node ?class.{0,40}not ready|NodeClassNotReady/i.test(part)) result.nodeClassNotReady = true;
    else result.other.push(part);
  }
  return result;
}

/** The label key or taint a Karpenter incompatibility names, for steps. */
export function incompatibilitySubject(detail: string): { label?: string; taint?: string } {
  const unknownLabel = /label "([^"]+)" does not have known values/.exec(detail);
  if (unknownLabel) return { label: unknownLabel[1] ?? '' };
  const key = /incompatible requirements, key ([^\s,]+)/.exec(detail);
  if (key) return { label: key[1] ?? '' };
  const taint = /did not tolerate ([^;\s]+(?:=[^;\s]*)?:[A-Za-z]+)/.exec(detail);
  if (taint) return { taint: taint[1] ?? '' };
  return {};
}

// --- events ---------------------------------------------------------------------------------

export type SchedulingSource = 'kube-scheduler' | 'karpenter' | 'fargate-scheduler';

/** Which component wrote a scheduling event (FailedScheduling, Nominated); any other scheduler name is a kube-scheduler profile. */
export function schedulingSource(event: KubeEvent): SchedulingSource {
  const source = (event.source ?? '').toLowerCase();
  if (source.startsWith('karpenter')) return 'karpenter';
  if (source === 'fargate-scheduler') return 'fargate-scheduler';
  return 'kube-scheduler';
}

/** The most recent FailedScheduling event from one component, among one object's events. */
export function latestFailedScheduling(events: readonly KubeEvent[], source: SchedulingSource): KubeEvent | undefined {
  let latest: KubeEvent | undefined;
  for (const e of events) {
    if (e.reason !== 'FailedScheduling' || schedulingSource(e) !== source) continue;
    if (!latest || eventLastSeenMs(e) >= eventLastSeenMs(latest)) latest = e;
  }
  return latest;
}
