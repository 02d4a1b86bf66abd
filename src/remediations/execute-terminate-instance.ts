import type { Instance, InstanceProfile, LaunchTemplate } from '../domain/aws.ts';
import type { Remediation } from '../domain/finding.ts';
import { ageMs } from '../domain/kube-helpers.ts';
import { launchTemplateIdsOf, needsInstanceProfileProof, type LaunchEvidence } from '../domain/provenance.ts';
import { formatDuration } from '../domain/settings.ts';
import type { TerminationResult } from '../ports/aws.ts';
import type { ActionExecutor, ExecutorContext } from './execute-context.ts';
import { applied, errorSummary, failed } from './execute-context.ts';
import { skipped } from './plan-context.ts';
import { ownershipBlocker, provenanceBlocker, stateBlocker } from './terminate-instance.ts';

/**
 * TERMINATE_INSTANCE for every planned orphan of the report at once: at most
 * `maxTerminationsPerRun` (the planner caps already; asserted again), re-read in ONE
 * DescribeInstances (and one DescribeLaunchTemplates, and one ListInstanceProfiles when some
 * instance's launch template is gone and its profile must prove it) right before acting, every tag, provenance,
 * state and age guardrail checked again on that fresh data, then ONE TerminateInstances for the
 * survivors. Tags can change between scan and apply; so can the launch template an instance names. "Matched by no NodeClaim" is not re-listed
 * here: the planner decided it on a complete snapshot moments ago, and a NodeClaim launched since
 * would come with a new instance, which is not in this list.
 */
export const terminateInstanceExecutor: ActionExecutor = {
  action: 'TERMINATE_INSTANCE',
  async execute(findings, ctx) {
    const outcomes: Remediation[] = findings.map((f) => f.remediation!);
    if (!ctx.complete) {
      return outcomes.map((r) => skipped(r, 'snapshot incomplete (see gaps): nothing is terminated on partial data'));
    }
    const cap = ctx.actions.maxTerminationsPerRun;
    const candidates: { at: number; id: string }[] = [];
    findings.forEach((f, at) => {
      const id = f.resource.kind === 'Instance' ? f.resource.id : undefined;
      if (!id) outcomes[at] = skipped(outcomes[at]!, 'no instance id on the finding');
      else if (candidates.length >= cap) outcomes[at] = skipped(outcomes[at]!, `per-run cap of ${cap} terminations reached`);
      else candidates.push({ at, id });
    });
    if (candidates.length === 0) return outcomes;

    let fresh: Instance[];
    let templates: LaunchTemplate[];
    try {
      fresh = await ctx.ec2.describeInstances({ instanceIds: unique(candidates.map((c) => c.id)) });
      // By id too: a template that exists but is not tagged for the cluster must not count as gone.
      templates = await ctx.ec2.describeLaunchTemplates(ctx.clusterName, launchTemplateIdsOf(fresh));
    } catch (error) {
      const reason = `re-reading the instances and launch templates before terminating failed: ${errorSummary(error)}; nothing terminated`;
      for (const c of candidates) outcomes[c.at] = failed(outcomes[c.at]!, reason);
      return outcomes;
    }
    const freshById = new Map(fresh.map((i) => [i.id, i]));
    const launched: LaunchEvidence = {
      launchTemplates: templates,
      instanceProfiles: fresh.some((i) => needsInstanceProfileProof(i, templates)) ? await freshProfiles(ctx) : undefined,
      region: ctx.region,
    };
    const survivors = candidates.filter((c) => {
      const blocker = freshBlocker(freshById.get(c.id), launched, ctx);
      if (blocker) outcomes[c.at] = skipped(outcomes[c.at]!, blocker);
      return !blocker;
    });
    if (survivors.length === 0) return outcomes;

    let results: TerminationResult[];
    try {
      results = await ctx.ec2.terminateInstances(unique(survivors.map((c) => c.id)));
    } catch (error) {
      for (const c of survivors) outcomes[c.at] = failed(outcomes[c.at]!, errorSummary(error));
      return outcomes;
    }
    const resultById = new Map(results.map((t) => [t.instanceId, t]));
    for (const c of survivors) {
      const result = resultById.get(c.id);
      const r = outcomes[c.at]!;
      if (!result) outcomes[c.at] = failed(r, 'TerminateInstances returned no result for this instance');
      else if (result.error) outcomes[c.at] = failed(r, result.error);
      else outcomes[c.at] = applied(r, `now ${result.currentState ?? 'terminating'}`);
    }
    return outcomes;
  },
};

/** Why the fresh instance may no longer go; the planner passed the scan's copy, so any "no" is a change. */
function freshBlocker(instance: Instance | undefined, launched: LaunchEvidence, ctx: ExecutorContext): string | undefined {
  if (!instance) return 'instance no longer exists';
  const tags = ownershipBlocker(instance, ctx.clusterName);
  if (tags) return `tags changed since the scan: ${tags}`;
  const provenance = provenanceBlocker(instance, ctx.clusterName, launched);
  if (provenance) return `on fresh data, ${provenance}`;
  const state = stateBlocker(instance);
  if (state) return `state changed since the scan: ${state}`;
  const age = ageMs(instance.launchTime, ctx.now);
  if (age === undefined) return 'launch time unknown';
  const grace = ctx.detection.orphanGraceMs;
  if (age < grace) {
    return `launched ${formatDuration(Math.max(0, age))} ago (${instance.launchTime}), within the ${formatDuration(grace)} orphan grace period`;
  }
  return undefined;
}

/** Undefined when there is no IAM port or the listing fails: the instances that needed them are then not proven. */
async function freshProfiles(ctx: ExecutorContext): Promise<InstanceProfile[] | undefined> {
  try {
    return await ctx.iam?.listInstanceProfiles();
  } catch {
    return undefined;
  }
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
