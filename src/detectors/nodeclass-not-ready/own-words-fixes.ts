import { commandStep } from '../../domain/finding.ts';
import type { Condition, EC2NodeClass } from '../../domain/kube.ts';
import { shellQuote } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import { mergePatch, nameOf, quoted, type Explanation, type FixContext } from './nodeclass-fix-context.ts';
import { NETWORK_FAILURE } from './own-words.ts';

const CIDR_WHY =
  "Karpenter reads the cluster's service CIDR with eks:DescribeCluster to bootstrap AL2023 nodes, and leaves the EC2NodeClass not ready until it can.";

/**
 * `Failed to detect the cluster CIDR` (Ready before v1.7, ValidationSucceeded `ClusterCIDRResolutionFailed`
 * since): Karpenter's DescribeCluster call failed. The controller log's `failed to detect the cluster
 * CIDR, <error>` tells a denied call, a cluster name that names no cluster, and an unreachable EKS
 * API apart; without it all three are named and the checks lead.
 */
export function explainClusterCidr(c: Condition, nc: EC2NodeClass, fx: FixContext, logError: string | undefined): Explanation {
  const name = nameOf(nc);
  const r = fx.regionFlag;
  const describe = `aws eks describe-cluster --name ${shellQuote(fx.clusterName)}${r} --query cluster.kubernetesNetworkConfig`;
  const said = `(${quoted(c)}${logError ? `; the controller log: ${visibleLine(logError)}` : ''})`;
  if (logError && /AccessDenied|not authorized|UnauthorizedOperation/i.test(logError)) {
    return {
      detail: `EC2NodeClass ${name}: the controller role may not call eks:DescribeCluster ${said}. ${CIDR_WHY}`,
      steps: fx.grant(['eks:DescribeCluster'], fx.clusterArn, logError),
    };
  }
  if (logError && /ResourceNotFoundException|No cluster found/i.test(logError)) {
    return {
      detail: `EC2NodeClass ${name}: eks:DescribeCluster found no cluster by the name the controller is configured with (CLUSTER_NAME, settings.clusterName) ${said}. ${CIDR_WHY}`,
      steps: [
        `kubectl get deploy -n ${shellQuote(fx.controllerNamespace)} -l app.kubernetes.io/name=karpenter -o jsonpath='{.items[*].spec.template.spec.containers[*].env[?(@.name=="CLUSTER_NAME")].value}'`,
        `aws eks list-clusters${r}`,
        "set settings.clusterName (helm) to the cluster's exact name",
      ],
    };
  }
  if (logError && NETWORK_FAILURE.test(logError)) {
    return {
      detail: `EC2NodeClass ${name}: the controller cannot reach the EKS API to call DescribeCluster ${said}. ${CIDR_WHY}`,
      steps: [
        `aws ec2 describe-vpc-endpoints${r} --filters Name=service-name,Values=${shellQuote(`com.amazonaws.${fx.region ?? '<region>'}.eks`)} --query 'VpcEndpoints[].[VpcEndpointId,State,Groups[].GroupId]'   # a private cluster needs the eks interface endpoint, or a route out`,
      ],
    };
  }
  return {
    detail:
      `EC2NodeClass ${name}: Karpenter's eks:DescribeCluster call failed ${said}. ${CIDR_WHY} ` +
      'It can be: the controller role lacks eks:DescribeCluster (the commonest), the controller\'s cluster name names no cluster in this region, or the EKS API is unreachable from the controller; Karpenter v1.0 to v1.6 may also keep the message after a passing failure until the controller restarts (aws/karpenter-provider-aws#7875). The AWS error after "failed to detect the cluster CIDR," in the controller log tells which.',
    steps: [
      commandStep(
        'The AWS error tells the causes apart',
        `kubectl logs -n ${shellQuote(fx.controllerNamespace)} -l app.kubernetes.io/name=karpenter --tail=500 | grep -i 'cluster CIDR'`,
      ),
      commandStep('The call Karpenter makes (run it as the controller role to reproduce)', describe),
      'AccessDenied: allow eks:DescribeCluster on the cluster ARN to the controller role; ResourceNotFoundException: fix settings.clusterName; a timeout: give the controller a route to the EKS API',
    ],
  };
}

/**
 * The nodeclass controller cannot reach iam.amazonaws.com while resolving the instance profile of a
 * class with `spec.role`: Karpenter creates and reads that profile through IAM, and IAM has no VPC
 * endpoint, so a private VPC needs `spec.instanceProfile` (a profile made outside the cluster,
 * Karpenter v0.32.2+) instead. A failed name lookup is DNS instead, checked first.
 */
export function explainIamUnreachable(nc: EC2NodeClass, logError: string): Explanation {
  const name = nameOf(nc);
  const role = nc.spec?.role;
  const roleName = role ? role.slice(role.lastIndexOf('/') + 1) : undefined;
  const dns = /lookup iam\.amazonaws\.com/i.test(logError);
  const why = dns
    ? 'the controller could not resolve iam.amazonaws.com (a DNS lookup failed, so DNS in the cluster is the first suspect)'
    : 'the controller could not connect to iam.amazonaws.com';
  const steps: string[] = [];
  if (dns) {
    steps.push(
      commandStep(
        'DNS first: CoreDNS must be running, and the controller pods resolve through it with dnsPolicy ClusterFirst',
        'kubectl get pods -n kube-system -l k8s-app=kube-dns -o wide',
      ),
    );
  }
  const profile = '<instance-profile-name>';
  steps.push(
    commandStep(
      `IAM has no VPC endpoint: create the instance profile outside the cluster${roleName ? ` with node role ${roleName}` : ''}`,
      `aws iam create-instance-profile --instance-profile-name ${profile}`,
    ),
    `aws iam add-role-to-instance-profile --instance-profile-name ${profile} --role-name ${roleName ? shellQuote(roleName) : '<node-role>'}`,
    commandStep(
      'Then name it in the EC2NodeClass instead of spec.role (Karpenter v0.32.2+)',
      mergePatch(nc, { role: null, instanceProfile: profile }),
    ),
    'or give the controller a route to iam.amazonaws.com (a NAT gateway or an HTTPS proxy)',
  );
  return {
    detail: `EC2NodeClass ${name}: Karpenter cannot resolve its instance profile because ${why} (the controller log: ${visibleLine(logError)}). ${role ? `With spec.role ${role} Karpenter creates and reads the instance profile through the IAM API, ` : 'Karpenter reads instance profiles through the IAM API, '}and IAM has no VPC endpoint: in a VPC without internet access the EC2NodeClass must name a pre-created profile in spec.instanceProfile.`,
    steps,
  };
}

/** No sub-condition explains, and Karpenter's words do not map to a cause: quote them. */
export function explainUnmapped(nc: EC2NodeClass, fx: FixContext, text: string, origin: string): Explanation {
  const name = nameOf(nc);
  return {
    detail: `EC2NodeClass ${name} is not ready and no sub-condition says why; Karpenter says (${origin}): ${visibleLine(text)}`,
    steps: [
      `kubectl describe ec2nodeclass ${shellQuote(name)}`,
      `kubectl logs -n ${shellQuote(fx.controllerNamespace)} -l app.kubernetes.io/name=karpenter --tail=500 | grep -i ${shellQuote(name)}`,
    ],
  };
}
