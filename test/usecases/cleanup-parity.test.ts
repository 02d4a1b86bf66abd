/**
 * Dry run = apply (docs/cleanup.md): for each read that fails and each resource the cleanup must
 * leave, a dry run on one simulated account and an apply on an identical one report the same plan.
 * What the dry run would delete or terminate is what apply did; holds, steps not started,
 * instances not proven, errors and `complete` agree. No write fails here, so apply adds no error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import type { Instance } from '../../src/domain/aws.ts';
import type { CleanupProgress, CleanupRequest, CleanupResult } from '../../src/domain/cleanup.ts';
import type { ClusterSnapshot } from '../../src/domain/snapshot.ts';
import { simulateSnapshot, type Simulation } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { runCleanup } from '../../src/usecases/cleanup.ts';
import { karpenterPod } from '../factories/kube.ts';
import { steppingClock } from '../support/clock.ts';
import { closedAfterEachTest } from '../support/simulation.ts';
import {
  CLEANED,
  CLEANUP_EXAMPLE,
  CLEANUP_EXAMPLE_CLUSTER,
  PENDING_ONE_MINUTE_OLD,
  PROFILE_V13,
} from '../examples/cleanup-partial-destroy.ts';

const CLUSTER = CLEANUP_EXAMPLE_CLUSTER;
const APPLY: CleanupRequest = { clusterName: CLUSTER, dryRun: false, deleteNodePools: true };
/** The example's managed node group instance that also carries a `karpenter.sh/nodepool` tag. */
const NODE_GROUP = 'i-08c4a7e1f3d9b2650';
const KARPENTER_TEMPLATE = 'lt-0e7a3c9f1d5b82460';
const DENIED = { code: 'UnauthorizedOperation', message: 'You are not authorized to perform this operation.' };

let captured: ClusterSnapshot;
beforeAll(async () => {
  captured = (await loadSnapshot([CLEANUP_EXAMPLE])).snapshot;
});
const running = closedAfterEachTest();

async function cleanedOnce(
  seed: ClusterSnapshot,
  arm: (s: Simulation) => void,
  dryRun: boolean,
  progress: CleanupProgress[] = [],
): Promise<CleanupResult> {
  const clock = steppingClock(new Date(EXAMPLES_NOW));
  const simulation = await simulateSnapshot(seed, { clock, kube: { clock } });
  running.push(simulation);
  arm(simulation);
  return runCleanup(
    { ...APPLY, dryRun },
    { connection: simulation.connection, clock, onProgress: (p) => progress.push(p) },
    { deadline: new Date(clock.now().getTime() + 15 * 60_000) },
  );
}

/** What a step says it does or keeps, or why it does not start: the plan, in the words of either mode. */
const PLAN_LINE =
  /^(would (delete|terminate) |deleting |terminating |no .+ to (delete|terminate)$|keeping |leaving |not started: )/;

/** Each step's plan lines in the order said, a dry run's `would delete` read as apply's `deleting`. */
function planOf(progress: readonly CleanupProgress[]): string[] {
  return progress.flatMap((p) =>
    p.kind === 'step' && PLAN_LINE.test(p.message)
      ? [`${p.step}: ${p.message.replace(/^would delete /, 'deleting ').replace(/^would terminate /, 'terminating ')}`]
      : [],
  );
}

const profileArn = (name: string) => captured.instanceProfiles.find((p) => p.name === name)?.arn ?? '';
const withInstance = (id: string, change: (i: Instance) => Instance): ClusterSnapshot => ({
  ...captured,
  instances: captured.instances.map((i) => (i.id === id ? change(i) : i)),
});

interface ParityCase {
  name: string;
  seed?: () => ClusterSnapshot;
  arm?: (s: Simulation) => void;
  /** What makes the case what it is, checked on the plan, so the parity is never between two empty runs. */
  plan: (planned: CleanupResult) => void;
}

