import { describe, expect, it } from 'vitest';
import { cleanupVerdict, isCleanupCandidate, isNodeClaimOfGoingPool, selectNodePools } from '../../../src/cleanup/select.ts';
import { isKarpenterInstanceProfile } from '../../../src/domain/instance-profiles.ts';
import { isKarpenterLaunchTemplate } from '../../../src/domain/provenance.ts';
import { forgedInstance, instance, instanceProfile, karpenterLaunchTemplate, launchTemplate } from '../../factories/aws.ts';

/** The cluster's launch templates as cleanup lists them: the one the factory's Karpenter instances name. */
const LTS = [karpenterLaunchTemplate()];
import { autoModeNodeClaim, autoModeNodePool, nodeClaim, nodePool } from '../../factories/karpenter.ts';

describe('isCleanupCandidate', () => {
  it.each(['pending', 'running', 'stopping', 'stopped'])('takes a Karpenter instance of the cluster in state %s', (state) => {
    expect(isCleanupCandidate(instance({ id: 'i-1', state }), 'demo', { launchTemplates: LTS })).toBe(true);
  });

  it.each(['shutting-down', 'terminated'])('leaves an instance already %s', (state) => {
    expect(isCleanupCandidate(instance({ id: 'i-1', state }), 'demo', { launchTemplates: LTS })).toBe(false);
  });

  it('takes the legacy kubernetes.io/cluster/<name>=owned tag alone', () => {
    const legacy = instance({ id: 'i-1', cluster: null, tags: { 'kubernetes.io/cluster/demo': 'owned' } });
    expect(isCleanupCandidate(legacy, 'demo', { launchTemplates: LTS })).toBe(true);
  });

  it('leaves a legacy owned tag when eks:eks-cluster-name names another cluster', () => {
    const other = instance({ id: 'i-1', cluster: 'staging', tags: { 'kubernetes.io/cluster/demo': 'owned' } });
    expect(isCleanupCandidate(other, 'demo', { launchTemplates: LTS })).toBe(false);
  });

  it('leaves a legacy tag that says shared, and another cluster, and an instance of no NodePool', () => {
    expect(
      isCleanupCandidate(instance({ id: 'i-1', cluster: null, tags: { 'kubernetes.io/cluster/demo': 'shared' } }), 'demo', {
        launchTemplates: LTS,
      }),
    ).toBe(false);
    expect(isCleanupCandidate(instance({ id: 'i-2', cluster: 'staging' }), 'demo', { launchTemplates: LTS })).toBe(false);
    expect(isCleanupCandidate(instance({ id: 'i-3', nodePool: null }), 'demo', { launchTemplates: LTS })).toBe(false);
  });

  it.each([
    ['a managed node group', { 'eks:nodegroup-name': 'system' }],
    ['an Auto Scaling group', { 'aws:autoscaling:groupName': 'eks-system-1a2b' }],
    ['EKS Auto Mode', { 'eks:kubernetes-node-pool-name': 'general-purpose' }],
  ])('never takes an instance of %s, whatever Karpenter tags it carries', (_owner, tags) => {
    expect(isCleanupCandidate(instance({ id: 'i-1', tags }), 'demo', { launchTemplates: LTS })).toBe(false);
  });

  it('with a NodePool subset, takes only the instances of those NodePools', () => {
    const spot = instance({ id: 'i-1', nodePool: 'spot-pool' });
    const onDemand = instance({ id: 'i-2', nodePool: 'ondemand-pool' });
    expect(isCleanupCandidate(spot, 'demo', { launchTemplates: LTS }, ['spot-pool'])).toBe(true);
    expect(isCleanupCandidate(onDemand, 'demo', { launchTemplates: LTS }, ['spot-pool'])).toBe(false);
    expect(isCleanupCandidate(onDemand, 'demo', { launchTemplates: LTS }, [])).toBe(false);
  });

  it('never takes an instance carrying only the forgeable tags, and says why it is left', () => {
    // Prepare
    const forged = forgedInstance('i-0f00d5ba5e0b1e7a2');

    // Act / Assess
    expect(isCleanupCandidate(forged, 'demo', { launchTemplates: LTS })).toBe(false);
    expect(cleanupVerdict(forged, 'demo', { launchTemplates: LTS })).toEqual({
      terminate: false,
      notProven: 'no aws:ec2launchtemplate:id tag: not launched from a launch template',
    });
  });

  it('without the launch templates listed, proves no instance and terminates none', () => {
    expect(isCleanupCandidate(instance({ id: 'i-1' }), 'demo', { launchTemplates: undefined })).toBe(false);
    expect(cleanupVerdict(instance({ id: 'i-1' }), 'demo', { launchTemplates: [] })).toMatchObject({ terminate: false });
  });

  it('has no verdict on instances that are not tagged as Karpenter’s for the cluster', () => {
    expect(cleanupVerdict(instance({ id: 'i-1', nodePool: null }), 'demo', { launchTemplates: LTS })).toBeUndefined();
  });
});

