import { describe, expect, it } from 'vitest';
import type { Instance, InstanceProfile } from '../../../src/domain/aws.ts';
import { instanceProvenance, type Provenance } from '../../../src/domain/provenance.ts';
import {
  ACCOUNT,
  forgedInstance,
  instance,
  instanceProfile,
  KARPENTER_LT_ID,
  karpenterLaunchTemplate,
  launchTemplate,
} from '../../factories/aws.ts';
import { nodeClaim } from '../../factories/karpenter.ts';

const LTS = [karpenterLaunchTemplate()];

function without(i: Instance, key: string): Instance {
  const { [key]: _dropped, ...tags } = i.tags;
  return { ...i, tags };
}

describe('instanceProvenance', () => {
  it('proves an instance an EC2 Fleet launched from Karpenter’s launch template of the cluster, with Karpenter’s tags', () => {
    const result = instanceProvenance(instance({ id: 'i-0aaa' }), { cluster: 'demo', launchTemplates: LTS });

    expect(result).toMatchObject({ proven: true, by: 'launch-template' });
    expect((result as Extract<Provenance, { proven: true }>).evidence).toContain(`launch template ${KARPENTER_LT_ID}`);
  });

  it('proves a template tagged only the pre-1.1 way (karpenter.k8s.aws/cluster)', () => {
    const legacy = launchTemplate({ id: KARPENTER_LT_ID, tag: 'legacy' });

    expect(instanceProvenance(instance({ id: 'i-0aaa' }), { cluster: 'demo', launchTemplates: [legacy] }).proven).toBe(true);
  });

  it('proves an instance a NodeClaim of the cluster names, whatever its tags', () => {
    const claim = nodeClaim({ name: 'default-abcde', instanceId: 'i-0f00d5ba5e0b1e7a2' });

    const result = instanceProvenance(forgedInstance('i-0f00d5ba5e0b1e7a2'), {
      cluster: 'demo',
      launchTemplates: undefined,
      nodeClaims: [claim],
    });

    expect(result).toMatchObject({ proven: true, by: 'nodeclaim' });
  });

  it.each([
    [
      'the forged-tag instance: no launch template at all',
      forgedInstance(),
      LTS,
      'NOT_LAUNCHED_FROM_TEMPLATE',
      'no aws:ec2launchtemplate:id tag: not launched from a launch template',
    ],
    [
      'launched from a template but not by an EC2 Fleet',
      without(instance({ id: 'i-0aaa' }), 'aws:ec2:fleet-id'),
      LTS,
      'NOT_LAUNCHED_BY_FLEET',
      'no aws:ec2:fleet-id tag: not launched by an EC2 Fleet (Karpenter launches through CreateFleet)',
    ],
    [
      'no karpenter.sh/nodeclaim tag',
      without(instance({ id: 'i-0aaa' }), 'karpenter.sh/nodeclaim'),
      LTS,
      'KARPENTER_TAGS_MISSING',
      'no karpenter.sh/nodeclaim tag (Karpenter tags every instance it launches with it)',
    ],
    [
      'no karpenter.k8s.aws/ec2nodeclass tag',
      without(instance({ id: 'i-0aaa' }), 'karpenter.k8s.aws/ec2nodeclass'),
      LTS,
      'KARPENTER_TAGS_MISSING',
      'no karpenter.k8s.aws/ec2nodeclass tag (Karpenter tags every instance it launches with it)',
    ],
    [
      'launch templates not captured',
      instance({ id: 'i-0aaa' }),
      undefined,
      'LAUNCH_TEMPLATE_UNKNOWN',
      `launch templates not captured: ${KARPENTER_LT_ID} cannot be checked`,
    ],
    [
      'its template not among those captured (deleted)',
      instance({ id: 'i-0aaa' }),
      [launchTemplate({ id: 'lt-0other' })],
      'LAUNCH_TEMPLATE_UNKNOWN',
      `launch template ${KARPENTER_LT_ID} not found among the 1 captured (deleted since, or not tagged for cluster demo)`,
    ],
    [
      'its template not named like Karpenter’s',
      instance({ id: 'i-0aaa' }),
      [launchTemplate({ id: KARPENTER_LT_ID, name: 'eks-system-20260101' })],
      'LAUNCH_TEMPLATE_NOT_KARPENTERS',
      `launch template ${KARPENTER_LT_ID} is not Karpenter's (name eks-system-20260101)`,
    ],
    [
      'its template Karpenter’s but of another cluster',
      instance({ id: 'i-0aaa' }),
      [karpenterLaunchTemplate('staging')],
      'LAUNCH_TEMPLATE_NOT_KARPENTERS',
      `launch template ${KARPENTER_LT_ID} (karpenter.k8s.aws/0d3e9a7c1b5f28e46) is tagged for cluster staging, not demo`,
    ],
    [
      'its template named like Karpenter’s but tagged for no cluster',
      instance({ id: 'i-0aaa' }),
      [{ ...karpenterLaunchTemplate(), tags: {} }],
      'LAUNCH_TEMPLATE_NOT_KARPENTERS',
      'is tagged for no cluster, not demo',
    ],
  ])('does not prove %s', (_label, subject, launchTemplates, gap, reason) => {
    const result = instanceProvenance(subject, { cluster: 'demo', launchTemplates });

    expect(result).toMatchObject({ proven: false, gap });
    expect((result as Extract<Provenance, { proven: false }>).reason).toContain(reason);
  });

  it('does not take a NodeClaim naming another instance as proof', () => {
    const claim = nodeClaim({ name: 'default-abcde', instanceId: 'i-0f00d5ba5e0b1e7a20' });

    const result = instanceProvenance(forgedInstance('i-0f00d5ba5e0b1e7a2'), {
      cluster: 'demo',
      launchTemplates: LTS,
      nodeClaims: [claim],
    });

    expect(result.proven).toBe(false);
  });
});

