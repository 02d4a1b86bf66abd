import type { Instance } from '../../domain/aws.ts';
import type { Finding } from '../../domain/finding.ts';
import { commandStep, manualRemediation, newFinding } from '../../domain/finding.ts';
import { isoSeconds } from '../../domain/kube-helpers.ts';
import { LAUNCH_TEMPLATE_ID_TAG, FLEET_ID_TAG } from '../../domain/provenance.ts';
import { formatDuration } from '../../domain/settings.ts';
import { CLUSTER_TAG, legacyClusterTag, NODECLAIM_TAG, NODECLASS_TAG, NODEPOOL_TAG } from '../../domain/tags.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { regionOf } from '../aws-iam/iam-arn.ts';
import { shellQuote } from '../../domain/shell.ts';
import { orphanCandidates } from '../karpenter/orphan-candidates.ts';

/**
 * INSTANCE_PROVENANCE_UNPROVEN: an instance that would be an orphan by its tags (cluster,
 * NodePool, no NodeClaim, past the grace period) but that nothing proves Karpenter launched
 * (src/domain/provenance.ts). Those tags can be written on any instance, so it is reported and
 * never terminated: the finding says why, and how to find out who launched and tagged it.
 */
export const instanceProvenanceUnproven: Detector<'INSTANCE_PROVENANCE_UNPROVEN'> = {
  code: 'INSTANCE_PROVENANCE_UNPROVEN',
  requires: ['instances', 'nodeclaims'],
  refinedBy: ['nodepools', 'cluster', 'launchtemplates', 'instanceprofiles'],
  detect(ctx) {
    const findings: Finding<'INSTANCE_PROVENANCE_UNPROVEN'>[] = [];
    for (const { instance, ageMs, provenance } of orphanCandidates(ctx)) {
      if (provenance.proven) continue;
      findings.push(
        newFinding({
          code: 'INSTANCE_PROVENANCE_UNPROVEN',
          severity: 'warning',
          title: `Instance ${instance.id} is tagged as a Karpenter node of ${ctx.snapshot.clusterName} without a NodeClaim, but nothing proves Karpenter launched it: not terminated`,
          resource: { kind: 'Instance', id: instance.id },
          since: isoSeconds(instance.launchTime),
          cause: {
            code: provenance.gap,
            detail:
              `${provenance.reason}. Its cluster and NodePool tags can be written on any instance by anyone allowed ec2:CreateTags, ` +
              `so karpenter-sentinel terminates only instances named by a NodeClaim, or launched by an EC2 Fleet from Karpenter's launch template for the cluster ` +
              `(or, that template deleted since, carrying Karpenter's instance profile for the cluster and region).`,
          },
          evidence: [
            `${[instance.id, instance.instanceType, instance.state].filter(Boolean).join(' ')}, launched ${instance.launchTime} (${formatDuration(ageMs)} ago)`,
            `tags: ${tagSummary(instance, ctx.snapshot.clusterName)}`,
            `provenance: ${provenance.reason}`,
          ],
          remediation: manualRemediation(checkSteps(instance, ctx, provenance.gap)),
        }),
      );
    }
    return findings;
  },
};

function tagSummary(instance: Instance, cluster: string): string {
  const keys = [
    CLUSTER_TAG,
    legacyClusterTag(cluster),
    NODEPOOL_TAG,
    NODECLAIM_TAG,
    NODECLASS_TAG,
    FLEET_ID_TAG,
    LAUNCH_TEMPLATE_ID_TAG,
  ];
  const present = keys.filter((k) => instance.tags[k] !== undefined).map((k) => `${k}=${instance.tags[k]}`);
  return present.join(', ');
}

/** How to find out whose it is; every value from the data is quoted, as it may be anything. */
function checkSteps(instance: Instance, ctx: DetectContext, gap: string): string[] {
  const region = regionOf({ clusterArn: ctx.snapshot.cluster?.arn });
  const r = region ? ` --region ${shellQuote(region)}` : '';
  const id = shellQuote(instance.id);
  const template = instance.tags[LAUNCH_TEMPLATE_ID_TAG];
  return [
    commandStep(
      'When it was launched and every tag it carries (aws: tags are set by EC2 at launch)',
      `aws ec2 describe-instances${r} --instance-ids ${id} --query 'Reservations[].Instances[].{launched:LaunchTime,tags:Tags}'`,
    ),
    commandStep(
      'Who launched it (RunInstances or CreateFleet) and who tagged it (CreateTags), from CloudTrail (90 days)',
      `aws cloudtrail lookup-events${r} --lookup-attributes ${shellQuote(`AttributeKey=ResourceName,AttributeValue=${instance.id}`)}`,
    ),
    ...(template === undefined
      ? []
      : [
          commandStep(
            gap === 'LAUNCH_TEMPLATE_UNKNOWN'
              ? 'The launch template it names, and whether it still exists (capture it for the next scan)'
              : 'The launch template it names',
            `aws ec2 describe-launch-templates${r} --launch-template-ids ${shellQuote(template)}`,
          ),
        ]),
    commandStep(
      'If it is not a Karpenter node, remove the tag that makes it look like one (karpenter-sentinel then leaves it out); if it is one, terminate it yourself',
      `aws ec2 delete-tags${r} --resources ${id} --tags ${shellQuote(`Key=${NODEPOOL_TAG}`)}`,
    ),
  ];
}
