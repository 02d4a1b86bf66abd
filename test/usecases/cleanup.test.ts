/**
 * Destroy-time cleanup end to end: runCleanup over the real Kubernetes adapter (HTTPS to the
 * simulated API server, with its simulated Karpenter) and the in-memory AWS, on the capture of a
 * cluster after a partial `terraform destroy` (examples/cleanup-partial-destroy).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import type { CleanupProgress, CleanupRequest, CleanupResult } from '../../src/domain/cleanup.ts';
import type { ClusterSnapshot } from '../../src/domain/snapshot.ts';
import type { Clock } from '../../src/ports/clock.ts';
import { AWS_WRITE_OPERATIONS } from '../../src/simulator/in-memory-aws.ts';
import { simulateSnapshot, type Simulation, type SimulationOptions } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { DEFAULT_NODECLAIM_WAIT_MS, runCleanup, type CleanupSettings } from '../../src/usecases/cleanup.ts';
import { awsError } from '../../src/simulator/in-memory-aws.ts';
import { karpenterPod } from '../factories/kube.ts';
import { steppingClock } from '../support/clock.ts';
import {
  CLEANED,
  FORGED_NOT_PROVEN,
  FORGED_TAGS,
  CLEANUP_EXAMPLE,
  CLEANUP_EXAMPLE_CLUSTER,
  PENDING_ONE_MINUTE_OLD,
  PROFILE_V13,
  RUNNING_WITH_NODECLAIM,
  STOPPED,
} from '../examples/cleanup-partial-destroy.ts';
import { closedAfterEachTest } from '../support/simulation.ts';

const EXAMPLE = CLEANUP_EXAMPLE;
const CLUSTER = CLEANUP_EXAMPLE_CLUSTER;
const START = new Date(EXAMPLES_NOW);

const NODEPOOLS = CLEANED.nodePoolsDeleted;
const INSTANCES = CLEANED.instancesTerminated;
const LAUNCH_TEMPLATES = CLEANED.launchTemplatesDeleted;
const INSTANCE_PROFILES = CLEANED.instanceProfilesDeleted;
const NODE_ROLE = 'Karpenter-platform-eks-dev-20240918084511093200000003';

/** Everything that must survive, as the capture has it. */
const UNTOUCHED_INSTANCES = {
  'i-0d9f2b6e4a1c83575': 'running', // managed node group
  'i-08c4a7e1f3d9b2650': 'running', // managed node group, also tagged karpenter.sh/nodepool
  'i-0e1a7c3f9b5d26487': 'running', // platform-eks-staging's Karpenter
  'i-0a8c4e2b7d1f95603': 'stopped', // platform-eks-staging's Karpenter
  'i-02b7f4a9c6e1d8503': 'terminated', // already gone
  [FORGED_TAGS]: 'running', // prod-postgres-primary: only the two forgeable tags, never terminated
};
const UNTOUCHED_LAUNCH_TEMPLATES = ['lt-0b4e9a2d7c1f63805', 'lt-0f5a2d8c1e7b39640'];
const UNTOUCHED_INSTANCE_PROFILES = {
  'KarpenterNodeInstanceProfile-platform-eks-dev': [NODE_ROLE],
  'eks-8cc9e21a-5f3d-4b7e-91a6-2d0c7e4b8f13': ['karpenter_node_group-eks-node-group-20251231200912667300000008'],
  'platform-eks-staging_4178203956112483307': ['Karpenter-platform-eks-staging-20251229081301884300000003'],
};

const APPLY: CleanupRequest = { clusterName: CLUSTER, dryRun: false, deleteNodePools: true };
const DRY_RUN: CleanupRequest = { ...APPLY, dryRun: true };

let captured: ClusterSnapshot;
beforeAll(async () => {
  captured = (await loadSnapshot([EXAMPLE])).snapshot;
});

/** The example with its Karpenter controller still running (Ready). */
const withController = (): ClusterSnapshot => ({
  ...captured,
  pods: [
    ...captured.pods,
    karpenterPod({ name: 'karpenter-6c8d9f7b54-q2w7r', nodeName: 'ip-10-0-12-37.eu-central-1.compute.internal' }),
  ],
});
/** A controller that drains slower than the cleanup waits (PodDisruptionBudgets, long grace periods). */
const SLOW_DRAIN: Pick<SimulationOptions, 'karpenter'> = { karpenter: { drainDelayMs: 2 * DEFAULT_NODECLAIM_WAIT_MS } };

