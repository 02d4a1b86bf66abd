/**
 * The words of NODE_NOT_READY: what each cause means for a node, what the repair verdict means for
 * the pool, and the evidence lines for both (docs/findings.md#node_not_ready). Only what the
 * capture shows is said; where it allows several explanations, they are named with the check first.
 */
import type { KubeEvent, Pod } from '../../domain/kube.ts';
import { isoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext } from '../detector.ts';
import { versionAtLeast } from '../karpenter/version.ts';
import type { Diagnosis } from './cause.ts';
import type { NotReadyNode } from './not-ready-nodes.ts';
import { tolerationOf, type RepairVerdict } from './repair.ts';

export interface Diagnosed extends NotReadyNode {
  diagnosis: Diagnosis;
}

const MAX_PODS = 5;

/** A pod no container of which requests anything: BestEffort, the first the kernel's OOM killer and the kubelet's memory compete with. */
function isBestEffort(pod: Pod): boolean {
  return (pod.spec?.containers ?? []).every((c) => {
    const r = c.resources;
    return Object.keys(r?.requests ?? {}).length === 0 && Object.keys(r?.limits ?? {}).length === 0;
  });
}

function bestEffortPods(ctx: DetectContext, node: string): string[] {
  return (ctx.index.podsByNode.get(node) ?? [])
    .filter(isBestEffort)
    .map((p) => `${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? '?'}`);
}

function listed(names: readonly string[]): string {
  const more = names.length > MAX_PODS ? ` and ${names.length - MAX_PODS} more` : '';
  return `${names.slice(0, MAX_PODS).join(', ')}${more}`;
}

/** What a non-running instance means for its node: a terminated one is gone for good, a stopped one can be started again. */
function instanceGone(id: string, state: string): string {
  if (state === 'terminated' || state === 'shutting-down')
    return `EC2 says its instance ${id} is ${state}: the kubelet is gone with it; nothing will bring the node back.`;
  if (state === 'stopped' || state === 'stopping')
    return `EC2 says its instance ${id} is ${state}: the kubelet stopped with it. Starting the instance again could bring the node back (same instance, same Node); replacing it (below) gives the pods fresh capacity.`;
  return `EC2 says its instance ${id} is ${state}: the kubelet cannot post status until the instance is running again.`;
}

/** The kubelet's disk events (pkg/kubelet/events): its image garbage collection could not free space. */
const DISK_EVENT_REASONS: readonly string[] = ['FreeDiskSpaceFailed', 'ImageGCFailed'];

/** What one pressure condition points at, from what the capture holds: the usual suspects differ per resource. */
function pressureText(ctx: DetectContext, d: Diagnosed, pressure: string): string {
  switch (pressure) {
    case 'MemoryPressure': {
      const pods = bestEffortPods(ctx, d.name);
      const named = pods.length > 0 ? ` Pods on it request nothing (BestEffort): ${listed(pods)}.` : '';
      return ` Memory: pods without requests (BestEffort) are the first to starve the kubelet, and the EC2NodeClass's kubelet kubeReserved/systemReserved memory keeps room for it.${named}`;
    }
    case 'DiskPressure': {
      const disk = d.diagnosis.signs.find((e) => DISK_EVENT_REASONS.includes(e.reason ?? ''));
      const said = disk ? ` The kubelet reported ${disk.reason ?? ''}: ${disk.message ?? ''}.` : '';
      return ` Disk: images, container logs and emptyDir volumes filled the node's volume, whose size is the EC2NodeClass's blockDeviceMappings.${said}`;
    }
    case 'PIDPressure':
      return ` Process IDs: a pod forking without bound uses them up; the kubelet's podPidsLimit caps each pod's.`;
    default:
      return '';
  }
}

export function explainCause(ctx: DetectContext, d: Diagnosed): string {
  const head = `Node ${d.name} has been ${d.diagnosis.conditions.join(', ')} for ${formatDuration(d.ageMs)}, after it initialised.`;
  const oom = d.diagnosis.signs.find((e) => e.reason === 'SystemOOM');
  switch (d.diagnosis.cause) {
    case 'KUBELET_UNRESPONSIVE': {
      const instance = d.instanceId ? ctx.index.instancesById.get(d.instanceId) : undefined;
      if (instance && instance.state !== 'running') return `${head} ${instanceGone(instance.id, instance.state)}`;
      const starved = oom
        ? ` Before it went silent the kubelet reported SystemOOM (${oom.message ?? ''}): memory exhaustion most likely starved it.`
        : '';
      return `${head} The kubelet stopped posting its status: the instance stopped or failed, or the kubelet was starved of memory or CPU (often by pods without requests). Its EC2 status and console output tell them apart.${starved}`;
    }
    case 'RESOURCE_PRESSURE':
      return `${head} The kubelet reports ${d.diagnosis.pressure.join(', ')}: the node ran out of what its pods use.${d.diagnosis.pressure.map((p) => pressureText(ctx, d, p)).join('')}`;
    case 'NETWORK_NOT_READY':
      return `${head} The node's network is not ready: the network plugin's pod on it is not running or failing.`;
    case 'UNKNOWN':
      return d.diagnosis.monitoring.length > 0
        ? `${head} ${monitoringText(d.diagnosis.monitoring)}`
        : `${head} Its conditions do not say why; the node's events and the instance's console do.`;
  }
}

