/**
 * What Karpenter's `DisruptionBlocked` and `Unconsolidatable` event texts say blocks a node, in the
 * wording of every release from v0.32 (core `pkg/controllers/disruption/events/events.go`,
 * `pkg/controllers/state/statenode.go`, `pkg/controllers/disruption/consolidation.go`):
 * - v0.32–v1.1 prefix `Cannot disrupt Node: ` / `Cannot disrupt NodeClaim: ` to DisruptionBlocked;
 * - up to v1.4 the object is quoted in the text (`PDB "ns/name" prevents pod evictions`,
 *   `pdb "ns/name" ...` in v1.0–v1.1, `Pdb "ns/name" ...` from v1.2: the first letter is capitalised);
 * - from v1.5 it is a `(Key=value)` suffix (`Pdb prevents pod evictions (PodDisruptionBudget=ns/name)`,
 *   `[ns/name]` from v1.7; `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ns/name)`).
 * Matched case-insensitively. Shared by DISRUPTION_BLOCKED and CONSOLIDATION_BLOCKED.
 */
import type { KubeEvent } from '../../domain/kube.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';

/**
 * Events about a cluster-scoped object (Node, NodeClaim, NodePool): recorded without a namespace,
 * or in `default`, where Kubernetes files them (`kubectl get events -n karpenter` never shows them).
 */
export function clusterScopedEvents(index: SnapshotIndex, kind: string, name: string): KubeEvent[] {
  return [...index.eventsFor(kind, undefined, name), ...index.eventsFor(kind, 'default', name)];
}

/** A cause a DisruptionBlocked text names (on a Node/NodeClaim, or a budget on the NodePool). */
export type BlockedCause =
  | 'BUDGET_BLOCKS'
  | 'PDB_BLOCKS_EVICTION'
  | 'MULTIPLE_PDBS'
  | 'DO_NOT_DISRUPT_POD'
  | 'DO_NOT_DISRUPT_NODE'
  | 'NODE_NOT_INITIALIZED';

export interface BlockedText {
  cause: BlockedCause | undefined;
  /** The object the text names: `ns/name` of a PDB or pod (quoted up to v1.4, a suffix from v1.5). */
  named: string | undefined;
  /** A budget's disruption reason (`Underutilized`, `Empty`, `Drifted`), when the NodePool event names one. */
  reason?: string;
}

const PREFIX = /^Cannot disrupt (?:Node|NodeClaim): /i;
// v1.1+ per reason; v0.34–v1.0 also without one.
const BUDGET = /^No allowed disruptions(?: for disruption reason (\w+))? due to blocking budget/i;
// Before v0.32 (as Unconsolidatable) the name came unquoted: `pdb istio-system/istiod prevents pod evictions`.
const PDB = /pdb (?:"([^"]+)" |([^\s"]+\/[^\s"]+) )?prevents pod evictions(?: \(PodDisruptionBudget=\[?([^\]()\s]+)\]?\))?/i;
const MULTIPLE = /eviction does not support multiple pdbs/i;
// v0.32–v0.33: `Pod "ns/name" has do not evict annotation`.
const POD_DND = /pod (?:"([^"]+)" )?has (?:"karpenter\.sh\/do-not-disrupt"|do not evict) annotation(?: \(Pod=([^()\s]+)\))?/i;
// `through` from v1.0, `with` in v0.32–v0.37.
const NODE_DND = /disruption is blocked (?:through|with) the "karpenter\.sh\/do-not-disrupt" annotation/i;
const NOT_INITIALIZED = /^(?:state )?node isn't initialized/i;

/** What a Node/NodeClaim (or NodePool) `DisruptionBlocked` message says blocks disruption. */
export function blockedCauseOf(message: string): BlockedText {
  const text = message.replace(PREFIX, '');
  const budget = BUDGET.exec(text);
  if (budget) return { cause: 'BUDGET_BLOCKS', named: undefined, ...(budget[1] ? { reason: budget[1] } : {}) };
  const pdb = PDB.exec(text);
  if (pdb) return { cause: 'PDB_BLOCKS_EVICTION', named: pdb[1] ?? pdb[2] ?? pdb[3] };
  if (MULTIPLE.test(text)) return { cause: 'MULTIPLE_PDBS', named: undefined };
  const pod = POD_DND.exec(text);
  if (pod) return { cause: 'DO_NOT_DISRUPT_POD', named: pod[1] ?? pod[2] };
  if (NODE_DND.test(text)) return { cause: 'DO_NOT_DISRUPT_NODE', named: undefined };
  if (NOT_INITIALIZED.test(text)) return { cause: 'NODE_NOT_INITIALIZED', named: undefined };
  return { cause: undefined, named: undefined };
}

/** A cause an `Unconsolidatable` text gives (single-node consolidation and emptiness, v0.32–v1.14). */
export type UnconsolidatableCause =
  | 'CONSOLIDATION_DISABLED'
  | 'DO_NOT_DISRUPT_NODE'
  | 'SPOT_TO_SPOT_DISABLED'
  | 'TOO_FEW_CHEAPER_TYPES'
  | 'NO_CHEAPER_REPLACEMENT'
  | 'PODS_WOULD_NOT_SCHEDULE';

const UNCONSOLIDATABLE: readonly [RegExp, UnconsolidatableCause][] = [
  // `NodePool "x" has consolidation disabled` (v0.37+, consolidateAfter Never; Provisioner in v0.32),
  // `has non-empty consolidation disabled` (v1.0–v1.13, WhenEmpty),
  // `has consolidation policy WhenEmpty, but node is not empty` (v1.14).
  [/^(?:NodePool|Provisioner) "[^"]*" has (?:non-empty )?consolidation disabled/i, 'CONSOLIDATION_DISABLED'],
  [/^NodePool "[^"]*" has consolidation policy WhenEmpty, but node is not empty/i, 'CONSOLIDATION_DISABLED'],
  // v0.32–v0.37 node annotation.
  [/^karpenter\.sh\/do-not-consolidate annotation exists/i, 'DO_NOT_DISRUPT_NODE'],
  // v0.34+ and v0.32–v0.33.
  [/^SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node/i, 'SPOT_TO_SPOT_DISABLED'],
  [/^Can't replace a spot node with a spot node/i, 'SPOT_TO_SPOT_DISABLED'],
  [
    /^SpotToSpotConsolidation requires \d+ cheaper instance type options than the current candidate to consolidate, got \d+/i,
    'TOO_FEW_CHEAPER_TYPES',
  ],
  // `Can't replace with a cheaper node`; v0.37+ `Filtering by price: ...` (minValues); pre-v0.32 wording.
  [/^Can't replace with a (?:cheaper|lower-priced) node/i, 'NO_CHEAPER_REPLACEMENT'],
  [/^Filtering by price: /i, 'NO_CHEAPER_REPLACEMENT'],
  // `not all pods would schedule, ns/pod => ...`; `Can't remove without creating 2 candidates` (`nodes` before v0.32).
  [/^not all pods would schedule/i, 'PODS_WOULD_NOT_SCHEDULE'],
  [/^Can't remove without creating \d+ (?:candidates|nodes)/i, 'PODS_WOULD_NOT_SCHEDULE'],
];

/** What an `Unconsolidatable` message says keeps the node, or undefined (an unlisted or transient text). */
export function unconsolidatableCauseOf(message: string): UnconsolidatableCause | undefined {
  const text = message.trim();
  return UNCONSOLIDATABLE.find(([pattern]) => pattern.test(text))?.[1];
}
