import { describe, expect, it } from 'vitest';
import { CLEANUP_CLUSTER, CLEANUP_REGION, cleanupAccount } from '../../../bench/cleanup-account.ts';
import {
  measureCleanup,
  operationCounts,
  resultProblems,
  writeCalls,
  type CleanupRunMeasurement,
  type CleanupScaleMeasurement,
} from '../../../bench/cleanup.ts';
import { cleanupTargets, otherCalls, terminateCallsFor, type BenchResults } from '../../../bench/render.ts';
import { isCleanupCandidate } from '../../../src/cleanup/select.ts';
import { isKarpenterInstanceProfile } from '../../../src/domain/instance-profiles.ts';
import { isKarpenterLaunchTemplate } from '../../../src/domain/provenance.ts';
import type { CleanupResult } from '../../../src/domain/cleanup.ts';
import { benchResults } from '../../factories/bench.ts';
import { cleanupResult } from '../../factories/cleanup.ts';

describe('cleanupAccount', () => {
  it('is the same account every time, with the requested Karpenter instances in the documented mix', () => {
    // Act
    const account = cleanupAccount(1_000);

    // Assess
    expect(cleanupAccount(1_000)).toEqual(account);
    expect(account.counts).toEqual({
      karpenter: { running: 800, stopped: 100, pending: 100 },
      others: { nodeGroup: 100, otherCluster: 100, terminated: 50 },
      launchTemplates: { karpenter: 10, all: 20 },
      instanceProfiles: { karpenter: 10, all: 20 },
      nodePools: 4,
      nodeClaims: 900,
    });
    expect(account.snapshot.instances).toHaveLength(1_000 + 100 + 100 + 50);
    expect(new Set(account.snapshot.instances.map((i) => i.id)).size).toBe(1_250);
  });

  it("expects exactly what the cleanup's own selection rules take: the cluster's candidates, templates and profiles", () => {
    // Prepare
    const { snapshot, expected } = cleanupAccount(100);

    // Act
    const candidates = snapshot.instances
      .filter((i) => isCleanupCandidate(i, CLEANUP_CLUSTER, { launchTemplates: snapshot.launchTemplates }))
      .map((i) => i.id);
    const templates = snapshot.launchTemplates.filter((t) => isKarpenterLaunchTemplate(t, CLEANUP_CLUSTER)).map((t) => t.id);
    const profiles = snapshot.instanceProfiles
      .filter((p) => isKarpenterInstanceProfile(p, CLEANUP_CLUSTER, CLEANUP_REGION))
      .map((p) => p.name);

    // Assess
    expect(candidates.sort()).toEqual(expected.instances);
    expect(expected.instances).toHaveLength(100);
    expect(templates.sort()).toEqual(expected.launchTemplates);
    expect(profiles.sort()).toEqual(expected.instanceProfiles);
    expect(expected.nodePools).toEqual(['batch', 'general', 'gpu', 'spot']);
  });
});

const emptyResult = (overrides: Partial<CleanupResult> = {}) => cleanupResult({ cluster: CLEANUP_CLUSTER, ...overrides });

describe('resultProblems', () => {
  const expected = { nodePools: ['general'], instances: ['i-1', 'i-2'], launchTemplates: ['lt-1'], instanceProfiles: ['p-1'] };

  it('finds nothing wrong with a complete result listing exactly what was expected', () => {
    // Prepare
    const result = emptyResult({
      nodePoolsDeleted: ['general'],
      instancesTerminated: ['i-1', 'i-2'],
      launchTemplatesDeleted: ['lt-1'],
      instanceProfilesDeleted: ['p-1'],
    });

    // Act / Assess
    expect(resultProblems('apply', result, expected)).toEqual([]);
  });

  it('names an incomplete run, a missing instance and an unexpected one; with nothing expected, anything listed is wrong', () => {
    // Prepare
    const result = emptyResult({
      complete: false,
      stoppedAt: 'instances',
      nodePoolsDeleted: ['general'],
      instancesTerminated: ['i-1', 'i-9'],
      launchTemplatesDeleted: ['lt-1'],
      instanceProfilesDeleted: ['p-1'],
    });

    // Act
    const problems = resultProblems('apply', result, expected);
    const secondRun = resultProblems('second run', emptyResult({ launchTemplatesDeleted: ['lt-1'] }), undefined);

    // Assess
    expect(problems).toEqual([
      'apply: not complete (stopped at instances)',
      'apply: 1 instances missing (i-2)',
      'apply: 1 instances not expected (i-9)',
    ]);
    expect(secondRun).toEqual(['second run: 1 launch templates not expected (lt-1)']);
  });
});

describe('operationCounts and writeCalls', () => {
  it('counts calls per operation and only the four that change the account as writes', () => {
    // Prepare
    const calls = [
      { operation: 'DescribeInstances' as const, input: {} },
      { operation: 'TerminateInstances' as const, input: {} },
      { operation: 'TerminateInstances' as const, input: {} },
      { operation: 'DeleteLaunchTemplate' as const, input: {} },
      { operation: 'RemoveRoleFromInstanceProfile' as const, input: {} },
      { operation: 'DeleteInstanceProfile' as const, input: {} },
      { operation: 'ListInstanceProfiles' as const, input: {} },
    ];

    // Act
    const counts = operationCounts(calls);

    // Assess
    expect(counts).toEqual({
      DescribeInstances: 1,
      TerminateInstances: 2,
      DeleteLaunchTemplate: 1,
      RemoveRoleFromInstanceProfile: 1,
      DeleteInstanceProfile: 1,
      ListInstanceProfiles: 1,
    });
    expect(writeCalls(counts)).toBe(5);
    expect(
      otherCalls(counts, [
        'TerminateInstances',
        'DeleteLaunchTemplate',
        'RemoveRoleFromInstanceProfile',
        'DeleteInstanceProfile',
      ]),
    ).toBe('DescribeInstances 1, ListInstanceProfiles 1');
  });
});

