/**
 * Why a NodePool's idle nodes stay, the first cause that applies (docs/findings.md#consolidation_blocked):
 * 1. a NodePool-wide setting: consolidation off (`consolidateAfter: Never`, or `WhenEmpty` while the
 *    nodes run pods), then a budget allowing 0 disruptions for the reason now: Karpenter does not
 *    even evaluate the nodes, so whatever else holds them is moot until these change;
 * 2. what holds each node in Karpenter's candidate checks (core `NewCandidate`), which run before
 *    any consolidation simulation: the Node or NodeClaim annotated do-not-disrupt (checked first,
 *    ValidateNodeDisruptable), then a PDB allowing 0, a pod under several PDBs, a do-not-disrupt pod
 *    (pod-cause.ts; with the node's, added to it);
 * 3. what the simulation itself said, known only from Karpenter's `Unconsolidatable` events:
 *    spot-to-spot off, too few cheaper types, no cheaper replacement, pods that would not schedule;
 * 4. else UNKNOWN, with the candidates the capture leaves open and the checks that tell them apart.
 * The captured objects decide; an event stands in only for objects not captured (it may be stale).
 */
import { toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext } from '../detector.ts';
import { allowedDisruptions, nextOpening, type DisruptionReason } from '../karpenter/disruption-budgets.ts';
import { karpenterRelease, type KarpenterRelease } from '../karpenter/helm.ts';
import { consolidationOff, idleNodeName, type IdleNode } from './idle-nodes.ts';
import type { KarpenterMessage } from './karpenter-events.ts';
import { list, type Explained, type PoolEvidence } from './explanation.ts';
import {
  allocatedStep,
  budgetPatchStep,
  budgetsViewStep,
  consolidateAfterStep,
  constraintStep,
  controllerLogStep,
  describeStep,
  disruptionViewStep,
  eventsStep,
  nodeAnnotationSteps,
  podStep,
  policyStep,
  requirementsStep,
  spotToSpotStep,
  spotToSpotUpgradeStep,
} from './fixes.ts';
import { podCause } from './pod-cause.ts';

const quote = (m: KarpenterMessage) => `"${m.message}" (${m.reason} ×${m.count} on ${list(m.objects, 2)})`;

export function explain(ctx: DetectContext, e: PoolEvidence): Explained {
  return (
    disabledCause(e) ?? budgetCause(ctx, e) ?? nodeAndPodCause(ctx, e) ?? unconsolidatableCause(ctx, e) ?? unknownCause(ctx, e)
  );
}

/**
 * Karpenter's NewCandidate checks the node's own annotation before its pods' PDBs and annotations:
 * the node's is the cause; what holds its pods is added, since removing the annotation alone
 * leaves the node held.
 */
function nodeAndPodCause(ctx: DetectContext, e: PoolEvidence): Explained | undefined {
  const node = nodeAnnotationCause(ctx, e);
  const pods = podCause(ctx, e);
  if (!node || !pods) return node ?? pods;
  return { cause: node.cause, detail: `${node.detail} Then: ${pods.detail}`, steps: [...node.steps, ...pods.steps] };
}

function disabledCause(e: PoolEvidence): Explained | undefined {
  const off = consolidationOff(e.np);
  const running = e.nodes.filter((n) => (n.workloadPods?.length ?? 0) > 0);
  if (off === 'never') {
    return {
      cause: 'CONSOLIDATION_DISABLED',
      detail:
        `NodePool ${e.pool} has consolidateAfter: Never: Karpenter never consolidates its nodes (it removes their Consolidatable condition), ` +
        'so idle and underused ones stay until something else replaces them.',
      steps: [consolidateAfterStep(e.pool)],
    };
  }
  if (off === 'when-empty' && running.length > 0) {
    const pods = running.reduce((sum, n) => sum + (n.workloadPods?.length ?? 0), 0);
    return {
      cause: 'CONSOLIDATION_DISABLED',
      detail:
        `NodePool ${e.pool}'s consolidationPolicy is WhenEmpty: Karpenter removes only nodes with no pods but DaemonSet ones, and ` +
        `${running.length} of these nodes still run ${pods} pod${pods === 1 ? '' : 's'} (${list(running.map(idleNodeName), 3)}). ` +
        'Karpenter v0.3x says nothing about them; v1 says "has non-empty consolidation disabled" (v1.14: "has consolidation policy WhenEmpty, but node is not empty").',
      steps: [policyStep(e.pool, e.np)],
    };
  }
  // The NodePool was not captured: Karpenter's own words stand in for its spec.
  const said = e.np ? undefined : e.nodeMessages.find((m) => m.cause === 'CONSOLIDATION_DISABLED');
  if (!said) return undefined;
  return {
    cause: 'CONSOLIDATION_DISABLED',
    detail: `Karpenter says ${quote(said)}: consolidation is off for these nodes in NodePool ${e.pool}'s spec.disruption (consolidateAfter: Never, or the policy WhenEmpty while they run pods).`,
    steps: [disruptionViewStep(e.pool)],
  };
}