const running = closedAfterEachTest();

interface Cluster {
  simulation: Simulation;
  clock: ReturnType<typeof steppingClock>;
  progress: CleanupProgress[];
  /** One cleanup run; `clock` replaces the test's clock for this run only. */
  cleanup(request: CleanupRequest, settings?: Partial<CleanupSettings> & { clock?: Clock }): Promise<CleanupResult>;
}

async function simulate(
  seed: ClusterSnapshot = captured,
  options: Pick<SimulationOptions, 'aws' | 'karpenter'> = {},
): Promise<Cluster> {
  const clock = steppingClock(START);
  const simulation = await simulateSnapshot(seed, { clock, kube: { clock }, ...options });
  running.push(simulation);
  const progress: CleanupProgress[] = [];
  return {
    simulation,
    clock,
    progress,
    cleanup: (request, { clock: runClock, ...settings } = {}) =>
      runCleanup(
        request,
        { connection: simulation.connection, clock: runClock ?? clock, onProgress: (p) => progress.push(p) },
        { deadline: new Date(clock.now().getTime() + 15 * 60_000), ...settings },
      ),
  };
}

function instanceStates(simulation: Simulation): Record<string, string> {
  return Object.fromEntries([...simulation.aws.state.instances.values()].map((i) => [i.id, i.state]));
}

function launchTemplateIds(simulation: Simulation): string[] {
  return [...simulation.aws.state.launchTemplates.keys()].sort();
}

function profileRoles(simulation: Simulation): Record<string, string[]> {
  return Object.fromEntries([...simulation.aws.state.instanceProfiles.values()].map((p) => [p.name, p.roles.map((r) => r.name)]));
}

function writeCalls(simulation: Simulation) {
  return simulation.aws.calls.filter((c) => AWS_WRITE_OPERATIONS.includes(c.operation));
}

