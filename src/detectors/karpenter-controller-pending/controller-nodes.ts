import type { Pod } from '../../domain/kube.ts';
import type { ControllerCause, ControllerDiagnosis } from './controller-diagnosis-types.ts';
import { listCapped, podRef } from '../scheduling/pending.ts';
import { nodesRejectedFor, type SchedulerMessage } from '../scheduling/scheduler-messages.ts';
import { isCandidate, type FitFailure, type NodeFit } from '../scheduling/scheduling.ts';

/**
 * The node side of a Pending controller: what the nodes as captured say (or, without them,
 * kube-scheduler's last message) about why no node takes the pod.
 */

export type Verdict = (cause: ControllerCause, detail: string, extra?: Partial<ControllerDiagnosis>) => ControllerDiagnosis;

const FARGATE_TAINT_KEY = 'eks.amazonaws.com/compute-type';

const NODE_STATE_KINDS = new Set(['not-ready', 'unschedulable', 'fargate']);

/** A Ready, schedulable, non-Fargate node: somewhere a fixed Deployment could run. */
export function isUsable(fit: NodeFit): boolean {
  return !fit.failures.some((x) => NODE_STATE_KINDS.has(x.kind));
}

const SELECTION_KINDS = new Set(['node-selector', 'node-affinity']);

function placementFailures(fit: NodeFit): FitFailure[] {
  return fit.failures.filter((f) => f.kind !== 'anti-affinity' && f.kind !== 'resources');
}

export function fromNodes(
  pod: Pod,
  fits: NodeFit[],
  fitting: NodeFit[],
  checkedResources: boolean,
  verdict: Verdict,
): ControllerDiagnosis {
  const ref = podRef(pod);
  if (fitting[0]) {
    const names = fitting.map((f) => f.name);
    return verdict(
      'STALE_SCHEDULING',
      `Node ${listCapped(names, 3)} can run ${ref} now (nodeSelector, node affinity, taints and anti-affinity${checkedResources ? ', and free cpu/memory' : ''} all pass), yet the pod is still Pending on an earlier scheduling decision.`,
      {
        evidence: [
          ...verdictEvidence(fits),
          ...(checkedResources ? [] : ['free capacity not checked: the capture does not hold every pod on the nodes']),
        ],
      },
    );
  }
  const evidence = verdictEvidence(fits);
  const candidates = fits.filter(isCandidate);
  if (candidates.length > 0 && candidates.every((f) => f.failures.some((x) => x.kind === 'anti-affinity'))) {
    return verdict(
      'ANTI_AFFINITY_TOO_FEW_NODES',
      `Only ${candidates.length} node(s) can host a Karpenter replica (${listCapped(
        candidates.map((f) => f.name),
        5,
      )}) and each already runs one; required pod anti-affinity on the hostname allows one replica per node.`,
      { evidence },
    );
  }
  if (candidates.length > 0) {
    return verdict('UNKNOWN', `Nodes that accept ${ref} lack free capacity for its requests.`, {
      evidence,
      unknownKind: 'insufficient-resources',
    });
  }
  const usable = fits.filter(isUsable);
  const fargate = fargateTaintEverywhere(fits);
  if (usable.length === 0 && fargate) {
    return verdict(
      'UNTOLERATED_TAINT',
      `${ref} does not tolerate ${fargate}, and every captured node carries it (${listCapped(
        fits.map((f) => f.name),
        3,
      )}: Fargate nodes, one pod each): no node accepts the pod until it tolerates the taint. Fargate profiles were not captured: check first that one selects namespace ${pod.metadata?.namespace ?? 'default'} (Karpenter meant to run on Fargate); without one, the pods also need a place to run (a profile or a node group).`,
      { evidence },
    );
  }
  if (usable.length === 0) {
    return verdict(
      'UNKNOWN',
      fits.length === 0
        ? `The cluster has no nodes and nothing else can run ${ref}: Karpenter cannot launch the node it needs itself. It needs a system node group or a Fargate profile.`
        : `No Ready, schedulable node can run ${ref} (${listCapped(
            fits.map((f) => `${f.name}: ${f.failures.map((x) => x.detail).join(', ')}`),
            3,
          )}); Karpenter needs a system node group or a Fargate profile.`,
      { evidence, unknownKind: 'no-nodes' },
    );
  }
  const onlyTaint = usable.filter((f) => placementFailures(f).every((x) => x.kind === 'taint'));
  const onlySelection = usable.filter((f) => placementFailures(f).every((x) => SELECTION_KINDS.has(x.kind)));
  const taintFirst = onlyTaint.length > 0 || (onlySelection.length === 0 && preferTaint(usable));
  if (taintFirst) {
    const nodes = onlyTaint.length > 0 ? onlyTaint : usable;
    const taints = [...new Set(nodes.flatMap((f) => f.failures.filter((x) => x.kind === 'taint').map((x) => x.detail)))];
    return verdict(
      'UNTOLERATED_TAINT',
      `${ref} does not tolerate ${taints.join(', ')} on ${listCapped(
        nodes.map((f) => f.name),
        5,
      )}.`,
      { evidence },
    );
  }
  const selection = [
    ...new Set(onlySelection.flatMap((f) => f.failures.filter((x) => SELECTION_KINDS.has(x.kind)).map((x) => x.detail))),
  ];
  return verdict('NODE_SELECTOR_MISMATCH', `No node matches ${ref}'s node selection: ${selection.join('; ')}.`, { evidence });
}

