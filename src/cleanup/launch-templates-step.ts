/**
 * Step 3: Karpenter's launch templates for the cluster (it deletes them itself only while it
 * runs). They serve every NodePool, so a run limited to some NodePools leaves them. A template an
 * instance still running names is held: it is the proof that Karpenter launched that instance, and
 * without it no later run could terminate it (src/domain/provenance.ts). "Still running" counts
 * the instances the instances step terminates (or plans to) as gone, so a dry run holds what apply holds.
 * It runs only for the whole cluster and once every Karpenter instance is known gone: the use case
 * (src/usecases/cleanup.ts) decides that from the instances step's outcome.
 */
import { counted } from '../domain/words.ts';
import type { Instance, LaunchTemplate } from '../domain/aws.ts';
import { isKarpenterLaunchTemplate, LAUNCH_TEMPLATE_ID_TAG } from '../domain/provenance.ts';
import type { CleanupContext } from './budget.ts';
import { stillRuns, type InstancesOutcome } from './instances-step.ts';
import { recorded, StepRecord, type StepOutcome } from './outcome.ts';
import { failedCall, namesOf, plannedLine } from './text.ts';

export async function launchTemplatesStep(ctx: CleanupContext, before: { instances: InstancesOutcome }): Promise<StepOutcome> {
  return recorded(new StepRecord('launch-templates', ctx.budget), (out) => deleteUnnamed(ctx, out, before.instances));
}

async function deleteUnnamed(ctx: CleanupContext, out: StepRecord, instancesOutcome: InstancesOutcome): Promise<void> {
  const { request } = ctx;
  if (out.outOfTime()) return;
  let templates: LaunchTemplate[];
  try {
    templates = (await ctx.connection.aws.ec2.describeLaunchTemplates(request.clusterName)).filter((t) =>
      isKarpenterLaunchTemplate(t, request.clusterName),
    );
  } catch (error) {
    out.fail(failedCall('DescribeLaunchTemplates', `(cluster ${request.clusterName})`, error));
    return;
  }
  // Every instance of the cluster, a NodePool tag or not: a node group's may name Karpenter's template too.
  let instances: Instance[];
  try {
    instances = await ctx.connection.aws.ec2.describeInstances({ clusterName: request.clusterName });
  } catch (error) {
    const what = `(which launch templates instances of cluster ${request.clusterName} still name; none deleted)`;
    out.fail(failedCall('DescribeInstances', what, error));
    return;
  }
  const running = instances.filter(stillRuns(instancesOutcome));
  const toDelete: LaunchTemplate[] = [];
  for (const template of templates) {
    const users = namedBy(template, running);
    if (users.length === 0) toDelete.push(template);
    else
      out.held.push({
        resource: template.id,
        reason: `named by ${counted(users.length, 'instance')} not terminated`,
        instances: users,
      });
  }
  if (out.held.length > 0) {
    const ids = out.held.map((h) => h.resource);
    out.note(`keeping ${counted(ids.length, 'launch template')} still named by an instance not terminating: ${namesOf(ids)}`);
  }
  const ids = toDelete.map((t) => t.id).sort();
  out.note(plannedLine(request.dryRun, 'delete', 'launch template', ids));
  if (request.dryRun) {
    out.done.push(...ids);
    return;
  }
  for (const template of toDelete) {
    if (out.outOfTime()) return;
    try {
      // false: already gone, which is not this run's doing.
      if (await ctx.connection.aws.ec2.deleteLaunchTemplate(template.id)) out.done.push(template.id);
    } catch (error) {
      out.fail(failedCall('DeleteLaunchTemplate', `${template.id} (${template.name})`, error), template.id);
    }
  }
}

function namedBy(template: LaunchTemplate, running: readonly Instance[]): string[] {
  return running
    .filter((i) => i.tags[LAUNCH_TEMPLATE_ID_TAG] === template.id)
    .map((i) => i.id)
    .sort();
}
