import type { CauseCodeOf } from '../../domain/codes.ts';
import { commandStep } from '../../domain/finding.ts';
import type { NodePool } from '../../domain/kube.ts';
import type { DetectContext } from '../detector.ts';
import { deniedCallInText } from '../cloud-errors/cloud-errors.ts';
import { controllerIdentity } from '../aws-iam/controller-iam.ts';
import { readDenial } from '../aws-iam/denial.ts';
import { denialSteps } from '../aws-iam/denial-steps.ts';
import { regionFlag, regionOf } from '../aws-iam/iam-arn.ts';
import { shellQuote, shellWords } from '../../domain/shell.ts';
import {
  describeRoom,
  judgeSubnet,
  moreAddressesSteps,
  nodeClassSubnets,
  prefixDelegation,
  prefixDelegationNote,
  roomElsewhere,
} from '../karpenter/nodeclass-subnets.ts';
import { explainInstanceProfile } from './instance-profile-fixes.ts';

export type LaunchCause = CauseCodeOf<'NODECLAIM_LAUNCH_FAILED'>;

export const CAUSE_TITLE: Record<LaunchCause, string> = {
  SPOT_SERVICE_LINKED_ROLE_MISSING: 'the EC2 Spot service-linked role is missing',
  SUBNET_IP_EXHAUSTED: 'a subnet has no free IP addresses',
  INSUFFICIENT_CAPACITY: 'insufficient EC2 capacity',
  UNAUTHORIZED: "the controller's IAM role is not allowed to launch",
  AMI_NOT_FOUND: 'the AMI does not exist',
  SECURITY_GROUP_SUBNET_VPC_MISMATCH: 'security groups and subnets are in different VPCs',
  QUOTA_EXCEEDED: 'an EC2 service quota is exhausted',
  API_THROTTLED: 'EC2 is throttling API calls',
  INSTANCE_PROFILE_NOT_FOUND: 'the instance profile does not exist',
  UNKNOWN: 'the launch failed',
};

/** What a group of failures shares, for the explanation. */
export interface LaunchGroup {
  cause: LaunchCause;
  pool: NodePool | undefined;
  poolName: string | undefined;
  nodeClass: string | undefined;
  nodeClaims: string[];
  /** Raw error texts, oldest first. */
  texts: string[];
  /** AWS codes / Karpenter reasons seen. */
  codes: string[];
}

export interface Explanation {
  detail: string;
  steps: string[];
  /** Set when the capture contradicts the cause the error text suggested. */
  cause?: LaunchCause;
}