const CASES: ParityCase[] = [
  {
    name: 'nothing fails',
    plan: (p) => expect(p).toMatchObject({ complete: true, instancesTerminated: CLEANED.instancesTerminated }),
  },
  {
    name: 'DescribeInstances fails',
    arm: (s) => s.aws.faults.fail('DescribeInstances', { error: DENIED, times: 'always' }),
    plan: (p) => {
      expect(p.instancesTerminated).toEqual([]);
      expect(p.stepsNotStarted?.map((n) => n.step)).toEqual(['launch-templates', 'instance-profiles']);
    },
  },
  {
    name: 'DescribeLaunchTemplates fails',
    arm: (s) => s.aws.faults.fail('DescribeLaunchTemplates', { error: DENIED, times: 'always' }),
    plan: (p) => {
      expect(p.instancesTerminated).toEqual([]);
      expect(p.launchTemplatesDeleted).toEqual([]);
      expect(p.stepsNotStarted?.map((n) => n.step)).toEqual(['launch-templates', 'instance-profiles']);
    },
  },
  {
    name: 'ListInstanceProfiles fails',
    arm: (s) =>
      s.aws.faults.fail('ListInstanceProfiles', {
        error: { code: 'AccessDenied', message: 'not authorized: iam:ListInstanceProfiles' },
        times: 'always',
      }),
    plan: (p) => {
      expect(p.instancesNotProven.map((n) => n.id)).toContain('i-07e3b9d1c5a2f8406');
      expect(p.instanceProfilesDeleted).toEqual([]);
      expect(p.complete).toBe(false);
    },
  },
  {
    name: 'listing NodePools fails',
    arm: (s) => s.kubeApi.faults.add({ method: 'GET', path: '/apis/karpenter.sh/v1/nodepools', status: 403 }),
    plan: (p) => expect(p.stepsNotStarted?.map((n) => n.step)).toEqual(['instances', 'launch-templates', 'instance-profiles']),
  },
  {
    name: 'listing NodeClaims fails while a controller runs (nothing may cut its drain short)',
    seed: () => ({
      ...captured,
      pods: [
        ...captured.pods,
        karpenterPod({ name: 'karpenter-6c8d9f7b54-q2w7r', nodeName: 'ip-10-0-12-37.eu-central-1.compute.internal' }),
      ],
    }),
    arm: (s) => s.kubeApi.faults.add({ method: 'GET', path: '/apis/karpenter.sh/v1/nodeclaims', status: 403 }),
    plan: (p) => {
      expect(p.complete).toBe(false);
      expect(p.errors.map((e) => e.message)).toContainEqual(expect.stringMatching(/^NodeClaims not waited for/));
      expect(p.stepsNotStarted?.[0]).toMatchObject({
        step: 'instances',
        reason: expect.stringMatching(/drain cannot be waited for/),
      });
    },
  },
  {
    name: 'listing NodeClaims fails with no controller (nothing drains: terminated directly)',
    arm: (s) => s.kubeApi.faults.add({ method: 'GET', path: '/apis/karpenter.sh/v1/nodeclaims', status: 403 }),
    plan: (p) => expect(p).toMatchObject({ complete: false, instancesTerminated: CLEANED.instancesTerminated }),
  },
  {
    name: 'a NodePool set aside as unreadable holds its instances',
    arm: (s) => {
      const pool = s.kubeApi.store.get('nodepools', 'spot-pool')?.object;
      s.kubeApi.store.put('nodepools', { ...pool, spec: { limits: 'lots' } });
    },
    plan: (p) => expect(p.stepsNotStarted?.[0]).toMatchObject({ step: 'instances', nodePools: ['spot-pool'] }),
  },
  {
    name: 'an unproven instance holds the launch template and profile it uses',
    // Tagged as Karpenter's, from Karpenter's template, but no EC2 Fleet launched it.
    seed: () =>
      withInstance(PENDING_ONE_MINUTE_OLD, (i) => {
        const tags = { ...i.tags };
        delete tags['aws:ec2:fleet-id'];
        return { ...i, tags };
      }),
    plan: (p) => {
      expect(p.instancesNotProven.map((n) => n.id)).toContain(PENDING_ONE_MINUTE_OLD);
      expect(p.launchTemplatesHeld).toContainEqual({
        id: KARPENTER_TEMPLATE,
        reason: expect.any(String),
        instances: [PENDING_ONE_MINUTE_OLD],
      });
      expect(p.instanceProfilesHeld).toContainEqual({
        name: PROFILE_V13,
        reason: expect.any(String),
        instances: [PENDING_ONE_MINUTE_OLD],
      });
    },
  },
  {
    name: 'a node-group instance naming Karpenter’s launch template holds it',
    seed: () => withInstance(NODE_GROUP, (i) => ({ ...i, tags: { ...i.tags, 'aws:ec2launchtemplate:id': KARPENTER_TEMPLATE } })),
    plan: (p) =>
      expect(p.launchTemplatesHeld).toEqual([{ id: KARPENTER_TEMPLATE, reason: expect.any(String), instances: [NODE_GROUP] }]),
  },
  {
    name: 'a profile in use by a non-Karpenter instance is held',
    seed: () => withInstance(NODE_GROUP, (i) => ({ ...i, iamInstanceProfileArn: profileArn(PROFILE_V13) })),
    plan: (p) => {
      expect(p.instanceProfilesHeld).toEqual([
        { name: PROFILE_V13, reason: 'attached to 1 instance not terminated', instances: [NODE_GROUP] },
      ]);
      expect(p.instanceProfilesDeleted).not.toContain(PROFILE_V13);
    },
  },
  {
    name: 'a look-alike profile at /team/payments-api/ is not Karpenter’s',
    seed: () => ({
      ...captured,
      instanceProfiles: [
        ...captured.instanceProfiles,
        {
          name: 'payments-api',
          path: '/team/payments-api/',
          arn: 'arn:aws:iam::731924518360:instance-profile/team/payments-api/payments-api',
          roles: [{ name: 'PaymentsRole', arn: 'arn:aws:iam::731924518360:role/PaymentsRole' }],
          tags: {
            'eks:eks-cluster-name': CLUSTER,
            'karpenter.k8s.aws/ec2nodeclass': 'default',
            'topology.kubernetes.io/region': 'eu-central-1',
          },
        },
      ],
    }),
    plan: (p) => expect(p.instanceProfilesDeleted).toEqual(CLEANED.instanceProfilesDeleted),
  },
];

describe('dry run = apply', () => {
  it.each(CASES)('$name: the dry run plans exactly what apply does', async ({ seed, arm = () => undefined, plan }) => {
    // Prepare
    const account = seed?.() ?? captured;

    // Act
    const planned = await cleanedOnce(account, arm, true);
    const done = await cleanedOnce(account, arm, false);

    // Assess
    plan(planned);
    expect(planned).toEqual({ ...done, dryRun: true });
  });

  it.each(CASES)(
    '$name: the dry run names the same steps, in the same order, with the same objects as apply',
    async ({ seed, arm = () => undefined }) => {
      // Prepare
      const account = seed?.() ?? captured;
      const dryRunSaid: CleanupProgress[] = [];
      const applySaid: CleanupProgress[] = [];

      // Act
      await cleanedOnce(account, arm, true, dryRunSaid);
      await cleanedOnce(account, arm, false, applySaid);

      // Assess
      const plan = planOf(dryRunSaid);
      // Never two silent runs: each case plans, holds or does not start something.
      expect(plan).not.toEqual([]);
      expect(plan).toEqual(planOf(applySaid));
    },
  );
});
