import { describe, expect, it } from 'vitest';
import { listCleanupCandidates } from '../../../src/cleanup/candidates.ts';
import { cluster, forgedInstance, instance, karpenterLaunchTemplate, snapshotOf } from '../../factories/aws.ts';
import { stepWorld } from '../../support/cleanup.ts';

const KARPENTERS = instance({ id: 'i-karpenter' });
const FORGED = forgedInstance('i-forged');
const OTHER_CLUSTER = instance({ id: 'i-staging', cluster: 'staging' });
/** Launched from a template that is gone: only its instance profile can prove it Karpenter's. */
const TEMPLATE_GONE = instance({ id: 'i-template-gone', launchTemplateId: 'lt-0gone' });

function world(instances = [KARPENTERS, FORGED, OTHER_CLUSTER]) {
  return stepWorld(snapshotOf({ cluster: cluster(), instances, launchTemplates: [karpenterLaunchTemplate()] }));
}

describe('listCleanupCandidates', () => {
  it('hands on the proven instances; the tagged but unproven are listed with why, others not at all', async () => {
    const w = world();

    const candidates = await listCleanupCandidates(w.ctx);

    expect(candidates.instances?.map((i) => i.id)).toEqual(['i-karpenter']);
    expect(candidates.notProven).toEqual([{ id: 'i-forged', reason: expect.any(String) }]);
    expect(candidates.errors).toEqual([]);
  });

  it('without the launch templates, proves no instance and says why, on the instances step', async () => {
    const w = world();
    w.aws.faults.fail('DescribeLaunchTemplates', { error: { code: 'UnauthorizedOperation', message: 'not authorized' } });

    const candidates = await listCleanupCandidates(w.ctx);

    expect(candidates.launchTemplates).toBeUndefined();
    expect(candidates.instances).toEqual([]);
    expect(candidates.errors).toEqual([
      {
        step: 'instances',
        message: expect.stringMatching(
          /^DescribeLaunchTemplates \(cluster demo: without them no instance is proven Karpenter's, so none is terminated\) failed/,
        ),
      },
    ]);
  });

  it('instance profiles not listable while a template is gone: that instance stays unproven, and the later steps are told', async () => {
    const w = world([KARPENTERS, TEMPLATE_GONE]);
    w.aws.faults.fail('ListInstanceProfiles', { error: { code: 'AccessDenied', message: 'not authorized' } });

    const candidates = await listCleanupCandidates(w.ctx);

    expect(candidates.instances?.map((i) => i.id)).toEqual(['i-karpenter']);
    expect(candidates.notProven.map((n) => n.id)).toEqual(['i-template-gone']);
    expect(candidates.notAllTerminated).toEqual([
      'the instance profiles could not be listed to prove instances whose launch template is gone',
    ]);
  });

  it('the instances not listable: none handed on, an error', async () => {
    const w = world();
    w.aws.faults.fail('DescribeInstances', { error: { code: 'UnauthorizedOperation', message: 'not authorized' } });

    const candidates = await listCleanupCandidates(w.ctx);

    expect(candidates.instances).toBeUndefined();
    expect(candidates.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^DescribeInstances \(instances of cluster demo\) failed/),
    ]);
  });

  it('hands on a frozen listing: the instances step cannot change what the run started from', async () => {
    const candidates = await listCleanupCandidates(world().ctx);

    expect(Object.isFrozen(candidates)).toBe(true);
    expect(Object.isFrozen(candidates.instances)).toBe(true);
    expect(Object.isFrozen(candidates.notProven)).toBe(true);
  });
});