/** What the EKS node monitoring agent's False conditions say, and how long Karpenter's repair tolerates each. */
function monitoringText(types: readonly string[]): string {
  const tolerations = types.map((t) => `${t}=False after ${minutes(tolerationOf(t, 'False') ?? 0)} minutes`);
  return `The EKS node monitoring agent reports ${types.join(', ')} False: its condition message (above) names what broke. Karpenter's node repair (NodeRepair on, v1.2.0+) replaces a node at ${tolerations.join(', ')}.`;
}

function minutes(ms: number): number {
  return Math.round(ms / 60_000);
}

function gatesText(v: { gates: { from: string; text: string | undefined } }): string {
  return v.gates.text ? `${v.gates.from}=${v.gates.text}` : v.gates.from;
}

export function explainRepair(v: RepairVerdict): string {
  switch (v.kind) {
    case 'unknown':
      return `Whether Karpenter's node repair replaces them is unknown (${v.gates.from}).`;
    case 'no-repair-in-version':
      return `Karpenter ${v.version} has no node repair (it came in v1.1.0): nothing replaces them but you.${v.proof ? ` The release shows in its API: ${v.proof}.` : ''}`;
    case 'gate-off': {
      const status =
        versionAtLeast(v.version, 1, 12) !== false
          ? ' (Karpenter v1.12+ still replaces an instance whose EC2 status checks fail; a starved kubelet usually passes them.)'
          : '';
      const uncovered = v.covered
        ? ''
        : ` Nor would it with the gate on: Karpenter ${v.version ?? ''} repairs Ready=False only, Ready=Unknown from v1.2.0.`;
      return `Karpenter will not replace them: its NodeRepair feature gate is off (${gatesText(v)}; off by default).${uncovered}${status}`;
    }
    case 'not-covered':
      return `NodeRepair is on, but Karpenter ${v.version ?? ''} repairs Ready=False only: Ready=Unknown is repaired from v1.2.0, so these stay.`;
    case 'blocked': {
      const said = v.event
        ? `Karpenter says so on the Node: NodeRepairBlocked "${v.event.message ?? ''}"`
        : `Karpenter says so on the Node: NodeRepairBlocked "${v.expectedText}"`;
      if (v.event && v.rule.unhealthy <= v.rule.allowed)
        return `NodeRepair is on but blocked: Karpenter says on the Node that its 20% rule blocks repair, NodeRepairBlocked "${v.event.message ?? ''}"${seen(v.event)}. That is Karpenter's count when it checked; the capture shows ${v.rule.unhealthy} of ${v.rule.total} nodes matching a repair condition now, within the ${v.rule.allowed} it allows (20%, rounded up). Karpenter counts every Node labelled with the pool, a new one still Ready=False too, and checks again every 5 minutes.`;
      return `NodeRepair is on but blocked by Karpenter's 20% rule: ${v.rule.unhealthy} of ${v.rule.total} nodes match a repair condition, more than the ${v.rule.allowed} it allows (20%, rounded up), so it repairs none and retries every 5 minutes. ${said}.`;
    }
    case 'waiting':
      return `NodeRepair is on: Karpenter replaces the first of them at ${v.at.toISOString()}, when its ${minutes(v.policy.tolerationMs)}-minute toleration${v.policy.type === 'Ready' ? '' : ` of ${v.policy.type}=${v.policy.status}`} ends, forcefully (no drain, no grace period).`;
    case 'overdue':
      return `NodeRepair is on and its toleration ended at ${v.at.toISOString()}, yet they remain: the controller has not acted (its node.health controller logs \`deleting unhealthy node\` when it does).`;
  }
}

/** When Karpenter last said it, and how often: the event is its word at that time, not now. */
function seen(e: KubeEvent): string {
  const last = isoSeconds(e.lastTime);
  const parts = [...(last ? [`last at ${last}`] : []), ...(e.count !== undefined && e.count > 1 ? [`${e.count} times`] : [])];
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

export function repairEvidence(v: RepairVerdict): string[] {
  const lines: string[] = [];
  if ('gates' in v) lines.push(`controller feature gates: ${gatesText(v)}${v.version ? `; version ${v.version}` : ''}`);
  else lines.push(v.proof ? `Karpenter release: ${v.proof}` : `controller version ${v.version}`);
  if (v.kind === 'blocked' && v.event)
    lines.push(`event on Node ${v.event.regarding.name ?? '?'}: ${v.event.reason ?? ''}: ${v.event.message ?? ''}`);
  if ('rule' in v)
    lines.push(`repair rule: ${v.rule.unhealthy} of ${v.rule.total} nodes unhealthy; Karpenter allows ${v.rule.allowed}`);
  return lines;
}

export function describeNode(ctx: DetectContext, d: Diagnosed): string {
  const claim = d.claim?.metadata?.name ? `NodeClaim ${d.claim.metadata.name}` : 'no NodeClaim captured';
  const labels = d.node.metadata?.labels ?? {};
  const what = [
    labels['node.kubernetes.io/instance-type'],
    labels['karpenter.sh/capacity-type'],
    labels['topology.kubernetes.io/zone'],
  ]
    .filter(Boolean)
    .join(' ');
  const instance = d.instanceId ? ctx.index.instancesById.get(d.instanceId) : undefined;
  const ec2 = instance ? `; EC2 ${instance.id} ${instance.state}` : d.instanceId ? `; instance ${d.instanceId}` : '';
  const signs = d.diagnosis.signs.slice(0, 2).map((e) => `; event ${e.reason ?? ''}: ${e.message ?? ''}`);
  return `Node ${d.name} (${claim}${what ? `, ${what}` : ''}): ${d.diagnosis.conditions.join(', ')} since ${d.since}${ec2}${signs.join('')}`;
}