/**
 * Every captured node is a Fargate node whose `eks.amazonaws.com/compute-type=fargate:NoSchedule`
 * taint the pod does not tolerate: the taint rejects it everywhere, whatever else does. Returns the
 * taint as text, or undefined when some node is not such a node.
 */
function fargateTaintEverywhere(fits: NodeFit[]): string | undefined {
  const taintOf = (f: NodeFit) =>
    f.failures.find((x) => x.kind === 'taint' && x.taint?.key === FARGATE_TAINT_KEY && x.taint.effect === 'NoSchedule');
  if (fits.length === 0 || !fits.every((f) => f.failures.some((x) => x.kind === 'fargate') && taintOf(f))) return undefined;
  return fits.map(taintOf)[0]?.detail.replace(/^taint /, '');
}

/** When every usable node fails on both taints and selection, follow what the scheduler counted. */
function preferTaint(usable: NodeFit[]): boolean {
  const taints = usable.filter((f) => f.failures.some((x) => x.kind === 'taint')).length;
  const selections = usable.filter((f) => f.failures.some((x) => SELECTION_KINDS.has(x.kind))).length;
  return taints >= selections;
}

function verdictEvidence(fits: NodeFit[]): string[] {
  const lines = fits
    .slice(0, 8)
    .map((f) => `node ${f.name}: ${f.failures.length ? f.failures.map((x) => x.detail).join('; ') : 'fits'}`);
  if (fits.length > 8) lines.push(`and ${fits.length - 8} more node(s)`);
  return lines;
}

/** Nodes were not captured: the scheduler's last message is the only witness. */
export function fromSchedulerMessage(message: SchedulerMessage, verdict: Verdict, ref: string): ControllerDiagnosis {
  if (message.noNodesAvailable) {
    return verdict(
      'UNKNOWN',
      `kube-scheduler found no nodes for ${ref}: Karpenter needs a system node group or a Fargate profile to run on.`,
      {
        unknownKind: 'no-nodes',
      },
    );
  }
  const antiAffinity = nodesRejectedFor(message, 'anti-affinity');
  if (antiAffinity > 0) {
    return verdict(
      'ANTI_AFFINITY_TOO_FEW_NODES',
      `kube-scheduler rejected ${antiAffinity} node(s) for ${ref} on pod anti-affinity: each already runs a Karpenter replica.`,
    );
  }
  const taint = message.reasons.find((r) => r.kind === 'taint');
  if (taint) {
    const named = taint.taint ? ` {${taint.taint.key}: ${taint.taint.value}}` : '';
    return verdict('UNTOLERATED_TAINT', `kube-scheduler: ${taint.count} node(s) have a taint${named} ${ref} does not tolerate.`);
  }
  const selector = nodesRejectedFor(message, 'node-selector');
  if (selector > 0)
    return verdict('NODE_SELECTOR_MISMATCH', `kube-scheduler: ${selector} node(s) do not match ${ref}'s node affinity/selector.`);
  return verdict('UNKNOWN', `${ref} is Pending and nothing captured explains why.`, { unknownKind: 'unexplained' });
}
