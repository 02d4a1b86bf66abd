import type { PodSpec } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import { logText } from '../cloud-errors/cloud-errors.ts';
import { controllerDns, type ControllerDns } from './cluster-dns.ts';
import type { AwsUnreachable } from './crash-logs.ts';
import { networkFailure } from './network-failure.ts';
import type { UnhealthyStepCause } from './unhealthy-steps.ts';

export interface NetworkDiagnosis {
  cause: UnhealthyStepCause;
  /** What the evidence says, after `Karpenter cannot reach the AWS API of sts ("…")`. */
  why: string;
  /** Evidence beyond the quoted log line. */
  evidence: string[];
}

/**
 * One explanation per error text, not one per symptom (docs/findings.md,
 * KARPENTER_CONTROLLER_UNHEALTHY): a lookup that failed is DNS, a private address that does not
 * answer is an endpoint that exists and is filtered, a public one is a missing route.
 */
export function diagnoseNetwork(
  aws: AwsUnreachable,
  spec: PodSpec | undefined,
  podIps: readonly string[],
  snapshot: ClusterSnapshot,
): NetworkDiagnosis {
  const failure = networkFailure(logText(aws.line), snapshot.subnets);
  const unreachable: NetworkDiagnosis = {
    cause: { cause: 'AWS_API_UNREACHABLE', services: aws.services },
    why: `its subnets have no route to ${aws.services.length === 1 ? 'that endpoint' : 'those endpoints'}, a private subnet with neither a NAT gateway nor VPC endpoints for them`,
    evidence: [],
  };
  switch (failure.kind) {
    case 'dns': {
      const dns = controllerDns(spec, snapshot);
      return {
        cause: { cause: 'DNS_RESOLUTION_FAILED', host: failure.host, answer: failure.answer, dns },
        why: `${dnsWhy(failure.host, failure.answer)}${failure.answer === 'none' ? resolverWhy(dns) : ''}`,
        evidence: dnsEvidence(dns),
      };
    }
    case 'private-address': {
      const service = aws.services[0];
      if (!service) return unreachable;
      const where = failure.subnet
        ? `, in subnet ${failure.subnet.id} (${failure.subnet.cidrBlock ?? '?'})`
        : ' of a range VPCs use';
      return {
        cause: { cause: 'VPC_ENDPOINT_BLOCKED', service, address: failure.address, podIps },
        why: `the name resolved to ${failure.address}, a private address${where}: an interface endpoint's private DNS gives that, so the endpoint exists and the connection to it is dropped, most often by the endpoint's security group lacking the controller's CIDR (a secondary pod CIDR added later), else by a network ACL`,
        evidence: podIps.length ? [`controller pod addresses: ${podIps.join(', ')}`] : [],
      };
    }
    case 'public-address':
      return {
        ...unreachable,
        why: `${failure.address} is a public address, so no interface endpoint answered for the name, and ${unreachable.why}`,
      };
    case 'unknown':
      return unreachable;
  }
}

function dnsWhy(host: string, answer: 'none' | 'nxdomain' | 'servfail'): string {
  if (answer === 'nxdomain')
    return `a resolver answered that ${host} does not exist (no such host): DNS, not routing, and the resolver is reachable, so its name data is what is wrong (a private hosted zone answering for the AWS domain, a wrong region)`;
  if (answer === 'servfail')
    return `the resolver failed to answer for ${host} (server misbehaving): DNS, not routing; it is reachable, and what it forwards to is not`;
  return `the lookup of ${host} got no answer, so no connection was even tried: DNS, not routing`;
}

function resolverWhy(dns: ControllerDns): string {
  if (dns.resolver === 'vpc')
    return `. The controller's dnsPolicy is ${dns.policy}: it asks the VPC's resolver, which did not answer`;
  if (dns.resolver === 'other')
    return `. The controller's dnsPolicy is ${dns.policy}: the nameservers of its dnsConfig did not answer`;
  if (dns.resolver === 'unknown')
    return ". The controller's dnsPolicy was not captured: with ClusterFirst (the chart's default since v0.34) it asks CoreDNS, and if no CoreDNS pod runs nothing answers; with Default it asks the VPC's resolver";
  const asks = `. The controller's dnsPolicy is ${dns.policy}, so it asks the cluster DNS Service`;
  const core = dns.coreDns;
  if (!core)
    return `${asks}; CoreDNS was not captured: if no CoreDNS pod runs (Karpenter on Fargate, or on the nodes it has yet to create), nothing answers`;
  if (core.running === 0)
    return `${asks}, and no CoreDNS pod is running (0 of ${core.pods}): nothing answers until Karpenter creates the nodes CoreDNS needs`;
  return `${asks}; CoreDNS runs (${core.running} of ${core.pods} pods), so its answer is lost on the way (a network policy) or it gets none upstream`;
}

function dnsEvidence(dns: ControllerDns): string[] {
  const core = dns.coreDns;
  return [
    `controller dnsPolicy: ${dns.policy}`,
    ...(core ? [`CoreDNS (k8s-app=kube-dns): ${core.running} of ${core.pods} running: ${core.states.join(', ')}`] : []),
  ];
}
