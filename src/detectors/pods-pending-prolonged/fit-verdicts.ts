import { commandStep } from '../../domain/finding.ts';
import type { EC2NodeClass, NodeSelectorRequirementWithMinValues, Pod } from '../../domain/kube.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { InstanceTypeShortfall } from '../scheduling/instance-type-messages.ts';
import { ZONE_ID_KEY } from '../scheduling/instance-type-messages.ts';
import { formatQuantity, parseQuantity, type ResourceAmounts } from '../scheduling/quantity.ts';
import { formatRequirement, podRequests } from '../scheduling/scheduling.ts';
import type { PoolFacts, WorkloadVerdict } from './workload-verdicts.ts';
import { describeCoverage, type PoolZones } from './zones.ts';
import { visibleLine } from '../../domain/visible.ts';
import type { EstimateWords } from './type-estimate.ts';
import { helmUpgrade, versionNote, type KarpenterRelease } from '../karpenter/helm.ts';

/**
 * NO_INSTANCE_TYPE_FITS and TOPOLOGY_UNSATISFIABLE: a NodePool matches the pods, yet nothing it may
 * launch takes them: no allowed instance type is big enough (or has the GPU, or meets minValues),
 * or the zone they need is one no NodePool's subnets reach.
 */

/** Labels of the AWS provider (`karpenter.k8s.aws/…`) instance types carry; anything else under the prefix is a typo. */
const AWS_LABELS = [
  'instance-category',
  'instance-family',
  'instance-generation',
  'instance-size',
  'instance-cpu',
  'instance-cpu-manufacturer',
  'instance-cpu-sustained-clock-speed-mhz',
  'instance-memory',
  'instance-ebs-bandwidth',
  'instance-network-bandwidth',
  'instance-gpu-name',
  'instance-gpu-manufacturer',
  'instance-gpu-count',
  'instance-gpu-memory',
  'instance-accelerator-name',
  'instance-accelerator-manufacturer',
  'instance-accelerator-count',
  'instance-hypervisor',
  'instance-encryption-in-transit-supported',
  'instance-local-nvme',
  'instance-capability-flex',
  'instance-tenancy',
  'capacity-reservation-id',
  'capacity-reservation-type',
  'ec2nodeclass',
].map((l) => `karpenter.k8s.aws/${l}`);

const SHAPING =
  /^(?:karpenter\.k8s\.aws\/instance-|node\.kubernetes\.io\/instance-type$|kubernetes\.io\/arch$|karpenter\.sh\/capacity-type$)/;
const GPU_RESOURCES: Record<string, { categories: string[]; what: string }> = {
  'nvidia.com/gpu': { categories: ['g', 'p'], what: 'NVIDIA GPU' },
  'amd.com/gpu': { categories: ['g'], what: 'AMD GPU' },
  'aws.amazon.com/neuron': { categories: ['inf', 'trn'], what: 'AWS Neuron' },
  'aws.amazon.com/neuroncore': { categories: ['inf', 'trn'], what: 'AWS Neuron' },
};

export interface InstanceTypeInput {
  pod: Pod;
  shortfalls: InstanceTypeShortfall[];
  /** The NodePools the pods match and Karpenter would use. */
  pools: PoolFacts[];
  /** NodePool → its `NoCompatibleInstanceTypes` event message. */
  poolEvents: ReadonlyMap<string, string>;
  quoted: string[];
  typos: { label: string; suggestion: string }[];
  /** The controller's Helm release, for the minValues policy step. */
  release: KarpenterRelease;
  /** Our own evaluation of the allowed instance types (docs/instance-types.md), when it has one. */
  estimate?: EstimateWords;
  /** NodePools Karpenter named, when none was captured. */
  namedPools?: string[];
}

function requestsText(requests: ResourceAmounts): string {
  return (
    Object.entries(requests)
      .filter(([k, v]) => v > 0 && k !== 'pods')
      .map(([k, v]) => `${k} ${formatQuantity(k, v)}`)
      .join(', ') || 'no resource requests'
  );
}

/** A requirement of the pool that keeps out every type big enough for the requests, and why. */
function excluding(
  r: NodeSelectorRequirementWithMinValues,
  requests: ResourceAmounts,
  needed: ResourceAmounts,
): string | undefined {
  const why = excludingFor(r, requests, 'the pods request');
  return why ?? excludingFor(r, needed, 'with DaemonSet overhead the pods need');
}

