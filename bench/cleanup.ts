/**
 * Destroy-time cleanup's AWS cost and time: `runCleanup` against the simulator (the real
 * Kubernetes adapter over HTTPS to the simulated API server, controller gone; the in-memory AWS,
 * which records every call) on a synthetic account after a partial destroy (cleanup-account.ts).
 * The clock's sleep does not wait, so wall time is the run's own work with every AWS answer from
 * memory: deployed, each call adds its round trip, and shutting-down instances their real wait.
 */
import { performance } from 'node:perf_hooks';
import type { CleanupRequest, CleanupResult } from '../src/domain/cleanup.ts';
import { AWS_WRITE_OPERATIONS, type AwsCall, type AwsOperation } from '../src/simulator/in-memory-aws.ts';
import { simulateSnapshot, type Simulation } from '../src/simulator/simulation.ts';
import { runCleanup } from '../src/usecases/cleanup.ts';
import { steppingClock } from '../test/support/clock.ts';
import {
  CLEANUP_CLUSTER,
  CLEANUP_NOW,
  cleanupAccount,
  type CleanupAccount,
  type CleanupAccountCounts,
} from './cleanup-account.ts';
import { collectGarbage } from './measure.ts';
import { startRssSampler } from './rss-sampler.ts';

/** The cluster's Karpenter instances in each measured account. */
export const CLEANUP_SCALES = [100, 1_000, 3_000] as const;
/** A Lambda's longest run: the simulated deadline, never reached since sleeping takes no time. */
const DEADLINE_MS = 15 * 60_000;

const APPLY: CleanupRequest = { clusterName: CLEANUP_CLUSTER, dryRun: false, deleteNodePools: true };
const DRY_RUN: CleanupRequest = { ...APPLY, dryRun: true };

export type OperationCounts = Partial<Record<AwsOperation, number>>;

export interface CleanupRunMeasurement {
  ms: number;
  /** Port calls the run made, per AWS operation. */
  awsCalls: OperationCounts;
  /** Of those, the calls that change the account (`AWS_WRITE_OPERATIONS`). */
  awsWrites: number;
  kubeRequests: number;
  /** Kubernetes objects created, changed or deleted (the store's resourceVersion moved by this many). */
  kubeChanges: number;
  /** Time the run slept on its clock (not waited: the clock only steps). */
  simulatedWaitMs: number;
  listed: { nodePools: number; instances: number; launchTemplates: number; instanceProfiles: number };
  complete: boolean;
  errors: number;
}

export interface CleanupScaleMeasurement {
  karpenterInstances: number;
  account: CleanupAccountCounts;
  generateMs: number;
  warmup: number;
  dryRuns: CleanupRunMeasurement[];
  applyRuns: CleanupRunMeasurement[];
  /** A second apply run on the account the first one cleaned (one per apply run; every one alike). */
  secondRun: CleanupRunMeasurement;
  /** What went wrong against the expectation: a result list, an incomplete run, a resource it should have left. Empty = right. */
  problems: string[];
  /** Around one more apply run: RSS after a GC and the peak sampled during it; heap used before and right after (no GC between). */
  memory: { rssBefore: number; peakRss: number; heapBefore: number; heapAfter: number };
}

export function operationCounts(calls: readonly AwsCall[]): OperationCounts {
  const counts: OperationCounts = {};
  for (const c of calls) counts[c.operation] = (counts[c.operation] ?? 0) + 1;
  return counts;
}

export function writeCalls(counts: OperationCounts): number {
  return AWS_WRITE_OPERATIONS.reduce((sum, op) => sum + (counts[op] ?? 0), 0);
}