describe('isKarpenterLaunchTemplate', () => {
  it('takes a karpenter.k8s.aws/ template with the current or the pre-1.1 cluster tag', () => {
    expect(isKarpenterLaunchTemplate(launchTemplate({ id: 'lt-1' }), 'demo')).toBe(true);
    expect(isKarpenterLaunchTemplate(launchTemplate({ id: 'lt-2', tag: 'legacy' }), 'demo')).toBe(true);
  });

  it('leaves a template of the cluster whose name is not Karpenter’s (a node group’s)', () => {
    expect(isKarpenterLaunchTemplate(launchTemplate({ id: 'lt-1', name: 'eks-system-20260101' }), 'demo')).toBe(false);
  });

  it('leaves another cluster’s template, by either tag', () => {
    expect(isKarpenterLaunchTemplate(launchTemplate({ id: 'lt-1', cluster: 'staging' }), 'demo')).toBe(false);
    expect(isKarpenterLaunchTemplate(launchTemplate({ id: 'lt-2', cluster: 'staging', tag: 'legacy' }), 'demo')).toBe(false);
  });

  it('leaves a template whose eks:eks-cluster-name names another cluster even if the old tag names this one', () => {
    const mixed = launchTemplate({ id: 'lt-1', cluster: 'staging', tags: { 'karpenter.k8s.aws/cluster': 'demo' } });
    expect(isKarpenterLaunchTemplate(mixed, 'demo')).toBe(false);
  });
});

describe('isKarpenterInstanceProfile', () => {
  const preV13Tags = (cluster: string, region?: string) => ({
    'karpenter.k8s.aws/ec2nodeclass': 'default',
    [`kubernetes.io/cluster/${cluster}`]: 'owned',
    'karpenter.sh/managed-by': cluster,
    ...(region ? { 'topology.kubernetes.io/region': region } : {}),
  });

  it('takes a profile under /karpenter/<region>/<cluster>/, tagged or not', () => {
    const profile = instanceProfile({ name: 'demo_1234', path: '/karpenter/us-east-1/demo/uid-default/' });
    expect(isKarpenterInstanceProfile(profile, 'demo', 'us-east-1')).toBe(true);
  });

  it('never takes a profile under another region’s or cluster’s Karpenter path, whatever its tags', () => {
    const otherRegion = instanceProfile({
      name: 'a',
      path: '/karpenter/eu-west-1/demo/uid/',
      tags: preV13Tags('demo', 'us-east-1'),
    });
    const otherCluster = instanceProfile({ name: 'b', path: '/karpenter/us-east-1/demo-2/uid/', tags: preV13Tags('demo') });
    expect(isKarpenterInstanceProfile(otherRegion, 'demo', 'us-east-1')).toBe(false);
    expect(isKarpenterInstanceProfile(otherCluster, 'demo', 'us-east-1')).toBe(false);
  });

  it('takes a pre-1.7 profile at / by its tags: nodeclass, cluster (either tag), region absent or this one', () => {
    const legacy = instanceProfile({ name: 'demo_1976173924626587633', tags: preV13Tags('demo', 'us-east-1') });
    const noRegion = instanceProfile({ name: 'demo_2', tags: preV13Tags('demo') });
    const current = instanceProfile({
      name: 'demo_3',
      tags: { 'karpenter.k8s.aws/ec2nodeclass': 'default', 'eks:eks-cluster-name': 'demo' },
    });
    expect(isKarpenterInstanceProfile(legacy, 'demo', 'us-east-1')).toBe(true);
    expect(isKarpenterInstanceProfile(noRegion, 'demo', 'us-east-1')).toBe(true);
    expect(isKarpenterInstanceProfile(current, 'demo', 'us-east-1')).toBe(true);
  });

  it('leaves a look-alike outside Karpenter’s path, whatever its tags: /team/payments-api/ holding PaymentsRole', () => {
    const lookAlike = instanceProfile({
      name: 'payments-api',
      path: '/team/payments-api/',
      role: 'PaymentsRole',
      tags: preV13Tags('demo', 'us-east-1'),
    });
    const legacyNameElsewhere = instanceProfile({ name: 'demo_42', path: '/team/payments-api/', tags: preV13Tags('demo') });
    const taggedAtRoot = instanceProfile({ name: 'PaymentsProfile', tags: preV13Tags('demo', 'us-east-1') });
    expect(isKarpenterInstanceProfile(lookAlike, 'demo', 'us-east-1')).toBe(false);
    expect(isKarpenterInstanceProfile(legacyNameElsewhere, 'demo', 'us-east-1')).toBe(false);
    expect(isKarpenterInstanceProfile(taggedAtRoot, 'demo', 'us-east-1')).toBe(false);
  });

  it('leaves a profile tagged for the cluster in another region', () => {
    const profile = instanceProfile({ name: 'demo_1', tags: preV13Tags('demo', 'eu-west-1') });
    expect(isKarpenterInstanceProfile(profile, 'demo', 'us-east-1')).toBe(false);
  });

  it('leaves an untagged <cluster>_123 profile: the name alone proves nothing', () => {
    expect(
      isKarpenterInstanceProfile(instanceProfile({ name: 'demo_123', role: 'KarpenterNodeRole-demo' }), 'demo', 'us-east-1'),
    ).toBe(false);
  });

  it('leaves a profile without the nodeclass tag, and one whose eks:eks-cluster-name names another cluster', () => {
    const noNodeClass = instanceProfile({ name: 'demo_1', tags: { 'kubernetes.io/cluster/demo': 'owned' } });
    const other = instanceProfile({ name: 'demo_2', tags: { ...preV13Tags('demo'), 'eks:eks-cluster-name': 'staging' } });
    expect(isKarpenterInstanceProfile(noNodeClass, 'demo', 'us-east-1')).toBe(false);
    expect(isKarpenterInstanceProfile(other, 'demo', 'us-east-1')).toBe(false);
  });
});

