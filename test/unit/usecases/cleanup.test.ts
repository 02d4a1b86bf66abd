import { describe, expect, it } from 'vitest';
import type { ClusterInfo, Instance, InstanceProfile, LaunchTemplate } from '../../../src/domain/aws.ts';
import type { CleanupProgress, CleanupRequest } from '../../../src/domain/cleanup.ts';
import type { EC2NodeClass, NodeClaim, NodePool, Pod } from '../../../src/domain/kube.ts';
import { KubeUnreachableError, SourceError } from '../../../src/ports/errors.ts';
import { errorForNetwork, errorForStatus, TransientKubeError } from '../../../src/adapters/kubernetes/kube-errors.ts';
import { AWS_WRITE_OPERATIONS, inMemoryAws } from '../../../src/simulator/in-memory-aws.ts';
import { runCleanup, type CleanupSettings } from '../../../src/usecases/cleanup.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import {
  ACCOUNT,
  cluster,
  forgedInstance,
  instance,
  instanceProfile,
  karpenterLaunchTemplate,
  launchTemplate,
  snapshotOf,
} from '../../factories/aws.ts';
import { autoModeNodePool, ec2NodeClass, nodeClaim, nodePool } from '../../factories/karpenter.ts';
import { karpenterPod, minutesAfter, pod } from '../../factories/kube.ts';
import { FakeKarpenterKube } from '../../factories/ports.ts';
import { steppingClock } from '../../support/clock.ts';

const START = '2026-01-01T02:00:00Z';
/** A Karpenter controller that runs: something drains the NodeClaims, so they are waited for. */
const RUNNING_CONTROLLER = [karpenterPod({ name: 'karpenter-5697769d6c-x7k2p', nodeName: 'ip-10-0-1-20.ec2.internal' })];

const PROFILE_ARN = `arn:aws:iam::${ACCOUNT}:instance-profile/`;

/** A cluster after a partial `terraform destroy`: Karpenter's leftovers among things that must stay. */
function partialDestroy() {
  const instances = [
    instance({ id: 'i-stopped', nodePool: 'spot-pool', state: 'stopped', launchTemplateId: 'lt-new' }),
    instance({
      id: 'i-pending',
      nodePool: 'spot-pool',
      state: 'pending',
      launchTime: minutesAfter(START, -1),
      launchTemplateId: 'lt-new',
    }),
    instance({ id: 'i-running', nodePool: 'ondemand-pool', launchTemplateId: 'lt-old' }),
    // Their own profiles, as a node group and another cluster's Karpenter have (not the factory's demo one).
    { ...instance({ id: 'i-nodegroup', nodeGroup: 'system' }), iamInstanceProfileArn: `${PROFILE_ARN}eks-system-ng` },
    {
      ...instance({ id: 'i-staging', cluster: 'staging', tags: { 'kubernetes.io/cluster/demo': 'owned' } }),
      iamInstanceProfileArn: `${PROFILE_ARN}karpenter/us-east-1/staging/uid/staging_1`,
    },
    instance({ id: 'i-terminated', state: 'terminated' }),
  ];
  const launchTemplates = [
    launchTemplate({ id: 'lt-new' }),
    launchTemplate({ id: 'lt-old', tag: 'legacy' }),
    launchTemplate({ id: 'lt-nodegroup', name: 'eks-system-20260101' }),
    launchTemplate({ id: 'lt-staging', cluster: 'staging' }),
  ];
  const karpenterTags = { 'karpenter.k8s.aws/ec2nodeclass': 'default', 'kubernetes.io/cluster/demo': 'owned' };
  const instanceProfiles = [
    instanceProfile({ name: 'demo_111', path: '/karpenter/us-east-1/demo/uid-default/', role: 'KarpenterNodeRole-demo' }),
    instanceProfile({ name: 'demo_1976173924626587633', role: 'KarpenterNodeRole-demo', tags: karpenterTags }),
    instanceProfile({ name: 'demo_222', path: '/karpenter/eu-west-1/demo/uid-default/', role: 'KarpenterNodeRole-demo' }),
    instanceProfile({ name: 'demo_123', role: 'KarpenterNodeRole-demo' }),
  ];
  const nodePools = [nodePool({ name: 'spot-pool' }), nodePool({ name: 'ondemand-pool' })];
  // The role its Karpenter profiles hold: without an EC2NodeClass naming it, none would be deleted.
  const nodeClasses = [ec2NodeClass({ name: 'default', role: 'KarpenterNodeRole-demo' })];
  return { instances, launchTemplates, instanceProfiles, nodePools, nodeClasses, nodeClaims: [] as NodeClaim[] };
}

interface WorldInput {
  cluster?: ClusterInfo;
  region?: string;
  instances?: Instance[];
  launchTemplates?: LaunchTemplate[];
  instanceProfiles?: InstanceProfile[];
  nodePools?: NodePool[];
  nodeClaims?: NodeClaim[];
  nodeClasses?: EC2NodeClass[];
  pods?: Pod[];
}

function world(input: WorldInput = partialDestroy()) {
  const clock = steppingClock(START);
  const aws = inMemoryAws(
    snapshotOf({
      cluster: input.cluster ?? cluster(),
      instances: input.instances ?? [],
      // Karpenter launched the factory's instances from this one (unless a test says otherwise).
      launchTemplates: input.launchTemplates ?? [karpenterLaunchTemplate()],
      instanceProfiles: input.instanceProfiles ?? [],
    }),
    input.region === undefined ? {} : { region: input.region },
  );
  const kube = new FakeKarpenterKube({
    nodePools: input.nodePools,
    nodeClaims: input.nodeClaims,
    nodeClasses: input.nodeClasses,
    pods: input.pods,
    now: () => clock.now(),
  });
  const progress: CleanupProgress[] = [];
  const connects: (ClusterInfo | undefined)[] = [];
  const connection: ClusterConnection = {
    aws,
    connectKube: async (info) => {
      connects.push(info);
      return kube;
    },
  };
  const cleanup = (request: Partial<CleanupRequest> = {}, settings: Partial<CleanupSettings> = {}) =>
    runCleanup(
      { clusterName: 'demo', dryRun: false, deleteNodePools: true, ...request },
      { connection, clock, onProgress: (p) => progress.push(p) },
      { deadline: new Date(clock.now().getTime() + 15 * 60_000), pollIntervalMs: 10_000, ...settings },
    );
  const writes = () => aws.calls.filter((c) => AWS_WRITE_OPERATIONS.includes(c.operation));
  const state = (id: string) => aws.state.instances.get(id)?.state;
  return { clock, aws, kube, progress, connects, connection, cleanup, writes, state };
}

