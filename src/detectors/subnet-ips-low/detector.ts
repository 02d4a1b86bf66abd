import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import type { EC2NodeClass } from '../../domain/kube.ts';
import type { Detector, DetectContext } from '../detector.ts';
import { regionFlag, regionOf } from '../aws-iam/iam-arn.ts';
import {
  describeRoom,
  lowThreshold,
  moreAddressesSteps,
  nodeClassSubnets,
  prefixDelegation,
  prefixDelegationNote,
  roomElsewhere,
  type NodeClassSubnet,
} from '../karpenter/nodeclass-subnets.ts';

type Code = 'SUBNET_IPS_LOW';

/**
 * SUBNET_IPS_LOW: a subnet an EC2NodeClass launches into (`status.subnets`) whose
 * `AvailableIpAddressCount` is below max(16, 5% of its CIDR). One finding per EC2NodeClass,
 * critical when a subnet has none left (launches there fail with InsufficientFreeAddressesInSubnet,
 * pods on nodes there with "failed to assign an IP address to container").
 *
 * It needs `aws ec2 describe-subnets`; without EC2NodeClasses nothing names the subnets Karpenter
 * uses, so it finds nothing and the report lists them as not captured. EC2NodeClasses without
 * `describe-subnets` are the common capture and do not make the report incomplete: the detector is
 * then not asked for. IPv6-only subnets have no IPv4 addresses to run out of and are skipped.
 */
export const subnetIpsLow: Detector<Code> = {
  code: 'SUBNET_IPS_LOW',
  requires: ['subnets'],
  refinedBy: ['ec2nodeclasses', 'pods', 'cluster'],
  detect(ctx) {
    const findings: Finding<Code>[] = [];
    const classes = [...ctx.snapshot.nodeClasses].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
    for (const nc of classes) {
      const judged = nodeClassSubnets(nc, ctx.snapshot.subnets);
      const low = judged.filter((s) => s.low);
      if (low.length > 0) findings.push(findingFor(ctx, nc, judged, low));
    }
    return findings;
  },
};

function findingFor(ctx: DetectContext, nc: EC2NodeClass, judged: NodeClassSubnet[], low: NodeClassSubnet[]): Finding<Code> {
  const name = nc.metadata?.name ?? '?';
  const empty = low.filter((s) => s.free === 0);
  const missing = judged.filter((s) => !s.described);
  const pd = prefixDelegation(ctx.index);
  const region = regionOf({ clusterArn: ctx.snapshot.cluster?.arn, zone: low.find((s) => s.zone)?.zone });
  const headline =
    empty.length > 0
      ? `${empty.length === 1 ? `subnet ${empty[0]?.id} has` : `${empty.length} subnets have`} no free IP addresses`
      : `${low.length === 1 ? `subnet ${low[0]?.id} is` : `${low.length} subnets are`} almost out of IP addresses`;
  const detail = [
    `${low.map(describeRoom).join('; ')}.`,
    empty.length > 0
      ? 'EC2 refuses launches into a subnet with no free address (InsufficientFreeAddressesInSubnet), and pods on its nodes cannot get one.'
      : 'Each node takes an address for itself and, with the VPC CNI, one per pod (or a /28 prefix), so a few launches can use up what is left.',
    roomElsewhere(name, judged, low),
    prefixDelegationNote(pd, low),
  ].join(' ');
  return newFinding({
    code: 'SUBNET_IPS_LOW',
    severity: empty.length > 0 ? 'critical' : 'warning',
    title: `EC2NodeClass ${name}: ${headline}`,
    resource: { kind: 'EC2NodeClass', name },
    since: null,
    cause: { code: 'FEW_FREE_ADDRESSES', detail },
    evidence: [
      ...low.map((s) => `${describeRoom(s)} (low below ${formatThreshold(lowThreshold(s.size))}: max(16, 5% of the CIDR))`),
      ...missing.map(
        (s) => `${s.id} is in status.subnets but describe-subnets did not list it (deleted, or outside the VPC captured?)`,
      ),
      `prefix delegation: ${pd}`,
    ],
    remediation: manualRemediation(
      moreAddressesSteps({ nodeClass: nc, subnetIds: low.map((s) => s.id), judged, region: regionFlag(region) }),
    ),
    counts: { objects: low.length },
  });
}

function formatThreshold(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 1 });
}
