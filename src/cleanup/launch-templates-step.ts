/**
 * Step 3: Karpenter's launch templates for the cluster (it deletes them itself only while it
 * runs). They serve every NodePool, so a run limited to some NodePools leaves them.
 */
import type { LaunchTemplate } from '../domain/aws.ts';
import type { CleanupContext, StepEnd } from './run.ts';
import { isKarpenterLaunchTemplate } from './select.ts';
import { failedCall, namesOf, plannedLine } from './text.ts';

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