/** Underutilized while some node runs pods, Empty when every one is empty (Karpenter's two consolidation reasons). */
function reasonOf(nodes: readonly IdleNode[]): DisruptionReason {
  return nodes.every((n) => n.workloadPods !== undefined && n.workloadPods.length === 0) ? 'Empty' : 'Underutilized';
}

function budgetCause(ctx: DetectContext, e: PoolEvidence): Explained | undefined {
  const reason = reasonOf(e.nodes);
  if (e.np) {
    const nodeCount = Math.max(e.nodes.length, ctx.index.initializedClaimsByNodePool.get(e.pool)?.length ?? 0);
    const allowed = allowedDisruptions(e.np, reason, nodeCount, ctx.now);
    if (allowed.blocking) {
      const invalid = allowed.invalid[0];
      if (invalid) {
        return {
          cause: 'BUDGET_BLOCKS',
          detail: `NodePool ${e.pool}'s budgets[${invalid.index}] cannot be evaluated (${invalid.error}): Karpenter then allows no disruption of the NodePool for any reason until it is fixed.`,
          steps: [budgetsViewStep(e.pool)],
        };
      }
      const opens = nextOpening(e.np, reason, nodeCount, ctx.now);
      const when = opens
        ? `its window next opens at ${toIsoSeconds(opens)} (in ${formatDuration(opens.getTime() - ctx.now.getTime())})`
        : allowed.blocking.budget.schedule === undefined
          ? 'it has no schedule, so it never opens'
          : 'it does not open within a year';
      const said = e.poolMessages[0];
      return {
        cause: 'BUDGET_BLOCKS',
        detail:
          `NodePool ${e.pool}'s ${allowed.blocking.text} allows 0 nodes to be disrupted for ${reason} now; ${when}.` +
          (said ? ` Karpenter says ${quote(said)}.` : '') +
          ' The most restrictive active budget wins; a schedule (cron, UTC) opens a budget for its duration.',
        steps: [
          budgetsViewStep(e.pool),
          budgetPatchStep(e.pool, e.np, reason, nodeCount, opens ? toIsoSeconds(opens) : undefined),
        ],
      };
    }
  }
  // The NodePool was captured and its budgets allow the reason now: its event is stale (it stays in
  // the evidence), and the other causes are looked at.
  const said = e.np ? undefined : e.poolMessages[0];
  if (!said) return undefined;
  return {
    cause: 'BUDGET_BLOCKS',
    detail: `Karpenter says ${quote(said)} (NodePool ${e.pool} was not captured to check its budgets now).`,
    steps: [budgetsViewStep(e.pool)],
  };
}

const NODE_KEYS = ['karpenter.sh/do-not-disrupt', 'karpenter.sh/do-not-consolidate'] as const;

function nodeAnnotationCause(ctx: DetectContext, e: PoolEvidence): Explained | undefined {
  const annotated: { kind: 'Node' | 'NodeClaim'; name: string; key: string }[] = [];
  for (const n of e.nodes) {
    for (const key of NODE_KEYS) {
      if (n.node?.metadata?.annotations?.[key] === 'true') annotated.push({ kind: 'Node', name: n.nodeName ?? '?', key });
      if (n.claim?.metadata?.annotations?.[key] === 'true') annotated.push({ kind: 'NodeClaim', name: n.claimName ?? '?', key });
    }
  }
  if (annotated.length > 0) {
    const named = annotated.map((a) => `${a.kind} ${a.name}`);
    return {
      cause: 'DO_NOT_DISRUPT_NODE',
      detail: `${list(named)} ${named.length === 1 ? 'is' : 'are'} annotated ${annotated[0]?.key}: "true": Karpenter never consolidates such a node.`,
      steps: nodeAnnotationSteps(annotated),
    };
  }
  const said = ctx.snapshot.captured.has('nodes') ? undefined : e.nodeMessages.find((m) => m.cause === 'DO_NOT_DISRUPT_NODE');
  if (!said) return undefined;
  return {
    cause: 'DO_NOT_DISRUPT_NODE',
    detail: `Karpenter says ${quote(said)}: a node of NodePool ${e.pool} opts out of disruption (Nodes were not captured to name it).`,
    steps: [eventsStep()],
  };
}

const SIMULATION_CAUSES = [
  'SPOT_TO_SPOT_DISABLED',
  'TOO_FEW_CHEAPER_TYPES',
  'NO_CHEAPER_REPLACEMENT',
  'PODS_WOULD_NOT_SCHEDULE',
] as const;

