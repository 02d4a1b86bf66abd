import type { ClusterInfo } from '../../domain/aws.ts';
import { shellQuote } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import { regionFlag } from '../aws-iam/iam-arn.ts';

/**
 * A cluster whose API endpoint is private only (`aws eks describe-cluster`:
 * `resourcesVpcConfig.endpointPublicAccess: false`). A node then reaches the API server only
 * through the endpoint's network interfaces in the VPC: its name resolves to them through the
 * private hosted zone EKS attaches to the VPC, which answers only when the VPC has both
 * `enableDnsSupport` and `enableDnsHostnames`, and the connection passes the cluster security
 * group, which must allow HTTPS (443) from the nodes' security group (docs/findings.md,
 * NODECLAIM_NOT_REGISTERED). The capture holds neither the VPC's attributes nor the group's rules,
 * so this is what to check first, not a cause.
 */
export interface PrivateEndpoint {
  /** A sentence for the finding's detail. */
  why: string;
  evidence: string[];
  /** The checks, in the order they rule things out: DNS first, then the security group. */
  steps: string[];
}

/** Undefined unless the captured cluster says its public endpoint is off. */
export function privateEndpointChecks(
  cluster: ClusterInfo | undefined,
  clusterName: string,
  region: string | undefined,
): PrivateEndpoint | undefined {
  if (cluster?.endpointPublicAccess !== false) return undefined;
  const r = regionFlag(region);
  const vpc = cluster.vpcId;
  const group = cluster.clusterSecurityGroupId;
  // describe-cluster printed without those fields (a --query, an old CLI): read them into variables first.
  const lookups = [
    ...(vpc === undefined
      ? [
          `VPC_ID=$(aws eks describe-cluster --name ${shellQuote(clusterName)}${r} --query cluster.resourcesVpcConfig.vpcId --output text)`,
        ]
      : []),
    ...(group === undefined
      ? [
          `CLUSTER_SG=$(aws eks describe-cluster --name ${shellQuote(clusterName)}${r} --query cluster.resourcesVpcConfig.clusterSecurityGroupId --output text)`,
        ]
      : []),
  ];
  const vpcArg = vpc === undefined ? '"$VPC_ID"' : shellQuote(vpc);
  const groupArg = group === undefined ? '"$CLUSTER_SG"' : shellQuote(group);
  const vpcText = vpc === undefined ? 'the cluster VPC' : `VPC ${visibleLine(vpc)}`;
  const groupText = group === undefined ? 'the cluster security group' : `the cluster security group ${visibleLine(group)}`;
  return {
    why:
      `The cluster's API endpoint is private only (endpointPublicAccess false), so a node reaches it only inside the VPC: ` +
      `its name resolves through the private hosted zone of ${vpcText}, which needs enableDnsSupport and enableDnsHostnames both true, ` +
      `and the connection must pass ${groupText}, which must allow HTTPS (443) from the nodes' security group. ` +
      'The capture holds neither the VPC attributes nor the group rules: the first steps check them.',
    evidence: [
      `describe-cluster: endpointPublicAccess false, endpointPrivateAccess ${String(cluster.endpointPrivateAccess ?? 'not shown')}` +
        `${vpc === undefined ? '' : `, VPC ${visibleLine(vpc)}`}${group === undefined ? '' : `, cluster security group ${visibleLine(group)}`}`,
    ],
    steps: [
      ...lookups,
      `aws ec2 describe-vpc-attribute --vpc-id ${vpcArg} --attribute enableDnsSupport${r}   # must be true: the private endpoint's name resolves only through the VPC's DNS`,
      `aws ec2 describe-vpc-attribute --vpc-id ${vpcArg} --attribute enableDnsHostnames${r}   # must be true too, or the private hosted zone does not answer`,
      `aws ec2 describe-security-groups --group-ids ${groupArg}${r} --query 'SecurityGroups[0].IpPermissions'   # must allow tcp 443 from the security groups of the nodes' instances`,
    ],
  };
}