describe('selectNodePools', () => {
  const deleting = (name: string) => {
    const np = nodePool({ name });
    np.metadata = { ...np.metadata, deletionTimestamp: '2026-01-01T00:05:00Z' };
    return np;
  };

  it('selects every NodePool but EKS Auto Mode’s, sorted; one already being deleted is not deleted again', () => {
    const pools = [
      nodePool({ name: 'spot-pool' }),
      autoModeNodePool({ name: 'general-purpose' }),
      nodePool({ name: 'a' }),
      deleting('b'),
    ];

    expect(selectNodePools(pools)).toEqual({
      toDelete: ['a', 'spot-pool'],
      deleting: ['b'],
      autoMode: ['general-purpose'],
      kept: ['general-purpose'],
    });
  });

  it('selects only the named ones, Auto Mode’s too when named; a named one that does not exist is no problem', () => {
    const pools = [nodePool({ name: 'spot-pool' }), autoModeNodePool({ name: 'system' }), nodePool({ name: 'ondemand-pool' })];

    expect(selectNodePools(pools, ['system', 'spot-pool', 'gone-pool'])).toEqual({
      toDelete: ['spot-pool', 'system'],
      deleting: [],
      autoMode: [],
      kept: ['ondemand-pool'],
    });
  });
});

describe('isNodeClaimOfGoingPool', () => {
  const pools = [nodePool({ name: 'spot-pool' }), autoModeNodePool({ name: 'general-purpose' })];

  it('with every NodePool going: claims of selected or already-deleted pools, not of Auto Mode', () => {
    const selection = selectNodePools(pools);
    expect(isNodeClaimOfGoingPool(nodeClaim({ name: 'a', nodePool: 'spot-pool' }), selection)).toBe(true);
    expect(isNodeClaimOfGoingPool(nodeClaim({ name: 'b', nodePool: 'deleted-last-run' }), selection)).toBe(true);
    expect(isNodeClaimOfGoingPool(autoModeNodeClaim({ name: 'c', nodePool: 'general-purpose' }), selection)).toBe(false);
    expect(isNodeClaimOfGoingPool(autoModeNodeClaim({ name: 'd', nodePool: 'gone-auto' }), selection)).toBe(false);
  });

  it('with named NodePools: only their claims, whether the NodePool still exists or not', () => {
    const named = ['spot-pool', 'gone-pool'];
    const selection = selectNodePools(pools, named);
    expect(isNodeClaimOfGoingPool(nodeClaim({ name: 'a', nodePool: 'spot-pool' }), selection, named)).toBe(true);
    expect(isNodeClaimOfGoingPool(nodeClaim({ name: 'b', nodePool: 'gone-pool' }), selection, named)).toBe(true);
    expect(isNodeClaimOfGoingPool(nodeClaim({ name: 'c', nodePool: 'other' }), selection, named)).toBe(false);
  });
});