function run(overrides: Partial<CleanupRunMeasurement> = {}): CleanupRunMeasurement {
  return {
    ms: 1,
    awsCalls: {},
    awsWrites: 0,
    kubeRequests: 1,
    kubeChanges: 0,
    simulatedWaitMs: 0,
    listed: { nodePools: 0, instances: 0, launchTemplates: 0, instanceProfiles: 0 },
    complete: true,
    errors: 0,
    ...overrides,
  };
}

function scale(n: number, overrides: Partial<CleanupScaleMeasurement> = {}): CleanupScaleMeasurement {
  return {
    karpenterInstances: n,
    account: cleanupAccount(0).counts,
    generateMs: 1,
    warmup: 1,
    dryRuns: [run()],
    applyRuns: [
      run({ awsCalls: { TerminateInstances: terminateCallsFor(n) }, awsWrites: terminateCallsFor(n), kubeChanges: 10 }),
    ],
    secondRun: run(),
    problems: [],
    memory: { rssBefore: 1, peakRss: 2, heapBefore: 1, heapAfter: 2 },
    ...overrides,
  };
}

const results = (cleanup: BenchResults['cleanup'], notMeasured: BenchResults['notMeasured'] = {}) =>
  benchResults({ cleanup, notMeasured });

const measured = (...scales: CleanupScaleMeasurement[]) =>
  results(scales.map((value) => ({ instances: value.karpenterInstances, outcome: { ok: true as const, value } })));

describe('cleanupTargets', () => {
  it('passes ⌈n/50⌉ TerminateInstances calls, no write in a dry or second run, and no problem', () => {
    // Act
    const rows = cleanupTargets(measured(scale(100), scale(1_000), scale(3_001)));

    // Assess
    expect(rows.map((r) => r.pass)).toEqual([true, true, true]);
    expect(rows[0]?.measured).toBe('100: 2 (⌈n/50⌉ = 2); 1,000: 20 (⌈n/50⌉ = 20); 3,001: 61 (⌈n/50⌉ = 61)');
  });

  it('fails one call too many, a Kubernetes change in a dry run, a write in a second run and a listed problem', () => {
    // Prepare
    const tooMany = scale(100, { applyRuns: [run({ awsCalls: { TerminateInstances: 3 } })] });
    const dryRunWrites = scale(1_000, { dryRuns: [run(), run({ kubeChanges: 4 })] });
    const secondRunWrites = scale(3_000, { secondRun: run({ awsWrites: 1 }), problems: ['after apply: launch template lt-1'] });

    // Act
    const [batching, noWrites, exact] = cleanupTargets(measured(tooMany, dryRunWrites, secondRunWrites));

    // Assess
    expect(batching?.pass).toBe(false);
    expect(noWrites).toMatchObject({
      pass: false,
      measured: 'dry run 0 / 4 / 0, second run 0 / 0 / 1 (n = 100 / 1,000 / 3,000)',
    });
    expect(exact).toMatchObject({ pass: false, measured: '3,000: after apply: launch template lt-1' });
  });

  it('gives no verdict when the section was not run or a size failed, and says why', () => {
    // Prepare
    const failed = results([
      { instances: 100, outcome: { ok: true, value: scale(100) } },
      { instances: 3_000, outcome: { ok: false, error: 'child exited with 1' } },
    ]);

    // Act
    const notRun = cleanupTargets(results(undefined, { cleanup: '--only lambda' }));
    const oneFailed = cleanupTargets(failed);

    // Assess
    expect(notRun.map((r) => [r.measured, r.pass])).toEqual(Array(3).fill(['not measured (--only lambda)', undefined]));
    expect(oneFailed.map((r) => [r.measured, r.pass])).toEqual(Array(3).fill(['3,000: failed: child exited with 1', undefined]));
  });
});

describe('measureCleanup', () => {
  it('runs the cleanup against the simulator: ⌈n/50⌉ TerminateInstances, nothing written by a dry or second run', async () => {
    // Act
    const m = await measureCleanup(60, 1, 0);

    // Assess
    expect(m.problems).toEqual([]);
    expect(m.applyRuns[0]?.awsCalls).toMatchObject({ TerminateInstances: 2, DeleteLaunchTemplate: 1, DeleteInstanceProfile: 1 });
    expect(m.applyRuns[0]?.listed).toEqual({ nodePools: 4, instances: 60, launchTemplates: 1, instanceProfiles: 1 });
    expect(m.dryRuns[0]).toMatchObject({ awsWrites: 0, kubeChanges: 0, complete: true });
    expect(m.secondRun).toMatchObject({ awsWrites: 0, kubeChanges: 0, complete: true });
  });
});