export function explainLaunchFailure(ctx: DetectContext, g: LaunchGroup): Explanation {
  const region = regionOf({ clusterArn: ctx.snapshot.cluster?.arn });
  const r = regionFlag(region);
  const pool = g.poolName ? `NodePool ${g.poolName}` : 'the NodePools';
  const codes = g.codes.length > 0 ? ` (${g.codes.join(', ')})` : '';
  const editPool = `kubectl edit nodepool ${g.poolName ? shellQuote(g.poolName) : '<name>'}`;
  switch (g.cause) {
    case 'SPOT_SERVICE_LINKED_ROLE_MISSING': {
      const types = capacityTypes(g.pool);
      const impact =
        types && !types.includes('on-demand')
          ? `${pool} allows only Spot capacity, so it launches nothing until the role exists.`
          : `Karpenter marks Spot unavailable and launches on-demand instead where ${pool} allows it, at on-demand prices.`;
      return {
        detail: `EC2 refused Spot launches: the account has no AWSServiceRoleForEC2Spot service-linked role and Karpenter's role may not create it${codes}. ${impact}`,
        steps: [
          'aws iam create-service-linked-role --aws-service-name spot.amazonaws.com   # once per account, by a principal allowed iam:CreateServiceLinkedRole',
          'aws iam get-role --role-name AWSServiceRoleForEC2Spot   # verify',
          commandStep(
            `or restrict ${pool} to on-demand`,
            `${editPool}   # requirement karpenter.sh/capacity-type operator In values ["on-demand"]`,
          ),
        ],
      };
    }
    case 'SUBNET_IP_EXHAUSTED':
      return explainSubnetExhausted(ctx, g);
    case 'INSUFFICIENT_CAPACITY':
      return {
        detail: `EC2 had no capacity for the instance types and zones ${pool} allows${codes}. Karpenter marks those offerings unavailable for a few minutes and tries others; repeated failures mean the NodePool is too narrow.`,
        steps: [
          g.poolName
            ? `kubectl get nodepool ${shellQuote(g.poolName)} -o jsonpath='{.spec.template.spec.requirements}'`
            : 'kubectl get nodepools -o yaml',
          `${editPool}   # allow more instance families and sizes, every zone the subnets cover, and both spot and on-demand`,
        ],
      };
    case 'API_THROTTLED':
      return explainThrottled(ctx, g);
    case 'INSTANCE_PROFILE_NOT_FOUND':
      return explainInstanceProfile(ctx, g);
    case 'UNAUTHORIZED':
      return explainUnauthorized(ctx, g);
    case 'AMI_NOT_FOUND': {
      const amis = unique(g.texts.flatMap((t) => t.match(/ami-[0-9a-f]{8,17}/g) ?? []));
      const nc = g.nodeClass ? shellQuote(g.nodeClass) : '<ec2nodeclass>';
      return {
        detail: `EC2 rejected the AMI${amis.length ? ` ${amis.join(', ')}` : ''}${codes}: it does not exist in this region or is not shared with the account.`,
        steps: [
          `kubectl get ec2nodeclass ${nc} -o jsonpath='{.spec.amiSelectorTerms}{"\\n"}{.status.amis}'`,
          ...(amis.length ? [`aws ec2 describe-images --image-ids ${shellWords(amis)}${r}`] : []),
          `kubectl edit ec2nodeclass ${nc}   # select an AMI that exists here, e.g. amiSelectorTerms: [{alias: al2023@latest}]`,
        ],
      };
    }
    case 'SECURITY_GROUP_SUBNET_VPC_MISMATCH': {
      const sgs = unique(g.texts.flatMap((t) => t.match(/sg-[0-9a-f]{8,17}/g) ?? []));
      const subnets = unique(g.texts.flatMap((t) => t.match(/subnet-[0-9a-f]{8,17}/g) ?? []));
      const nc = g.nodeClass ? shellQuote(g.nodeClass) : '<ec2nodeclass>';
      return {
        detail: `EC2 rejected the launch because the security groups${sgs.length ? ` ${sgs.join(', ')}` : ''} do not belong to the VPC of the subnets${subnets.length ? ` ${subnets.join(', ')}` : ''}${codes}.`,
        steps: [
          `aws eks describe-cluster --name ${shellQuote(ctx.snapshot.clusterName)}${r} --query cluster.resourcesVpcConfig.vpcId`,
          ...(sgs.length
            ? [`aws ec2 describe-security-groups --group-ids ${shellWords(sgs)}${r} --query 'SecurityGroups[].[GroupId,VpcId]'`]
            : []),
          ...(subnets.length
            ? [`aws ec2 describe-subnets --subnet-ids ${shellWords(subnets)}${r} --query 'Subnets[].[SubnetId,VpcId]'`]
            : []),
          `kubectl edit ec2nodeclass ${nc}   # securityGroupSelectorTerms and subnetSelectorTerms must both select the cluster's VPC`,
        ],
      };
    }
    case 'QUOTA_EXCEEDED': {
      const spot = g.codes.some((c) => /Spot/i.test(c));
      const quota = spot ? 'L-34B43A08' : 'L-1216C47A';
      const quotaName = spot ? 'All Standard Spot Instance Requests' : 'Running On-Demand Standard instances';
      return {
        detail: `EC2 refused the launch because an account quota is used up${codes}. Karpenter keeps retrying and cannot add capacity beyond it.`,
        steps: [
          `aws service-quotas get-service-quota --service-code ec2 --quota-code ${quota}${r}   # ${quotaName} (vCPUs); other instance families have their own quota`,
          `aws service-quotas request-service-quota-increase --service-code ec2 --quota-code ${quota} --desired-value <vCPUs>${r}`,
          `${editPool}   # or cap spec.limits.cpu below the quota so Karpenter stops asking`,
        ],
      };
    }
    case 'UNKNOWN': {
      const ns = controllerIdentity(ctx).namespace;
      return {
        detail: `Karpenter could not launch capacity for ${pool}${codes}; the error does not match a known cause.`,
        steps: [
          ...g.nodeClaims.slice(0, 1).map((n) => `kubectl describe nodeclaim ${shellQuote(n)}`),
          `kubectl logs -n ${shellQuote(ns)} -l app.kubernetes.io/name=karpenter --tail=500 | grep -i 'launching nodeclaim'`,
        ],
      };
    }
  }
}

