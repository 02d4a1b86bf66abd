import type { Finding } from '../../domain/finding.ts';
import { manualRemediation, newFinding } from '../../domain/finding.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { explainNodeClassFailure } from './nodeclass-fixes.ts';
import type { FixContext } from './nodeclass-fix-context.ts';
import { accountOf } from '../aws-iam/iam-arn.ts';
import { nodeClassFailures, unhealthyConditions } from '../karpenter/nodeclass-status.ts';
import { describeCondition, notReady } from '../karpenter/readiness.ts';
import { regionFlag, regionOf } from '../aws-iam/iam-arn.ts';
import { denialSteps } from '../aws-iam/denial-steps.ts';
import { readDenial } from '../aws-iam/denial.ts';
import { deniedCallInText, trimError } from '../cloud-errors/cloud-errors.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';
import type { EC2NodeClass } from '../../domain/kube.ts';
import { ownWords, type OwnWords } from './own-words.ts';
import { explainUnmapped } from './own-words-fixes.ts';
import type { Explanation } from './nodeclass-fix-context.ts';
import { provisionerSelectorErrors } from './provisioner-log.ts';
import { provisionerLogFinding } from './provisioner-log-finding.ts';

const CAUSE_TITLE = {
  AMI_NOT_FOUND: 'no AMI matches its amiSelectorTerms',
  SUBNETS_NOT_FOUND: 'no subnet matches its subnetSelectorTerms',
  SECURITY_GROUPS_NOT_FOUND: 'no security group matches its securityGroupSelectorTerms',
  INSTANCE_PROFILE_NOT_READY: 'its instance profile / node role is not usable',
  VALIDATION_FAILED: 'validation failed',
  CLUSTER_CIDR_NOT_RESOLVED: 'Karpenter cannot read the cluster CIDR (eks:DescribeCluster)',
  IAM_API_UNREACHABLE: 'the IAM API is unreachable, so its instance profile cannot be resolved',
  UNKNOWN: 'Karpenter has not resolved it',
} as const;

/**
 * NODECLASS_NOT_READY: an EC2NodeClass whose `Ready` is not True. The cause is the first False
 * sub-condition (AMIs, subnets, security groups, instance profile, validation); the steps cover
 * every False one, since fixing the first alone leaves the node class unready. `Ready=Unknown` or
 * no status at all counts only after READINESS_SETTLE_MS (see karpenter/readiness.ts).
 */
export const nodeClassNotReady: Detector<'NODECLASS_NOT_READY'> = {
  code: 'NODECLASS_NOT_READY',
  requires: ['ec2nodeclasses'],
  // Cluster version and ARN, Fargate subnets and the controller's namespace only fill in the steps.
  refinedBy: ['cluster', 'fargateprofiles', 'pods', 'deployments', 'subnets', 'logs'],
  // A Provisioner-era log saying no subnet or security group matches is evidence enough (provisioner-log.ts).
  evidenceIn: (snapshot) => provisionerSelectorErrors(snapshot.logs).length > 0,
  detect(ctx) {
    // Without any EC2NodeClass (the Provisioner era) Karpenter's own selector errors are the only witness.
    if (ctx.snapshot.nodeClasses.length === 0)
      return provisionerSelectorErrors(ctx.snapshot.logs).map((e) => provisionerLogFinding(ctx, e));
    const fx = fixContext(ctx);
    const findings: Finding<'NODECLASS_NOT_READY'>[] = [];
    for (const nc of ctx.snapshot.nodeClasses) {
      const verdict = notReady(nc, ctx.now);
      if (!verdict) continue;
      const name = nc.metadata?.name ?? '?';
      const failures = nodeClassFailures(nc);
      const words = ownWords(ctx, nc);
      const explained = failures.map((f) => explainNodeClassFailure(f.code, f.condition, nc, fx, words?.logError));
      let primary = failures[0]?.code ?? 'UNKNOWN';
      const evidence = [
        verdict.ready
          ? `EC2NodeClass ${name}: ${describeCondition(verdict.ready)}`
          : `EC2NodeClass ${name} has no Ready condition`,
        ...unhealthyConditions(nc).map(describeCondition),
      ];
      if (words?.logError && (explained.length === 0 || primary === 'CLUSTER_CIDR_NOT_RESOLVED'))
        evidence.push(`${words.origin}: ${trimError(words.logError)}`);
      if (explained.length === 0 && words) {
        primary = words.code;
        explained.push(explainOwnWords(words, nc, fx));
      } else if (explained.length === 0) {
        explained.push(explainNodeClassFailure('UNKNOWN', { type: 'Ready', status: 'Unknown' }, nc, fx, undefined));
      }
      findings.push(
        newFinding({
          code: 'NODECLASS_NOT_READY',
          severity: 'critical',
          title: `EC2NodeClass ${name} is not ready: ${CAUSE_TITLE[primary]}`,
          resource: { kind: 'EC2NodeClass', name },
          since: verdict.since,
          cause: { code: primary, detail: explained.map((e) => e.detail).join(' ') },
          evidence,
          remediation: manualRemediation(explained.flatMap((e) => e.steps)),
        }),
      );
    }
    return findings;
  },
};

/** The cause Karpenter's own words name, explained like the sub-condition that would carry it. */
function explainOwnWords(words: OwnWords, nc: EC2NodeClass, fx: FixContext): Explanation {
  if (words.code === 'UNKNOWN') return explainUnmapped(nc, fx, words.text, words.origin);
  const ready = conditionOf(nc, 'Ready') ?? { type: 'Ready', status: 'Unknown' };
  return explainNodeClassFailure(words.code, ready, nc, fx, words.logError);
}

function fixContext(ctx: DetectContext): FixContext {
  const s = ctx.snapshot;
  const region = regionOf({ clusterArn: s.cluster?.arn });
  return {
    clusterArn: s.cluster?.arn,
    region,
    regionFlag: regionFlag(region),
    // Read as KARPENTER_IAM_DENIED reads a denial: an SCP, boundary or Deny the text names is never answered with an Allow.
    grant: (actions, resource, deniedText) => {
      const call = deniedCallInText(deniedText);
      const calls = { actions, resource, principalRoleArn: call.principalArn, encodedMessage: call.encodedMessage };
      return denialSteps(ctx, calls, readDenial([call]));
    },
    clusterName: s.clusterName,
    clusterVersion: s.cluster?.version,
    accountId: accountOf(s.cluster?.arn)?.account,
    controllerNamespace: ctx.index.controllers[0]?.namespace ?? 'karpenter',
    knownSubnets: [...new Set(s.fargateProfiles.flatMap((p) => p.subnets ?? []))],
    detect: ctx,
  };
}
