import type { DetectContext } from '../detector.ts';
import { regionFlag } from '../aws-iam/iam-arn.ts';
import { shellQuote, shellWords } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';

const GONE_STATES = new Set(['stopping', 'stopped', 'shutting-down', 'terminated']);

/**
 * When describe-instances was captured and every unregistered NodeClaim's instance is stopped,
 * terminated or absent from it, the instances, not the role, are why nothing registered.
 */
export function notRunning(
  ctx: DetectContext,
  stuck: { name: string; instanceId: string | undefined }[],
): { summary: string; evidence: string[] } | undefined {
  if (!ctx.snapshot.captured.has('instances')) return undefined;
  const withIds = stuck.filter((c): c is { name: string; instanceId: string } => c.instanceId !== undefined);
  if (withIds.length === 0) return undefined;
  const states = withIds.map((c) => ({ ...c, state: ctx.index.instancesById.get(c.instanceId)?.state }));
  if (!states.every((c) => c.state === undefined || GONE_STATES.has(c.state))) return undefined;
  const describe = (state: string | undefined) => state ?? 'not in describe-instances';
  return {
    summary: states.map((c) => `${c.instanceId} ${describe(c.state)}`).join(', '),
    evidence: states.map((c) => `instance ${c.instanceId} of NodeClaim ${c.name}: ${describe(c.state)}`),
  };
}

export function instanceStateSteps(
  cluster: string,
  claims: string[],
  instanceIds: string[],
  region: string | undefined,
): string[] {
  const r = regionFlag(region);
  const first = instanceIds[0];
  return [
    `aws ec2 describe-instances --instance-ids ${shellWords(instanceIds)}${r} --query 'Reservations[].Instances[].[InstanceId,State.Name,StateReason.Message]'`,
    ...(first
      ? [
          `aws ec2 get-console-output --instance-id ${shellQuote(first)} --latest${r}   # why did it stop before the kubelet registered?`,
        ]
      : []),
    ...claims.slice(0, 1).map((n) => `kubectl describe nodeclaim ${shellQuote(n)}`),
    `check that nothing outside Karpenter (Spot interruption, an instance scheduler, a cleanup job) stops instances of cluster ${visibleLine(cluster)}`,
  ];
}

/**
 * What to look at on the instance when the role is mapped (seed 004's steps). `endpointKnown`: the
 * captured describe-cluster already says how the endpoint is reached, so it is not asked again.
 */
export function diagnoseSteps(
  cluster: string,
  claims: string[],
  instanceIds: string[],
  region: string | undefined,
  endpointKnown = false,
): string[] {
  const r = regionFlag(region);
  const first = instanceIds[0];
  if (!first) return [...claims.slice(0, 1).map((n) => `kubectl describe nodeclaim ${shellQuote(n)}`)];
  return [
    `aws ec2 get-console-output --instance-id ${shellQuote(first)} --latest${r}   # look for kubelet / nodeadm / bootstrap errors`,
    `aws ec2 describe-instances --instance-ids ${shellQuote(first)}${r} --query 'Reservations[0].Instances[0].[State.Name,IamInstanceProfile.Arn,SecurityGroups[*].GroupId]'`,
    ...(endpointKnown
      ? []
      : [
          `aws eks describe-cluster --name ${shellQuote(cluster)}${r} --query 'cluster.resourcesVpcConfig.[clusterSecurityGroupId,endpointPrivateAccess,endpointPublicAccess]'   # node security groups must reach the API endpoint on 443`,
        ]),
    ...claims.slice(0, 1).map((n) => `kubectl describe nodeclaim ${shellQuote(n)}`),
  ];
}
