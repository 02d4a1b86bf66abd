import { describe, expect, it } from 'vitest';
import type { Instance } from '../../../src/domain/aws.ts';
import { instanceProvenance, type Provenance } from '../../../src/domain/provenance.ts';
import { forgedInstance, instance, KARPENTER_LT_ID, karpenterLaunchTemplate, launchTemplate } from '../../factories/aws.ts';
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