function excludingFor(r: NodeSelectorRequirementWithMinValues, requests: ResourceAmounts, the: string): string | undefined {
  const bound = (unit: number) => {
    const values = (r.values ?? []).map((v) => Number.parseInt(v, 10)).filter((n) => !Number.isNaN(n));
    if (r.operator === 'Lt' && values[0] !== undefined) return (values[0] - 1) * unit;
    if (r.operator === 'In' && values.length) return Math.max(...values) * unit;
    return undefined;
  };
  if (r.key === 'karpenter.k8s.aws/instance-cpu') {
    const most = bound(1);
    const cpu = requests.cpu ?? 0;
    if (most !== undefined && cpu > most)
      return `${formatRequirement(r)} allows at most ${most} vCPUs; ${the} ${formatQuantity('cpu', cpu)}`;
  }
  if (r.key === 'karpenter.k8s.aws/instance-memory') {
    const most = bound(2 ** 20);
    const memory = requests.memory ?? 0;
    if (most !== undefined && memory > most)
      return `${formatRequirement(r)} allows at most ${formatQuantity('memory', most)} of memory; ${the} ${formatQuantity('memory', memory)}`;
  }
  for (const [resource, gpu] of Object.entries(GPU_RESOURCES)) {
    if (!(requests[resource] ?? 0)) continue;
    const values = r.values ?? [];
    if (r.key === 'karpenter.k8s.aws/instance-category' && r.operator === 'In' && !values.some((v) => gpu.categories.includes(v)))
      return `${formatRequirement(r)} allows no ${gpu.what} instance (categories ${gpu.categories.join(', ')}); ${the} ${resource} ${formatQuantity(resource, requests[resource] ?? 0)}`;
    if (
      r.key === 'karpenter.k8s.aws/instance-category' &&
      r.operator === 'NotIn' &&
      gpu.categories.every((c) => values.includes(c))
    )
      return `${formatRequirement(r)} excludes every ${gpu.what} instance; ${the} ${resource}`;
    if (
      r.key === 'karpenter.k8s.aws/instance-family' &&
      r.operator === 'In' &&
      !values.some((v) => gpu.categories.some((c) => v.startsWith(c) && /\d/.test(v.slice(c.length, c.length + 1))))
    )
      return `${formatRequirement(r)} holds no ${gpu.what} family; ${the} ${resource}`;
    if (r.key === 'karpenter.k8s.aws/instance-gpu-count' && (r.operator === 'Lt' || r.operator === 'In')) {
      const most = bound(1);
      if (most !== undefined && (requests[resource] ?? 0) > most)
        return `${formatRequirement(r)} allows at most ${most} GPU(s); ${the} ${formatQuantity(resource, requests[resource] ?? 0)}`;
    }
  }
  return undefined;
}

