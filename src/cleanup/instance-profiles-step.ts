/**
 * Step 4: Karpenter's instance profiles for the cluster in this region. Left behind, they keep the
 * node role from being deleted ("must remove roles from instance profile first"), so each role is
 * removed first, and a profile whose role would not come off is not deleted.
 */
import type { InstanceProfile } from '../domain/aws.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { isKarpenterInstanceProfile } from '../domain/instance-profiles.ts';
import { failedCall, plannedLine } from './text.ts';

export async function deleteInstanceProfilesStep(ctx: CleanupContext): Promise<StepEnd> {
  const { request, run } = ctx;
  // Only with every NodePool going (the launch templates step said so already).
  if (request.nodePools !== undefined) return 'done';
  if (run.outOfTime('instance-profiles')) return 'stopped';
  const { iam, region } = ctx.connection.aws;
  let profiles: InstanceProfile[];
  try {
    // Every path: profiles of Karpenter before v1.3 live at `/`, known only by their tags.
    profiles = (await iam.listInstanceProfiles()).filter((p) => isKarpenterInstanceProfile(p, request.clusterName, region));
  } catch (error) {
    run.fail('instance-profiles', failedCall('ListInstanceProfiles', undefined, error));
    return 'done';
  }
  const names = profiles.map((p) => p.name).sort();
  run.note('instance-profiles', plannedLine(request.dryRun, 'delete', 'instance profile', names));
  if (request.dryRun) {
    run.result.instanceProfilesDeleted.push(...names);
    return 'done';
  }
  for (const profile of profiles) {
    if (run.outOfTime('instance-profiles')) return 'stopped';
    if (!(await removeRoles(ctx, profile))) continue;
    try {
      // false: already gone, which is not this run's doing.
      if (await iam.deleteInstanceProfile(profile.name)) run.result.instanceProfilesDeleted.push(profile.name);
    } catch (error) {
      run.fail('instance-profiles', failedCall('DeleteInstanceProfile', profile.name, error), profile.name);
    }
  }
  return 'done';
}

/** false (and an error recorded) when a role would not come off: deleting would then fail anyway. */
async function removeRoles(ctx: CleanupContext, profile: InstanceProfile): Promise<boolean> {
  for (const role of profile.roles) {
    try {
      await ctx.connection.aws.iam.removeRoleFromInstanceProfile(profile.name, role.name);
    } catch (error) {
      const what = `${profile.name} (role ${role.name})`;
      ctx.run.fail('instance-profiles', failedCall('RemoveRoleFromInstanceProfile', what, error), profile.name);
      return false;
    }
  }
  return true;
}
