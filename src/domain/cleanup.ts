/**
 * Destroy-time cleanup (docs/cleanup.md): the request the `cleanup` function and
 * command take, and the result both return. The JSON field names are a public contract.
 */

/** In the order they run; each is idempotent, so a run cut short carries on where it stopped. */
export const CLEANUP_STEPS = ['nodepools', 'instances', 'launch-templates', 'instance-profiles'] as const;
export type CleanupStep = (typeof CLEANUP_STEPS)[number];

export interface CleanupRequest {
  clusterName: string;
  /** Lists what would be done and changes nothing. The default everywhere. */
  dryRun: boolean;
  /** Only these NodePools and their instances; absent = all of them (and then launch templates and instance profiles too). */
  nodePools?: readonly string[];
  /** false: leave NodePools alone and go straight to terminating instances (the API is gone, or the user asks). */
  deleteNodePools: boolean;
}

/** An instance the cleanup left alone, and why (`launch template lt-… is not Karpenter's (name …)`). */
export interface InstanceNotProven {
  id: string;
  reason: string;
}

/**
 * A step this run did not start, by the cleanup's ordering rule rather than for lack of time: the
 * NodePools could not be deleted (a running controller would replace terminated instances), or the
 * instances are not all known terminated (launch templates and instance profiles are still in use).
 */
export interface CleanupStepNotStarted {
  step: CleanupStep;
  /** One line: why, and what to do. */
  reason: string;
  /** Only the instances of these NodePools were left (their NodePools could not be deleted); absent: the whole step. */
  nodePools?: string[];
}

/**
 * A launch template or instance profile the cleanup keeps although it is Karpenter's for the
 * cluster: an instance not terminated still uses it, or (profiles) no EC2NodeClass names its role.
 */
interface HeldLaunchTemplate {
  id: string;
  reason: string;
  /** The instances, not terminated, that still name it. */
  instances?: string[];
}

interface HeldInstanceProfile {
  name: string;
  reason: string;
  /** The instances, not terminated, it is still attached to. */
  instances?: string[];
}

/** One thing that failed; the run carries on with the rest. */
export interface CleanupError {
  step: CleanupStep;
  /** NodePool name, instance id, launch template id or instance profile name; absent when a whole step failed (a listing). */
  resource?: string;
  /** One line: what failed and why, e.g. `TerminateInstances failed: UnauthorizedOperation: ...`. */
  message: string;
}

export interface CleanupResult {
  cluster: string;
  dryRun: boolean;
  /** Every step ran to its end and nothing failed. false: run again (time ran out) or see `errors`. */
  complete: boolean;
  /** In a dry run, what would be done. */
  nodePoolsDeleted: string[];
  instancesTerminated: string[];
  /**
   * Tagged as Karpenter's for the cluster but not proven launched by Karpenter (src/domain/provenance.ts):
   * listed, never terminated. Additive to the original shape; sorted by id.
   */
  instancesNotProven: InstanceNotProven[];
  launchTemplatesDeleted: string[];
  instanceProfilesDeleted: string[];
  errors: CleanupError[];
  /**
   * Only when there are some (additive): what the caller must know though nothing failed, e.g. that
   * EKS has no such cluster (deleted already, or a wrong name or region), so only leftovers tagged
   * for it were looked for. The result stays complete: see docs/cleanup.md.
   */
  notes?: string[];
  /** Only when time ran out: the step the next run starts with (additive to the original shape). */
  stoppedAt?: CleanupStep;
  /** Only when the ordering rule held a step back (additive): the result is then not complete. */
  stepsNotStarted?: CleanupStepNotStarted[];
  /** Only when some were kept (additive): Karpenter's launch templates an instance not terminated still names. */
  launchTemplatesHeld?: HeldLaunchTemplate[];
  /** Only when some were kept (additive): Karpenter's instance profiles still in use, or whose role no EC2NodeClass names. */
  instanceProfilesHeld?: HeldInstanceProfile[];
}

/** What a run is doing, for a terminal's progress line and the function's log. */
export type CleanupProgress =
  | { kind: 'step'; step: CleanupStep; message: string }
  | { kind: 'waiting'; step: 'nodepools'; nodeClaims: number; waitedMs: number; limitMs: number }
  | { kind: 'waiting'; step: 'instances'; shuttingDown: number; waitedMs: number };

export function emptyCleanupResult(request: Pick<CleanupRequest, 'clusterName' | 'dryRun'>): CleanupResult {
  return {
    cluster: request.clusterName,
    dryRun: request.dryRun,
    complete: false,
    nodePoolsDeleted: [],
    instancesTerminated: [],
    instancesNotProven: [],
    launchTemplatesDeleted: [],
    instanceProfilesDeleted: [],
    errors: [],
  };
}
