import type { CauseCodeOf } from '../../domain/codes.ts';
import type { Condition, Node, NodeClaim, NodePool, Pod, Taint } from '../../domain/kube.ts';
import { conditionOf, isPodReady } from '../../domain/kube-helpers.ts';
import type { DetectContext } from '../detector.ts';
import { formatTaint, podRequests } from '../scheduling/scheduling.ts';
import { parseResources } from '../scheduling/quantity.ts';
import {
  agentPodsOn,
  cniOf,
  devicePluginOf,
  isCniMessage,
  isExtendedResource,
  isKnownEphemeralTaint,
  parseTaint,
  removerOf,
  type Agent,
  type CniName,
} from './agents.ts';

export type Cause = CauseCodeOf<'NODE_NOT_INITIALIZED'>;

/** Why one NodeClaim has not initialised, with what to say and show about it. */
export type Diagnosis =
  | { cause: 'CNI_NOT_READY'; message: string; cni: CniName; cniNamespace: string; cniShownBy: string }
  | {
      cause: 'STARTUP_TAINT_REMAINS';
      /** As Karpenter prints it: `key=value:effect`. */
      taint: string;
      /** The taint itself, when the Node or Karpenter's message gave it. */
      parsed: Taint | undefined;
      kind: 'startup' | 'ephemeral';
      remover: Agent | undefined;
      agentNote?: string;
      /** The remover's pod runs Ready on the node, yet the taint stays: the agent failed to remove it. */
      readyAgentPod?: { namespace: string; name: string };
    }
  | { cause: 'RESOURCE_NOT_REGISTERED'; resource: string; agent: Agent; grep: string; dra: boolean; agentNote?: string }
  | { cause: 'NODE_NOT_READY'; message: string }
  | { cause: 'UNKNOWN'; message: string };

/** Node first (what is on it now), the NodeClaim's Initialized reason second (Karpenter's own word). */
export function diagnose(
  ctx: DetectContext,
  nc: NodeClaim,
  node: Node | undefined,
  pool: NodePool | undefined,
  initialized: Condition | undefined,
): Diagnosis {
  return (node ? fromNode(ctx, nc, node, pool) : undefined) ?? fromReason(ctx, nc, node, initialized);
}

function fromNode(ctx: DetectContext, nc: NodeClaim, node: Node, pool: NodePool | undefined): Diagnosis | undefined {
  const ready = conditionOf(node, 'Ready');
  if (ready && ready.status !== 'True') {
    const message = ready.message ?? ready.reason ?? `Ready=${ready.status}`;
    if (isCniMessage(message)) return cniDiagnosis(ctx, node, message);
    return { cause: 'NODE_NOT_READY', message };
  }
  const taints = node.spec?.taints ?? [];
  const startup = [...(pool?.spec?.template?.spec?.startupTaints ?? []), ...(nc.spec?.startupTaints ?? [])];
  const stillStartup = taints.find((t) => startup.some((s) => matchTaint(s, t)));
  if (stillStartup) return taintDiagnosis(ctx, node, stillStartup, 'startup');
  const ephemeral = taints.find(isKnownEphemeralTaint);
  if (ephemeral) return taintDiagnosis(ctx, node, ephemeral, 'ephemeral');
  const missing = missingResource(ctx, nc, node);
  if (missing) return resourceDiagnosis(ctx, node, missing, false);
  return undefined;
}

function fromReason(ctx: DetectContext, nc: NodeClaim, node: Node | undefined, c: Condition | undefined): Diagnosis {
  const message = c?.message ?? '';
  const quoted = /"([^"]+)"/.exec(message)?.[1];
  switch (c?.reason) {
    case 'StartupTaintsExist':
    case 'KnownEphemeralTaintsExist': {
      const kind = c.reason === 'StartupTaintsExist' ? 'startup' : 'ephemeral';
      const taint = quoted ? parseTaint(quoted) : undefined;
      if (taint) return taintDiagnosis(ctx, node, taint, kind);
      return {
        cause: 'STARTUP_TAINT_REMAINS',
        taint: quoted ?? '(taint not named)',
        parsed: undefined,
        kind,
        remover: undefined,
      };
    }
    case 'ResourceNotRegistered':
      return resourceDiagnosis(ctx, node, quoted ?? missingResource(ctx, nc, node) ?? '(resource not named)', false);
    case 'DRADriverPoolsNotPublished':
      return resourceDiagnosis(ctx, node, quoted ?? '(DRA driver not named)', true);
    case 'NodeNotReady':
      return { cause: 'NODE_NOT_READY', message: message || 'Node status is NotReady' };
    default:
      return {
        cause: 'UNKNOWN',
        message: c ? [c.reason, c.message].filter(Boolean).join(': ') || `Initialized=${c.status}` : 'no Initialized condition',
      };
  }
}