/** How many TerminateInstances calls named each instance. */
function terminationsPerInstance(simulation: Simulation): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of simulation.aws.callsTo('TerminateInstances')) {
    for (const id of call.input.instanceIds as string[]) counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

const stepMessages = (progress: CleanupProgress[]) => progress.flatMap((p) => (p.kind === 'step' ? [p.message] : []));

function kubeNames(simulation: Simulation, resource: 'nodepools' | 'nodeclaims' | 'nodes'): string[] {
  return simulation.kubeApi.store.list(resource).map((o) => o.name);
}

const nothingLeft = (): Pick<
  CleanupResult,
  | 'nodePoolsDeleted'
  | 'instancesTerminated'
  | 'instancesNotProven'
  | 'launchTemplatesDeleted'
  | 'instanceProfilesDeleted'
  | 'errors'
> => ({
  nodePoolsDeleted: [],
  instancesTerminated: [],
  // still there and still tagged: listed again, never terminated
  instancesNotProven: CLEANED.instancesNotProven,
  launchTemplatesDeleted: [],
  instanceProfilesDeleted: [],
  errors: [],
});

describe('cleanup of a cluster after a partial terraform destroy (controller gone)', () => {
  it('removes exactly the cluster’s Karpenter NodePools, instances, launch templates and instance profiles', async () => {
    // Prepare
    const { simulation, cleanup } = await simulate();

    // Act
    const result = await cleanup(APPLY);

    // Assess
    expect(result).toEqual({
      cluster: CLUSTER,
      dryRun: false,
      complete: true,
      nodePoolsDeleted: NODEPOOLS,
      instancesTerminated: INSTANCES,
      instancesNotProven: CLEANED.instancesNotProven,
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
      instanceProfilesDeleted: INSTANCE_PROFILES,
      errors: [],
    });
    expect(instanceStates(simulation)).toEqual({
      ...UNTOUCHED_INSTANCES,
      ...Object.fromEntries(INSTANCES.map((id) => [id, 'terminated'])),
    });
    expect(launchTemplateIds(simulation)).toEqual(UNTOUCHED_LAUNCH_TEMPLATES);
    expect(profileRoles(simulation)).toEqual(UNTOUCHED_INSTANCE_PROFILES);
    expect(kubeNames(simulation, 'nodepools')).toEqual([]);
  });

  it('touches nothing else: terminates only the three, detaches only the attached role, deletes only what it lists', async () => {
    // Prepare
    const { simulation, cleanup } = await simulate();

    // Act
    await cleanup(APPLY);

    // Assess
    expect(terminationsPerInstance(simulation)).toEqual(Object.fromEntries(INSTANCES.map((id) => [id, 1])));
    expect(simulation.aws.callsTo('RemoveRoleFromInstanceProfile').map((c) => c.input)).toEqual([
      { profileName: PROFILE_V13, roleName: NODE_ROLE },
    ]);
    expect(
      simulation.aws
        .callsTo('DeleteLaunchTemplate')
        .map((c) => String(c.input.launchTemplateId))
        .sort(),
    ).toEqual(LAUNCH_TEMPLATES);
    expect(
      simulation.aws
        .callsTo('DeleteInstanceProfile')
        .map((c) => String(c.input.profileName))
        .sort(),
    ).toEqual(INSTANCE_PROFILES);
  });

  it('without a controller nothing would drain: no NodeClaim wait, a note why, and it terminates the instances itself', async () => {
    // Prepare
    const { simulation, clock, progress, cleanup } = await simulate();

    // Act
    const result = await cleanup(APPLY);

    // Assess
    expect(result).toMatchObject({ complete: true, errors: [], instancesTerminated: INSTANCES });
    expect(progress.filter((p) => p.kind === 'waiting' && p.step === 'nodepools')).toEqual([]);
    expect(progress).toContainEqual({
      kind: 'step',
      step: 'nodepools',
      message:
        'no Karpenter controller is running (no Ready pod labelled app.kubernetes.io/name=karpenter): nothing will drain the 2 NodeClaims; their instances are terminated next',
    });
    // What little it sleeps is the instances step's (EC2 shutting down), far from the 5-minute bound.
    expect(progress.filter((p) => p.kind === 'waiting').every((p) => p.step === 'instances')).toBe(true);
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(DEFAULT_NODECLAIM_WAIT_MS);
    // The cleanup, not Karpenter, terminated all three, once each.
    expect(terminationsPerInstance(simulation)).toEqual(Object.fromEntries(INSTANCES.map((id) => [id, 1])));
    // The NodeClaims stay, marked deleted and held by Karpenter's finalizer: nothing runs to remove it.
    expect(kubeNames(simulation, 'nodeclaims')).toEqual(['ondemand-pool-q8w3z', 'spot-pool-x7k2p']);
    for (const claim of simulation.kubeApi.store.list('nodeclaims')) {
      expect(claim.object.metadata).toMatchObject({ deletionTimestamp: EXAMPLES_NOW });
    }
  });

  it('a second run finds nothing to do: empty lists, complete, no write calls', async () => {
    // Prepare
    const { simulation, cleanup } = await simulate();
    await cleanup(APPLY);
    const writesBefore = writeCalls(simulation).length;

    // Act
    const second = await cleanup(APPLY);

    // Assess
    expect(second).toEqual({ cluster: CLUSTER, dryRun: false, complete: true, ...nothingLeft() });
    expect(writeCalls(simulation)).toHaveLength(writesBefore);
  });

  it('one termination failing is reported; the other instances go, launch templates and profiles wait for it', async () => {
    // Prepare
    const { simulation, cleanup } = await simulate();
    simulation.aws.faults.fail('TerminateInstances', {
      instanceId: STOPPED,
      error: { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.' },
    });

    // Act
    const result = await cleanup(APPLY);

    // Assess
    expect(result.complete).toBe(false);
    expect(result.stoppedAt).toBeUndefined();
    expect(result.errors).toEqual([
      { step: 'instances', resource: STOPPED, message: expect.stringContaining('UnauthorizedOperation') },
    ]);
    expect(result.errors[0]?.message).toContain(STOPPED);
    expect(result.instancesTerminated).toEqual([RUNNING_WITH_NODECLAIM, PENDING_ONE_MINUTE_OLD]);
    expect(result).toMatchObject({ launchTemplatesDeleted: [], instanceProfilesDeleted: [] });
    expect(result.stepsNotStarted?.map((s) => s.step)).toEqual(['launch-templates', 'instance-profiles']);
    expect(launchTemplateIds(simulation)).toEqual([...LAUNCH_TEMPLATES, ...UNTOUCHED_LAUNCH_TEMPLATES].sort());
    expect(simulation.aws.callsTo('RemoveRoleFromInstanceProfile')).toEqual([]);
    expect(instanceStates(simulation)).toMatchObject({
      [STOPPED]: 'stopped',
      [RUNNING_WITH_NODECLAIM]: 'terminated',
      [PENDING_ONE_MINUTE_OLD]: 'terminated',
    });
  });

  it('after a failed termination, the next run terminates just that instance, then the templates and profiles', async () => {
    // Prepare
    const { simulation, cleanup } = await simulate();
    simulation.aws.faults.fail('TerminateInstances', { instanceId: STOPPED, error: { code: 'UnauthorizedOperation' } });
    await cleanup(APPLY);

    // Act
    const second = await cleanup(APPLY);

    // Assess
    expect(second).toMatchObject({
      complete: true,
      errors: [],
      instancesTerminated: [STOPPED],
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
      instanceProfilesDeleted: INSTANCE_PROFILES,
    });
    expect(terminationsPerInstance(simulation)).toEqual(Object.fromEntries(INSTANCES.map((id) => [id, id === STOPPED ? 2 : 1])));
    expect(instanceStates(simulation)[STOPPED]).toBe('terminated');
  });

  it('a run out of time while instances shut down stops with complete: false; the next finishes without terminating twice', async () => {
    // Prepare: a controller drains too slowly for the 60 s NodeClaim wait, EC2 takes its time (instances
    // stay shutting-down until it is done), and the first run has 90 s.
    const { simulation, clock, progress, cleanup } = await simulate(withController(), {
      aws: { termination: 'advance' },
      ...SLOW_DRAIN,
    });
    const settings = { nodeClaimWaitMs: 60_000, pollIntervalMs: 10_000 };

    // Act
    const first = await cleanup(APPLY, { ...settings, deadline: new Date(clock.now().getTime() + 90_000) });
    const shuttingDownBetweenRuns = instanceStates(simulation);
    // EC2 finishes while the next run waits.
    const ec2FinishesDuringWait: Clock = {
      now: clock.now,
      sleep: async (ms) => {
        await clock.sleep(ms);
        simulation.aws.advance();
      },
    };
    const second = await cleanup(APPLY, { ...settings, clock: ec2FinishesDuringWait });

    // Assess
    expect(first).toMatchObject({
      complete: false,
      stoppedAt: 'instances',
      errors: [],
      nodePoolsDeleted: NODEPOOLS,
      instancesTerminated: INSTANCES,
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });
    expect(stepMessages(progress)).toContain('stopped waiting for 2 NodeClaims after 1m: their instances are terminated next');
    expect(shuttingDownBetweenRuns).toMatchObject(Object.fromEntries(INSTANCES.map((id) => [id, 'shutting-down'])));
    expect(second).toMatchObject({
      complete: true,
      errors: [],
      nodePoolsDeleted: [],
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
      instanceProfilesDeleted: INSTANCE_PROFILES,
    });
    expect(second.stoppedAt).toBeUndefined();
    expect(terminationsPerInstance(simulation)).toEqual(Object.fromEntries(INSTANCES.map((id) => [id, 1])));
    expect(instanceStates(simulation)).toEqual({
      ...UNTOUCHED_INSTANCES,
      ...Object.fromEntries(INSTANCES.map((id) => [id, 'terminated'])),
    });
  });

  it('a run that resumes does not wait the NodeClaim bound again (it counts from their deletionTimestamp)', async () => {
    // Prepare: the controller runs but drains slower than the bound, so the NodeClaims outlast the first run.
    const { simulation, clock, progress, cleanup } = await simulate(withController(), SLOW_DRAIN);
    await cleanup(APPLY);
    const sleptFirst = clock.sleeps.reduce((sum, ms) => sum + ms, 0);
    const sleepsBefore = clock.sleeps.length;
    const progressBefore = progress.length;

    // Act
    const second = await cleanup(APPLY);

    // Assess
    expect(sleptFirst).toBeGreaterThanOrEqual(DEFAULT_NODECLAIM_WAIT_MS);
    expect(kubeNames(simulation, 'nodeclaims')).toEqual(['ondemand-pool-q8w3z', 'spot-pool-x7k2p']);
    expect(second).toMatchObject({ complete: true, errors: [] });
    expect(clock.sleeps.slice(sleepsBefore)).toEqual([]);
    expect(stepMessages(progress.slice(progressBefore))).toContain(
      'stopped waiting for 2 NodeClaims after 5m: their instances are terminated next',
    );
  });
});

describe('dry run', () => {
  it('changes nothing, waits for nothing and calls no write', async () => {
    // Prepare
    const { simulation, clock, cleanup } = await simulate();
    const before = structuredClone(simulation.aws.state);

    // Act
    await cleanup(DRY_RUN);

    // Assess
    expect(simulation.aws.state).toEqual(before);
    expect(writeCalls(simulation)).toEqual([]);
    expect(clock.sleeps).toEqual([]);
    expect(kubeNames(simulation, 'nodepools')).toEqual(NODEPOOLS);
    for (const claim of simulation.kubeApi.store.list('nodeclaims')) {
      expect(claim.object.metadata).not.toHaveProperty('deletionTimestamp');
    }
  });

  it('lists the same resources the apply run then removes', async () => {
    // Prepare
    const dry = await simulate();
    const apply = await simulate();

    // Act
    const planned = await dry.cleanup(DRY_RUN);
    const done = await apply.cleanup(APPLY);

    // Assess
    expect(planned).toEqual({ ...done, dryRun: true });
    expect(planned).toMatchObject({
      complete: true,
      nodePoolsDeleted: NODEPOOLS,
      instancesTerminated: INSTANCES,
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
      instanceProfilesDeleted: INSTANCE_PROFILES,
    });
  });
});

describe('with the Karpenter controller still running', () => {
  it('Karpenter drains the deleted NodePools: the wait ends at once and only the instance without a NodeClaim is terminated here', async () => {
    // Prepare
    const { simulation, clock, progress, cleanup } = await simulate(withController());

    // Act
    const result = await cleanup(APPLY);

    // Assess
    expect(result).toMatchObject({ complete: true, nodePoolsDeleted: NODEPOOLS, instancesTerminated: INSTANCES, errors: [] });
    expect(progress.filter((p) => p.kind === 'waiting' && p.step === 'nodepools')).toEqual([]);
    expect(clock.sleeps).toEqual([]);
    expect(kubeNames(simulation, 'nodeclaims')).toEqual([]);
    expect(kubeNames(simulation, 'nodes')).not.toContain('ip-10-0-45-112.eu-central-1.compute.internal');
    // Karpenter terminated the two with NodeClaims; the cleanup only the stopped one nobody claimed.
    expect(terminationsPerInstance(simulation)).toEqual({ [STOPPED]: 1 });
    expect(instanceStates(simulation)).toEqual({
      ...UNTOUCHED_INSTANCES,
      ...Object.fromEntries(INSTANCES.map((id) => [id, 'terminated'])),
    });
  });
});

/**
 * Karpenter deletes its own launch templates, so the stopped orphan of the example names one that
 * is gone (lt-0a6d3f8b2c9e14705). Its instance profile, under /karpenter/eu-central-1/platform-eks-dev/,
 * is the proof instead; prod-postgres-primary, with only forgeable tags, stays unproven.
 */
describe('a Kubernetes API that cannot be reached', () => {
  it('connection refused (the real adapter over TCP): advice about reaching the endpoint, none about RBAC; nothing terminated', async () => {
    const { simulation, cleanup } = await simulate(withController());
    // Nothing listens on its port any more; closed here, so not again after the test.
    running.splice(running.indexOf(simulation), 1);
    await simulation.kubeApi.close();

    const result = await cleanup(APPLY);

    expect(result.errors).toHaveLength(1);
    const [error] = result.errors;
    expect(error?.step).toBe('nodepools');
    expect(error?.message).toMatch(
      /^NodePools not deleted: Kubernetes API unreachable: connection refused by https:\/\/127\.0\.0\.1:\d+/,
    );
    expect(error?.message).toContain("check that the cluster's API endpoint is reachable from where this runs");
    expect(error?.message).not.toContain('rbac.yaml');
    expect(error?.message).not.toContain('list/delete on nodepools');
    expect(simulation.aws.callsTo('TerminateInstances')).toEqual([]);
  });
});

describe('an instance whose launch template Karpenter already deleted', () => {
  it('is proven by its instance profile, listed before anything is terminated, and terminated; the forged one is not', async () => {
    const { simulation, cleanup } = await simulate();

    const result = await cleanup(APPLY);

    expect(result).toMatchObject({ complete: true, instancesNotProven: [FORGED_NOT_PROVEN], errors: [] });
    expect(result.instancesTerminated).toContain(STOPPED);
    expect(instanceStates(simulation)).toMatchObject({ [STOPPED]: 'terminated', [FORGED_TAGS]: 'running' });
    const operations = simulation.aws.calls.map((c) => c.operation);
    expect(operations.indexOf('ListInstanceProfiles')).toBeLessThan(operations.indexOf('TerminateInstances'));
  });

  it('is left running when the instance profiles cannot be listed: not proven, the error said, the profiles kept as its proof', async () => {
    const { simulation, cleanup } = await simulate();
    simulation.aws.faults.fail('ListInstanceProfiles', {
      error: awsError('AccessDenied', 'not authorized: iam:ListInstanceProfiles'),
    });

    const result = await cleanup(APPLY);

    expect(result.instancesTerminated).toEqual([RUNNING_WITH_NODECLAIM, PENDING_ONE_MINUTE_OLD]);
    expect(result.instancesNotProven).toEqual([
      {
        id: STOPPED,
        reason: expect.stringMatching(
          /^launch template lt-0a6d3f8b2c9e14705 not found among the \d+ captured .*, and no proof by its instance profile either: instance profiles not captured/,
        ),
      },
      FORGED_NOT_PROVEN,
    ]);
    expect(result.errors).toEqual([{ step: 'instances', message: expect.stringContaining('ListInstanceProfiles') }]);
    expect(result.complete).toBe(false);
    expect(instanceStates(simulation)).toMatchObject({ [STOPPED]: 'stopped', [FORGED_TAGS]: 'running' });
    expect(result.stepsNotStarted?.map((s) => s.step)).toEqual(['launch-templates', 'instance-profiles']);
    expect(profileRoles(simulation)).toHaveProperty(PROFILE_V13);
  });

  it('is left running when the template it names exists but is not tagged for the cluster: found by id, it is not gone, so the profile proves nothing', async () => {
    // A node group's (or anyone's) template, untagged: the cluster-tagged listing misses it.
    const seed: ClusterSnapshot = {
      ...captured,
      launchTemplates: [
        ...captured.launchTemplates,
        { id: 'lt-0a6d3f8b2c9e14705', name: 'eks-payments-ng-20250101', tags: { Team: 'payments' } },
      ],
    };
    const { simulation, cleanup } = await simulate(seed);

    const result = await cleanup(APPLY);

    expect(result.instancesTerminated).not.toContain(STOPPED);
    expect(result.instancesNotProven).toContainEqual({
      id: STOPPED,
      reason: "launch template lt-0a6d3f8b2c9e14705 is not Karpenter's (name eks-payments-ng-20250101)",
    });
    expect(instanceStates(simulation)).toMatchObject({ [STOPPED]: 'stopped' });
    const lookups = simulation.aws.callsTo('DescribeLaunchTemplates').map((c) => c.input.alsoIds);
    expect(lookups).toContainEqual(expect.arrayContaining(['lt-0a6d3f8b2c9e14705']));
  });

  it('is left running when its instance profile is not Karpenter’s for the cluster, and the reason says so', async () => {
    const terraformProfile = captured.instanceProfiles.find((p) => p.name === 'KarpenterNodeInstanceProfile-platform-eks-dev')!;
    const seed: ClusterSnapshot = {
      ...captured,
      instances: captured.instances.map((i) => (i.id === STOPPED ? { ...i, iamInstanceProfileArn: terraformProfile.arn! } : i)),
    };
    const { simulation, cleanup } = await simulate(seed);

    const result = await cleanup(APPLY);

    expect(result.instancesTerminated).not.toContain(STOPPED);
    expect(result.instancesNotProven).toContainEqual({
      id: STOPPED,
      reason: expect.stringContaining(
        `no proof by its instance profile either: ${terraformProfile.arn} is not Karpenter's instance profile for cluster platform-eks-dev in eu-central-1`,
      ),
    });
    expect(instanceStates(simulation)).toMatchObject({ [STOPPED]: 'stopped', [FORGED_TAGS]: 'running' });
  });
});
