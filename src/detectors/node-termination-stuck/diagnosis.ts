/**
 * Why a terminating node is stuck, the first cause that applies: the controller known down (not
 * under EKS Auto Mode, where AWS runs it), then what the objects prove blocks the drain (a PDB at 0,
 * several PDBs on one pod, a do-not-disrupt pod, VolumeAttachments left once no pod is waited for),
 * else UNKNOWN. When the capture lacks the node's pods or the PDBs, Karpenter's events name the
 * blocker instead and the evidence says so, because an offline capture of only Pending pods would
 * otherwise read as an empty node.
 */
import { awsRunsKarpenter, isAutoModeRef } from '../../domain/auto-mode.ts';
import type { KubeEvent } from '../../domain/kube.ts';
import type { DetectContext } from '../detector.ts';
import { controllerReadiness } from '../karpenter/controller-presence.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { evictionBlockers, waitsForDrain } from '../karpenter/eviction-blockers.ts';
import { listCapped, podRef } from '../scheduling/pending.ts';
import { TERMINATION_FINALIZER } from '../../domain/tags.ts';
import type { Terminating } from './terminating.ts';
import { eventBlocker, type EventBlocker } from './termination-events.ts';
import { controllerSteps, unknownSteps, type StepTarget } from './termination-steps.ts';
import { blockerVerdict, eventVerdict, otherBlockers, unknownVerdict, volumeVerdict, type Verdict } from './verdicts.ts';

export function diagnose(ctx: DetectContext, t: Terminating, events: readonly KubeEvent[], target: StepTarget): Verdict {
  const down = controllerDown(ctx, t);
  if (down) {
    return {
      cause: 'CONTROLLER_UNAVAILABLE',
      what: 'no Karpenter controller is running',
      detail: `No Karpenter controller replica is Ready (${down}), so nothing drains the node, terminates its instance or removes the ${TERMINATION_FINALIZER} finalizer. Bring the controller back; remove the finalizers by hand only once the instance is confirmed terminated (the first step), or it runs on with nothing to terminate it.`,
      evidence: [`Karpenter controller: ${down}`],
      steps: controllerSteps(target),
    };
  }
  const s = ctx.snapshot;
  const podsKnown = t.nodeName !== undefined && podsOfNodeCaptured(ctx, t.nodeName);
  const fromEvents = events.map(eventBlocker).filter((b): b is EventBlocker => b !== undefined);
  if (!podsKnown) return fromEventsOnly(t, fromEvents, target);

  const pods = ctx.index.podsByNode.get(t.nodeName ?? '') ?? [];
  const waiting = pods.filter((p) => waitsForDrain(p, ctx.now));
  const pdbsKnown = s.captured.has('pdbs');
  const blockers = evictionBlockers(waiting, pdbsKnown ? s.pdbs : [], ctx.now);
  const notes = [
    ...(pdbsKnown ? [] : ['PodDisruptionBudgets not captured (kubectl get pdb -A -o json): budgets not checked']),
    ...(waiting.length ? [`pods the drain waits for: ${listCapped(waiting.map(podRef), 8)}`] : []),
    ...otherBlockers(blockers),
  ];
  const byObjects = blockerVerdict(blockers, target, notes);
  if (byObjects) return byObjects;
  if (!pdbsKnown && waiting.length > 0) {
    const pdbEvent = fromEvents.find((b) => b.kind === 'pdb' || b.kind === 'multiple-pdbs');
    if (pdbEvent) return eventVerdict(pdbEvent, target, notes, 'the PDBs were not captured');
  }
  if (waiting.length === 0) {
    if (s.captured.has('volumeattachments')) {
      const attachments = s.volumeAttachments.filter((va) => va.spec?.nodeName === t.nodeName);
      if (attachments.length) return volumeVerdict(attachments, target, notes);
    } else {
      const volumes = fromEvents.find((b) => b.kind === 'volumes');
      if (volumes) return eventVerdict(volumes, target, notes, 'the VolumeAttachments were not captured');
      notes.push('VolumeAttachments not captured (kubectl get volumeattachments -o json): detach not checked');
    }
  }
  const what = waiting.length
    ? `${waiting.length} pod(s) still on the node, none blocked by ${pdbsKnown ? 'a PDB or ' : ''}do-not-disrupt${pdbsKnown ? '' : ' (PDBs not captured)'}`
    : s.captured.has('volumeattachments')
      ? 'no pod and no VolumeAttachment left on the node'
      : 'no pod left on the node (VolumeAttachments not captured)';
  return {
    cause: 'UNKNOWN',
    what: 'cause unknown',
    detail: waiting.length
      ? `${what}: they may be terminating slowly (a long terminationGracePeriodSeconds), or their eviction fails for another reason; the controller log says which.`
      : `${what}: Karpenter should be terminating the instance and removing its finalizer; its log says why it does not.`,
    evidence: notes,
    steps: unknownSteps(target, true),
  };
}

