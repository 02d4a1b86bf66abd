import type { CauseCodeOf } from '../../domain/codes.ts';
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import type { NodePool, Pod } from '../../domain/kube.ts';
import { toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { allowedDisruptions, nextOpening, type AllowedDisruptions } from '../karpenter/disruption-budgets.ts';
import {
  blockedClaimsByPool,
  budgetCounts,
  driftReasonCounts,
  expireAfterOf,
  nodeDoNotDisrupt,
  type BlockedClaim,
} from './blocked-claims.ts';
import { claimMessages, describeMessage, poolBudgetMessages, type BlockedMessage, type EventCause } from './blocked-events.ts';
import {
  BUDGET_SEMANTICS,
  budgetPatchStep,
  budgetsViewStep,
  claimsStep,
  allPdbsStep,
  disruptingStep,
  eventsStep,
  multiplePdbSteps,
  namedPdbSteps,
  nodeAnnotationSteps,
  pdbSteps,
  podAnnotationSteps,
  terminationGracePeriodStep,
  unknownSteps,
} from './fixes.ts';
import { podBlockers, podRef, type PodBlockers } from './pod-blockers.ts';

type Code = 'DISRUPTION_BLOCKED';
type Cause = CauseCodeOf<Code>;

/**
 * DISRUPTION_BLOCKED: NodeClaims Karpenter wants to replace (`Drifted=True`, or older than the
 * NodePool's `expireAfter`) still running, not being deleted, at least `settings.disruptionBlockedMs`
 * after drifting or expiring. One finding per NodePool. The cause, first that applies: a budget
 * allowing no Drifted disruption now (or the NodePool's blocking-budget event); a PDB allowing no
 * disruption, a pod under several PDBs, a do-not-disrupt pod (from the pods on those nodes, or,
 * when the pods or PDBs were not captured, from what the DisruptionBlocked events name); the Node
 * or NodeClaim annotated do-not-disrupt; else unknown. Nothing is automated.
 */
export const disruptionBlocked: Detector<Code> = {
  code: 'DISRUPTION_BLOCKED',
  // NodePools only refine (expiry, budgets): a capture of NodeClaims alone still shows drift, and
  // requiring them would make every such capture incomplete (and stop TERMINATE_INSTANCE).
  requires: ['nodeclaims'],
  refinedBy: ['nodepools', 'nodes', 'pods', 'pdbs', 'events'],
  detect(ctx) {
    const byPool = blockedClaimsByPool(ctx.index, ctx.now, ctx.settings.disruptionBlockedMs);
    return [...byPool].sort(([a], [b]) => a.localeCompare(b)).map(([pool, claims]) => findingFor(ctx, pool, claims));
  },
};

interface Explained {
  cause: Cause;
  detail: string;
  steps: string[];
}

const MAX_LISTED = 10;

function iso(ms: number): string {
  return toIsoSeconds(new Date(ms));
}

function findingFor(ctx: DetectContext, pool: string, claims: BlockedClaim[]): Finding<Code> {
  const np = ctx.index.nodePoolsByName.get(pool);
  const evidence = claimEvidence(ctx, pool, np, claims);
  const poolEvents = ctx.snapshot.captured.has('events') ? poolBudgetMessages(ctx.index, pool) : [];
  const claimEvents = ctx.snapshot.captured.has('events') ? claimMessages(ctx.index, claims) : [];
  evidence.push(...poolEvents.map(describeMessage));
  evidence.push(...claimEvents.slice(0, MAX_LISTED).map(describeMessage));
  const explained = explain(ctx, pool, np, claims, poolEvents, claimEvents, evidence);
  evidence.push(...perClaimEvidence(claims));
  const steps = [claimsStep(pool), ...explained.steps];
  if (ctx.snapshot.captured.has('events') && poolEvents.length + claimEvents.length > 0) steps.push(eventsStep(pool));
  if (explained.cause !== 'BUDGET_BLOCKS' && !hasTerminationGracePeriod(np)) steps.push(terminationGracePeriodStep(pool));
  const drifted = claims.filter((c) => c.drifted).length;
  const expired = claims.filter((c) => c.expiredAt !== undefined).length;
  const what = drifted > 0 && expired > 0 ? 'drifted or expired' : drifted > 0 ? 'drifted' : 'expired';
  const oldest = claims[0];
  return newFinding({
    code: 'DISRUPTION_BLOCKED',
    severity: 'warning',
    title:
      `${claims.length} NodeClaim${claims.length === 1 ? '' : 's'} of NodePool ${pool} ${what} but not replaced` +
      (oldest ? ` (the oldest for ${formatDuration(ctx.now.getTime() - oldest.since)})` : ''),
    resource: { kind: 'NodePool', name: pool },
    since: oldest ? iso(oldest.since) : null,
    cause: { code: explained.cause, detail: explained.detail },
    evidence,
    remediation: manualRemediation(steps),
    counts: { objects: claims.length, nodePool: pool },
  });
}

function hasTerminationGracePeriod(np: NodePool | undefined): boolean {
  return np?.spec?.template?.spec?.terminationGracePeriod !== undefined;
}

function claimHasTerminationGracePeriod(c: BlockedClaim): boolean {
  return c.claim.spec?.terminationGracePeriod !== undefined;
}

function claimEvidence(ctx: DetectContext, pool: string, np: NodePool | undefined, claims: BlockedClaim[]): string[] {
  const evidence: string[] = [];
  const reasons = driftReasonCounts(claims);
  if (reasons.length > 0) evidence.push(`drift reasons: ${reasons.map(([r, n]) => `${r} ×${n}`).join(', ')}`);
  const expired = claims.filter((c) => c.expiredAt !== undefined);
  if (expired.length > 0)
    evidence.push(`${expired.length} expired: older than the NodePool's expireAfter ${expireAfterOf(np) ?? '?'}`);
  const oldest = claims[0];
  if (oldest) {
    const why = oldest.drifted && oldest.drifted.at === oldest.since ? `drifted (${oldest.drifted.reason})` : 'expired';
    evidence.push(
      `oldest: NodeClaim ${oldest.name} ${why} at ${iso(oldest.since)}, ${formatDuration(ctx.now.getTime() - oldest.since)} ago`,
    );
  }
  if (!ctx.snapshot.captured.has('nodepools'))
    evidence.push('NodePools were not captured: expiry and disruption budgets were not checked');
  else if (!np) evidence.push(`NodePool ${pool} is not in the capture: its budgets and expireAfter are unknown`);
  return evidence;
}

/** One line per blocked NodeClaim (the first ten): what Karpenter wants to replace it for. */
function perClaimEvidence(claims: BlockedClaim[]): string[] {
  const evidence: string[] = [];
  for (const c of claims.slice(0, MAX_LISTED)) {
    const parts = [
      c.drifted ? `Drifted=True ${c.drifted.reason} since ${iso(c.drifted.at)}` : '',
      c.expiredAt !== undefined ? `expired at ${iso(c.expiredAt)}` : '',
    ].filter(Boolean);
    evidence.push(`NodeClaim ${c.name}${c.nodeName ? ` (Node ${c.nodeName})` : ''}: ${parts.join(', ')}`);
  }
  if (claims.length > MAX_LISTED) evidence.push(`... and ${claims.length - MAX_LISTED} more NodeClaims`);
  return evidence;
}

function explain(
  ctx: DetectContext,
  pool: string,
  np: NodePool | undefined,
  claims: BlockedClaim[],
  poolEvents: BlockedMessage[],
  claimEvents: BlockedMessage[],
  evidence: string[],
): Explained {
  const budget = budgetCause(ctx, pool, np, claims, poolEvents, evidence);
  if (budget) return budget;
  const expiredNote = expiryNote(claims);
  const pods = podCause(ctx, claims, claimEvents, evidence, expiredNote);
  if (pods) return pods;
  const annotated = claims.flatMap(nodeDoNotDisrupt);
  // The Node's own annotation, when Nodes were captured, is the truth; an event only stands in for it.
  const nodeEvent = ctx.snapshot.captured.has('nodes') ? undefined : claimEvents.find((m) => m.cause === 'DO_NOT_DISRUPT_NODE');
  if (annotated.length > 0 || nodeEvent) {
    const named = annotated.map((o) => `${o.kind} ${o.name}`);
    return {
      cause: 'DO_NOT_DISRUPT_NODE',
      detail:
        (annotated.length > 0
          ? `${named.slice(0, 5).join(', ')}${named.length > 5 ? ` and ${named.length - 5} more` : ''} ${named.length === 1 ? 'is' : 'are'} annotated karpenter.sh/do-not-disrupt: "true"`
          : `Karpenter reports "${nodeEvent?.message}" on ${nodeEvent?.objects.join(', ')}`) +
        `: Karpenter does not disrupt such a node for drift (nor consolidation), however long it waits. Remove the annotation when the node may go.${expiredNote}`,
      steps: nodeAnnotationSteps(
        annotated.length > 0
          ? annotated
          : claims.filter((c) => c.nodeName).map((c) => ({ kind: 'Node' as const, name: c.nodeName ?? '' })),
      ),
    };
  }
  const other = claimEvents.find((m) => m.cause === undefined);
  const checked = [
    np && claims.some((c) => c.drifted) ? 'the budgets allow Drifted now' : '',
    ctx.snapshot.captured.has('pods')
      ? ctx.snapshot.captured.has('pdbs')
        ? 'no pod on these nodes is held by a PDB or annotated do-not-disrupt'
        : 'no pod on these nodes is annotated do-not-disrupt'
      : '',
    'no Node or NodeClaim is annotated do-not-disrupt',
  ].filter(Boolean);
  return {
    cause: 'UNKNOWN',
    detail:
      `Nothing captured explains why Karpenter has not replaced them (${checked.join('; ')}).` +
      (other ? ` Karpenter says "${other.message}" (×${other.count}).` : '') +
      ` Karpenter replaces drifted ` +
      `nodes only when their pods can schedule elsewhere (DisruptionBlocked "Not all pods would schedule"), and not ` +
      `while a node is uninitialized, nominated for a pending pod, or the controller is down.${expiredNote}`,
    steps: unknownSteps(
      claims.map((c) => c.name),
      ctx.index.controllers[0]?.namespace,
    ),
  };
}

/** Only for groups with expired NodeClaims: how Karpenter v1 treats expiry. */
function expiryNote(claims: BlockedClaim[]): string {
  const expiredOnly = claims.filter((c) => c.expiredAt !== undefined && !c.drifted).length;
  if (expiredOnly === 0) return '';
  return (
    ` Of these, ${expiredOnly} only expired: Karpenter v1 deletes an expired NodeClaim without asking budgets, PDBs or ` +
    `annotations (they then hold its drain), so one still not being deleted points at the controller, or a pre-v1 Karpenter whose expiry honours them.`
  );
}

function budgetCause(
  ctx: DetectContext,
  pool: string,
  np: NodePool | undefined,
  claims: BlockedClaim[],
  poolEvents: BlockedMessage[],
  evidence: string[],
): Explained | undefined {
  // Budgets gate Drifted; expiry is not budgeted in v1.
  if (!claims.some((c) => c.drifted)) return undefined;
  if (np) {
    const { nodes: counted, disrupting } = budgetCounts(ctx.index, pool);
    const nodeCount = Math.max(counted, claims.length);
    const allowed = allowedDisruptions(np, 'Drifted', nodeCount, ctx.now);
    evidence.push(budgetEvidence(allowed, nodeCount, disrupting));
    if (allowed.blocking) return blockingBudget(ctx, pool, np, nodeCount, allowed);
    if (Number.isFinite(allowed.allowed) && disrupting.length >= allowed.allowed && allowed.limiting) {
      return {
        cause: 'BUDGET_BLOCKS',
        detail:
          `NodePool ${pool}'s ${allowed.limiting.text} lets ${allowed.allowed} of its ${nodeCount} nodes be disrupting at once, ` +
          `and ${disrupting.length} already are (${disrupting.slice(0, 5).join(', ')}${disrupting.length > 5 ? ', ...' : ''}: being deleted, ` +
          `tainted karpenter.sh/disrupted or NotReady), so no drifted node may start. Drift continues once they finish. ${BUDGET_SEMANTICS}`,
        steps: [disruptingStep(disrupting), budgetsViewStep(pool)],
      };
    }
  }
  const event = poolEvents[0];
  if (!event) return undefined;
  return {
    cause: 'BUDGET_BLOCKS',
    detail:
      `Karpenter reports on NodePool ${pool}: "${event.message}" (×${event.count}). ` +
      (np
        ? 'Its budgets allow Drifted at this instant, so the blocking window has passed or nodes being disrupted used up the budget. '
        : '') +
      BUDGET_SEMANTICS,
    steps: [budgetsViewStep(pool)],
  };
}

function budgetEvidence(allowed: AllowedDisruptions, nodeCount: number, disrupting: string[]): string {
  const cap = Number.isFinite(allowed.allowed) ? `${allowed.allowed}` : 'any number';
  return (
    `budgets now let ${cap} of the NodePool's ${nodeCount} nodes be disrupting at once for Drifted` +
    (allowed.limiting ? ` (${allowed.limiting.text}${allowed.defaulted ? ", Karpenter's default" : ''})` : '') +
    (disrupting.length > 0 ? `; ${disrupting.length} already disrupting` : '')
  );
}

function blockingBudget(
  ctx: DetectContext,
  pool: string,
  np: NodePool,
  nodeCount: number,
  allowed: AllowedDisruptions,
): Explained {
  const blocking = allowed.blocking;
  const invalid = allowed.invalid[0];
  if (invalid) {
    return {
      cause: 'BUDGET_BLOCKS',
      detail:
        `NodePool ${pool}'s budgets[${invalid.index}] cannot be evaluated (${invalid.error}): Karpenter then allows no ` +
        `disruption of the NodePool for any reason until it is fixed. ${BUDGET_SEMANTICS}`,
      steps: [budgetsViewStep(pool)],
    };
  }
  const opens = nextOpening(np, 'Drifted', nodeCount, ctx.now);
  const when = opens
    ? `its window next opens at ${toIsoSeconds(opens)} (in ${formatDuration(opens.getTime() - ctx.now.getTime())})`
    : blocking?.budget.schedule === undefined
      ? 'it has no schedule, so it never opens: drift waits until the budget is changed'
      : 'it does not open within a year';
  return {
    cause: 'BUDGET_BLOCKS',
    detail: `NodePool ${pool}'s ${blocking?.text ?? 'budget'} allows 0 nodes to be disrupted for Drifted now; ${when}. ${BUDGET_SEMANTICS}`,
    steps: [budgetsViewStep(pool), budgetPatchStep(pool, np, nodeCount, opens ? toIsoSeconds(opens) : undefined)],
  };
}

function podsOf(ctx: DetectContext, claims: BlockedClaim[]): Pod[] {
  return claims.flatMap((c) => (c.nodeName ? (ctx.index.podsByNode.get(c.nodeName) ?? []) : []));
}

function list(items: readonly string[], max = 5): string {
  return `${items.slice(0, max).join(', ')}${items.length > max ? ` and ${items.length - max} more` : ''}`;
}

function podCause(
  ctx: DetectContext,
  claims: BlockedClaim[],
  claimEvents: BlockedMessage[],
  evidence: string[],
  expiredNote: string,
): Explained | undefined {
  // A drifted NodeClaim with its own terminationGracePeriod is replaced despite pods that block
  // eviction (Karpenter's eventual disruption): only the others can be held by their pods.
  const held = claims.filter((c) => !(c.drifted && claimHasTerminationGracePeriod(c)));
  if (held.length === 0) return undefined;
  const s = ctx.snapshot;
  const fromObjects: PodBlockers | undefined = s.captured.has('pods')
    ? podBlockers(podsOf(ctx, held), s.captured.has('pdbs') ? s.pdbs : [], ctx.now)
    : undefined;
  const podsByKey = new Map(podsOf(ctx, held).map((p) => [podRef(p), p]));
  if (!s.captured.has('pods'))
    evidence.push(
      'the pods on these nodes were not captured: PDB and do-not-disrupt causes come from the DisruptionBlocked events',
    );
  else if (!s.captured.has('pdbs'))
    evidence.push('PodDisruptionBudgets were not captured: PDB causes come from the DisruptionBlocked events');
  const fromEvent = (cause: EventCause) => claimEvents.find((m) => m.cause === cause);
  const pdbKnown = s.captured.has('pods') && s.captured.has('pdbs');

  const zero = fromObjects?.zeroPdbs ?? [];
  if (zero.length > 0) {
    const names = zero.map((h) => `${h.namespace}/${h.name} (holding ${list(h.pods, 3)})`);
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      detail:
        `PodDisruptionBudget${zero.length === 1 ? '' : 's'} ${list(names, 3)} allow${zero.length === 1 ? 's' : ''} 0 disruptions, ` +
        `so Karpenter cannot evict ${zero.length === 1 ? 'its' : 'their'} pods from these nodes and does not start replacing them. ` +
        `Scale the workload up or let the PDB allow one pod down.${expiredNote}`,
      steps: pdbSteps(zero, podsByKey),
    };
  }
  const pdbEvent = pdbKnown ? undefined : fromEvent('PDB_BLOCKS_EVICTION');
  if (pdbEvent) {
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      detail:
        `Karpenter reports "${pdbEvent.message}" on ${list(pdbEvent.objects, 3)}` +
        (pdbEvent.named
          ? `: PodDisruptionBudget ${pdbEvent.named} allows no eviction.`
          : ` (Karpenter v1.5+ does not name the PDB: \`kubectl get pdb -A\` shows those with ALLOWED DISRUPTIONS 0).`) +
        expiredNote,
      steps: pdbEvent.named ? namedPdbSteps(pdbEvent.named) : [allPdbsStep()],
    };
  }
  const multiple = fromObjects?.multiple ?? [];
  if (multiple.length > 0) {
    return {
      cause: 'MULTIPLE_PDBS',
      detail:
        `${list(
          multiple.map((m) => `pod ${m.pod} is selected by ${m.pdbs.join(' and ')}`),
          3,
        )}: the eviction API refuses a pod ` +
        `under more than one PodDisruptionBudget, so Karpenter cannot drain the node. Give each pod one PDB.${expiredNote}`,
      steps: multiplePdbSteps(multiple),
    };
  }
  const multipleEvent = pdbKnown ? undefined : fromEvent('MULTIPLE_PDBS');
  if (multipleEvent) {
    return {
      cause: 'MULTIPLE_PDBS',
      detail: `Karpenter reports "${multipleEvent.message}" on ${list(multipleEvent.objects, 3)}: a pod there is selected by more than one PodDisruptionBudget, which the eviction API refuses.${expiredNote}`,
      steps: [allPdbsStep()],
    };
  }
  const dnd = fromObjects?.doNotDisrupt ?? [];
  if (dnd.length > 0) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      detail:
        `${list(
          dnd.map((d) => `pod ${d.pod} (karpenter.sh/do-not-disrupt: "${d.value}")`),
          3,
        )} ${dnd.length === 1 ? 'runs' : 'run'} on these nodes: ` +
        `Karpenter does not disrupt a node while such a pod runs there. Remove the annotation, or time-box it with a duration.${expiredNote}`,
      steps: podAnnotationSteps(dnd.map((d) => d.pod)),
    };
  }
  const dndEvent = s.captured.has('pods') ? undefined : fromEvent('DO_NOT_DISRUPT_POD');
  if (dndEvent) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      detail:
        `Karpenter reports "${dndEvent.message}" on ${list(dndEvent.objects, 3)}` +
        (dndEvent.named ? `: pod ${dndEvent.named} opts out of disruption.` : ': a pod on the node opts out of disruption.') +
        expiredNote,
      steps: dndEvent.named ? podAnnotationSteps([dndEvent.named]) : [],
    };
  }
  return undefined;
}