/**
 * The constraints Karpenter's per-pod scheduling errors name (core scheduling: `unsatisfiable topology
 * constraint for pod anti-affinity|topology spread, ...`, `pod hostport conflicts with ...`, `did not
 * tolerate taint`, `incompatible requirements, ...`), and the part of the pod's spec that confirms each.
 */
const CONSTRAINTS: readonly { text: string; name: string; jsonpath: string }[] = [
  { text: 'pod anti-affinity', name: 'pod anti-affinity', jsonpath: '{.spec.affinity.podAntiAffinity}' },
  { text: 'topology spread', name: 'topology spread', jsonpath: '{.spec.topologySpreadConstraints}' },
  { text: 'hostport', name: 'a hostPort', jsonpath: '{.spec.containers[*].ports}' },
  { text: 'did not tolerate taint', name: 'a taint it does not tolerate', jsonpath: '{.spec.tolerations}' },
  {
    text: 'incompatible requirements',
    name: 'incompatible requirements (node selector or node affinity)',
    jsonpath: '{.spec.nodeSelector}{"\\n"}{.spec.affinity.nodeAffinity}',
  },
];

interface UnschedulablePod {
  ref: string;
  constraint: (typeof CONSTRAINTS)[number] | undefined;
}

const POD_ERROR = /([a-z0-9][-a-z0-9.]*\/[a-z0-9][-a-z0-9.]*) => /g;

/** `ns/pod => error` pairs of a `not all pods would schedule` text (up to five per message), each error's constraint. */
function unschedulablePods(message: string): UnschedulablePod[] {
  const matches = [...message.matchAll(POD_ERROR)];
  return matches.flatMap((m, i) => {
    const ref = m[1];
    if (!ref) return [];
    const error = message.slice((m.index ?? 0) + m[0].length, matches[i + 1]?.index ?? message.length).toLowerCase();
    return [{ ref, constraint: CONSTRAINTS.find((c) => error.includes(c.text)) }];
  });
}

function constrainedDetail(pods: readonly UnschedulablePod[]): string {
  const named = pods.filter((p) => p.constraint).slice(0, 3);
  if (named.length === 0)
    return 'removing the node would leave pods without a place (pod anti-affinity, topology spread, hostPort, a node selector or a toleration only this node satisfies), or it needs more than one new node';
  return `removing the node would leave ${list(
    named.map((p) => `pod ${p.ref} without a place (${p.constraint?.name})`),
    3,
  )}`;
}

