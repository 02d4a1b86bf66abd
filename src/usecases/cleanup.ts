/**
 * Destroy-time cleanup over the ports (docs/cleanup.md): NodePools, then instances, launch
 * templates and instance profiles, each a step that takes the outcomes of the steps before it and
 * returns its own (src/cleanup/outcome.ts), so each starts only once the one before leaves nothing
 * that would fight it. A dry run runs the very same steps and reads, and stops before each write:
 * its result is the plan apply follows (docs/cleanup.md, "Dry run = apply"). Stateless and
 * idempotent: a run cut short by its deadline is finished by the next one, which finds done what
 * was done. AWS and Kubernetes failures become `errors` and the run carries on with what they do
 * not hold back; nothing is thrown for them.
 */
import { CleanupBudget, type CleanupContext } from '../cleanup/budget.ts';
import { listCleanupCandidates } from '../cleanup/candidates.ts';
import { instanceProfilesStep } from '../cleanup/instance-profiles-step.ts';
import { instancesStep } from '../cleanup/instances-step.ts';
import { launchTemplatesStep } from '../cleanup/launch-templates-step.ts';
import { nodePoolsStep } from '../cleanup/nodepools-step.ts';
import { cleanupResultOf, type CleanupOutcomes } from '../cleanup/result.ts';
import { CLEANUP_STEPS, type CleanupProgress, type CleanupRequest, type CleanupResult } from '../domain/cleanup.ts';
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

/** One step: the outcomes so far in, the same with its own added out. */
type Step = (ctx: CleanupContext, before: CleanupOutcomes) => Promise<CleanupOutcomes>;

/** In the order they run (CLEANUP_STEPS); each sees only what the steps before it returned. */
const STEPS: readonly Step[] = [
  async (ctx, before) => ({ ...before, nodepools: await nodePoolsStep(ctx) }),
  async (ctx, before) => ({ ...before, instances: await instancesStep(ctx, { ...before, nodepools: ran(before.nodepools) }) }),
  async (ctx, before) => ({
    ...before,
    'launch-templates': await launchTemplatesStep(ctx, { instances: ran(before.instances) }),
  }),
  async (ctx, before) => ({
    ...before,
    'instance-profiles': await instanceProfilesStep(ctx, { nodepools: ran(before.nodepools), instances: ran(before.instances) }),
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
  for (const [i, step] of STEPS.entries()) {
    outcomes = await step(ctx, outcomes);
    const name = CLEANUP_STEPS[i];
    if (name === undefined || outcomes[name]?.stopped) break;
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