/** A drain's pods are in the capture: some bound to the node, or the capture holds Running pods at all (not only Pending ones). */
function podsOfNodeCaptured(ctx: DetectContext, nodeName: string): boolean {
  if (!ctx.snapshot.captured.has('pods')) return false;
  if ((ctx.index.podsByNode.get(nodeName) ?? []).length > 0) return true;
  return ctx.snapshot.pods.some((p) => p.status?.phase === 'Running');
}

/** Without the node's pods: the newest event that names a blocker, else UNKNOWN and the command to capture them. */
function fromEventsOnly(t: Terminating, fromEvents: readonly EventBlocker[], target: StepTarget): Verdict {
  const notes = [
    t.nodeName
      ? `the pods on ${t.nodeName} were not captured: blockers not checked from the objects`
      : 'no Node for this NodeClaim: nothing left to drain',
  ];
  if (!t.nodeName) {
    return {
      cause: 'UNKNOWN',
      what: 'its Node is gone, the NodeClaim remains',
      detail:
        "The Node is gone but the NodeClaim is still being deleted: Karpenter waits for the cloud provider to report the instance terminated before it removes the NodeClaim's finalizer; the controller log says what fails.",
      evidence: notes,
      steps: unknownSteps(target, true),
    };
  }
  const named = fromEvents.find((b) => b.kind !== 'waiting');
  if (named) return eventVerdict(named, target, notes, `the pods on ${t.nodeName} were not captured`);
  return unknownVerdict(
    target,
    notes,
    `The pods on ${t.nodeName} were not captured (an offline capture of Pending pods only?), and no event of Karpenter's names the blocker: capture them (the first step) and scan again.`,
  );
}

/** A short description of the controller when it is known to be down; undefined when up or unknown. */
function controllerDown(ctx: DetectContext, t: Terminating): string | undefined {
  const s = ctx.snapshot;
  if (t.claim ? isAutoModeRef(t.claim.spec?.nodeClassRef) : awsRunsKarpenter(s)) return undefined;
  // Pods of a capture of Pending pods only say nothing of a controller that runs.
  const podsShowCluster = s.captured.has('pods') && s.pods.some((p) => p.status?.phase === 'Running');
  const r = controllerReadiness(s, ctx.index, podsShowCluster);
  if (!r || r.ready) return undefined;
  const name = (c: ControllerInfo) => `${c.namespace}/${c.deploymentName ?? 'karpenter'}`;
  if (r.source === 'deployments') {
    if (r.deployments.length === 0) return 'no Deployment labelled app.kubernetes.io/name=karpenter exists';
    return `Deployment ${r.deployments.map(name).join(', ')} has no ready replica`;
  }
  const scaled = r.scaledToZero.filter((c) => c.pods.length === 0);
  if (r.pods.length === 0 && scaled.length > 0) return `Deployment ${scaled.map(name).join(', ')} is scaled to 0 replicas`;
  if (r.pods.length === 0) return 'no pod labelled app.kubernetes.io/name=karpenter exists';
  return `${r.pods.length} controller pod(s), none Ready: ${listCapped(
    r.pods.map((p) => `${podRef(p)} ${p.status?.phase ?? '?'}`),
    4,
  )}`;
}
