/**
 * What the run starts from, listed before the NodePools go: the cluster's instances, the launch
 * templates that prove which of them Karpenter launched, and (when a template is gone) the
 * instance profiles that stand in. Dry run and apply list the same, in the same order. Handed to
 * the instances step frozen, like every step's outcome (src/cleanup/outcome.ts).
 */
import type { Instance, InstanceProfile, LaunchTemplate } from '../domain/aws.ts';
import type { CleanupError, InstanceNotProven } from '../domain/cleanup.ts';
import { launchTemplateIdsOf, needsInstanceProfileProof, type LaunchEvidence } from '../domain/provenance.ts';
import { NODEPOOL_TAG } from '../domain/tags.ts';
import type { CleanupContext } from './budget.ts';
import { frozen } from './outcome.ts';
import { cleanupVerdict, hasEnded, isClusterKarpenterInstance } from './select.ts';
import { failedCall } from './text.ts';

export interface CleanupCandidates {
  /** Proven Karpenter instances to terminate; undefined when they could not be listed. */
  readonly instances: readonly Instance[] | undefined;
  /**
   * The cluster's launch templates: the evidence that Karpenter launched an instance. Undefined
   * when they could not be listed (then nothing is terminated).
   */
  readonly launchTemplates: readonly LaunchTemplate[] | undefined;
  /**
   * Every instance profile, listed only when an instance names a launch template that is gone (its
   * profile is then the proof); undefined when not needed or the listing failed.
   */
  readonly instanceProfiles: readonly InstanceProfile[] | undefined;
  /** Tagged as Karpenter's but not proven: never terminated. */
  readonly notProven: readonly InstanceNotProven[];
  /** Failed listings (step `instances`). */
  readonly errors: readonly CleanupError[];
  /** Why not every Karpenter instance can be shown terminated, already (a listing the proof needs failed). */
  readonly notAllTerminated: readonly string[];
}

export async function listCleanupCandidates(ctx: CleanupContext): Promise<CleanupCandidates> {
  const errors: CleanupError[] = [];
  const fail = (message: string) => errors.push({ step: 'instances', message });
  const listed = await describeClusterInstances(ctx, fail);
  const launchTemplates = await describeClusterLaunchTemplates(ctx, listed ?? [], fail);
  const notAllTerminated: string[] = [];
  const notProven: InstanceNotProven[] = [];
  let instanceProfiles: InstanceProfile[] | undefined;
  const candidates = (instances: readonly Instance[] | undefined): CleanupCandidates =>
    Object.freeze({
      instances: instances && frozen(instances),
      launchTemplates: launchTemplates && frozen(launchTemplates),
      instanceProfiles: instanceProfiles && frozen(instanceProfiles),
      notProven: frozen(notProven),
      errors: frozen(errors),
      notAllTerminated: frozen(notAllTerminated),
    });
  if (!listed) return candidates(undefined);
  const { clusterName, nodePools } = ctx.request;
  const needProfiles = listed.some(
    (i) => isClusterKarpenterInstance(i, clusterName, nodePools) && !hasEnded(i) && needsInstanceProfileProof(i, launchTemplates),
  );
  if (needProfiles) {
    try {
      instanceProfiles = await ctx.connection.aws.iam.listInstanceProfiles();
    } catch (error) {
      // The instances it would prove stay unproven (and running), which keeps the later steps from
      // deleting the profiles that are the proof for the next run.
      fail(
        failedCall(
          'ListInstanceProfiles',
          '(the proof for instances whose launch template is gone: they are not terminated)',
          error,
        ),
      );
      notAllTerminated.push('the instance profiles could not be listed to prove instances whose launch template is gone');
    }
  }
  return candidates(provenOnly(ctx, listed, { launchTemplates, instanceProfiles }, notProven));
}

/**
 * The instances cleanup may terminate: tagged for the cluster, not ending, and proven Karpenter's.
 * The others tagged so go to `notProven` (once per instance) and are left alone.
 */
export function provenOnly(
  ctx: CleanupContext,
  instances: readonly Instance[],
  listed: Pick<CleanupCandidates, 'launchTemplates' | 'instanceProfiles'>,
  notProven: InstanceNotProven[],
): Instance[] {
  const { clusterName, nodePools } = ctx.request;
  const launched: LaunchEvidence = {
    launchTemplates: listed.launchTemplates,
    instanceProfiles: listed.instanceProfiles,
    region: ctx.connection.aws.region,
  };
  const proven: Instance[] = [];
  for (const instance of instances) {
    const verdict = cleanupVerdict(instance, clusterName, launched, nodePools);
    if (verdict?.terminate) proven.push(instance);
    else if (verdict && !notProven.some((n) => n.id === instance.id))
      notProven.push({ id: instance.id, reason: verdict.notProven });
  }
  notProven.sort((a, b) => a.id.localeCompare(b.id));
  return proven;
}

/** The cluster's instances carrying a NodePool tag, any state; undefined (and `fail` told) when the call failed. */
export async function describeClusterInstances(
  ctx: CleanupContext,
  fail: (message: string) => void,
): Promise<Instance[] | undefined> {
  const { clusterName } = ctx.request;
  try {
    return await ctx.connection.aws.ec2.describeInstances({ clusterName, tagKey: NODEPOOL_TAG });
  } catch (error) {
    fail(failedCall('DescribeInstances', `(instances of cluster ${clusterName})`, error));
    return undefined;
  }
}

/**
 * The templates the instances name are looked up by id as well, so one that exists untagged is
 * never taken for gone (docs/guardrails.md, "Provenance").
 */
async function describeClusterLaunchTemplates(
  ctx: CleanupContext,
  instances: readonly Instance[],
  fail: (message: string) => void,
): Promise<LaunchTemplate[] | undefined> {
  const { clusterName } = ctx.request;
  try {
    return await ctx.connection.aws.ec2.describeLaunchTemplates(clusterName, launchTemplateIdsOf(instances));
  } catch (error) {
    fail(
      failedCall(
        'DescribeLaunchTemplates',
        `(cluster ${clusterName}: without them no instance is proven Karpenter's, so none is terminated)`,
        error,
      ),
    );
    return undefined;
  }
}
