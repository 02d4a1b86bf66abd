/** The result of a run, composed from the steps' outcomes in the order they ran. */
import type { CleanupRequest, CleanupResult } from '../domain/cleanup.ts';
import { emptyCleanupResult } from '../domain/cleanup.ts';
import type { CleanupCandidates } from './candidates.ts';
import type { InstancesOutcome } from './instances-step.ts';
import type { NodeClaimWaitOutcome } from './nodeclaim-wait.ts';
import type { NodePoolsOutcome } from './nodepools-outcome.ts';
import type { Held, StepOutcome } from './outcome.ts';

/** What the run has so far: the candidates listed at the start, then each step's outcome once it ran. */
export interface CleanupOutcomes {
  readonly candidates: CleanupCandidates;
  readonly nodepools?: NodePoolsOutcome;
  /** Only when the NodePools step handed on NodeClaims to wait for. */
  readonly nodeClaimWait?: NodeClaimWaitOutcome;
  readonly instances?: InstancesOutcome;
  readonly 'launch-templates'?: StepOutcome;
  readonly 'instance-profiles'?: StepOutcome;
}

/** The outcomes of the steps that ran, in the order they ran. */
export function stepOutcomesOf(outcomes: CleanupOutcomes): StepOutcome[] {
  const steps = [
    outcomes.nodepools,
    outcomes.nodeClaimWait,
    outcomes.instances,
    outcomes['launch-templates'],
    outcomes['instance-profiles'],
  ];
  return steps.filter((s): s is StepOutcome => s !== undefined);
}

/**
 * Lists sorted and free of repeats; complete only when nothing stopped the run, held a step back or
 * failed. Holds of templates and profiles appear only when there are some (additions to the shape).
 */
export function cleanupResultOf(request: CleanupRequest, outcomes: CleanupOutcomes, stoppedBeforeStart?: boolean): CleanupResult {
  const ran = stepOutcomesOf(outcomes);
  const sorted = (list: readonly string[] = []) => [...new Set(list)].sort();
  const errors = ran.flatMap((s) => s.errors);
  // The candidates' errors are the instances step's; without that step (time ran out) they still count.
  if (!outcomes.instances) errors.push(...outcomes.candidates.errors);
  const stopped = ran.find((s) => s.stopped)?.step;
  const stepsNotStarted = ran.flatMap((s) => s.notStarted);
  const base = emptyCleanupResult(request);
  const templatesHeld = outcomes['launch-templates']?.held ?? [];
  const profilesHeld = outcomes['instance-profiles']?.held ?? [];
  const notes = ran.flatMap((s) => s.notes);
  const stoppedAt = stoppedBeforeStart ? (request.deleteNodePools ? 'nodepools' : 'instances') : stopped;
  return {
    ...base,
    complete: stoppedAt === undefined && errors.length === 0 && stepsNotStarted.length === 0,
    nodePoolsDeleted: sorted(outcomes.nodepools?.done),
    instancesTerminated: sorted(outcomes.instances?.done),
    instancesNotProven: [...(outcomes.instances?.notProven ?? outcomes.candidates.notProven)],
    launchTemplatesDeleted: sorted(outcomes['launch-templates']?.done),
    instanceProfilesDeleted: sorted(outcomes['instance-profiles']?.done),
    errors,
    ...(notes.length > 0 ? { notes } : {}),
    ...(stoppedAt !== undefined ? { stoppedAt } : {}),
    ...(stepsNotStarted.length > 0 ? { stepsNotStarted } : {}),
    ...(templatesHeld.length > 0
      ? { launchTemplatesHeld: templatesHeld.map(({ resource, ...held }) => ({ id: resource, ...heldFields(held) })) }
      : {}),
    ...(profilesHeld.length > 0
      ? { instanceProfilesHeld: profilesHeld.map(({ resource, ...held }) => ({ name: resource, ...heldFields(held) })) }
      : {}),
  };
}

/** A hold's reason and instances as the result's own (mutable) JSON; `instances` only when there are some. */
function heldFields({ reason, instances }: Omit<Held, 'resource'>): { reason: string; instances?: string[] } {
  return instances === undefined ? { reason } : { reason, instances: [...instances] };
}