/** Karpenter's `resources={...}` (pod plus daemonset overhead) as amounts. */
function amounts(resources: Record<string, string> | undefined): ResourceAmounts {
  const out: ResourceAmounts = {};
  for (const [k, v] of Object.entries(resources ?? {})) {
    const n = parseQuantity(v);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

function closestAwsLabel(key: string): string | undefined {
  const suffix = key.replace(/^[^/]*\//, '');
  return AWS_LABELS.find((l) => {
    const s = l.replace(/^[^/]*\//, '');
    return s.startsWith(suffix.slice(0, 10)) || suffix.startsWith(s.slice(0, 10));
  });
}

export function instanceTypeVerdict(input: InstanceTypeInput): WorkloadVerdict {
  const { pod, shortfalls, pools, poolEvents, quoted } = input;
  const requests = podRequests(pod);
  const printed = shortfalls.find((s) => s.resources)?.resources;
  const needed = { ...requests, ...amounts(printed) };
  const evidence = [...quoted];
  const steps: string[] = [];
  const reasons: string[] = [];
  const minValues = shortfalls.some((s) => s.minValues) || [...poolEvents.values()].some((m) => /minValues/i.test(m));
  for (const p of pools.slice(0, 3)) {
    const requirements = p.pool.spec?.template?.spec?.requirements ?? [];
    const event = poolEvents.get(p.name);
    if (event) evidence.push(`NodePool ${p.name} (event NoCompatibleInstanceTypes): ${event}`);
    const shaping = requirements.filter((r) => SHAPING.test(r.key));
    if (shaping.length) evidence.push(`NodePool ${p.name} requirements: ${shaping.map(requirementText).join(', ')}`);
    steps.push(`kubectl get nodepool ${shellQuote(p.name)} -o yaml`);
    const blockers = requirements.flatMap((r) => {
      const why = excluding(r, requests, needed);
      return why ? [{ r, why }] : [];
    });
    for (const { r, why } of blockers) {
      reasons.push(`NodePool ${p.name}: ${why}`);
      steps.push(
        commandStep(
          `widen requirement ${formatRequirement(r)} of NodePool ${p.name} (in spec.template.spec.requirements) so that a type with ${requestsText(needed)} qualifies, or remove it`,
          `kubectl edit nodepool ${shellQuote(p.name)}`,
        ),
      );
    }
    const typos = requirements.filter((r) => r.key.startsWith('karpenter.k8s.aws/') && !AWS_LABELS.includes(r.key));
    for (const r of typos) {
      const near = closestAwsLabel(r.key);
      reasons.push(`NodePool ${p.name}: ${r.key} is no label of any instance type${near ? ` (typo of ${near}?)` : ''}`);
      steps.push(
        commandStep(
          `fix the label key ${r.key} of NodePool ${p.name}${near ? `: did you mean ${near}?` : ''}`,
          `kubectl edit nodepool ${shellQuote(p.name)}`,
        ),
      );
    }
    const withMin = requirements.filter((r) => r.minValues !== undefined);
    if (minValues && withMin.length) {
      reasons.push(`NodePool ${p.name}: minValues not met by ${withMin.map(requirementText).join(', ')}`);
      steps.push(
        commandStep(
          `lower minValues or widen ${withMin.map(formatRequirement).join(', ')} of NodePool ${p.name}`,
          `kubectl edit nodepool ${shellQuote(p.name)}`,
        ),
      );
    }
    if (!blockers.length && !typos.length && !(minValues && withMin.length) && shaping.length) {
      steps.push(
        commandStep(
          `widen NodePool ${p.name}'s instance requirements (${shaping.map(formatRequirement).join(', ')}) until some type fits ${requestsText(needed)}`,
          `kubectl edit nodepool ${shellQuote(p.name)}`,
        ),
      );
    }
  }
  for (const t of input.typos) {
    reasons.push(`label ${t.label} has no known values (typo of ${t.suggestion}?)`);
    steps.push(
      `fix the label key ${visibleLine(t.label)}: did you mean ${visibleLine(t.suggestion)}? (in the NodePool requirements or the pods' nodeSelector/affinity)`,
    );
  }
  if (minValues) {
    steps.push(
      commandStep(
        `or let Karpenter launch when it cannot meet minValues (MIN_VALUES_POLICY=BestEffort, Helm value settings.minValuesPolicy, Karpenter v1.4+)${versionNote(input.release)}`,
        helmUpgrade(input.release, ['settings.minValuesPolicy=BestEffort']),
      ),
    );
  }
  if (!input.estimate?.reasons.length && shortfalls.some((s) => /offering/.test(s.reason)))
    steps.push(
      commandStep(
        'no allowed type has an offering (zone and capacity type) left: widen karpenter.sh/capacity-type or the zones, or look for insufficient capacity',
        'kubectl get events -A --field-selector reason=InsufficientCapacityError',
      ),
    );
  const estimate = input.estimate;
  if (estimate) {
    reasons.unshift(...estimate.reasons);
    evidence.push(...estimate.evidence);
    steps.unshift(...estimate.checks);
    for (const name of pools.length ? [] : (input.namedPools ?? []).slice(0, 3))
      steps.push(
        commandStep(
          `widen NodePool ${name}'s instance requirements until a type fits ${requestsText(needed)}`,
          `kubectl edit nodepool ${shellQuote(name)}`,
        ),
      );
    steps.push(...estimate.steps);
  }
  steps.push(
    commandStep(
      `or lower the pods' requests (now ${requestsText(requests)}) in their owner`,
      `kubectl get pod -n ${shellQuote(pod.metadata?.namespace ?? 'default')} ${shellQuote(pod.metadata?.name ?? '')} -o jsonpath='{range .spec.containers[*]}{.name}: {.resources.requests}{"\\n"}{end}'`,
    ),
  );
  for (const s of shortfalls.slice(0, 2))
    if (s.requirements.length) evidence.push(`Karpenter's requirements: ${s.requirements.join(', ')}`);
  const names = pools.length ? pools.map((p) => p.name) : (input.namedPools ?? []);
  const what =
    shortfalls[0]?.reason ??
    (poolEvents.size ? 'NodePool requirements filtered out all compatible available instance types' : '');
  const detail = [
    `NodePool${names.length === 1 ? '' : 's'} ${names.join(', ') || '(unnamed)'} match${names.length === 1 ? 'es' : ''} these pods, but no instance type ${names.length === 1 ? 'it allows' : 'they allow'} can take them${what ? ` (Karpenter: ${what})` : ''}.`,
    `The pods request ${requestsText(requests)}${printed ? `; with DaemonSet overhead Karpenter needs ${JSON.stringify(printed)}` : ''}.`,
    ...reasons.slice(0, 3).map((r) => `${r}.`),
  ].join(' ');
  return { cause: 'NO_INSTANCE_TYPE_FITS', detail, evidence: [...new Set(evidence)], steps: [...new Set(steps)] };
}

function requirementText(r: NodeSelectorRequirementWithMinValues): string {
  return `${formatRequirement(r)}${r.minValues !== undefined ? ` minValues ${r.minValues}` : ''}`;
}

// --- topology -----------------------------------------------------------------------------------

export type TopologySource = 'volume' | 'spread' | 'zone' | 'selector' | 'kube-scheduler';

export interface TopologyInput {
  pod: Pod;
  source: TopologySource;
  /** The zone key and the zones needed, when known. */
  key: string;
  zones: string[];
  coverage: PoolZones[];
  nodeClasses: ReadonlyMap<string, EC2NodeClass> | undefined;
  /** The VPC of the EC2NodeClasses' subnets, when `describe-subnets` said. */
  vpcId: string | undefined;
  quoted: string[];
  /** What kube-scheduler or Karpenter said, for the detail when no zone is known. */
  said?: string;
}

const WHY: Record<TopologySource, string> = {
  volume: 'their volume is there',
  spread: 'their topology spread constraint needs it',
  zone: "Karpenter's requirements for them say so",
  selector: 'their nodeSelector or required node affinity says so',
  'kube-scheduler': 'kube-scheduler says so',
};

export function topologyVerdict(input: TopologyInput): WorkloadVerdict {
  const { pod, source, zones, coverage, key } = input;
  const ns = pod.metadata?.namespace ?? 'default';
  const name = pod.metadata?.name ?? '';
  const lines = coverage.slice(0, 5).map(describeCoverage);
  const zoneText = zones.join(', ');
  const detail = zones.length
    ? `These pods need ${key === ZONE_ID_KEY ? 'zone ID' : 'zone'} ${zoneText} (${WHY[source]}), and no NodePool can launch a node there${lines.length ? `: ${lines.join('; ')}` : ''}.`
    : `${source === 'volume' || /volume/i.test(input.said ?? '') ? 'A volume-topology' : 'A topology spread or zone'} requirement of these pods is one no NodePool can meet${input.said ? ` (${input.said})` : ''}${lines.length ? `; NodePools reach: ${lines.join('; ')}` : ''}.`;
  const evidence = [...input.quoted, ...lines];
  const steps: string[] = [];
  const spread = source === 'spread' || /topology spread/i.test(input.said ?? '');
  const volume = source === 'volume' || /volume/i.test(input.said ?? '');
  for (const c of coverage.slice(0, 3)) {
    if (c.nodeClass)
      steps.push(
        `kubectl get ec2nodeclass ${shellQuote(c.nodeClass)} -o jsonpath='{range .status.subnets[*]}{.id}{"\\t"}{.zone}{"\\n"}{end}'`,
      );
  }
  for (const zone of zones.slice(0, 2)) {
    for (const c of coverage.slice(0, 3)) {
      const excludes = c.requirements.filter((r) => r.key === key && !(r.values ?? []).includes(zone) && r.operator === 'In');
      for (const r of excludes)
        steps.push(
          commandStep(
            `add ${zone} to requirement ${formatRequirement(r)} of NodePool ${c.pool}`,
            `kubectl edit nodepool ${shellQuote(c.pool)}`,
          ),
        );
      if (!c.nodeClass || c.subnets?.some((s) => s.zone === zone || s.zoneId === zone)) continue;
      steps.push(...subnetSteps(c.nodeClass, zone, key, input.nodeClasses?.get(c.nodeClass), input.vpcId));
    }
  }
  if (volume) {
    for (const claim of (pod.spec?.volumes ?? [])
      .flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []))
      .slice(0, 3))
      steps.push(
        `kubectl get pvc -n ${shellQuote(ns)} ${shellQuote(claim)} -o jsonpath='{.spec.volumeName}{"\\t"}{.spec.storageClassName}{"\\n"}'`,
      );
    steps.push(
      "kubectl get pv -o custom-columns='NAME:.metadata.name,CLAIM:.spec.claimRef.name,ZONE:.spec.nodeAffinity.required.nodeSelectorTerms[*].matchExpressions[*].values'",
      commandStep(
        'new volumes: use a StorageClass with volumeBindingMode: WaitForFirstConsumer, so each volume is created in the zone its pod is scheduled to; an existing volume stays in its zone (serve that zone, or restore a snapshot in a zone the NodePools reach)',
        'kubectl get storageclass -o custom-columns=NAME:.metadata.name,BINDING:.volumeBindingMode,PROVISIONER:.provisioner',
      ),
    );
  }
  if (spread) {
    steps.push(
      commandStep(
        "or relax the pods' topologySpreadConstraints: whenUnsatisfiable: ScheduleAnyway, a larger maxSkew, or minDomains no larger than the zones the NodePools reach",
        `kubectl get pod -n ${shellQuote(ns)} ${shellQuote(name)} -o jsonpath='{.spec.topologySpreadConstraints}'`,
      ),
    );
  }
  if (source === 'selector' || source === 'zone') {
    steps.push(
      commandStep(
        `or let the pods run in a zone the NodePools reach: change their nodeSelector / required node affinity on ${key}`,
        `kubectl get pod -n ${shellQuote(ns)} ${shellQuote(name)} -o jsonpath='{.spec.nodeSelector}{"\\n"}{.spec.affinity.nodeAffinity}{"\\n"}'`,
      ),
    );
  }
  if (steps.length === 0)
    steps.push(`kubectl describe pod -n ${shellQuote(ns)} ${shellQuote(name)}`, 'kubectl get nodepools,ec2nodeclasses -o yaml');
  return { cause: 'TOPOLOGY_UNSATISFIABLE', detail, evidence: [...new Set(evidence)], steps: [...new Set(steps)] };
}

/** Find a subnet in the zone and tag it as the EC2NodeClass's subnetSelectorTerms select, or add it by id. */
function subnetSteps(
  nodeClass: string,
  zone: string,
  key: string,
  nc: EC2NodeClass | undefined,
  vpcId: string | undefined,
): string[] {
  const filter = key === ZONE_ID_KEY ? 'availability-zone-id' : 'availability-zone';
  const vpc = vpcId ? ` ${shellQuote(`Name=vpc-id,Values=${vpcId}`)}` : '';
  const find = `SUBNET_ID=$(aws ec2 describe-subnets --filters ${shellQuote(`Name=${filter},Values=${zone}`)}${vpc} --query 'Subnets[0].SubnetId' --output text)`;
  const tags = Object.entries(nc?.spec?.subnetSelectorTerms?.find((t) => t.tags && Object.keys(t.tags).length)?.tags ?? {});
  if (tags.length) {
    return [
      commandStep(
        `add a subnet in ${zone} to EC2NodeClass ${nodeClass}: tag one (create it first if the VPC has none there) with its subnetSelectorTerms tags ${tags.map(([k, v]) => `${k}=${v}`).join(', ')}`,
        `${find}\naws ec2 create-tags --resources "$SUBNET_ID" --tags ${tags.map(([k, v]) => shellQuote(`Key=${k},Value=${v}`)).join(' ')}`,
      ),
    ];
  }
  return [
    commandStep(`find a subnet in ${zone}`, find),
    commandStep(
      `add it to spec.subnetSelectorTerms of EC2NodeClass ${nodeClass} (- id: the subnet found above)`,
      `kubectl edit ec2nodeclass ${shellQuote(nodeClass)}`,
    ),
  ];
}
