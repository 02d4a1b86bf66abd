/**
 * The subnets an EC2NodeClass launches into (`status.subnets`) with the free addresses
 * `aws ec2 describe-subnets` reports, the VPC CNI's prefix delegation as far as the capture shows
 * it, and the steps that give a NodeClass more addresses. Read by SUBNET_IPS_LOW and by
 * NODECLAIM_LAUNCH_FAILED (`SUBNET_IP_EXHAUSTED`).
 */
import type { Subnet } from '../../domain/aws.ts';
import { commandStep } from '../../domain/finding.ts';
import type { EC2NodeClass, Pod } from '../../domain/kube.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { shellQuote, shellWords } from '../../domain/shell.ts';
import { formatTerm } from './selector-terms.ts';
import { visibleLine } from '../../domain/visible.ts';

/** Fewer free addresses than this is low, whatever the subnet's size (one /28 prefix). */
const MIN_FREE_ADDRESSES = 16;
/** ... or fewer than this share of the subnet's CIDR. */
const LOW_FREE_SHARE = 0.05;

/** Addresses in an IPv4 CIDR (`10.0.0.0/24` → 256), or undefined when it is not one. */
export function cidrSize(cidr: string | undefined): number | undefined {
  const m = cidr ? /^\d{1,3}(?:\.\d{1,3}){3}\/(\d{1,2})$/.exec(cidr.trim()) : null;
  const bits = m ? Number(m[1]) : NaN;
  return bits >= 0 && bits <= 32 ? 2 ** (32 - bits) : undefined;
}

/** The free-address count under which a subnet of this size is low: max(16, 5% of its CIDR). */
export function lowThreshold(size: number | undefined): number {
  return Math.max(MIN_FREE_ADDRESSES, (size ?? 0) * LOW_FREE_SHARE);
}

/** One subnet of an EC2NodeClass as the detectors judge it. */
export interface NodeClassSubnet {
  id: string;
  /** From describe-subnets, else the EC2NodeClass status. */
  zone: string | undefined;
  /** What describe-subnets said; undefined when it did not list the subnet. */
  described: Subnet | undefined;
  free: number | undefined;
  size: number | undefined;
  /** Below max(16, 5% of the CIDR); false when unknown or IPv6-only. */
  low: boolean;
  ipv6Native: boolean;
}

export function judgeSubnet(id: string, statusZone: string | undefined, described: Subnet | undefined): NodeClassSubnet {
  const size = cidrSize(described?.cidrBlock);
  const free = described?.availableIpAddressCount;
  const ipv6Native = described?.ipv6Native === true;
  return {
    id,
    zone: described?.availabilityZone ?? statusZone,
    described,
    free,
    size,
    ipv6Native,
    low: !ipv6Native && free !== undefined && free < lowThreshold(size),
  };
}

