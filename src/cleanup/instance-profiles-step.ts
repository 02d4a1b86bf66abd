/**
 * Step 4: Karpenter's instance profiles for the cluster in this region. Left behind, they keep the
 * node role from being deleted ("must remove roles from instance profile first"), so each role is
 * removed first, and a profile whose role would not come off is not deleted. Only a profile that
 * passes the strict rule provenance uses (src/domain/instance-profiles.ts) is a candidate; it is
 * held when an EC2NodeClass is known and none names its role or it, and when any instance not
 * terminated (any owner's; those the instances step terminates, or plans to, count as gone) still
 * uses it (docs/cleanup.md, step 4). Like the launch templates step, it runs only for the whole
 * cluster and once every Karpenter instance is known gone: the use case decides.
 */
import { counted } from '../domain/words.ts';
import type { Instance, InstanceProfile } from '../domain/aws.ts';
import { hasLegacyKarpenterName, isKarpenterInstanceProfile, whyNoNodeClassNames } from '../domain/instance-profiles.ts';
import type { EC2NodeClass } from '../domain/kube.ts';
import type { CleanupContext } from './budget.ts';
import { stillRuns, type InstancesOutcome } from './instances-step.ts';
import { recorded, StepRecord, type StepOutcome } from './outcome.ts';
import { failedCall, namesOf, plannedLine } from './text.ts';

/** `nodeClasses`: as the NodePools step listed them, undefined when it could not. */
export async function instanceProfilesStep(
  ctx: CleanupContext,
  before: { nodeClasses: readonly EC2NodeClass[] | undefined; instances: InstancesOutcome },
): Promise<StepOutcome> {
  return recorded(new StepRecord('instance-profiles', ctx.budget), (out) =>
    deleteUnused(ctx, out, before.nodeClasses, before.instances),
  );
}

async function deleteUnused(
  ctx: CleanupContext,
  out: StepRecord,
  nodeClasses: readonly EC2NodeClass[] | undefined,
  instances: InstancesOutcome,
): Promise<void> {
  const { request } = ctx;
  if (out.outOfTime()) return;
  const { iam, region } = ctx.connection.aws;
  let listed: InstanceProfile[];
  try {
    // Every path: profiles of Karpenter before v1.7 live at `/`.
    listed = await iam.listInstanceProfiles();
  } catch (error) {
    out.fail(failedCall('ListInstanceProfiles', undefined, error));
    return;
  }
  const profiles = listed.filter((p) => isKarpenterInstanceProfile(p, request.clusterName, region));
  for (const profile of listed.filter((p) => unprovenForWantOfTags(p, request.clusterName))) {
    const failed = failedCall('ListInstanceProfileTags', profile.name, profile.tagsUnreadable);
    out.fail(`${failed}; not deleted: only its tags can prove Karpenter made it for this cluster`, profile.name);
  }
  const toDelete: InstanceProfile[] = [];
  const held = await whyHeld(ctx, out, profiles, nodeClasses, stillRuns(instances));
  for (const profile of profiles.sort((a, b) => a.name.localeCompare(b.name))) {
    const why = held.get(profile);
    if (why === undefined) toDelete.push(profile);
    else if (why !== 'unknown') out.held.push({ resource: profile.name, ...why });
  }
  if (out.held.length > 0) {
    const names = out.held.map((h) => h.resource);
    out.note(`keeping ${counted(names.length, 'instance profile')}: ${namesOf(names)} (see instanceProfilesHeld)`);
  }
  const names = toDelete.map((p) => p.name);
  out.note(plannedLine(request.dryRun, 'delete', 'instance profile', names));
  if (request.dryRun) {
    out.done.push(...names);
    return;
  }
  for (const profile of toDelete) {
    if (out.outOfTime()) return;
    if (!(await removeRoles(ctx, out, profile))) continue;
    try {
      // false: already gone, which is not this run's doing.
      if (await iam.deleteInstanceProfile(profile.name)) out.done.push(profile.name);
    } catch (error) {
      out.fail(failedCall('DeleteInstanceProfile', profile.name, error), profile.name);
    }
  }
}

/**
 * Named as Karpenter before v1.7 named the cluster's profiles, at `/`, but its tags (the rest of the
 * proof) could not be read: an error naming it, never a deletion (without tags it is never a
 * candidate). Profiles under Karpenter's v1.7 path are proven by the path alone, and other names
 * cannot be the cluster's whatever their tags.
 */
function unprovenForWantOfTags(
  profile: InstanceProfile,
  cluster: string,
): profile is InstanceProfile & { tagsUnreadable: string } {
  return profile.tagsUnreadable !== undefined && (profile.path ?? '/') === '/' && hasLegacyKarpenterName(profile, cluster);
}

type Held = { reason: string; instances?: string[] } | 'unknown';

/**
 * Why each profile stays; absent when it may go; 'unknown' (an error recorded) when the instances
 * using it could not be listed: neither deleted nor said to be held. One DescribeInstances for all
 * the profiles' users (EC2's `iam-instance-profile.arn` filter takes many ARNs).
 */
async function whyHeld(
  ctx: CleanupContext,
  out: StepRecord,
  profiles: readonly InstanceProfile[],
  nodeClasses: readonly EC2NodeClass[] | undefined,
  runs: (instance: Instance) => boolean,
): Promise<Map<InstanceProfile, Held>> {
  const held = new Map<InstanceProfile, Held>();
  const toCheck: InstanceProfile[] = [];
  for (const profile of profiles) {
    const notNamed = nodeClasses === undefined ? undefined : whyNoNodeClassNames(profile, nodeClasses);
    if (notNamed !== undefined) held.set(profile, { reason: notNamed });
    else if (profile.arn === undefined)
      held.set(profile, { reason: 'its ARN is not known, so the instances using it cannot be listed' });
    else toCheck.push(profile);
  }
  if (toCheck.length === 0) return held;
  let users: Instance[];
  try {
    const instanceProfileArns = toCheck.map((p) => p.arn as string);
    users = (await ctx.connection.aws.ec2.describeInstances({ instanceProfileArns })).filter(runs);
  } catch (error) {
    for (const profile of toCheck) {
      const what = `(instances using instance profile ${profile.name}; not deleted)`;
      out.fail(failedCall('DescribeInstances', what, error), profile.name);
      held.set(profile, 'unknown');
    }
    return held;
  }
  for (const profile of toCheck) {
    const ids = users
      .filter((i) => i.iamInstanceProfileArn === profile.arn)
      .map((i) => i.id)
      .sort();
    if (ids.length > 0)
      held.set(profile, { reason: `attached to ${counted(ids.length, 'instance')} not terminated`, instances: ids });
  }
  return held;
}

/** false (and an error recorded) when a role would not come off: deleting would then fail anyway. */
async function removeRoles(ctx: CleanupContext, out: StepRecord, profile: InstanceProfile): Promise<boolean> {
  for (const role of profile.roles) {
    try {
      await ctx.connection.aws.iam.removeRoleFromInstanceProfile(profile.name, role.name);
    } catch (error) {
      out.fail(failedCall('RemoveRoleFromInstanceProfile', `${profile.name} (role ${role.name})`, error), profile.name);
      return false;
    }
  }
  return true;
}