const stepMessages = (progress: CleanupProgress[]) => progress.filter((p) => p.kind === 'step').map((p) => p.message);

describe('runCleanup on a cluster after a partial destroy', () => {
  const EXPECTED = {
    cluster: 'demo',
    nodePoolsDeleted: ['ondemand-pool', 'spot-pool'],
    instancesTerminated: ['i-pending', 'i-running', 'i-stopped'],
    instancesNotProven: [],
    launchTemplatesDeleted: ['lt-new', 'lt-old'],
    instanceProfilesDeleted: ['demo_111', 'demo_1976173924626587633'],
    errors: [],
  };

  it('dry run lists what would go and changes nothing', async () => {
    const w = world();

    const result = await w.cleanup({ dryRun: true });

    expect(result).toEqual({ ...EXPECTED, dryRun: true, complete: true });
    expect(w.writes()).toEqual([]);
    expect(w.kube.deletedNodePools).toEqual([]);
    expect(w.clock.sleeps).toEqual([]);
    expect(stepMessages(w.progress)).toContain('would delete 2 NodePools: ondemand-pool, spot-pool');
  });

  it('apply removes exactly those, waiting for NodeClaims and terminations; dry run listed the same', async () => {
    const w = world({
      ...partialDestroy(),
      nodeClaims: [nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-stopped' })],
      pods: RUNNING_CONTROLLER,
    });
    // Karpenter drains and lets the NodeClaim go between the first and the second look.
    w.kube.beforeNodeClaimList = (kube) => {
      if (kube.nodeClaimLists.length > 1) kube.removeNodeClaims();
    };

    const result = await w.cleanup();

    expect(result).toEqual({ ...EXPECTED, dryRun: false, complete: true });
    expect(['i-stopped', 'i-pending', 'i-running'].map(w.state)).toEqual(['terminated', 'terminated', 'terminated']);
    expect(['i-nodegroup', 'i-staging', 'i-terminated'].map(w.state)).toEqual(['running', 'running', 'terminated']);
    expect(w.aws.callsTo('TerminateInstances').flatMap((c) => c.input.instanceIds as string[])).toEqual([
      'i-pending',
      'i-running',
      'i-stopped',
    ]);
    expect([...w.aws.state.launchTemplates.keys()]).toEqual(['lt-nodegroup', 'lt-staging']);
    expect([...w.aws.state.instanceProfiles.keys()]).toEqual(['demo_222', 'demo_123']);
    expect(w.kube.nodePools.size).toBe(0);
    expect(w.clock.sleeps).toEqual([10_000]);
    expect(w.progress).toContainEqual({ kind: 'waiting', step: 'nodepools', nodeClaims: 1, waitedMs: 0, limitMs: 300_000 });
    expect(stepMessages(w.progress)).toEqual([
      'deleting 2 NodePools: ondemand-pool, spot-pool',
      'terminating 3 instances: i-pending, i-running, i-stopped',
      'deleting 2 launch templates: lt-new, lt-old',
      'deleting 2 instance profiles: demo_111, demo_1976173924626587633',
    ]);
  });

  it('removes each role before deleting its instance profile', async () => {
    const w = world();

    await w.cleanup();

    const iamWrites = w.writes().filter((c) => c.operation !== 'TerminateInstances' && c.operation !== 'DeleteLaunchTemplate');
    expect(iamWrites.map((c) => [c.operation, c.input.profileName])).toEqual([
      ['RemoveRoleFromInstanceProfile', 'demo_111'],
      ['DeleteInstanceProfile', 'demo_111'],
      ['RemoveRoleFromInstanceProfile', 'demo_1976173924626587633'],
      ['DeleteInstanceProfile', 'demo_1976173924626587633'],
    ]);
  });

  it('a second run finds nothing to do and writes nothing', async () => {
    const w = world();
    await w.cleanup();
    const before = w.writes().length;
    const deletedBefore = w.kube.deletedNodePools.length;

    const second = await w.cleanup();

    expect(second).toMatchObject({
      complete: true,
      nodePoolsDeleted: [],
      instancesTerminated: [],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
      errors: [],
    });
    expect(w.writes()).toHaveLength(before);
    expect(w.kube.deletedNodePools).toHaveLength(deletedBefore);
  });

  it('one termination failing: the others are terminated; launch templates and profiles wait, not started, with the reason', async () => {
    const w = world();
    w.aws.faults.fail('TerminateInstances', {
      instanceId: 'i-running',
      error: { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.' },
    });

    const result = await w.cleanup();

    expect(result.complete).toBe(false);
    expect(result.errors).toEqual([
      {
        step: 'instances',
        resource: 'i-running',
        message: 'TerminateInstances i-running failed: UnauthorizedOperation: You are not authorized to perform this operation.',
      },
    ]);
    expect(result.instancesTerminated).toEqual(['i-pending', 'i-stopped']);
    expect(w.state('i-running')).toBe('running');
    const reason = 'instances not all known terminated: 1 instance not terminated (i-running; see errors)';
    expect(result.stepsNotStarted).toEqual([
      { step: 'launch-templates', reason },
      { step: 'instance-profiles', reason },
    ]);
    expect(result).toMatchObject({ launchTemplatesDeleted: [], instanceProfilesDeleted: [] });
    // Listed once, at the start, as the evidence of which instances Karpenter launched; never deleted.
    expect(w.aws.callsTo('DescribeLaunchTemplates')).toHaveLength(1);
    expect(w.aws.callsTo('DeleteLaunchTemplate')).toEqual([]);
    expect(w.aws.callsTo('ListInstanceProfiles')).toEqual([]);
  });
});

describe('runCleanup order: nothing goes while what depends on it may still run', () => {
  const LAUNCH_TEMPLATES = ['lt-new', 'lt-old', 'lt-nodegroup', 'lt-staging'];
  const PROFILES = { demo_111: ['KarpenterNodeRole-demo'], demo_1976173924626587633: ['KarpenterNodeRole-demo'] };
  const profileRoles = (w: ReturnType<typeof world>) =>
    Object.fromEntries([...w.aws.state.instanceProfiles.values()].map((p) => [p.name, p.roles.map((r) => r.name)]));

  it('DescribeInstances denied: no instance handled, no launch template or profile touched; both not started, with why', async () => {
    const w = world();
    w.aws.faults.fail('DescribeInstances', {
      error: { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.' },
      times: 'always',
    });

    const result = await w.cleanup();

    expect(result).toMatchObject({
      complete: false,
      nodePoolsDeleted: ['ondemand-pool', 'spot-pool'],
      instancesTerminated: [],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });
    const reason =
      'instances not all known terminated: DescribeInstances (instances of cluster demo) failed: UnauthorizedOperation: You are not authorized to perform this operation.';
    expect(result.stepsNotStarted).toEqual([
      { step: 'launch-templates', reason },
      { step: 'instance-profiles', reason },
    ]);
    expect(w.writes()).toEqual([]);
    expect([...w.aws.state.launchTemplates.keys()]).toEqual(LAUNCH_TEMPLATES);
    expect(profileRoles(w)).toMatchObject(PROFILES);
    expect(stepMessages(w.progress)).toContain(`not started: ${reason}`);
  });

  it('the end of the terminations not seen (DescribeInstances denied while waiting): launch templates and profiles stay', async () => {
    const w = world({
      ...partialDestroy(),
      instances: [instance({ id: 'i-running', nodePool: 'ondemand-pool', launchTemplateId: 'lt-old' })],
    });
    // The listings before the terminations go through; the look at their end is denied.
    const original = w.aws.ec2.describeInstances.bind(w.aws.ec2);
    w.aws.ec2.describeInstances = async (query) => {
      if (query.instanceIds) throw Object.assign(new Error('not authorized'), { name: 'UnauthorizedOperation' });
      return original(query);
    };

    const result = await w.cleanup();

    expect(result.instancesTerminated).toEqual(['i-running']);
    expect(result.complete).toBe(false);
    expect(result.stepsNotStarted?.map((s) => s.step)).toEqual(['launch-templates', 'instance-profiles']);
    expect(result.stepsNotStarted?.[0]?.reason).toMatch(
      /^instances not all known terminated: DescribeInstances \(waiting for 1 instance to terminate\) failed: UnauthorizedOperation/,
    );
    expect(w.aws.callsTo('DeleteLaunchTemplate')).toEqual([]);
    expect(w.aws.callsTo('RemoveRoleFromInstanceProfile')).toEqual([]);
  });

  it('a NodePool that cannot be deleted keeps its instances (its controller would replace them), and so the templates and profiles', async () => {
    const w = world({ ...partialDestroy(), pods: RUNNING_CONTROLLER });
    w.kube.deleteErrors.set('spot-pool', new SourceError('403 Forbidden: nodepools "spot-pool" is forbidden', { code: '403' }));

    const result = await w.cleanup();

    expect(result).toMatchObject({
      complete: false,
      nodePoolsDeleted: ['ondemand-pool'],
      instancesTerminated: ['i-running'],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
      errors: [
        {
          step: 'nodepools',
          resource: 'spot-pool',
          message: `delete NodePool spot-pool failed: 403 Forbidden: nodepools "spot-pool" is forbidden — ${KUBE_ACCESS_HINT}`,
        },
      ],
    });
    expect(['i-stopped', 'i-pending'].map(w.state)).toEqual(['stopped', 'pending']);
    expect(result.stepsNotStarted).toEqual([
      {
        step: 'instances',
        nodePools: ['spot-pool'],
        reason:
          'NodePool spot-pool could not be deleted (see errors): a Karpenter controller that still runs would replace terminated instances; fix the access and run again, or once the controller is gone run with deleteNodePools false / --keep-nodepools',
      },
      {
        step: 'launch-templates',
        reason: 'instances not all known terminated: 2 instances of NodePools not deleted left running',
      },
      {
        step: 'instance-profiles',
        reason: 'instances not all known terminated: 2 instances of NodePools not deleted left running',
      },
    ]);
    expect(w.aws.callsTo('TerminateInstances').flatMap((c) => c.input.instanceIds as string[])).toEqual(['i-running']);
  });

  it.each([
    [
      'DescribeCluster denied',
      (w: ReturnType<typeof world>) => w.aws.faults.fail('DescribeCluster', { error: { code: 'AccessDeniedException' } }),
    ],
    [
      'NodePools unlistable',
      (w: ReturnType<typeof world>) => (w.kube.listError = new SourceError('403 Forbidden', { code: '403' })),
    ],
  ])('%s while the cluster may run: no instance terminated, nothing deleted, each step says why', async (_what, fault) => {
    const w = world();
    fault(w);

    const result = await w.cleanup();

    expect(result).toMatchObject({
      complete: false,
      instancesTerminated: [],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });
    expect(w.writes()).toEqual([]);
    expect(result.stepsNotStarted?.map((s) => s.step)).toEqual(['instances', 'launch-templates', 'instance-profiles']);
    expect(result.stepsNotStarted?.[0]?.reason).toMatch(
      /^NodePools could not be deleted \(.*(403 Forbidden|AccessDeniedException)/,
    );
    expect(result.stepsNotStarted?.[0]?.reason).toContain('--keep-nodepools');
    expect(result.stepsNotStarted?.[1]?.reason).toBe('instances not all known terminated: the instances step did not start');
  });

  it('a NodePool the API answers in an odd shape is set aside: an error naming what is wrong, not deleted, its instances kept', async () => {
    // Prepare
    const w = world({ ...partialDestroy(), pods: RUNNING_CONTROLLER });
    Object.assign(w.kube.nodePools.get('spot-pool')!, { spec: { limits: 'lots' } });

    // Act
    const result = await w.cleanup();

    // Assess
    expect(result).toMatchObject({
      complete: false,
      nodePoolsDeleted: ['ondemand-pool'],
      instancesTerminated: ['i-running'],
      errors: [
        {
          step: 'nodepools',
          message: expect.stringMatching(
            /^NodePool spot-pool \(items\[\d\]\) set aside: spec\.limits is a string, expected an object.*: not deleted$/,
          ),
        },
      ],
    });
    expect(w.kube.deletedNodePools).toEqual(['ondemand-pool']);
    expect(['i-stopped', 'i-pending'].map(w.state)).toEqual(['stopped', 'pending']);
    expect(result.stepsNotStarted?.[0]).toMatchObject({ step: 'instances', nodePools: ['spot-pool'] });
  });

  it('a NodePool without a name to tell its instances by holds every instance', async () => {
    // Prepare
    const w = world({ ...partialDestroy(), pods: RUNNING_CONTROLLER });
    Object.assign(w.kube.nodePools.get('spot-pool')!, { metadata: { labels: {} } });

    // Act
    const result = await w.cleanup();

    // Assess
    expect(result.errors).toEqual([
      expect.objectContaining({
        step: 'nodepools',
        message: expect.stringMatching(/^NodePool items\[\d\] set aside: metadata\.name is missing, expected a name/),
      }),
    ]);
    expect(result.instancesTerminated).toEqual([]);
    expect(w.aws.callsTo('TerminateInstances')).toEqual([]);
    expect(result.stepsNotStarted?.[0]).toMatchObject({ step: 'instances' });
    expect(result.stepsNotStarted?.[0]).not.toHaveProperty('nodePools');
  });

  it('the same faults in a dry run: it plans what apply does, holding the instances and so the templates and profiles', async () => {
    const w = world();
    w.kube.listError = new SourceError('403 Forbidden', { code: '403' });

    const result = await w.cleanup({ dryRun: true });

    expect(result).toMatchObject({
      complete: false,
      instancesTerminated: [],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });
    expect(result.stepsNotStarted?.map((s) => s.step)).toEqual(['instances', 'launch-templates', 'instance-profiles']);
    expect(result.stepsNotStarted?.[0]?.reason).toMatch(/^NodePools could not be deleted \(.*403 Forbidden/);
  });

  it('deleteNodePools false: no NodePool gate, the instances are terminated and the rest follows', async () => {
    const w = world();
    w.kube.listError = new SourceError('403 Forbidden', { code: '403' });

    const result = await w.cleanup({ deleteNodePools: false });

    expect(result).toMatchObject({ complete: true, instancesTerminated: ['i-pending', 'i-running', 'i-stopped'] });
    expect(result.launchTemplatesDeleted).toEqual(['lt-new', 'lt-old']);
    expect(result.stepsNotStarted).toBeUndefined();
  });
});

describe('runCleanup waiting', () => {
  it('an instance already shutting down is waited for, never terminated again, and not reported as this run’s', async () => {
    const w = world({ instances: [instance({ id: 'i-going', state: 'shutting-down' }), instance({ id: 'i-1' })] });
    const sleep = w.clock.sleep;
    w.clock.sleep = async (ms) => {
      await sleep(ms);
      w.aws.updateInstance('i-going', (i) => (i.state = 'terminated'));
    };

    const result = await w.cleanup({ deleteNodePools: false });

    expect(result).toMatchObject({ complete: true, instancesTerminated: ['i-1'] });
    expect(w.aws.callsTo('TerminateInstances').map((c) => c.input.instanceIds)).toEqual([['i-1']]);
    expect(w.progress).toContainEqual({ kind: 'waiting', step: 'instances', shuttingDown: 1, waitedMs: 0 });
    expect(w.clock.sleeps).toEqual([10_000]);
  });

  it('waits for NodeClaims at most nodeClaimWaitMs from their deletionTimestamp, then terminates their instances', async () => {
    const claim = nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-1' });
    claim.metadata = { ...claim.metadata, deletionTimestamp: minutesAfter(START, -4) };
    const w = world({
      instances: [instance({ id: 'i-1', nodePool: 'spot-pool' })],
      nodePools: [],
      nodeClaims: [claim],
      pods: RUNNING_CONTROLLER,
    });

    const result = await w.cleanup({}, { nodeClaimWaitMs: 5 * 60_000 });

    expect(result).toMatchObject({ complete: true, errors: [], instancesTerminated: ['i-1'] });
    expect(w.clock.sleeps.reduce((a, b) => a + b, 0)).toBe(60_000);
    expect(w.progress[1]).toEqual({ kind: 'waiting', step: 'nodepools', nodeClaims: 1, waitedMs: 240_000, limitMs: 300_000 });
    expect(stepMessages(w.progress)).toContain('stopped waiting for 1 NodeClaim after 5m: their instances are terminated next');
  });

  it('a NodeClaim the API answers in an odd shape is not waited for, and said once however often the wait lists them', async () => {
    // Prepare
    const claim = nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-1' });
    claim.metadata = { ...claim.metadata, deletionTimestamp: minutesAfter(START, -4) };
    const odd = nodeClaim({ name: 'spot-pool-odd', nodePool: 'spot-pool' });
    Object.assign(odd, { status: { conditions: 'Ready' } });
    const w = world({
      instances: [instance({ id: 'i-1', nodePool: 'spot-pool' })],
      nodePools: [],
      nodeClaims: [claim, odd],
      pods: RUNNING_CONTROLLER,
    });

    // Act
    const result = await w.cleanup({}, { nodeClaimWaitMs: 5 * 60_000 });

    // Assess
    expect(w.kube.nodeClaimLists.length).toBeGreaterThan(1);
    expect(result.errors).toEqual([
      expect.objectContaining({
        step: 'nodepools',
        message: 'NodeClaim spot-pool-odd (items[1]) set aside: status.conditions is a string, expected a list: not waited for',
      }),
    ]);
    expect(w.progress[1]).toMatchObject({ kind: 'waiting', nodeClaims: 1 });
    expect(result.instancesTerminated).toEqual(['i-1']);
  });

  it('counts the wait from now when the deletionTimestamp lies in the future', async () => {
    const claim = nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool' });
    claim.metadata = { ...claim.metadata, deletionTimestamp: minutesAfter(START, 60) };
    const w = world({ nodePools: [], nodeClaims: [claim], pods: RUNNING_CONTROLLER });

    await w.cleanup({}, { nodeClaimWaitMs: 60_000 });

    expect(w.clock.sleeps).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
  });

  it('out of time while NodeClaims remain: complete false at nodepools; the next run resumes without repeating writes', async () => {
    const input = partialDestroy();
    const w = world({
      ...input,
      nodeClaims: [nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool' })],
      pods: RUNNING_CONTROLLER,
    });

    const first = await w.cleanup({}, { deadline: new Date(Date.parse(START) + 60_000) });

    expect(first).toMatchObject({ complete: false, stoppedAt: 'nodepools', nodePoolsDeleted: ['ondemand-pool', 'spot-pool'] });
    expect(first.instancesTerminated).toEqual([]);
    expect(w.writes()).toEqual([]);
    expect(w.clock.sleeps.reduce((a, b) => a + b, 0)).toBe(50_000);

    w.clock.sleeps.length = 0;
    const second = await w.cleanup();

    expect(second).toMatchObject({
      complete: true,
      nodePoolsDeleted: [],
      instancesTerminated: ['i-pending', 'i-running', 'i-stopped'],
    });
    expect(second).not.toHaveProperty('stoppedAt');
    expect(w.kube.deletedNodePools).toEqual(['ondemand-pool', 'spot-pool']);
    // The bound counts from the deletion in the first run: 5 min in all, not 5 more.
    expect(w.clock.sleeps.reduce((a, b) => a + b, 0)).toBe(250_000);
  });

  it('out of time between termination batches: the next run terminates only the rest', async () => {
    const ids = Array.from({ length: 120 }, (_, n) => `i-${String(n).padStart(3, '0')}`);
    const w = world({ instances: ids.map((id) => instance({ id })) });
    const terminate = w.aws.ec2.terminateInstances;
    w.aws.ec2.terminateInstances = async (batch) => {
      w.clock.advance(60_000);
      return terminate(batch);
    };

    const first = await w.cleanup({ deleteNodePools: false }, { deadline: new Date(Date.parse(START) + 90_000) });

    expect(first).toMatchObject({ complete: false, stoppedAt: 'instances', launchTemplatesDeleted: [] });
    expect(first.instancesTerminated).toEqual(ids.slice(0, 100));
    const second = await w.cleanup({ deleteNodePools: false });

    expect(second).toMatchObject({ complete: true, instancesTerminated: ids.slice(100) });
    expect(w.aws.callsTo('TerminateInstances').map((c) => (c.input.instanceIds as string[]).length)).toEqual([50, 50, 20]);
  });

  it('with the deadline already passed, does nothing at all', async () => {
    const w = world();

    const result = await w.cleanup({}, { deadline: new Date(START) });

    expect(result).toMatchObject({ complete: false, stoppedAt: 'nodepools', errors: [] });
    expect(w.aws.calls).toEqual([]);
  });
});

describe('runCleanup when nothing can drain the NodeClaims', () => {
  /** Two NodeClaims of deleted pools, their instances, and the pods the test gives. */
  function leftovers(input: { pods?: Pod[]; cluster?: ClusterInfo } = {}) {
    return world({
      ...input,
      instances: [instance({ id: 'i-spot', nodePool: 'spot-pool' }), instance({ id: 'i-ondemand', nodePool: 'ondemand-pool' })],
      nodePools: [nodePool({ name: 'spot-pool' }), nodePool({ name: 'ondemand-pool' })],
      nodeClaims: [
        nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool', instanceId: 'i-spot' }),
        nodeClaim({ name: 'ondemand-pool-q8w3z', nodePool: 'ondemand-pool', instanceId: 'i-ondemand' }),
      ],
    });
  }
  const RELEASE_PATCH = `--type merge -p '{"metadata":{"finalizers":null}}'`;
  const NO_CONTROLLER_NOTE =
    'no Karpenter controller is running (no Ready pod labelled app.kubernetes.io/name=karpenter): nothing will drain the 2 NodeClaims; their instances are terminated next';

  it.each([
    ['no controller pod at all', [pod({ name: 'coredns-6d4b75cb6d-8xk2p', nodeName: 'n1', labels: { 'k8s-app': 'kube-dns' } })]],
    [
      'only controller pods that are not Ready',
      [
        karpenterPod({ name: 'karpenter-5697769d6c-a', nodeName: 'n1', ready: false }),
        karpenterPod({ name: 'karpenter-5697769d6c-b' }), // Pending
      ],
    ],
  ])('%s: no wait, a note why, and the cleanup terminates their instances itself', async (_why, pods) => {
    const w = leftovers({ pods });

    const result = await w.cleanup({}, { nodeClaimWaitMs: 5 * 60_000 });

    expect(result).toMatchObject({
      complete: true,
      errors: [],
      nodePoolsDeleted: ['ondemand-pool', 'spot-pool'],
      instancesTerminated: ['i-ondemand', 'i-spot'],
    });
    expect(w.clock.sleeps).toEqual([]);
    expect(w.kube.nodeClaimLists).toHaveLength(1);
    expect(w.kube.podLists).toEqual([{ resource: 'pods', labelSelector: 'app.kubernetes.io/name=karpenter' }]);
    expect(w.progress.filter((p) => p.kind === 'waiting')).toEqual([]);
    expect(stepMessages(w.progress)).toEqual([
      'deleting 2 NodePools: ondemand-pool, spot-pool',
      NO_CONTROLLER_NOTE,
      `the 2 NodeClaims stay held by the karpenter.sh/termination finalizer; once their instances are terminated, run: kubectl patch nodeclaim ondemand-pool-q8w3z ${RELEASE_PATCH}; kubectl patch nodeclaim spot-pool-x7k2p ${RELEASE_PATCH}`,
      'terminating 2 instances: i-ondemand, i-spot',
      'deleting 1 launch template: lt-0d3e9a7c1b5f28e46',
      'no instance profiles to delete',
    ]);
    expect(w.aws.callsTo('TerminateInstances').flatMap((c) => c.input.instanceIds as string[])).toEqual(['i-ondemand', 'i-spot']);
  });

  it('says "the 1 NodeClaim" for one', async () => {
    const w = world({
      nodePools: [nodePool({ name: 'spot-pool' })],
      nodeClaims: [nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool' })],
    });

    await w.cleanup();

    expect(stepMessages(w.progress)).toContain(
      'no Karpenter controller is running (no Ready pod labelled app.kubernetes.io/name=karpenter): nothing will drain the 1 NodeClaim; their instances are terminated next',
    );
  });

  it.each([
    [
      'the pod list is forbidden (it cannot be told)',
      () => {
        const w = leftovers();
        w.kube.podListError = new SourceError('403 Forbidden: pods is forbidden', { code: '403' });
        return w;
      },
      1,
    ],
    ['EKS Auto Mode (Karpenter runs outside the cluster)', () => leftovers({ cluster: cluster({ autoMode: true }) }), 0],
    [
      'a Ready controller pod',
      () => leftovers({ pods: [...RUNNING_CONTROLLER, karpenterPod({ name: 'karpenter-5697769d6c-b' })] }),
      1,
    ],
  ])('%s: waits the bound as before, and no error', async (_why, arrange, podLists) => {
    const w = arrange();

    const result = await w.cleanup({}, { nodeClaimWaitMs: 60_000 });

    expect(result).toMatchObject({ complete: true, errors: [], instancesTerminated: ['i-ondemand', 'i-spot'] });
    expect(w.clock.sleeps.reduce((a, b) => a + b, 0)).toBe(60_000);
    expect(w.progress).toContainEqual({ kind: 'waiting', step: 'nodepools', nodeClaims: 2, waitedMs: 0, limitMs: 60_000 });
    expect(stepMessages(w.progress)).toContain('stopped waiting for 2 NodeClaims after 1m: their instances are terminated next');
    expect(stepMessages(w.progress).some((m) => m.startsWith('no Karpenter controller'))).toBe(false);
    // Asked once (not at every poll), and not at all in Auto Mode.
    expect(w.kube.podLists).toHaveLength(podLists);
  });

  it('gives the command releasing each stuck NodeClaim, the first five by name, and patches nothing itself', async () => {
    // Prepare
    const names = Array.from({ length: 7 }, (_, n) => `spot-pool-${n}`);
    const w = world({
      nodePools: [nodePool({ name: 'spot-pool' })],
      nodeClaims: names.map((name) => nodeClaim({ name, nodePool: 'spot-pool' })),
    });

    // Act
    const result = await w.cleanup();

    // Assess
    const release = names.slice(0, 5).map((name) => `kubectl patch nodeclaim ${name} ${RELEASE_PATCH}`);
    expect(stepMessages(w.progress)).toContain(
      `the 7 NodeClaims stay held by the karpenter.sh/termination finalizer; once their instances are terminated, run: ${release.join('; ')} and 2 more`,
    );
    expect(result).toMatchObject({ complete: true, errors: [] });
    expect([...w.kube.nodeClaims.keys()]).toEqual(names);
  });

  it('names the one stuck NodeClaim and its instance in the singular', async () => {
    const w = world({
      nodePools: [nodePool({ name: 'spot-pool' })],
      nodeClaims: [nodeClaim({ name: 'spot-pool-x7k2p', nodePool: 'spot-pool' })],
    });

    await w.cleanup();

    expect(stepMessages(w.progress)).toContain(
      `the NodeClaim stays held by the karpenter.sh/termination finalizer; once its instance is terminated, run: kubectl patch nodeclaim spot-pool-x7k2p ${RELEASE_PATCH}`,
    );
  });

  it('says nothing of finalizers when a running controller drains the NodeClaims, or after the wait ran out', async () => {
    const w = leftovers({ pods: RUNNING_CONTROLLER });

    await w.cleanup({}, { nodeClaimWaitMs: 60_000 });

    expect(stepMessages(w.progress).some((m) => m.includes('finalizer'))).toBe(false);
  });

  it('asks nothing about the controller when no NodeClaim is left to wait for', async () => {
    const w = world();

    await w.cleanup();

    expect(w.kube.podLists).toEqual([]);
  });
});

const SERVER = 'https://abc.gr7.eu-west-1.eks.amazonaws.com';
const networkError = (code: string, message: string) => Object.assign(new Error(message), { code });
/** What the Kubernetes adapter throws once the retries of a transient network failure ran out (same code). */
function transientError(cause: Error): SourceError {
  const transient = errorForNetwork(cause, SERVER);
  if (!(transient instanceof TransientKubeError)) throw new Error(`${cause.message} is not transient`);
  return new SourceError(`${transient.error.summary} (after 4 attempts)`, { code: transient.error.code, cause: transient.error });
}

/** What a nodepools error says to do about a Kubernetes API that refuses the caller (401, 403). */
const KUBE_ACCESS_HINT =
  'give the caller list/delete on nodepools (infra/kubernetes/rbac.yaml, group karpenter-sentinel-cleanup; for the function, its access entry) or run with deleteNodePools false / --keep-nodepools';
/** ... and about one it cannot reach (DNS, refused, timed out, TLS). */
const KUBE_REACH_HINT =
  "check that the cluster's API endpoint is reachable from where this runs: its name resolves (DNS), public endpoint access is on (the cleanup function reaches it only that way), or from inside the VPC of a private endpoint port 443 is open to you; then run again, or run with deleteNodePools false / --keep-nodepools";

describe('runCleanup on part of a cluster, or without its API', () => {
  it('a NodePool subset: only those NodePools and their instances; launch templates and profiles stay', async () => {
    const w = world();

    const result = await w.cleanup({ nodePools: ['spot-pool', 'gone-pool'] });

    expect(result).toMatchObject({
      complete: true,
      nodePoolsDeleted: ['spot-pool'],
      instancesTerminated: ['i-pending', 'i-stopped'],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });
    expect(w.state('i-running')).toBe('running');
    expect([...w.kube.nodePools.keys()]).toEqual(['ondemand-pool']);
    // Listed as the evidence of which instances Karpenter launched, never deleted.
    expect(w.aws.callsTo('DeleteLaunchTemplate')).toEqual([]);
    expect(w.aws.callsTo('ListInstanceProfiles')).toEqual([]);
    expect(stepMessages(w.progress)).toContain(
      'only NodePools spot-pool, gone-pool: launch templates and instance profiles stay (they serve the whole cluster)',
    );
    // Said once, by the launch-templates step, not again by the instance-profiles step.
    expect(stepMessages(w.progress).filter((m) => m.includes('instance profiles stay'))).toHaveLength(1);
  });

  it('leaves EKS Auto Mode NodePools alone unless named', async () => {
    const w = world({ nodePools: [nodePool({ name: 'spot-pool' }), autoModeNodePool({ name: 'general-purpose' })] });

    const result = await w.cleanup();

    expect(result.nodePoolsDeleted).toEqual(['spot-pool']);
    expect([...w.kube.nodePools.keys()]).toEqual(['general-purpose']);
    expect(stepMessages(w.progress)[0]).toBe("deleting 1 NodePool: spot-pool (EKS Auto Mode's left alone: general-purpose)");
  });

  it.each([
    [
      'unreachable',
      new KubeUnreachableError('connection refused by https://10.0.1.15', { code: 'ECONNREFUSED' }),
      `NodePools not deleted: Kubernetes API unreachable: connection refused by https://10.0.1.15 — ${KUBE_REACH_HINT}`,
    ],
    [
      'forbidden',
      new SourceError('403 Forbidden: nodepools.karpenter.sh is forbidden', { code: '403' }),
      `NodePools not deleted: list NodePools failed: 403 Forbidden: nodepools.karpenter.sh is forbidden — ${KUBE_ACCESS_HINT}`,
    ],
  ])(
    'Kubernetes API %s while the cluster runs: one nodepools error, and no instance terminated',
    async (_why, error, message) => {
      const w = world();
      w.kube.listError = error;

      const result = await w.cleanup();

      expect(result.errors).toEqual([{ step: 'nodepools', message }]);
      expect(result).toMatchObject({
        complete: false,
        nodePoolsDeleted: [],
        instancesTerminated: [],
        instanceProfilesDeleted: [],
      });
      expect(result.stepsNotStarted?.[0]).toMatchObject({ step: 'instances' });
      expect(w.writes()).toEqual([]);
    },
  );

  it.each([
    [
      'gone',
      cluster({ gone: true }),
      'no cluster demo in us-east-1 (deleted already, or a wrong name or region?): no NodePools to delete; only leftovers tagged for it in us-east-1 are cleaned',
    ],
    ['DELETING', cluster({ status: 'DELETING' }), 'cluster DELETING: no NodePools to delete'],
  ])('cluster %s: no NodePools step, no error, the rest done', async (_what, info, message) => {
    const w = world({ ...partialDestroy(), cluster: info });

    const result = await w.cleanup();

    expect(result).toMatchObject({ complete: true, errors: [], instancesTerminated: ['i-pending', 'i-running', 'i-stopped'] });
    expect(w.connects).toEqual([]);
    expect(stepMessages(w.progress)[0]).toBe(message);
    // Not only in the progress log: the caller (the Terraform hook, the CLI) reads the result.
    expect(result.notes).toEqual([message]);
  });

  it('cluster not found: says in which region it looked, and that only its tagged leftovers there are cleaned', async () => {
    // Prepare
    const w = world({ ...partialDestroy(), cluster: cluster({ gone: true }), region: 'eu-central-1' });

    // Act
    await w.cleanup();

    // Assess
    expect(stepMessages(w.progress)[0]).toBe(
      'no cluster demo in eu-central-1 (deleted already, or a wrong name or region?): no NodePools to delete; only leftovers tagged for it in eu-central-1 are cleaned',
    );
  });

  it.each([
    [
      'ENOTFOUND',
      errorForNetwork(networkError('ENOTFOUND', 'getaddrinfo ENOTFOUND abc.gr7.eu-west-1.eks.amazonaws.com'), SERVER),
    ],
    [
      'EAI_AGAIN, after its retries',
      transientError(networkError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN abc.gr7.eu-west-1.eks.amazonaws.com')),
    ],
    ['ECONNREFUSED', errorForNetwork(networkError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.1.15:443'), SERVER)],
    ['a connect timeout', errorForNetwork(networkError('KUBE_CONNECT_TIMEOUT', 'no connection within 10 s'), SERVER)],
    ['a request timeout, after its retries', transientError(networkError('KUBE_REQUEST_TIMEOUT', 'no answer within 30 s'))],
  ])('%s listing NodePools: reachability advice, no RBAC advice', async (_, error) => {
    const w = world();
    w.kube.listError = error;

    const result = await w.cleanup();

    const message = result.errors[0]?.message ?? '';
    expect(message.endsWith(`— ${KUBE_REACH_HINT}`)).toBe(true);
    expect(message).not.toContain('rbac.yaml');
  });

  it.each([
    ['401', errorForStatus(401, '{"message":"Unauthorized"}', undefined, new Date())],
    ['403', errorForStatus(403, '{"message":"nodepools.karpenter.sh is forbidden"}', undefined, new Date())],
  ])('%s listing NodePools: RBAC and access-entry advice, no reachability advice', async (_, error) => {
    const w = world();
    w.kube.listError = error;

    const result = await w.cleanup();

    const message = result.errors[0]?.message ?? '';
    expect(message.endsWith(`— ${KUBE_ACCESS_HINT}`)).toBe(true);
    expect(message).not.toContain('API endpoint is reachable');
  });

  it('a NodePool whose deletion hit a DNS failure: reachability advice on its error, not RBAC', async () => {
    const w = world({ ...partialDestroy(), pods: RUNNING_CONTROLLER });
    w.kube.deleteErrors.set(
      'spot-pool',
      transientError(networkError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN abc.gr7.eu-west-1.eks.amazonaws.com')),
    );

    const result = await w.cleanup();

    expect(result.errors).toEqual([
      expect.objectContaining({ step: 'nodepools', resource: 'spot-pool', message: expect.stringMatching(/EAI_AGAIN/) }),
    ]);
    expect(result.errors[0]?.message.endsWith(`— ${KUBE_REACH_HINT}`)).toBe(true);
  });

  it('Kubernetes API error with a long reason: the reason is cut, the hint what to do stays, all on one line', async () => {
    const w = world();
    w.kube.listError = new KubeUnreachableError(`401 Unauthorized:\n${'no access entry for the caller; '.repeat(30)}`, {
      code: '401',
    });

    const result = await w.cleanup();

    const message = result.errors[0]?.message ?? '';
    expect(message).toMatch(/^NodePools not deleted: Kubernetes API unreachable: 401 Unauthorized: no access entry/);
    expect(message.endsWith(`— ${KUBE_ACCESS_HINT}`)).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('a named NodePool that does not exist: a note naming those present, no error, the rest as asked', async () => {
    // Prepare
    const w = world();

    // Act
    const result = await w.cleanup({ nodePools: ['spot-pool', 'nope'] });

    // Assess
    expect(stepMessages(w.progress)).toContain('no NodePool named nope (present: ondemand-pool, spot-pool)');
    expect(result).toMatchObject({ complete: true, errors: [], nodePoolsDeleted: ['spot-pool'] });
  });

  it('says nothing of absent NodePools when every named one exists, or none is named', async () => {
    const w = world();

    await w.cleanup({ nodePools: ['spot-pool'], dryRun: true });
    await w.cleanup({ dryRun: true });

    expect(stepMessages(w.progress).some((m) => m.startsWith('no NodePool'))).toBe(false);
  });

  it('deleteNodePools false: says the risk of a controller that still runs', async () => {
    const w = world();

    await w.cleanup({ deleteNodePools: false });

    expect(stepMessages(w.progress)[0]).toBe(
      'NodePools left alone (deleteNodePools: false): if the Karpenter controller still runs it replaces the instances terminated next; run this once the controller is gone',
    );
  });

  it('deleteNodePools false: the cluster and its API are not asked', async () => {
    const w = world();

    const result = await w.cleanup({ deleteNodePools: false });

    expect(result).toMatchObject({ complete: true, nodePoolsDeleted: [] });
    expect(w.aws.callsTo('DescribeCluster')).toEqual([]);
    expect(w.connects).toEqual([]);
  });

  it('AWS failures become errors naming the call and the resource; nothing is thrown', async () => {
    const w = world();
    w.aws.faults.fail('DeleteInstanceProfile', { error: { code: 'AccessDenied', message: 'not authorized' } });

    const result = await w.cleanup();

    expect(result.complete).toBe(false);
    expect(result.errors).toEqual([
      {
        step: 'instance-profiles',
        resource: 'demo_111',
        message: 'DeleteInstanceProfile demo_111 failed: AccessDenied: not authorized',
      },
    ]);
    expect(result.instanceProfilesDeleted).toEqual(['demo_1976173924626587633']);
  });

  it('launch templates unlistable: nothing proves the instances Karpenter’s, so none is terminated and nothing after them goes', async () => {
    const w = world();
    w.aws.faults.fail('DescribeLaunchTemplates', { error: { code: 'UnauthorizedOperation', message: 'not authorized' } });

    const result = await w.cleanup();

    expect(result.complete).toBe(false);
    expect(result.errors).toEqual([
      {
        step: 'instances',
        message:
          "DescribeLaunchTemplates (cluster demo: without them no instance is proven Karpenter's, so none is terminated) failed: UnauthorizedOperation: not authorized",
      },
    ]);
    expect(result.instancesTerminated).toEqual([]);
    expect(result.instancesNotProven.map((n) => n.id)).toEqual(['i-pending', 'i-running', 'i-stopped']);
    expect(result.instancesNotProven[0]?.reason).toContain('launch templates not captured');
    expect(w.aws.callsTo('TerminateInstances')).toEqual([]);
    // The templates are the proof the next run needs: kept, and the profiles with them.
    expect(result.stepsNotStarted?.map((s) => s.step)).toEqual(['launch-templates', 'instance-profiles']);
    expect(result.stepsNotStarted?.[0]?.reason).toContain('the launch templates could not be listed');
    expect(w.aws.callsTo('DeleteLaunchTemplate')).toEqual([]);
  });
});

describe('runCleanup on an instance tagged only the pre-1.0 way', () => {
  /** Karpenter before 1.0 tagged `kubernetes.io/cluster/<name>=owned`, never `eks:eks-cluster-name`. */
  const PRE_V1_TAGS = { 'kubernetes.io/cluster/demo': 'owned' };
  const DENIAL =
    'You are not authorized to perform this operation. User: arn:aws:sts::069057294951:assumed-role/karpenter-sentinel-prod-cleanup/karpenter-sentinel-prod-cleanup ' +
    'is not authorized to perform: ec2:TerminateInstances on resource: arn:aws:ec2:eu-central-1:069057294951:instance/i-0legacy ' +
    'because no identity-based policy allows the ec2:TerminateInstances action. Encoded authorization failure message: ' +
    'Zm9v'.repeat(500);

  function legacyWorld() {
    const w = world({
      region: 'eu-central-1',
      instances: [
        instance({ id: 'i-0legacy', cluster: null, nodePool: 'spot-pool', tags: PRE_V1_TAGS }),
        instance({ id: 'i-0current', nodePool: 'spot-pool' }),
      ],
    });
    return w;
  }

  it('denied: the error says why and gives the command that terminates it, on one line', async () => {
    // Prepare
    const w = legacyWorld();
    w.aws.faults.fail('TerminateInstances', {
      instanceId: 'i-0legacy',
      error: { code: 'UnauthorizedOperation', message: DENIAL },
    });

    // Act
    const result = await w.cleanup({ deleteNodePools: false });

    // Assess
    expect(result.errors).toHaveLength(1);
    const error = result.errors[0];
    expect(error).toMatchObject({ step: 'instances', resource: 'i-0legacy' });
    expect(error?.message).toMatch(
      /^TerminateInstances i-0legacy failed: UnauthorizedOperation: You are not authorized to perform this operation\. /,
    );
    expect(error?.message).toMatch(
      / — this instance carries only the pre-1\.0 tag kubernetes\.io\/cluster\/demo, which the cleanup function's role may not terminate: aws ec2 terminate-instances --region eu-central-1 --instance-ids i-0legacy \(or karpenter-sentinel cleanup --cluster demo --region eu-central-1 --keep-nodepools --apply with your credentials\)$/,
    );
    expect(error?.message).not.toContain('Zm9v');
    expect(error?.message).not.toContain('\n');
    expect(result.instancesTerminated).toEqual(['i-0current']);
  });

  it('the command it gives keeps to the NodePools the run was limited to', async () => {
    const w = legacyWorld();
    w.aws.faults.fail('TerminateInstances', {
      instanceId: 'i-0legacy',
      error: { code: 'UnauthorizedOperation', message: DENIAL },
    });

    const result = await w.cleanup({ nodePools: ['spot-pool'] });

    expect(result.errors[0]?.message).toContain(
      '(or karpenter-sentinel cleanup --cluster demo --region eu-central-1 --nodepool spot-pool --apply with your credentials)',
    );
  });

  it.each([
    ['an instance tagged eks:eks-cluster-name, denied', 'i-0current', 'UnauthorizedOperation', DENIAL],
    ['the pre-1.0 instance failing for another reason', 'i-0legacy', 'RequestLimitExceeded', 'Request limit exceeded.'],
  ])('%s: the error is the failure alone', async (_case, instanceId, code, message) => {
    const w = legacyWorld();
    w.aws.faults.fail('TerminateInstances', { instanceId, error: { code, message } });

    const result = await w.cleanup({ deleteNodePools: false });

    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.message).toMatch(new RegExp(`^TerminateInstances ${instanceId} failed: ${code}: `));
    expect(result.errors[0]?.message).not.toContain('pre-1.0');
  });
});

describe('runCleanup on an instance carrying only the tags anyone can write', () => {
  const FORGED = 'i-0f00d5ba5e0b1e7a2';
  const withForged = () => {
    const destroyed = partialDestroy();
    return { ...destroyed, instances: [...destroyed.instances, forgedInstance(FORGED)] };
  };
  const NOT_PROVEN = [{ id: FORGED, reason: 'no aws:ec2launchtemplate:id tag: not launched from a launch template' }];

  it('a dry run lists it as not proven, never among those it would terminate', async () => {
    const w = world(withForged());

    const result = await w.cleanup({ dryRun: true });

    expect(result.instancesTerminated).toEqual(['i-pending', 'i-running', 'i-stopped']);
    expect(result.instancesNotProven).toEqual(NOT_PROVEN);
    expect(stepMessages(w.progress)).toContain(`leaving 1 instance not proven launched by Karpenter: ${FORGED}`);
  });

  it('apply terminates the real ones and leaves it running, listed with why', async () => {
    const w = world(withForged());

    const result = await w.cleanup();

    expect(result).toMatchObject({ complete: true, errors: [], instancesTerminated: ['i-pending', 'i-running', 'i-stopped'] });
    expect(result.instancesNotProven).toEqual(NOT_PROVEN);
    expect(w.state(FORGED)).toBe('running');
    expect(w.aws.callsTo('TerminateInstances').flatMap((c) => c.input.instanceIds as string[])).not.toContain(FORGED);
  });

  it('an instance tagged while the run goes is checked on the fresh listing too, and left', async () => {
    const destroyed = partialDestroy();
    const untagged = { ...forgedInstance(FORGED), tags: { Name: 'prod-postgres-primary' } };
    const w = world({ ...destroyed, instances: [...destroyed.instances, untagged] });
    // After the first listing, while the NodePools go, someone writes the two tags on it.
    w.kube.beforeNodeClaimList = () => {
      w.aws.updateInstance(FORGED, (i) => Object.assign(i.tags, forgedInstance(FORGED).tags));
    };

    const result = await w.cleanup();

    expect(w.state(FORGED)).toBe('running');
    expect(result.instancesTerminated).toEqual(['i-pending', 'i-running', 'i-stopped']);
    expect(result.instancesNotProven).toEqual(NOT_PROVEN);
  });
});
