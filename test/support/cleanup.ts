/** A cleanup step's context over the in-memory AWS and a fake Kubernetes API, for the step tests. */
import { CleanupBudget, type CleanupContext } from '../../src/cleanup/budget.ts';
import type { CleanupCandidates } from '../../src/cleanup/candidates.ts';
import type { InstancesOutcome } from '../../src/cleanup/instances-step.ts';
import { NodePoolsRecord, type InstanceHold } from '../../src/cleanup/nodepools-outcome.ts';
import type { CleanupProgress, CleanupRequest } from '../../src/domain/cleanup.ts';
import type { ClusterSnapshot } from '../../src/domain/snapshot.ts';
import { inMemoryAws, type InMemoryAws } from '../../src/simulator/in-memory-aws.ts';
import { FakeKarpenterKube } from '../factories/ports.ts';
import { steppingClock } from './clock.ts';

const START = '2026-01-01T02:00:00Z';

export interface StepWorld {
  ctx: CleanupContext;
  aws: InMemoryAws;
  kube: FakeKarpenterKube;
  progress: CleanupProgress[];
  /** The hold the NodePools step would hand on after `make` (holdAll, holdNodePools) on its record. */
  hold(make: (record: NodePoolsRecord) => void): InstanceHold | undefined;
  /** An instances step's outcome, as the composition would hand it on: empty but for `parts`. */
  instances(parts?: Partial<InstancesOutcome>): InstancesOutcome;
}

export function stepWorld(
  snapshot: ClusterSnapshot,
  request: Partial<CleanupRequest> = {},
  kube = new FakeKarpenterKube(),
): StepWorld {
  const clock = steppingClock(START);
  const progress: CleanupProgress[] = [];
  const budget = new CleanupBudget(clock, new Date(Date.parse(START) + 15 * 60_000), (p) => progress.push(p));
  const aws = inMemoryAws(snapshot);
  const ctx: CleanupContext = {
    request: { clusterName: 'demo', dryRun: false, deleteNodePools: true, ...request },
    connection: { aws, connectKube: async () => kube },
    budget,
    nodeClaimWaitMs: 60_000,
    pollIntervalMs: 10_000,
  };
  return {
    ctx,
    aws,
    kube,
    progress,
    hold: (make) => {
      const record = new NodePoolsRecord('nodepools', budget);
      make(record);
      return record.outcome().hold;
    },
    instances: (parts = {}) => ({
      step: 'instances',
      done: [],
      held: [],
      errors: [],
      notStarted: [],
      notes: [],
      stopped: false,
      notProven: [],
      notAllTerminated: [],
      ...parts,
    }),
  };
}

export function candidatesOf(parts: Partial<CleanupCandidates> = {}): CleanupCandidates {
  return {
    instances: [],
    launchTemplates: [],
    instanceProfiles: undefined,
    notProven: [],
    errors: [],
    notAllTerminated: [],
    ...parts,
  };
}