const LAUNCH_ACTIONS = ['ec2:CreateFleet', 'ec2:RunInstances', 'ec2:CreateLaunchTemplate', 'ec2:CreateTags', 'iam:PassRole'];

function explainUnauthorized(ctx: DetectContext, g: LaunchGroup): Explanation {
  const calls = g.texts.map(deniedCallInText);
  const actions = unique(calls.flatMap((c) => (c.action ? [c.action] : [])));
  const withAction = calls.find((c) => c.action);
  const principal = calls.find((c) => c.principalArn)?.principalArn;
  const encoded = calls.find((c) => c.encodedMessage)?.encodedMessage;
  const reading = readDenial(calls);
  const pool = g.poolName ? `NodePool ${g.poolName}` : 'the NodePools';
  const where = reading.policy && reading.cause !== 'MISSING_PERMISSION' ? `; AWS says the deny is in ${reading.policy}` : '';
  const denied = { actions, resource: withAction?.resource, principalRoleArn: principal, encodedMessage: encoded, launch: true };
  if (actions.length === 0) {
    return {
      detail: `AWS denied a call Karpenter's controller role makes to launch instances for ${pool}, and the error does not name the action${where}.`,
      steps: [
        ...denialSteps(ctx, denied, reading),
        ...(reading.cause === 'DENIED_UNKNOWN_POLICY'
          ? [`launches need ${LAUNCH_ACTIONS.join(', ')} (iam:PassRole on the node role)`]
          : []),
      ],
    };
  }
  return {
    detail: `AWS denied ${actions.join(', ')}${withAction?.resource ? ` on ${withAction.resource}` : ''} to Karpenter's controller role${principal ? ` ${principal}` : ''} while launching instances for ${pool}${where}.`,
    steps: denialSteps(ctx, denied, reading),
  };
}

/**
 * A subnet out of addresses: the subnets EC2 named (a fleet error names them; the v1.2+ reason
 * message does not), their room when `describe-subnets` was captured, and whether the other
 * subnets of the EC2NodeClass have any.
 */
function explainSubnetExhausted(ctx: DetectContext, g: LaunchGroup): Explanation {
  const s = ctx.snapshot;
  const pool = g.poolName ? `NodePool ${g.poolName}` : 'the NodePools';
  const codes = g.codes.length > 0 ? ` (${g.codes.join(', ')})` : '';
  const named = unique(g.texts.flatMap((t) => t.match(/subnet-[0-9a-f]{8,17}/g) ?? []));
  const nodeClass =
    (g.nodeClass ? ctx.index.nodeClassesByName.get(g.nodeClass) : undefined) ??
    s.nodeClasses.find((nc) => (nc.status?.subnets ?? []).some((sn) => sn.id && named.includes(sn.id)));
  const nodeClassName = nodeClass?.metadata?.name;
  const captured = s.captured.has('subnets');
  const byId = new Map(s.subnets.map((sn) => [sn.id, sn]));
  const ofClass = nodeClass ? nodeClassSubnets(nodeClass, s.subnets) : [];
  const judged = [
    ...ofClass,
    ...named.filter((id) => !ofClass.some((j) => j.id === id)).map((id) => judgeSubnet(id, undefined, byId.get(id))),
  ];
  const full = named.length > 0 ? judged.filter((j) => named.includes(j.id)) : captured ? ofClass.filter((j) => j.low) : [];
  const which =
    named.length > 0
      ? `subnet${named.length > 1 ? 's' : ''} ${named.join(', ')}`
      : `a subnet ${nodeClassName ? `of EC2NodeClass ${nodeClassName}` : pool} (the message does not say which)`;
  const parts = [
    `EC2 has no free IP addresses left in ${which}${codes}. Karpenter files this under insufficient capacity: it marks the subnet unavailable for a while, deletes the NodeClaim and retries, so widening the instance types of ${pool} does not help while the subnet stays full.`,
  ];
  if (captured) {
    const described = full.filter((j) => j.described);
    const missing = full.filter((j) => !j.described);
    if (described.length > 0) parts.push(`describe-subnets: ${described.map(describeRoom).join('; ')}.`);
    if (missing.length > 0) parts.push(`describe-subnets did not list ${missing.map((j) => j.id).join(', ')}.`);
    if (nodeClassName && ofClass.length > 0) {
      parts.push(roomElsewhere(nodeClassName, ofClass, full));
      const allowed = allowedZones(g.pool);
      const roomy = ofClass.filter((j) => !j.low && j.free !== undefined && !full.some((f) => f.id === j.id));
      if (allowed && roomy.length > 0 && roomy.every((j) => !j.zone || !allowed.includes(j.zone))) {
        parts.push(`${pool} allows only ${allowed.join(', ')}, so it cannot use them.`);
      }
    }
  } else {
    parts.push('Free addresses per subnet were not captured (aws ec2 describe-subnets).');
  }
  const pd = prefixDelegation(ctx.index);
  if (pd !== 'not captured') parts.push(prefixDelegationNote(pd, full));
  const zone = judged.find((j) => j.zone)?.zone;
  const region = regionOf({ clusterArn: s.cluster?.arn, zone });
  return {
    detail: parts.join(' '),
    steps: moreAddressesSteps({
      nodeClass,
      subnetIds: full.length > 0 ? full.map((j) => j.id) : named,
      judged,
      region: regionFlag(region),
    }),
  };
}