/** How a run's result differs from what it must list (everything the account expects, or nothing): one line per difference. */
export function resultProblems(label: string, result: CleanupResult, expected: CleanupAccount['expected'] | undefined): string[] {
  const problems: string[] = [];
  if (!result.complete) problems.push(`${label}: not complete${result.stoppedAt ? ` (stopped at ${result.stoppedAt})` : ''}`);
  for (const e of result.errors.slice(0, 3)) problems.push(`${label}: error ${e.step} ${e.resource ?? ''} ${e.message}`);
  const lists = [
    ['NodePools', result.nodePoolsDeleted, expected?.nodePools ?? []],
    ['instances', result.instancesTerminated, expected?.instances ?? []],
    ['launch templates', result.launchTemplatesDeleted, expected?.launchTemplates ?? []],
    ['instance profiles', result.instanceProfilesDeleted, expected?.instanceProfiles ?? []],
  ] as const;
  for (const [what, got, want] of lists) {
    const missing = want.filter((x) => !got.includes(x));
    const extra = got.filter((x) => !want.includes(x));
    if (missing.length > 0) problems.push(`${label}: ${missing.length} ${what} missing (${missing.slice(0, 3).join(', ')})`);
    if (extra.length > 0) problems.push(`${label}: ${extra.length} ${what} not expected (${extra.slice(0, 3).join(', ')})`);
  }
  return problems;
}

/** A resource the cleanup should have left alone that it changed, or one it should have removed that is still there. */
function accountProblems(simulation: Simulation, account: CleanupAccount): string[] {
  const { state } = simulation.aws;
  const { expected, snapshot } = account;
  const problems: string[] = [];
  for (const seeded of snapshot.instances) {
    const now = state.instances.get(seeded.id)?.state;
    const want = expected.instances.includes(seeded.id) ? 'terminated' : seeded.state;
    if (now !== want) problems.push(`instance ${seeded.id}: ${now ?? 'gone'}, expected ${want}`);
  }
  for (const t of snapshot.launchTemplates) {
    if (state.launchTemplates.has(t.id) === expected.launchTemplates.includes(t.id)) problems.push(`launch template ${t.id}`);
  }
  for (const p of snapshot.instanceProfiles) {
    const now = state.instanceProfiles.get(p.name);
    if (expected.instanceProfiles.includes(p.name) ? now !== undefined : now?.roles.length !== p.roles.length) {
      problems.push(`instance profile ${p.name}`);
    }
  }
  const pools = simulation.kubeApi.store.list('nodepools').length;
  if (pools !== 0) problems.push(`${pools} NodePools left`);
  return problems.slice(0, 5).map((p) => `after apply: ${p}`);
}

interface Cluster {
  simulation: Simulation;
  clock: ReturnType<typeof steppingClock>;
}

async function startCluster(account: CleanupAccount): Promise<Cluster> {
  const clock = steppingClock(CLEANUP_NOW);
  const simulation = await simulateSnapshot(account.snapshot, { clock, kube: { clock } });
  return { simulation, clock };
}

async function timedRun({ simulation, clock }: Cluster, request: CleanupRequest) {
  const callsBefore = simulation.aws.calls.length;
  const requestsBefore = simulation.kubeApi.stats.requests;
  const versionBefore = Number(simulation.kubeApi.store.resourceVersion);
  const sleepsBefore = clock.sleeps.length;
  const deadline = new Date(clock.now().getTime() + DEADLINE_MS);
  const started = performance.now();
  const result = await runCleanup(request, { connection: simulation.connection, clock }, { deadline });
  const ms = performance.now() - started;
  const awsCalls = operationCounts(simulation.aws.calls.slice(callsBefore));
  const measurement: CleanupRunMeasurement = {
    ms,
    awsCalls,
    awsWrites: writeCalls(awsCalls),
    kubeRequests: simulation.kubeApi.stats.requests - requestsBefore,
    kubeChanges: Number(simulation.kubeApi.store.resourceVersion) - versionBefore,
    simulatedWaitMs: clock.sleeps.slice(sleepsBefore).reduce((sum, ms) => sum + ms, 0),
    listed: {
      nodePools: result.nodePoolsDeleted.length,
      instances: result.instancesTerminated.length,
      launchTemplates: result.launchTemplatesDeleted.length,
      instanceProfiles: result.instanceProfilesDeleted.length,
    },
    complete: result.complete,
    errors: result.errors.length,
  };
  return { result, measurement };
}

