/**
 * Step 3: Karpenter's launch templates for the cluster (it deletes them itself only while it
 * runs). They serve every NodePool, so a run limited to some NodePools leaves them. A template an
 * instance still running names is kept: it is the proof that Karpenter launched that instance, and
 * without it no later run could terminate it (src/domain/provenance.ts).
 */
import type { LaunchTemplate } from '../domain/aws.ts';
import { LAUNCH_TEMPLATE_ID_TAG } from '../domain/provenance.ts';
import { NODEPOOL_TAG } from '../domain/tags.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { isKarpenterLaunchTemplate } from '../domain/provenance.ts';
import { hasEnded } from './select.ts';
import { counted, failedCall, namesOf, plannedLine } from './text.ts';

export async function deleteLaunchTemplatesStep(ctx: CleanupContext): Promise<StepEnd> {
  const { request, run } = ctx;
  if (request.nodePools !== undefined) {
    run.note(
      'launch-templates',
      `only NodePools ${namesOf(request.nodePools)}: launch templates and instance profiles stay (they serve the whole cluster)`,
    );
    return 'done';
  }
  if (run.outOfTime('launch-templates')) return 'stopped';
  let templates: LaunchTemplate[];
  try {
    templates = (await ctx.connection.aws.ec2.describeLaunchTemplates(request.clusterName)).filter((t) =>
      isKarpenterLaunchTemplate(t, request.clusterName),
    );
  } catch (error) {
    run.fail('launch-templates', failedCall('DescribeLaunchTemplates', `(cluster ${request.clusterName})`, error));
    return 'done';
  }
  if (!request.dryRun) {
    const inUse = await templatesStillNamed(ctx);
    if (inUse === undefined) return 'done';
    const kept = templates.filter((t) => inUse.has(t.id)).map((t) => t.id);
    if (kept.length > 0) {
      run.note(
        'launch-templates',
        `keeping ${counted(kept.length, 'launch template')} still named by an instance not terminating: ${namesOf(kept)}`,
      );
      templates = templates.filter((t) => !inUse.has(t.id));
    }
  }
  const ids = templates.map((t) => t.id).sort();
  run.note('launch-templates', plannedLine(request.dryRun, 'delete', 'launch template', ids));
  if (request.dryRun) {
    run.result.launchTemplatesDeleted.push(...ids);
    return 'done';
  }
  for (const template of templates) {
    if (run.outOfTime('launch-templates')) return 'stopped';
    try {
      // false: already gone, which is not this run's doing.
      if (await ctx.connection.aws.ec2.deleteLaunchTemplate(template.id)) run.result.launchTemplatesDeleted.push(template.id);
    } catch (error) {
      run.fail('launch-templates', failedCall('DeleteLaunchTemplate', `${template.id} (${template.name})`, error), template.id);
    }
  }
  return 'done';
}

/** Launch templates named by an instance of the cluster neither terminated nor shutting down; undefined when they could not be listed. */
async function templatesStillNamed(ctx: CleanupContext): Promise<Set<string> | undefined> {
  const { clusterName } = ctx.request;
  try {
    const instances = await ctx.connection.aws.ec2.describeInstances({ clusterName, tagKey: NODEPOOL_TAG });
    const named = instances.filter((i) => !hasEnded(i)).map((i) => i.tags[LAUNCH_TEMPLATE_ID_TAG]);
    return new Set(named.filter((id): id is string => id !== undefined));
  } catch (error) {
    const what = `(which launch templates instances of cluster ${clusterName} still name; none deleted)`;
    ctx.run.fail('launch-templates', failedCall('DescribeInstances', what, error));
    return undefined;
  }
}