/**
 * EC2 throttled the launch: RequestLimitExceeded (the account's request rate in the region) or the
 * SDK's own retry quota ("failed to get rate limit token"), which runs out after repeated throttling.
 */
function explainThrottled(ctx: DetectContext, g: LaunchGroup): Explanation {
  const s = ctx.snapshot;
  const pool = g.poolName ? `NodePool ${g.poolName}` : 'the NodePools';
  const codes = g.codes.length > 0 ? ` (${g.codes.join(', ')})` : '';
  const operations = unique(g.texts.flatMap((t) => [...t.matchAll(/operation error EC2: ([A-Za-z]+)/g)].map((m) => m[1] ?? '')));
  const sdkQuota = g.texts.some((t) => /failed to get rate limit token/i.test(t));
  const r = regionFlag(regionOf({ clusterArn: s.cluster?.arn }));
  const controller = controllerIdentity(ctx);
  const since = new Date(ctx.now.getTime() - 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const classes = s.captured.has('ec2nodeclasses') ? s.nodeClasses.length : undefined;
  return {
    detail:
      `EC2 throttled Karpenter's ${operations.length > 0 ? operations.join(', ') : 'API'} calls while launching for ${pool}${codes}. ` +
      `EC2 request rates are per account and region, shared by every caller there${sdkQuota ? '; "failed to get rate limit token" is the SDK\'s retry quota running out after repeated throttling' : ''}. ` +
      'Karpenter retries with backoff, so launches are slow or fail until the rate drops.',
    steps: [
      commandStep(
        'who calls EC2 in this account and region: the last hour of EC2 calls by API and caller',
        `aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventSource,AttributeValue=ec2.amazonaws.com --start-time ${since} --max-items 5000${r} --query 'Events[].[EventName,Username]' --output text | sort | uniq -c | sort -rn | head -20`,
      ),
      'EC2 API request rates are not in Service Quotas: ask AWS Support for an EC2 API throttling increase (Service limit increase case), naming the throttled APIs and the rate you need',
      commandStep(
        'Karpenter v1.13+: refresh AMIs and subnets less often than every minute (with helm: controller.env)',
        `kubectl set env ${shellQuote(`deployment/${controller.resource.name ?? 'karpenter'}`)} -n ${shellQuote(controller.namespace)} AMI_REFRESH_INTERVAL=10m SUBNET_REFRESH_INTERVAL=10m`,
      ),
      `fewer EC2NodeClasses mean fewer DescribeImages, DescribeSubnets and DescribeSecurityGroups calls: merge the ones that differ only in tags or userData${classes !== undefined ? ` (${classes} here)` : ''}`,
    ],
  };
}

/** The zones a NodePool allows, when it constrains `topology.kubernetes.io/zone` with In. */
function allowedZones(pool: NodePool | undefined): string[] | undefined {
  return pool?.spec?.template?.spec?.requirements?.find((q) => q.key === 'topology.kubernetes.io/zone' && q.operator === 'In')
    ?.values;
}

/** `karpenter.sh/capacity-type` values a NodePool allows, when it constrains them with In. */
function capacityTypes(pool: NodePool | undefined): string[] | undefined {
  const req = pool?.spec?.template?.spec?.requirements?.find(
    (q) => q.key === 'karpenter.sh/capacity-type' && q.operator === 'In',
  );
  return req?.values;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