/**
 * Karpenter deletes its own launch templates (unused ones leave its cache, and with their
 * EC2NodeClass), so a genuine orphan often names one that is gone. Its instance profile then
 * proves it, if it is Karpenter's for the cluster and region: putting a profile on an instance
 * takes iam:PassRole and an instance-profile association, not ec2:CreateTags.
 */
describe('instanceProvenance when the launch template is gone', () => {
  const PATH = '/karpenter/us-east-1/demo/3f6c2a9e-8b41-4d7a-9c05-e1b27d4f6a83/';
  const OTHER_TEMPLATES = [launchTemplate({ id: 'lt-0still0there' })];
  const KARPENTER_TAGS = {
    'eks:eks-cluster-name': 'demo',
    'karpenter.k8s.aws/ec2nodeclass': 'default',
    'topology.kubernetes.io/region': 'us-east-1',
  };
  const current = instanceProfile({ name: 'demo_11735620938465729301', path: PATH });
  const legacy = instanceProfile({ name: 'demo_1976173924626587633', tags: KARPENTER_TAGS });

  function withProfile(profile: { arn?: string } | undefined, base: Instance = instance({ id: 'i-0aaa' })): Instance {
    const { iamInstanceProfileArn: _none, ...rest } = base;
    return profile?.arn === undefined ? rest : { ...rest, iamInstanceProfileArn: profile.arn };
  }

  /** `region` null: unknown. */
  function provenance(subject: Instance, instanceProfiles: InstanceProfile[] | undefined, region: string | null = 'us-east-1') {
    return instanceProvenance(subject, {
      cluster: 'demo',
      launchTemplates: OTHER_TEMPLATES,
      instanceProfiles,
      region: region ?? undefined,
    });
  }

  it('proves it by a profile under /karpenter/<region>/<cluster>/ (Karpenter ≥ 1.7), and says so', () => {
    const subject = withProfile(current);
    const subjectFleet = subject.tags['aws:ec2:fleet-id'];

    const result = provenance(subject, [current]);

    expect(result).toMatchObject({ proven: true, by: 'instance-profile' });
    expect((result as Extract<Provenance, { proven: true }>).evidence).toBe(
      `launched by ${subjectFleet} from launch template ${KARPENTER_LT_ID}, which is gone (Karpenter deletes its unused templates); ` +
        `its instance profile ${current.arn} is Karpenter's for cluster demo in us-east-1 (under Karpenter's path ${PATH})`,
    );
  });

  it('proves it by a profile at / named <cluster>_<digits> with Karpenter’s tags for the cluster (before 1.7)', () => {
    const result = provenance(withProfile(legacy), [current, legacy]);

    expect(result).toMatchObject({ proven: true, by: 'instance-profile' });
    expect((result as Extract<Provenance, { proven: true }>).evidence).toContain(
      "named demo_1976173924626587633 at / with Karpenter's tags for the cluster",
    );
  });

  it.each([
    [
      'a profile under another cluster’s path',
      instanceProfile({ name: 'staging_1', path: '/karpenter/us-east-1/staging/x/' }),
      'us-east-1',
      "is not Karpenter's instance profile for cluster demo in us-east-1",
    ],
    [
      'a profile under another region’s path',
      instanceProfile({ name: 'demo_1', path: '/karpenter/eu-west-1/demo/x/' }),
      'us-east-1',
      "is not Karpenter's instance profile for cluster demo in us-east-1",
    ],
    [
      'a profile under a path whose cluster only starts like this one’s',
      instanceProfile({ name: 'demo_1', path: '/karpenter/us-east-1/demo-prod/x/' }),
      'us-east-1',
      "is not Karpenter's instance profile for cluster demo in us-east-1",
    ],
    [
      'a profile at / with Karpenter’s tags but not Karpenter’s name (anyone may tag a profile)',
      instanceProfile({ name: 'prod-postgres', tags: KARPENTER_TAGS }),
      'us-east-1',
      "is not Karpenter's instance profile for cluster demo in us-east-1",
    ],
    [
      'a profile at / named like Karpenter’s without its tags',
      instanceProfile({ name: 'demo_1976173924626587633' }),
      'us-east-1',
      "is not Karpenter's instance profile for cluster demo in us-east-1",
    ],
    [
      'a profile at / tagged for another region',
      instanceProfile({ name: 'demo_1', tags: { ...KARPENTER_TAGS, 'topology.kubernetes.io/region': 'eu-west-1' } }),
      'us-east-1',
      "is not Karpenter's instance profile for cluster demo in us-east-1",
    ],
  ])('refuses %s', (_label, profile, region, reason) => {
    const result = provenance(withProfile(profile), [profile], region);

    expect(result).toMatchObject({ proven: false, gap: 'LAUNCH_TEMPLATE_UNKNOWN' });
    const text = (result as Extract<Provenance, { proven: false }>).reason;
    expect(text).toContain(`launch template ${KARPENTER_LT_ID} not found among the 1 captured`);
    expect(text).toContain(`no proof by its instance profile either: `);
    expect(text).toContain(reason);
  });

  it('takes the instance’s own region (its availability zone, set by EC2) when the cluster’s is unknown (a deleted cluster)', () => {
    expect(provenance(withProfile(current), [current], null)).toMatchObject({ proven: true, by: 'instance-profile' });
  });

  it('refuses when neither the cluster’s nor the instance’s region is known', () => {
    const { availabilityZone: _zone, ...nowhere } = withProfile(current);

    const result = provenance(nowhere, [current], null);

    expect(result).toMatchObject({ proven: false, gap: 'LAUNCH_TEMPLATE_UNKNOWN' });
    expect((result as Extract<Provenance, { proven: false }>).reason).toContain(
      `the cluster's region is unknown: ${current.arn} cannot be checked`,
    );
  });

  it('refuses an instance running in another region than the cluster, even with that region’s Karpenter path', () => {
    const elsewhere = instanceProfile({ name: 'demo_2', path: '/karpenter/eu-west-1/demo/x/' });
    const subject = { ...withProfile(elsewhere), availabilityZone: 'eu-west-1b' };

    const result = provenance(subject, [elsewhere], 'us-east-1');

    expect((result as Extract<Provenance, { proven: false }>).reason).toContain(
      'no proof by its instance profile either: the instance runs in eu-west-1, the cluster in us-east-1',
    );
  });

  it('refuses an instance with no instance profile', () => {
    const result = provenance(withProfile(undefined), [current]);

    expect(result).toMatchObject({ proven: false, gap: 'LAUNCH_TEMPLATE_UNKNOWN' });
    expect((result as Extract<Provenance, { proven: false }>).reason).toContain(
      'no proof by its instance profile either: the instance has no instance profile',
    );
  });

  it('refuses when the instance profiles were not captured, or its profile is not among them', () => {
    const notListed = provenance(withProfile(current), undefined);
    const notFound = provenance(withProfile(current), [legacy]);

    expect(notListed).toMatchObject({ proven: false, gap: 'LAUNCH_TEMPLATE_UNKNOWN' });
    expect((notListed as Extract<Provenance, { proven: false }>).reason).toContain(
      `instance profiles not captured: ${current.arn} cannot be checked`,
    );
    expect((notFound as Extract<Provenance, { proven: false }>).reason).toContain(
      `${current.arn} not found among the 1 instance profiles captured`,
    );
  });

  it('refuses a profile ARN naming Karpenter’s path when the listed profile of that name lives elsewhere', () => {
    const spoofArn = `arn:aws:iam::${ACCOUNT}:instance-profile${PATH}demo_9`;
    const elsewhere = instanceProfile({ name: 'demo_9', path: '/' });

    expect(provenance({ ...instance({ id: 'i-0aaa' }), iamInstanceProfileArn: spoofArn }, [elsewhere]).proven).toBe(false);
  });

  it('never looks at the profile while the launch templates are unknown (not captured)', () => {
    const result = instanceProvenance(withProfile(current), {
      cluster: 'demo',
      launchTemplates: undefined,
      instanceProfiles: [current],
      region: 'us-east-1',
    });

    expect(result).toMatchObject({ proven: false, gap: 'LAUNCH_TEMPLATE_UNKNOWN' });
    expect((result as Extract<Provenance, { proven: false }>).reason).toBe(
      `launch templates not captured: ${KARPENTER_LT_ID} cannot be checked`,
    );
  });

  it.each([
    ['no aws:ec2:fleet-id', 'aws:ec2:fleet-id', 'NOT_LAUNCHED_BY_FLEET'],
    ['no aws:ec2launchtemplate:id', 'aws:ec2launchtemplate:id', 'NOT_LAUNCHED_FROM_TEMPLATE'],
    ['no karpenter.sh/nodeclaim', 'karpenter.sh/nodeclaim', 'KARPENTER_TAGS_MISSING'],
    ['no karpenter.k8s.aws/ec2nodeclass', 'karpenter.k8s.aws/ec2nodeclass', 'KARPENTER_TAGS_MISSING'],
  ])('still requires the launch tags: Karpenter’s profile with %s proves nothing', (_label, key, gap) => {
    expect(provenance(without(withProfile(current), key), [current])).toMatchObject({ proven: false, gap });
  });

  it('refuses the forged instance even when it carries Karpenter’s instance profile', () => {
    const forged = { ...forgedInstance('i-0f00d5ba5e0b1e7a2'), iamInstanceProfileArn: current.arn! };

    expect(provenance(forged, [current])).toMatchObject({ proven: false, gap: 'NOT_LAUNCHED_FROM_TEMPLATE' });
  });

  it('takes the launch template’s word when it is there: a found template of another cluster is refused, profile or not', () => {
    const result = instanceProvenance(withProfile(current), {
      cluster: 'demo',
      launchTemplates: [karpenterLaunchTemplate('staging')],
      instanceProfiles: [current],
      region: 'us-east-1',
    });

    expect(result).toMatchObject({ proven: false, gap: 'LAUNCH_TEMPLATE_NOT_KARPENTERS' });
  });
});
