/**
 * Destroy-time cleanup over the ports (docs/cleanup.md): NodePools, the wait for their NodeClaims,
 * then instances, launch templates and instance profiles, each a step that takes what it needs of
 * the outcomes before it and returns its own, frozen (src/cleanup/outcome.ts). The composition
 * below decides from those outcomes what the later steps may do, so each starts only once the
 * ones before leave nothing that would fight it. A dry run runs the very same steps and reads,
 * and stops before each write: its result is the plan apply follows (docs/cleanup.md, "Dry run =
 * apply"). Stateless and idempotent: a run cut short by its deadline is finished by the next one,
 * which finds done what was done. AWS and Kubernetes failures become `errors` and the run carries
 * on with what they do not hold back; nothing is thrown for them.
 */
import { CleanupBudget, type CleanupContext } from '../cleanup/budget.ts';
import { listCleanupCandidates } from '../cleanup/candidates.ts';
import { instanceProfilesStep } from '../cleanup/instance-profiles-step.ts';
import { instancesStep, whyInstancesMayRun, type InstancesOutcome } from '../cleanup/instances-step.ts';
import { launchTemplatesStep } from '../cleanup/launch-templates-step.ts';
import { nodeClaimWaitStep } from '../cleanup/nodeclaim-wait.ts';
import { instanceHoldOf } from '../cleanup/nodepools-outcome.ts';
import { nodePoolsStep } from '../cleanup/nodepools-step.ts';
import { StepRecord, type StepOutcome } from '../cleanup/outcome.ts';
import { cleanupResultOf, stepOutcomesOf, type CleanupOutcomes } from '../cleanup/result.ts';
import { namesOf } from '../cleanup/text.ts';
import type { CleanupProgress, CleanupRequest, CleanupResult, CleanupStep } from '../domain/cleanup.ts';
import type { Clock } from '../ports/clock.ts';
import type { ClusterConnection } from '../ports/cluster.ts';

export interface CleanupDependencies {
  connection: ClusterConnection;
  clock: Clock;
  /** Called as the run goes (step started, still waiting for N NodeClaims / instances). */
  onProgress?: (progress: CleanupProgress) => void;
}

export interface CleanupSettings {
  /** No step, batch or wait starts after this; the result then says `complete: false` and `stoppedAt`. */
  deadline: Date;
  /** How long to wait for the deleted NodePools' NodeClaims to go, counted from their deletion. Default 5 min. */
  nodeClaimWaitMs?: number;
  /** Between two looks at NodeClaims or shutting-down instances. Default 10 s. */
  pollIntervalMs?: number;
}

export const DEFAULT_NODECLAIM_WAIT_MS = 5 * 60_000;
const DEFAULT_CLEANUP_POLL_MS = 10_000;

/** One step of the list: the outcomes so far in, the same with its own added out. */
type Step = (ctx: CleanupContext, before: CleanupOutcomes) => Promise<CleanupOutcomes>;

/** In the order they run (CLEANUP_STEPS, the NodeClaim wait under the NodePools step's name). */
const STEPS: readonly Step[] = [
  async (ctx, before) => ({ ...before, nodepools: await nodePoolsStep(ctx) }),
  // Only for NodePools going on a cluster whose API answered (the NodePools step hands on the drain).
  async (ctx, before) => {
    const drain = ran(before.nodepools).drain;
    return drain === undefined ? before : { ...before, nodeClaimWait: await nodeClaimWaitStep(ctx, drain) };
  },
  async (ctx, before) => {
    const hold = instanceHoldOf(ran(before.nodepools), before.nodeClaimWait);
    return { ...before, instances: await instancesStep(ctx, { candidates: before.candidates, hold }) };
  },
  async (ctx, before) => ({
    ...before,
    'launch-templates': await afterEveryInstance(
      ctx,
      'launch-templates',
      before,
      (instances) => launchTemplatesStep(ctx, { instances }),
      // Said once, by the first of the two steps that serve the whole cluster.
      (nodePools) =>
        `only NodePools ${namesOf(nodePools)}: launch templates and instance profiles stay (they serve the whole cluster)`,
    ),
  }),
  async (ctx, before) => ({
    ...before,
    'instance-profiles': await afterEveryInstance(ctx, 'instance-profiles', before, (instances) =>
      instanceProfilesStep(ctx, { nodeClasses: ran(before.nodepools).nodeClasses, instances }),
    ),
  }),
];

export async function runCleanup(
  request: CleanupRequest,
  dependencies: CleanupDependencies,
  settings: CleanupSettings,
): Promise<CleanupResult> {
  const budget = new CleanupBudget(dependencies.clock, settings.deadline, dependencies.onProgress);
  const ctx: CleanupContext = {
    request,
    connection: dependencies.connection,
    budget,
    nodeClaimWaitMs: settings.nodeClaimWaitMs ?? DEFAULT_NODECLAIM_WAIT_MS,
    pollIntervalMs: settings.pollIntervalMs ?? DEFAULT_CLEANUP_POLL_MS,
  };
  if (budget.outOfTime()) return cleanupResultOf(request, { candidates: NOTHING_LISTED }, true);
  // Listed before the NodePools go, so instances Karpenter terminates meanwhile are still reported.
  let outcomes: CleanupOutcomes = { candidates: await listCleanupCandidates(ctx) };
  for (const step of STEPS) {
    outcomes = await step(ctx, outcomes);
    // The deadline came: the next run starts where this one stopped.
    if (stepOutcomesOf(outcomes).some((s) => s.stopped)) break;
  }
  return cleanupResultOf(request, outcomes);
}

const NOTHING_LISTED = {
  instances: undefined,
  launchTemplates: undefined,
  instanceProfiles: undefined,
  notProven: [],
  errors: [],
  notAllTerminated: [],
};

/** A step the composition ran before this one (the list is fixed; a stopped run never gets here). */
function ran<T>(outcome: T | undefined): T {
  if (outcome === undefined) throw new Error('cleanup steps composed out of order');
  return outcome;
}

/**
 * Launch templates and instance profiles serve the whole cluster: a run limited to some NodePools
 * leaves them (`limitedNote`, for the step that says so), and neither starts while a Karpenter
 * instance may still run, for it still names them (docs/cleanup.md, steps 3 and 4). A dry run
 * decides the same from the instances it plans to terminate.
 */
async function afterEveryInstance(
  ctx: CleanupContext,
  step: Extract<CleanupStep, 'launch-templates' | 'instance-profiles'>,
  before: CleanupOutcomes,
  run: (instances: InstancesOutcome) => Promise<StepOutcome>,
  limitedNote?: (nodePools: readonly string[]) => string,
): Promise<StepOutcome> {
  const { nodePools } = ctx.request;
  if (nodePools !== undefined) {
    const out = new StepRecord(step, ctx.budget);
    if (limitedNote) out.note(limitedNote(nodePools));
    return out.outcome();
  }
  const instances = ran(before.instances);
  const wait = whyInstancesMayRun(instances);
  if (wait === undefined) return run(instances);
  const out = new StepRecord(step, ctx.budget);
  out.notStart(wait);
  return out.outcome();
}