/** A dry run on a fresh simulation. */
async function dryRun(account: CleanupAccount) {
  const cluster = await startCluster(account);
  try {
    const { result, measurement } = await timedRun(cluster, DRY_RUN);
    return { measurement, problems: resultProblems('dry run', result, account.expected) };
  } finally {
    await cluster.simulation.close();
  }
}

/** An apply run on a fresh simulation, then a second one on what it left. */
async function applyTwice(account: CleanupAccount) {
  const cluster = await startCluster(account);
  try {
    const first = await timedRun(cluster, APPLY);
    const problems = [
      ...resultProblems('apply', first.result, account.expected),
      ...accountProblems(cluster.simulation, account),
    ];
    const second = await timedRun(cluster, APPLY);
    problems.push(...resultProblems('second run', second.result, undefined));
    return { first: first.measurement, second: second.measurement, problems };
  } finally {
    await cluster.simulation.close();
  }
}

/** Peak RSS while one apply run ran (the simulated API server shares the process) and heap growth, from after a GC. */
async function applyMemory(account: CleanupAccount): Promise<CleanupScaleMeasurement['memory']> {
  const cluster = await startCluster(account);
  try {
    // The sampler's own thread is in the baseline, so the increase is the run's.
    const sampler = await startRssSampler();
    collectGarbage();
    const before = process.memoryUsage();
    await timedRun(cluster, APPLY);
    const heapAfter = process.memoryUsage().heapUsed;
    return { rssBefore: before.rss, peakRss: await sampler.stop(), heapBefore: before.heapUsed, heapAfter };
  } finally {
    await cluster.simulation.close();
  }
}

const sameCalls = (a: OperationCounts, b: OperationCounts) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** Warm-up runs, then `runs` dry runs and apply runs, alternating so that load on the machine falls on both alike. */
export async function measureCleanup(karpenterInstances: number, runs: number, warmup: number): Promise<CleanupScaleMeasurement> {
  const generateStarted = performance.now();
  const account = cleanupAccount(karpenterInstances);
  const generateMs = performance.now() - generateStarted;
  for (let i = 0; i < warmup; i += 1) {
    await dryRun(account);
    await applyTwice(account);
  }
  const dryRuns: CleanupRunMeasurement[] = [];
  const applyRuns: CleanupRunMeasurement[] = [];
  const secondRuns: CleanupRunMeasurement[] = [];
  const problems = new Set<string>();
  for (let i = 0; i < runs; i += 1) {
    const dry = await dryRun(account);
    const apply = await applyTwice(account);
    dryRuns.push(dry.measurement);
    applyRuns.push(apply.first);
    secondRuns.push(apply.second);
    for (const p of [...dry.problems, ...apply.problems]) problems.add(p);
  }
  for (const [label, list] of [
    ['dry run', dryRuns],
    ['apply run', applyRuns],
    ['second run', secondRuns],
  ] as const) {
    const differs = list.findIndex((m) => !sameCalls(m.awsCalls, list[0]?.awsCalls ?? {}));
    if (differs > 0) {
      throw new Error(
        `${label}: AWS calls differ between runs: ${JSON.stringify(list[0]?.awsCalls)} then ${JSON.stringify(list[differs]?.awsCalls)}`,
      );
    }
  }
  const secondRun = secondRuns[0];
  if (!secondRun) throw new Error('no run measured');
  return {
    karpenterInstances,
    account: account.counts,
    generateMs,
    warmup,
    dryRuns,
    applyRuns,
    secondRun,
    problems: [...problems].slice(0, 8),
    memory: await applyMemory(account),
  };
}