function cniDiagnosis(ctx: DetectContext, node: Node, message: string): Diagnosis {
  const { cni, namespace, shownBy } = cniOf(node, ctx.snapshot.pods);
  return { cause: 'CNI_NOT_READY', message, cni, cniNamespace: namespace, cniShownBy: shownBy };
}

function taintDiagnosis(ctx: DetectContext, node: Node | undefined, taint: Taint, kind: 'startup' | 'ephemeral'): Diagnosis {
  const remover = removerOf(taint);
  const note = remover && node ? agentNote(ctx, node, remover, taint) : undefined;
  const ready = remover && node ? readyAgentPod(ctx, node, remover) : undefined;
  return {
    cause: 'STARTUP_TAINT_REMAINS',
    taint: formatTaint(taint),
    parsed: taint,
    kind,
    remover,
    ...(note ? { agentNote: note } : {}),
    ...(ready ? { readyAgentPod: ready } : {}),
  };
}

function resourceDiagnosis(ctx: DetectContext, node: Node | undefined, resource: string, dra: boolean): Diagnosis {
  const { agent, grep } = dra
    ? { agent: { name: `the DRA driver ${resource}` }, grep: resource.split('.')[0] ?? 'dra' }
    : devicePluginOf(resource);
  const note = node && agent.daemonSet ? agentNote(ctx, node, agent) : undefined;
  return { cause: 'RESOURCE_NOT_REGISTERED', resource, agent, grep, dra, ...(note ? { agentNote: note } : {}) };
}

/** Karpenter's MatchTaint: key and effect equal, value equal (both may be empty). */
function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect && (a.value ?? '') === (b.value ?? '');
}

/**
 * What the captured pods say about the agent that should act on this node: its pod on the node is
 * not Ready, or there is none. Undefined when pods were not captured.
 */
function agentNote(ctx: DetectContext, node: Node, agent: Agent, taint?: Taint): string | undefined {
  const ds = agent.daemonSet;
  if (!ds || !ctx.snapshot.captured.has('pods')) return undefined;
  const nodeName = node.metadata?.name ?? '?';
  const onNode = agentPodsOn(agent, ctx.index.podsByNode.get(nodeName) ?? []);
  if (onNode.pods.length > 0) {
    if (onNode.ready) return undefined;
    const p = onNode.pods[0] as Pod;
    return `${ds.name} pod ${p.metadata?.namespace}/${p.metadata?.name} on node ${nodeName} is not Ready${waitingReason(p)}`;
  }
  // Only the node's own pods are read live (see nodesOfInterest), so its DaemonSet's tolerations are not known here.
  const must = taint ? `tolerate ${formatTaint(taint)} and select the node` : 'select the node';
  return `no ${ds.name} pod runs on node ${nodeName}: its DaemonSet must ${must}`;
}

/** The agent's Ready pod on the node, when pods were captured and one is there. */
function readyAgentPod(ctx: DetectContext, node: Node, agent: Agent): { namespace: string; name: string } | undefined {
  if (!agent.daemonSet || !ctx.snapshot.captured.has('pods')) return undefined;
  const onNode = agentPodsOn(agent, ctx.index.podsByNode.get(node.metadata?.name ?? '') ?? []);
  const pod = onNode.ready ? onNode.pods.find(isPodReady) : undefined;
  return pod?.metadata?.name ? { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name } : undefined;
}

function waitingReason(pod: Pod): string {
  const waiting = (pod.status?.containerStatuses ?? []).map((s) => s.state?.waiting?.reason).find(Boolean);
  return waiting ? ` (${waiting})` : '';
}

/**
 * An extended resource the NodeClaim (Karpenter ≥ v1: `spec.resources.requests`) or a pod bound
 * to the node asks for that is zero or absent in the Node's allocatable.
 */
function missingResource(ctx: DetectContext, nc: NodeClaim, node: Node | undefined): string | undefined {
  if (!node) return undefined;
  const allocatable = parseResources(node.status?.allocatable);
  const requested = { ...parseResources(nc.spec?.resources?.requests) };
  for (const pod of ctx.index.podsByNode.get(node.metadata?.name ?? '') ?? []) {
    for (const [k, v] of Object.entries(podRequests(pod))) requested[k] = Math.max(requested[k] ?? 0, v);
  }
  return Object.entries(requested).find(
    ([name, amount]) => amount > 0 && isExtendedResource(name) && !(allocatable[name] ?? 0),
  )?.[0];
}