/** Every subnet in the EC2NodeClass's `status.subnets`, judged against the captured subnets. */
export function nodeClassSubnets(nodeClass: EC2NodeClass, subnets: readonly Subnet[]): NodeClassSubnet[] {
  const byId = new Map(subnets.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const out: NodeClassSubnet[] = [];
  for (const s of nodeClass.status?.subnets ?? []) {
    if (!s.id || seen.has(s.id)) continue;
    seen.add(s.id);
    out.push(judgeSubnet(s.id, s.zone, byId.get(s.id)));
  }
  return out;
}

/** `subnet-0a (us-east-1a, 10.0.0.0/24): 0 of 256 addresses free`. */
export function describeRoom(s: NodeClassSubnet): string {
  const where = [s.zone, s.described?.cidrBlock].filter(Boolean).join(', ');
  const room =
    s.free === undefined
      ? 'free addresses unknown'
      : s.size !== undefined
        ? `${count(s.free)} of ${count(s.size)} addresses free`
        : `${count(s.free)} addresses free`;
  return `${s.id}${where ? ` (${where})` : ''}: ${room}`;
}

/**
 * Whether other zones of the same EC2NodeClass can take the launches: the subnets there that are
 * not low, as one sentence.
 */
export function roomElsewhere(nodeClassName: string, all: readonly NodeClassSubnet[], full: readonly NodeClassSubnet[]): string {
  const fullZones = new Set(full.map((s) => s.zone));
  const fullIds = new Set(full.map((s) => s.id));
  const others = all.filter((s) => !fullIds.has(s.id) && !s.ipv6Native && s.free !== undefined && !s.low);
  const otherZones = others.filter((s) => !fullZones.has(s.zone));
  const sameZone = others.filter((s) => fullZones.has(s.zone));
  const list = (xs: readonly NodeClassSubnet[]) =>
    xs.map((s) => `${s.id} in ${s.zone ?? 'an unknown zone'} (${count(s.free ?? 0)} free)`).join(', ');
  const parts: string[] = [];
  if (otherZones.length > 0) {
    parts.push(
      `Other zones of EC2NodeClass ${nodeClassName} still have room: ${list(otherZones)}; Karpenter launches there only where the NodePool's zone requirements and the pods' topology allow it.`,
    );
  } else {
    parts.push(`No other zone of EC2NodeClass ${nodeClassName} has a subnet with room.`);
  }
  if (sameZone.length > 0) parts.push(`In the same zone, ${list(sameZone)} still has room.`);
  return parts.join(' ');
}

export type PrefixDelegation = 'on' | 'off' | 'not captured';

/**
 * The VPC CNI's `ENABLE_PREFIX_DELEGATION` as the captured `aws-node` pods show it. A live scan
 * reads only Pending and controller pods, and no capture holds DaemonSets: then "not captured".
 */
export function prefixDelegation(index: SnapshotIndex): PrefixDelegation {
  if (!index.snapshot.captured.has('pods')) return 'not captured';
  // aws-node runs in kube-system: the index lists those pods, so the cluster's 50,000 others are not read again.
  const awsNode = index.kubeSystemPods.filter(isAwsNodePod);
  if (awsNode.length === 0) return 'not captured';
  const on = awsNode.some((p) =>
    (p.spec?.containers ?? [])
      .filter((c) => c.name === 'aws-node')
      .some((c) => (c.env ?? []).some((e) => e.name === 'ENABLE_PREFIX_DELEGATION' && e.value?.toLowerCase() === 'true')),
  );
  return on ? 'on' : 'off';
}

/** `p` is in kube-system (SnapshotIndex.kubeSystemPods). */
function isAwsNodePod(p: Pod): boolean {
  return p.metadata?.labels?.['k8s-app'] === 'aws-node' || /^aws-node-[a-z0-9]{5}$/.test(p.metadata?.name ?? '');
}

/** One sentence on prefix delegation for a finding's detail. */
export function prefixDelegationNote(pd: PrefixDelegation, low: readonly NodeClassSubnet[]): string {
  if (pd === 'not captured') return 'Prefix delegation: not captured (no aws-node pod in the capture).';
  if (pd === 'off')
    return 'Prefix delegation is off (aws-node has no ENABLE_PREFIX_DELEGATION=true): every pod takes one address.';
  const tight = low.filter((s) => s.free !== undefined && s.free < MIN_FREE_ADDRESSES);
  return `Prefix delegation is on (aws-node ENABLE_PREFIX_DELEGATION=true): nodes take addresses in /28 prefixes of 16 contiguous addresses${
    tight.length > 0
      ? `, so ${tight.map((s) => s.id).join(', ')}, with fewer than 16 free, cannot give a node a prefix at all`
      : ''
  }.`;
}

export interface MoreAddressesInput {
  nodeClass: EC2NodeClass | undefined;
  /** The subnets out of addresses (ids; judged when captured). */
  subnetIds: readonly string[];
  judged: readonly NodeClassSubnet[];
  /** ` --region us-east-1` or ''. */
  region: string;
}

const DESCRIBE_QUERY = `--query 'Subnets[].[SubnetId,AvailabilityZone,CidrBlock,AvailableIpAddressCount]' --output table`;

/**
 * The steps that give an EC2NodeClass addresses: check the subnets, create a subnet in each full
 * zone tagged so the NodeClass's subnetSelectorTerms select it, or a secondary VPC CIDR first.
 */
export function moreAddressesSteps(input: MoreAddressesInput): string[] {
  const { nodeClass, region: r } = input;
  const name = nodeClass?.metadata?.name;
  const ncArg = name ? shellQuote(name) : '<ec2nodeclass>';
  const terms = nodeClass?.spec?.subnetSelectorTerms ?? [];
  const steps: string[] = [];
  if (input.subnetIds.length > 0) {
    steps.push(`aws ec2 describe-subnets --subnet-ids ${shellWords(input.subnetIds)}${r} ${DESCRIBE_QUERY}`);
  } else {
    steps.push(`kubectl get ec2nodeclass ${ncArg} -o jsonpath='{range .status.subnets[*]}{.id}{" "}{.zone}{"\\n"}{end}'`);
  }
  const judged = input.judged.filter((s) => input.subnetIds.includes(s.id));
  const vpc = judged.find((s) => s.described?.vpcId)?.described?.vpcId;
  const vpcArg = vpc ? shellQuote(vpc) : '<vpc-id>';
  const zones = [...new Set(judged.flatMap((s) => (s.zone ? [s.zone] : [])))];
  for (const zone of zones.length > 0 ? zones : ['<zone>']) {
    const zoneArg = zone === '<zone>' ? zone : shellQuote(zone);
    steps.push(
      commandStep(
        `a new subnet in ${zone}${vpc ? ` in ${vpc}` : ''}: choose a CIDR block of the VPC no subnet uses yet (a /20 gives 4,091 addresses)`,
        `aws ec2 create-subnet --vpc-id ${vpcArg} --availability-zone ${zoneArg} --cidr-block <unused-cidr>${r}`,
      ),
    );
  }
  const tagTerm = terms.find((t) => !t.id && Object.keys(t.tags ?? {}).length > 0);
  if (tagTerm) {
    const tags = Object.entries(tagTerm.tags ?? {}).map(([k, v]) => shellQuote(`Key=${k},Value=${v === '*' ? '' : v}`));
    steps.push(
      commandStep(
        `tag it so EC2NodeClass ${name ?? ''} selects it: its subnetSelectorTerms are ${terms.map(formatTerm).join(', ')}`,
        `aws ec2 create-tags --resources <new-subnet-id> --tags ${tags.join(' ')}${r}`,
      ),
    );
  } else {
    steps.push(
      commandStep(
        `EC2NodeClass ${name ?? ''} selects subnets ${terms.length > 0 ? `by id (${terms.map(formatTerm).join(', ')})` : 'by terms not captured'}: add the new subnet's id to subnetSelectorTerms`,
        `kubectl edit ec2nodeclass ${ncArg}`,
      ),
    );
  }
  steps.push(
    commandStep(
      'if the VPC has no unused CIDR block left, give it a secondary CIDR first (e.g. 100.64.0.0/16) and create the subnets in it',
      `aws ec2 associate-vpc-cidr-block --vpc-id ${vpcArg} --cidr-block <new-cidr>${r}`,
    ),
    `then check Karpenter picked the new subnet up: ${name ? `EC2NodeClass ${visibleLine(name)}` : 'the EC2NodeClass'} status.subnets lists it within a few minutes`,
    'note: VPC CNI prefix delegation (ENABLE_PREFIX_DELEGATION=true on the aws-node DaemonSet) packs pods into /28 prefixes, fewer addresses per node but 16 contiguous ones at a time; custom networking (ENIConfig per zone) moves pod addresses into other subnets, e.g. in a 100.64.0.0/10 secondary CIDR',
  );
  return steps;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
