import { commandStep } from '../../domain/finding.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { ControllerDns } from './cluster-dns.ts';
import type { AwsService } from './crash-logs.ts';
import type { DnsAnswer } from './network-failure.ts';

/**
 * Steps for the two network causes the error text tells from a missing route (docs/findings.md,
 * KARPENTER_CONTROLLER_UNHEALTHY): a lookup that failed, and a private endpoint address that does
 * not answer. Each leads with the checks that confirm the cause, and prints a fix only for what the
 * capture shows: never an endpoint to create, since the error says the request never needed one
 * (DNS) or that one exists (a private address).
 */

export interface NetworkEnv {
  namespace: string;
  /** Undefined when the capture does not name the cluster: the steps then read `$CLUSTER_NAME`. */
  clusterName: string | undefined;
  region: string | undefined;
  /** `helm upgrade … --reuse-values --set …` for the controller's release. */
  helmUpgrade: (sets: readonly string[]) => string;
  /** ` (add --version …)` when the chart version is not known. */
  versionNote: string;
  /** `kubectl logs … --previous` of the failing pod. */
  previousLog: string;
  /** The failing pod's name; undefined when only the controller's log was captured. */
  pod: string | undefined;
}

function regionArg(env: Pick<NetworkEnv, 'region'>): string {
  return env.region ? shellQuote(env.region) : '"$AWS_REGION"';
}

/** Appended to a step's reason when its command reads `$CLUSTER_NAME`. */
export function clusterNote(env: Pick<NetworkEnv, 'clusterName'>): string {
  return env.clusterName ? '' : ' (the capture does not name the cluster: set CLUSTER_NAME to it first)';
}

export function clusterArg(env: Pick<NetworkEnv, 'clusterName'>): string {
  return env.clusterName ? shellQuote(env.clusterName) : '"$CLUSTER_NAME"';
}

/** `vpc=$(aws eks describe-cluster … vpcId)`: the cluster's VPC, for the steps after it. */
function vpcStep(env: Pick<NetworkEnv, 'region' | 'clusterName'>, why: string): string {
  return commandStep(
    `${why}${clusterNote(env)}`,
    `vpc=$(aws eks describe-cluster --region ${regionArg(env)} --name ${clusterArg(env)} --query cluster.resourcesVpcConfig.vpcId --output text)`,
  );
}

export interface DnsFailure {
  host: string;
  answer: DnsAnswer;
  dns: ControllerDns;
}

export function dnsSteps(env: NetworkEnv, f: DnsFailure): string[] {
  const ns = shellQuote(env.namespace);
  const coreDnsPods = commandStep(
    'the cluster DNS the controller asks (dnsPolicy ClusterFirst): Pending or missing CoreDNS pods answer nothing',
    'kubectl get pods -n kube-system -l k8s-app=kube-dns -o wide',
  );
  const coreDnsLogs = commandStep(
    'what CoreDNS logged about the name (upstream timeouts, SERVFAIL)',
    'kubectl logs -n kube-system -l k8s-app=kube-dns --tail=100',
  );
  const policies = commandStep(
    "network policies in the controller's namespace, which may drop its DNS traffic to kube-dns (UDP and TCP 53)",
    `kubectl get networkpolicy -n ${ns}`,
  );
  const dnsDefault = (why: string) =>
    commandStep(
      `${why}: dnsPolicy Default makes the controller ask the VPC resolver, so it starts without CoreDNS and then creates the nodes CoreDNS needs (Karpenter's troubleshooting guide, "Failed Resolving STS Credentials with I/O Timeout")${env.versionNote}`,
      env.helmUpgrade(['dnsPolicy=Default']),
    );
  const steps = [commandStep('the lookups that failed', env.previousLog)];
  if (f.answer !== 'none') {
    // A resolver answered (NXDOMAIN or SERVFAIL): it is reachable, so its name data is what to check.
    steps.push(
      vpcStep(env, "the cluster's VPC"),
      commandStep(
        `private hosted zones of the VPC: one named for an AWS domain (made by hand for an endpoint, or shared) answers for every name under it, ${f.host} included`,
        `aws route53 list-hosted-zones-by-vpc --vpc-id "$vpc" --vpc-region ${regionArg(env)} --query 'HostedZoneSummaries[].[Name,HostedZoneId,Owner.OwningAccount]' --output text`,
      ),
    );
    if (f.dns.resolver === 'cluster') steps.push(coreDnsLogs);
    return steps;
  }
  if (f.dns.resolver === 'vpc') {
    // dnsPolicy Default already: the VPC's resolver (or the DHCP options' servers) did not answer.
    steps.push(
      vpcStep(env, "the cluster's VPC"),
      commandStep(
        'whether the VPC resolves names at all (enableDnsSupport must be true)',
        `aws ec2 describe-vpc-attribute --region ${regionArg(env)} --vpc-id "$vpc" --attribute enableDnsSupport --query EnableDnsSupport.Value --output text`,
      ),
      commandStep(
        'the DNS servers the VPC hands out: custom domain-name-servers instead of AmazonProvidedDNS must be reachable and answer for amazonaws.com',
        `aws ec2 describe-dhcp-options --region ${regionArg(env)} --dhcp-options-ids "$(aws ec2 describe-vpcs --region ${regionArg(env)} --vpc-ids "$vpc" --query 'Vpcs[0].DhcpOptionsId' --output text)" --query 'DhcpOptions[].DhcpConfigurations' --output json`,
      ),
    );
    return steps;
  }
  const pods = env.pod ? shellQuote(env.pod) : '-l app.kubernetes.io/name=karpenter';
  if (f.dns.resolver === 'other') {
    steps.push(
      commandStep(
        `the pod's own DNS configuration (dnsPolicy ${f.dns.policy}): its nameservers did not answer`,
        `kubectl get pod -n ${ns} ${pods} -o jsonpath='{.spec.dnsConfig}'`,
      ),
    );
    return steps;
  }
  if (f.dns.resolver === 'unknown') {
    // No pod spec captured: the policy decides which resolver failed, so it is the first check.
    steps.push(
      commandStep(
        "the controller's dnsPolicy (empty is ClusterFirst, which asks CoreDNS; Default asks the VPC's resolver)",
        `kubectl get pods -n ${ns} ${pods} -o custom-columns=NAME:.metadata.name,DNS_POLICY:.spec.dnsPolicy,HOST_NETWORK:.spec.hostNetwork`,
      ),
    );
  }
  const core = f.dns.coreDns;
  if (core && core.running === 0) {
    return [
      ...steps,
      coreDnsPods,
      dnsDefault('no CoreDNS pod is running, so nothing answers the controller'),
      commandStep(
        'or give CoreDNS somewhere to run before Karpenter (a Fargate profile selecting kube-system pods labelled k8s-app=kube-dns, or a managed node group): the Fargate profiles the cluster has',
        `aws eks list-fargate-profiles --region ${regionArg(env)} --cluster-name ${clusterArg(env)}`,
      ),
    ];
  }
  if (core) return [...steps, coreDnsPods, coreDnsLogs, policies];
  // CoreDNS was not captured: its state decides between the two.
  return [
    ...steps,
    coreDnsPods,
    dnsDefault(
      f.dns.resolver === 'unknown' ? 'if the policy is ClusterFirst and no CoreDNS pod is Running' : 'if none of them is Running',
    ),
    commandStep('if they are Running, what they logged', 'kubectl logs -n kube-system -l k8s-app=kube-dns --tail=100'),
    policies,
  ];
}