/** `0.33.1`, `v0.33.1` → [0, 33]. */
function minorOf(version: string | undefined): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\./.exec(version ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/**
 * The gate where the release has it (v0.34+), else an upgrade to it: the installed chart version
 * decides; unlabelled, Karpenter's own text does (`Can't replace a spot node with a spot node` is
 * v0.32–v0.33's, `SpotToSpotConsolidation is disabled, ...` v0.34+'s).
 */
function spotToSpotFix(release: KarpenterRelease, said: KarpenterMessage): { why: string; step: string } {
  const minor = minorOf(release.chartVersion);
  const beforeGate = minor ? minor[0] === 0 && minor[1] < 34 : /^Can't replace a spot node/i.test(said.message);
  return beforeGate
    ? {
        why: `Karpenter ${minor ? release.chartVersion : 'v0.32–v0.33 (this wording is theirs)'} never replaces a Spot node with a cheaper Spot node and has no setting for it: the SpotToSpotConsolidation feature gate came in v0.34`,
        step: spotToSpotUpgradeStep(release, minor ? release.chartVersion : undefined),
      }
    : {
        why: 'it does not replace a Spot node with a cheaper Spot node while the SpotToSpotConsolidation feature gate is off',
        step: spotToSpotStep(release),
      };
}

function unconsolidatableCause(ctx: DetectContext, e: PoolEvidence): Explained | undefined {
  for (const cause of SIMULATION_CAUSES) {
    const said = e.nodeMessages.find((m) => m.reason === 'Unconsolidatable' && m.cause === cause);
    if (!said) continue;
    const others = e.nodeMessages.filter((m) => m !== said && m.reason === 'Unconsolidatable').slice(0, 2);
    const also = others.length > 0 ? ` It also said ${others.map(quote).join('; ')}.` : '';
    const names = e.nodes.map(idleNodeName);
    switch (cause) {
      case 'SPOT_TO_SPOT_DISABLED': {
        const fix = spotToSpotFix(karpenterRelease(ctx.index.controllers[0]), said);
        return {
          cause,
          detail: `Karpenter says ${quote(said)}: ${fix.why} (it may still delete one whose pods fit elsewhere).${also}`,
          steps: [fix.step],
        };
      }
      case 'TOO_FEW_CHEAPER_TYPES':
        return {
          cause,
          detail: `Karpenter says ${quote(said)}: it replaces a Spot node with a Spot node only when at least 15 cheaper instance types could take it (so it does not walk down to the least available one). NodePool ${e.pool}'s requirements allow too few.${also}`,
          steps: [
            requirementsStep(
              e.pool,
              `NodePool ${e.pool}'s instance requirements: widen them (more families, sizes, generations) so at least 15 cheaper types qualify`,
            ),
          ],
        };
      case 'NO_CHEAPER_REPLACEMENT':
        // v0.37+ `Filtering by price: minValues requirement is not met for label(s) ...`: the cheaper
        // types would leave fewer distinct values of a label than the requirement's minValues asks.
        if (/minValues/i.test(said.message))
          return {
            cause,
            detail: `Karpenter says ${quote(said)}: the cheaper instance types left would not offer as many distinct values of the label(s) it names as NodePool ${e.pool}'s requirements ask through minValues, so it keeps the node. Lower that minValues or allow more values for the label.${also}`,
            steps: [
              requirementsStep(
                e.pool,
                `NodePool ${e.pool}'s instance requirements and their minValues: the label(s) Karpenter names need that many distinct values among cheaper types`,
              ),
              allocatedStep(names),
            ],
          };
        return {
          cause,
          detail: `Karpenter says ${quote(said)}: no single cheaper instance type its requirements allow would hold all the pods of such a node, and its pods do not fit on the other nodes.${also}`,
          steps: [
            allocatedStep(names),
            requirementsStep(e.pool, `NodePool ${e.pool}'s instance requirements: whether smaller or cheaper types are allowed`),
          ],
        };
      case 'PODS_WOULD_NOT_SCHEDULE': {
        const pods = unschedulablePods(said.message).slice(0, 3);
        // The named constraint's check leads; a pod whose error names none gets its whole placement spec.
        const ordered = [...pods.filter((p) => p.constraint), ...pods.filter((p) => !p.constraint)];
        return {
          cause,
          detail: `Karpenter says ${quote(said)}: ${constrainedDetail(pods)}.${also}`,
          steps:
            ordered.length > 0
              ? ordered.map((p) =>
                  p.constraint ? constraintStep(p.ref, p.constraint.name, p.constraint.jsonpath) : podStep(p.ref),
                )
              : [allocatedStep(names)],
        };
      }
    }
  }
  return undefined;
}

function unknownCause(ctx: DetectContext, e: PoolEvidence): Explained {
  const s = ctx.snapshot;
  const unread = e.nodes.filter((n) => n.workloadPods === undefined).map(idleNodeName);
  const checked = [
    e.np ? 'consolidation is on and the budgets allow it now' : '',
    // Only pods read are spoken of: a node whose pods were not read (a live scan's cap) proves nothing.
    !s.captured.has('pods')
      ? ''
      : unread.length > 0
        ? `the pods of ${list(unread, 3)} were not read`
        : s.captured.has('pdbs')
          ? 'no pod on these nodes is held by a PDB or annotated do-not-disrupt'
          : 'no pod on these nodes is annotated do-not-disrupt (PDBs not captured)',
    s.captured.has('nodes') ? 'no Node or NodeClaim is annotated do-not-disrupt' : '',
  ].filter(Boolean);
  const spot = e.nodes.filter(
    (n) => (n.node?.metadata?.labels ?? n.claim?.metadata?.labels)?.['karpenter.sh/capacity-type'] === 'spot',
  );
  const candidates = [
    spot.length > 0
      ? `${spot.length} of them are Spot: spot-to-spot consolidation off, or fewer than 15 cheaper types (Unconsolidatable "SpotToSpotConsolidation ...")`
      : '',
    'no cheaper replacement ("Can\'t replace with a cheaper node")',
    'pods that would not schedule elsewhere ("Not all pods would schedule")',
  ].filter(Boolean);
  const other = e.nodeMessages[0];
  const events = s.captured.has('events')
    ? other
      ? ` Karpenter says ${quote(other)}.`
      : ' No Karpenter event explains it: Karpenter sends Unconsolidatable at most every 15 minutes per node, none from multi-node consolidation, and events expire after an hour.'
    : ' Events were not captured.';
  return {
    cause: 'UNKNOWN',
    detail:
      `Nothing captured says why Karpenter leaves them (${checked.join('; ') || 'little was captured'}).${events} ` +
      `Likely, most likely first: ${candidates.join('; ')}. Karpenter's events and log tell them apart.`,
    steps: [eventsStep(), describeStep(e.nodes[0]), controllerLogStep(ctx.index.controllers[0]?.namespace)],
  };
}