export interface BlockedEndpoint {
  service: AwsService;
  address: string;
  /** The controller pods' own addresses, which the endpoint's security group must let in. */
  podIps: readonly string[];
}

/** `com.amazonaws.<region>.<name>` of the interface endpoint serving a service. */
function endpointName(service: AwsService): string {
  return service === 'ecr' ? 'ecr.api' : service === 'pricing' ? 'pricing.api' : service;
}

export function blockedEndpointSteps(env: NetworkEnv, b: BlockedEndpoint): string[] {
  const region = regionArg(env);
  const serviceName = `com.amazonaws.${region}.${endpointName(b.service)}`;
  const endpoints = (query: string) =>
    `aws ec2 describe-vpc-endpoints --region ${region} --filters Name=vpc-id,Values="$vpc" Name=service-name,Values=${serviceName} --query ${query} --output text`;
  const vpcCidrs = `aws ec2 describe-vpcs --region ${region} --vpc-ids "$vpc" --query 'Vpcs[].CidrBlockAssociationSet[].CidrBlock' --output text`;
  const pods = b.podIps.length ? ` (the controller pods have ${b.podIps.join(', ')})` : '';
  return [
    commandStep('the calls that timed out', env.previousLog),
    vpcStep(env, "the cluster's VPC"),
    commandStep(
      `what owns ${b.address}: a VPC endpoint's interface says vpc_endpoint and "VPC Endpoint Interface vpce-…", and lists its security groups`,
      `aws ec2 describe-network-interfaces --region ${region} --filters Name=addresses.private-ip-address,Values=${b.address} --query 'NetworkInterfaces[].[NetworkInterfaceId,InterfaceType,Description,Groups[].GroupId]' --output text`,
    ),
    commandStep(
      `the ${endpointName(b.service)} endpoint, its state and security groups`,
      endpoints("'VpcEndpoints[].[VpcEndpointId,State,Groups[].GroupId]'"),
    ),
    commandStep(
      `the inbound rules of those groups: one must allow TCP 443 from the controller's addresses${pods}`,
      `aws ec2 describe-security-groups --region ${region} --group-ids $(${endpoints("'VpcEndpoints[].Groups[].GroupId'")}) --query 'SecurityGroups[].[GroupId,IpPermissions[].[IpProtocol,FromPort,ToPort,IpRanges[].CidrIp,UserIdGroupPairs[].GroupId]]' --output json`,
    ),
    commandStep(
      'the CIDRs of the VPC: a secondary (pod) CIDR added after the endpoint is the one its group most often lacks',
      vpcCidrs,
    ),
    commandStep(
      "allow HTTPS from every CIDR of the VPC into the endpoint's first security group (a rule already there fails as a duplicate, harmlessly); the other endpoints Karpenter uses usually share that group",
      `sg=$(${endpoints("'VpcEndpoints[0].Groups[0].GroupId'")}); for cidr in $(${vpcCidrs}); do aws ec2 authorize-security-group-ingress --region ${region} --group-id "$sg" --protocol tcp --port 443 --cidr "$cidr"; done`,
    ),
    commandStep(
      "if the group already allows them: the network ACLs of the VPC's subnets (inbound 443, and the return ports outbound) or the pods' own security group (security groups for pods) drop the traffic",
      `aws ec2 describe-network-acls --region ${region} --filters Name=vpc-id,Values="$vpc" --query 'NetworkAcls[].[NetworkAclId,Entries[?RuleAction==\`deny\`]]' --output json`,
    ),
  ];
}
