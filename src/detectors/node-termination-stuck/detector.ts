import { awsRunsKarpenter, isAutoModeRef } from '../../domain/auto-mode.ts';
import type { CauseCodeOf } from '../../domain/codes.ts';
import { commandStep, manualRemediation, newFinding, type Finding, type ResourceRef } from '../../domain/finding.ts';
import type { KubeEvent, Node, NodeClaim, VolumeAttachment } from '../../domain/kube.ts';
import { ageMs, instanceIdFromProviderID, isoSeconds, parseGoDuration, toIsoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import { shellQuote } from '../../domain/shell.ts';
import { nodePoolOfClaim, NODEPOOL_LABEL } from '../../domain/tags.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { regionOf } from '../aws-iam/iam-arn.ts';
import { controllerAbsenceKnown } from '../karpenter/controller-presence.ts';
import {
  describePdb,
  evictionBlockers,
  isDisruptedTaint,
  pdbRef,
  waitsForDrain,
  type EvictionBlockers,
} from '../karpenter/eviction-blockers.ts';
import { listCapped, podRef } from '../scheduling/pending.ts';
import {
  DRAIN_EVENT_REASONS,
  DRAIN_START_REASONS,
  eventBlocker,
  newestFirst,
  quoteEvent,
  type EventBlocker,
} from './termination-events.ts';
import {
  closingSteps,
  controllerSteps,
  doNotDisruptSteps,
  multiplePdbSteps,
  pdbSteps,
  podsOnNodeStep,
  unknownSteps,
  volumeSteps,
  type StepTarget,
} from './termination-steps.ts';

type Code = 'NODE_TERMINATION_STUCK';
type Cause = CauseCodeOf<Code>;

/** Past this, a stuck termination is critical: a node paid for twice, its replacement already up. */
const CRITICAL_AFTER_MS = 2 * 3_600_000;
const TERMINATION_FINALIZER = 'karpenter.sh/termination';
const TERMINATION_TIMESTAMP_ANNOTATION = 'karpenter.sh/nodeclaim-termination-timestamp';

/**
 * NODE_TERMINATION_STUCK: a Node or NodeClaim Karpenter is terminating (a deletion timestamp on
 * either, or the Node tainted `karpenter.sh/disrupted:NoSchedule`) for at least
 * `settings.terminationStuckMs`. Timed from the earliest deletion timestamp; a tainted Node without
 * one from the first FailedDraining / DisruptionTerminating event about it (the taint carries no
 * time; without such an event it cannot be timed and is left alone). One finding per Node, about
 * the NodeClaim when no Node exists (a NodeClaim whose Node was not captured is reported about the
 * Node its status names). Only Karpenter's nodes: a NodeClaim, the `karpenter.sh/termination`
 * finalizer, the `karpenter.sh/nodepool` label or the taint says so.
 *
 * Causes, the first that applies: the controller is known down (not under EKS Auto Mode), a PDB at
 * 0, several PDBs on one pod, a do-not-disrupt pod (all from the objects, src/detectors/karpenter/
 * eviction-blockers.ts), VolumeAttachments left once no pod is waited for, else UNKNOWN. When the
 * capture lacks the node's pods (an offline capture of only Pending pods: no Running pod at all)
 * or the PDBs, Karpenter's events name the blocker instead, and the detail says so.
 */
export const nodeTerminationStuck: Detector<Code> = {
  code: 'NODE_TERMINATION_STUCK',
  requires: [],
  anyOf: ['nodes', 'nodeclaims'],
  refinedBy: ['pods', 'pdbs', 'volumeattachments', 'events', 'deployments', 'nodepools'],
  detect(ctx) {
    return terminating(ctx).map((t) => findingFor(ctx, t));
  },
};

interface Terminating {
  node: Node | undefined;
  nodeName: string | undefined;
  claim: NodeClaim | undefined;
  since: string;
  /** Where `since` comes from, for the evidence. */
  sinceFrom: string;
  ageMs: number;
  pool: string | undefined;
}

function terminating(ctx: DetectContext): Terminating[] {
  const { snapshot, index } = ctx;
  const claimByNode = index.nodeClaimsByNodeName;
  const used = new Set<NodeClaim>();
  const found: Terminating[] = [];
  const add = (t: Omit<Terminating, 'ageMs' | 'pool'> | undefined) => {
    if (!t) return;
    const age = ageMs(t.since, ctx.now);
    if (age === undefined || age < ctx.settings.terminationStuckMs) return;
    const pool = (t.claim && nodePoolOfClaim(t.claim)) ?? t.node?.metadata?.labels?.[NODEPOOL_LABEL];
    found.push({ ...t, ageMs: age, pool });
  };
  for (const node of snapshot.nodes) {
    const name = node.metadata?.name;
    if (!name) continue;
    const claim = claimByNode.get(name) ?? claimByInstance(index, node);
    if (claim) used.add(claim);
    add(nodeTermination(ctx, node, name, claim));
  }
  for (const claim of snapshot.nodeClaims) {
    if (used.has(claim) || !claim.metadata?.deletionTimestamp) continue;
    const nodeName = snapshot.captured.has('nodes') ? undefined : claim.status?.nodeName;
    add({
      node: undefined,
      nodeName,
      claim,
      since: claim.metadata.deletionTimestamp,
      sinceFrom: `NodeClaim ${claim.metadata.name ?? '?'} deletionTimestamp`,
    });
  }
  return found;
}

/** The NodeClaim of a Node no NodeClaim names, by the instance in its providerID. */
function claimByInstance(index: DetectContext['index'], node: Node): NodeClaim | undefined {
  const instanceId = instanceIdFromProviderID(node.spec?.providerID);
  return instanceId ? index.nodeClaimsByInstanceId.get(instanceId) : undefined;
}

function nodeTermination(
  ctx: DetectContext,
  node: Node,
  name: string,
  claim: NodeClaim | undefined,
): Omit<Terminating, 'ageMs' | 'pool'> | undefined {
  const tainted = (node.spec?.taints ?? []).some(isDisruptedTaint);
  // Most nodes: nothing is terminating them (and nothing allocated to say so).
  if (!tainted && node.metadata?.deletionTimestamp === undefined && claim?.metadata?.deletionTimestamp === undefined)
    return undefined;
  const karpenters =
    claim !== undefined ||
    tainted ||
    (node.metadata?.finalizers ?? []).includes(TERMINATION_FINALIZER) ||
    node.metadata?.labels?.[NODEPOOL_LABEL] !== undefined;
  if (!karpenters) return undefined;
  const deletions = [
    { at: node.metadata?.deletionTimestamp, from: `Node ${name} deletionTimestamp` },
    { at: claim?.metadata?.deletionTimestamp, from: `NodeClaim ${claim?.metadata?.name ?? '?'} deletionTimestamp` },
  ].filter((d): d is { at: string; from: string } => d.at !== undefined && !Number.isNaN(Date.parse(d.at)));
  deletions.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const first = deletions[0];
  if (first) return { node, nodeName: name, claim, since: first.at, sinceFrom: first.from };
  if (!tainted) return undefined;
  const started = drainEvents(ctx, name, claim)
    .filter((e) => DRAIN_START_REASONS.includes(e.reason ?? ''))
    .map((e) => e.firstTime ?? e.lastTime)
    .filter((t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)))
    .sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  if (!started) return undefined;
  return {
    node,
    nodeName: name,
    claim,
    since: started,
    sinceFrom: `the first FailedDraining/DisruptionTerminating event (the karpenter.sh/disrupted taint carries no time)`,
  };
}

/** Karpenter's drain events about the Node and its NodeClaim, newest first. */
function drainEvents(ctx: DetectContext, nodeName: string | undefined, claim: NodeClaim | undefined): KubeEvent[] {
  const reasons: readonly string[] = DRAIN_EVENT_REASONS;
  const events = [
    ...(nodeName ? ctx.index.eventsFor('Node', undefined, nodeName) : []),
    ...(claim?.metadata?.name ? ctx.index.eventsFor('NodeClaim', undefined, claim.metadata.name) : []),
  ];
  return newestFirst(events.filter((e) => reasons.includes(e.reason ?? '')));
}

interface Verdict {
  cause: Cause;
  /** What blocks, for the title. */
  what: string;
  detail: string;
  evidence: string[];
  steps: string[];
}

function findingFor(ctx: DetectContext, t: Terminating): Finding<Code> {
  const claimName = t.claim?.metadata?.name;
  const resource: ResourceRef = t.nodeName ? { kind: 'Node', name: t.nodeName } : { kind: 'NodeClaim', name: claimName ?? '?' };
  const events = drainEvents(ctx, t.nodeName, t.claim);
  const deadline = deadlineOf(ctx, t);
  const target = stepTarget(ctx, t, deadline.at !== undefined);
  const verdict = diagnose(ctx, t, events, target);
  const subject = `${resource.kind} ${resource.name}`;
  const evidence = [
    `${subject} terminating since ${isoSeconds(t.since) ?? t.since} (${formatDuration(t.ageMs)}; from ${t.sinceFrom})`,
    ...claimLine(t),
    ...verdict.evidence,
    ...events.slice(0, 6).map(quoteEvent),
    deadline.line,
  ];
  return newFinding({
    code: 'NODE_TERMINATION_STUCK',
    severity: t.ageMs >= CRITICAL_AFTER_MS ? 'critical' : 'warning',
    title: `${subject} stuck terminating for ${formatDuration(t.ageMs)}: ${verdict.what}`,
    resource,
    since: isoSeconds(t.since),
    cause: { code: verdict.cause, detail: verdict.detail },
    evidence,
    remediation: manualRemediation(verdict.steps),
    counts: { objects: 1, ...(t.pool ? { nodePool: t.pool } : {}) },
  });
}

function claimLine(t: Terminating): string[] {
  const c = t.claim;
  if (!c) return t.node ? ['no NodeClaim for this Node in the capture'] : [];
  const finalizers = c.metadata?.finalizers?.length ? `finalizers ${c.metadata.finalizers.join(', ')}` : 'no finalizers listed';
  const deleting = c.metadata?.deletionTimestamp ? `deletionTimestamp ${c.metadata.deletionTimestamp}` : 'not being deleted yet';
  return [`NodeClaim ${c.metadata?.name ?? '?'} (NodePool ${t.pool ?? '?'}): ${deleting}; ${finalizers}`];
}

/** The terminationGracePeriod bounding this drain, and the line saying when (or that nothing does). */
function deadlineOf(ctx: DetectContext, t: Terminating): { at: string | undefined; line: string } {
  const pool = t.pool ? ctx.index.nodePoolsByName.get(t.pool) : undefined;
  const fromClaim = t.claim?.spec?.terminationGracePeriod;
  const grace = fromClaim ?? pool?.spec?.template?.spec?.terminationGracePeriod;
  const where = fromClaim ? `NodeClaim ${t.claim?.metadata?.name ?? '?'}` : `NodePool ${t.pool ?? '?'}`;
  const annotated = t.claim?.metadata?.annotations?.[TERMINATION_TIMESTAMP_ANNOTATION];
  const graceMs = parseGoDuration(grace);
  const deleted = t.claim?.metadata?.deletionTimestamp;
  const computed =
    graceMs !== undefined && Number.isFinite(graceMs) && deleted && !Number.isNaN(Date.parse(deleted))
      ? toIsoSeconds(new Date(Date.parse(deleted) + graceMs))
      : undefined;
  const at = isoSeconds(annotated) ?? computed ?? undefined;
  if (at) {
    const left = Date.parse(at) - ctx.now.getTime();
    const when = left > 0 ? `in ${formatDuration(left)}` : `${formatDuration(-left)} ago`;
    const source = annotated ? `${TERMINATION_TIMESTAMP_ANNOTATION} on the NodeClaim` : `its deletionTimestamp + ${grace}`;
    return {
      at,
      line: `terminationGracePeriod ${grace ?? '(set)'} (${grace ? where : 'NodeClaim annotation'}): Karpenter deletes the pods left at ${at} (${when}; ${source}), bypassing PDBs and do-not-disrupt`,
    };
  }
  if (grace)
    return {
      at: undefined,
      line: `terminationGracePeriod ${grace} (${where}); the deadline is set once the NodeClaim is deleted`,
    };
  if (!ctx.snapshot.captured.has('nodepools') && !t.claim)
    return { at: undefined, line: 'NodePool not captured: its terminationGracePeriod unknown' };
  return {
    at: undefined,
    line: `no terminationGracePeriod on ${t.pool ? `NodePool ${t.pool}` : 'the NodePool'} or the NodeClaim: nothing bounds the drain, Karpenter waits for as long as it is blocked`,
  };
}

function stepTarget(ctx: DetectContext, t: Terminating, hasDeadline: boolean): StepTarget {
  const providerID = t.claim?.status?.providerID ?? t.node?.spec?.providerID;
  const zone = /^aws:\/\/\/([^/]+)\//.exec(providerID ?? '')?.[1];
  const c = ctx.index.controllers.find((x) => x.deployment) ?? ctx.index.controllers[0];
  return {
    nodeName: t.nodeName,
    claimName: t.claim?.metadata?.name,
    pool: t.pool,
    instanceId: instanceIdFromProviderID(providerID),
    region: regionOf({ clusterArn: ctx.snapshot.cluster?.arn, zone }),
    controller: c
      ? {
          namespace: c.namespace,
          deployment: c.deploymentName ?? 'karpenter',
          scaledToZero: c.deployment?.spec?.replicas === 0,
        }
      : undefined,
    hasDeadline,
  };
}

function diagnose(ctx: DetectContext, t: Terminating, events: readonly KubeEvent[], target: StepTarget): Verdict {
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

/** Blockers besides the one the cause names, for the evidence. */
function otherBlockers(b: EvictionBlockers): string[] {
  return [
    ...b.pdbBlocked.map((x) => `${describePdb(x.pdb)} selects ${listCapped(x.pods.map(podRef), 5)} on the node`),
    ...b.multiplePdbs.map((x) => `pod ${podRef(x.pod)} is selected by ${x.pdbs.length} PDBs: ${x.pdbs.map(pdbRef).join(', ')}`),
    ...b.doNotDisrupt.map(
      (x) => `pod ${podRef(x.pod)} is annotated karpenter.sh/do-not-disrupt: "${x.value}"${x.until ? ` (until ${x.until})` : ''}`,
    ),
  ];
}

function blockerVerdict(b: EvictionBlockers, target: StepTarget, evidence: string[]): Verdict | undefined {
  const first = b.pdbBlocked[0];
  if (first) {
    const names = b.pdbBlocked.map((x) => pdbRef(x.pdb));
    return {
      cause: 'PDB_BLOCKS_EVICTION',
      what: `PDB ${listCapped(names, 3)} allows no disruption`,
      detail: `${b.pdbBlocked.map((x) => `${describePdb(x.pdb)} selects ${listCapped(x.pods.map(podRef), 5)} on this node`).join('; ')}. With disruptionsAllowed 0 the eviction API refuses each eviction (HTTP 429, "Failed to drain node, evicting pod violates a PDB"), and Karpenter retries forever unless a terminationGracePeriod ends it.`,
      evidence,
      steps: pdbSteps(b.pdbBlocked, target),
    };
  }
  const multiple = b.multiplePdbs[0];
  if (multiple) {
    return {
      cause: 'MULTIPLE_PDBS',
      what: `pod ${podRef(multiple.pod)} is selected by ${multiple.pdbs.length} PDBs`,
      detail: `${b.multiplePdbs.map((x) => `Pod ${podRef(x.pod)} is selected by ${x.pdbs.map(pdbRef).join(' and ')}`).join('; ')}. The eviction API refuses a pod more than one PodDisruptionBudget selects, whatever they allow ("eviction does not support multiple PDBs").`,
      evidence,
      steps: multiplePdbSteps(b.multiplePdbs, target),
    };
  }
  const dnd = b.doNotDisrupt[0];
  if (dnd) {
    return {
      cause: 'DO_NOT_DISRUPT_POD',
      what: `pod ${podRef(dnd.pod)} is annotated karpenter.sh/do-not-disrupt`,
      detail: `${b.doNotDisrupt.map((x) => `Pod ${podRef(x.pod)} is annotated karpenter.sh/do-not-disrupt: "${x.value}"${x.until ? ` (active until ${x.until})` : ''}`).join('; ')}. Karpenter never evicts such a pod and its drain waits until the pod ends or the annotation goes.`,
      evidence,
      steps: doNotDisruptSteps(b.doNotDisrupt, target),
    };
  }
  return undefined;
}

function volumeVerdict(attachments: readonly VolumeAttachment[], target: StepTarget, evidence: string[]): Verdict {
  const describe = (va: VolumeAttachment) =>
    `${va.metadata?.name ?? '?'} (PV ${va.spec?.source?.persistentVolumeName ?? '?'}, ${va.spec?.attacher ?? '?'}, attached ${va.status?.attached ?? '?'}${va.status?.detachError?.message ? `, detachError: ${va.status.detachError.message}` : ''})`;
  return {
    cause: 'VOLUME_DETACH_PENDING',
    what: `${attachments.length} VolumeAttachment(s) not detached`,
    detail: `No pod is left for the drain, but ${attachments.length} VolumeAttachment(s) still bind volumes to the node: ${listCapped(attachments.map(describe), 5)}. Karpenter waits for them to be deleted before it terminates the instance ("Awaiting deletion of bound volumeattachments"), so the CSI driver's detach is what hangs.`,
    evidence,
    steps: volumeSteps(attachments, target),
  };
}

/** The cause from one of Karpenter's events, when the objects that would prove it were not captured. */
function eventVerdict(b: EventBlocker, target: StepTarget, evidence: string[], why: string): Verdict {
  const basis = `From Karpenter's events (${why}).`;
  const inspect = target.nodeName ? [podsOnNodeStep(target.nodeName)] : [];
  switch (b.kind) {
    case 'pdb':
      return {
        cause: 'PDB_BLOCKS_EVICTION',
        what: b.pdb ? `PDB ${b.pdb} allows no disruption` : 'a PDB allows no disruption',
        detail: `${basis} ${b.pdb ? `PDB ${b.pdb} prevents the evictions` : `An eviction${b.pod ? ` of pod ${b.pod}` : ''} violates a PodDisruptionBudget (the event does not name it)`}: with disruptionsAllowed 0 the eviction API refuses it, and Karpenter retries forever unless a terminationGracePeriod ends it.`,
        evidence,
        steps: [
          ...inspect,
          ...(b.pdb && b.pdb.includes('/')
            ? [pdbInspect(b.pdb)]
            : [commandStep('the budgets: the one blocking shows ALLOWED DISRUPTIONS 0', 'kubectl get pdb -A -o wide')]),
          ...closingSteps(target),
        ],
      };
    case 'multiple-pdbs':
      return {
        cause: 'MULTIPLE_PDBS',
        what: 'a pod is selected by several PDBs',
        detail: `${basis} The eviction API refuses a pod${b.pod ? ` (${b.pod})` : ''} that more than one PodDisruptionBudget selects ("eviction does not support multiple PDBs").`,
        evidence,
        steps: [...inspect, 'kubectl get pdb -A -o wide', ...closingSteps(target)],
      };
    case 'do-not-disrupt':
      return {
        cause: 'DO_NOT_DISRUPT_POD',
        what: `${b.pod ? `pod ${b.pod}` : 'a pod'} is annotated karpenter.sh/do-not-disrupt`,
        detail: `${basis} ${b.pod ? `Pod ${b.pod}` : 'A pod on the node'} is annotated karpenter.sh/do-not-disrupt; Karpenter never evicts it and the drain waits for it.`,
        evidence,
        steps: [...inspect, ...closingSteps(target)],
      };
    case 'volumes':
      return {
        cause: 'VOLUME_DETACH_PENDING',
        what: 'VolumeAttachments not detached',
        detail: `${basis} Karpenter awaits the deletion of the VolumeAttachments bound to the node (${b.attachments}) before it terminates the instance.`,
        evidence,
        steps: [
          target.nodeName
            ? `kubectl get volumeattachments -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,PV:.spec.source.persistentVolumeName,ATTACHED:.status.attached`
            : 'kubectl get volumeattachments',
          ...closingSteps(target),
        ],
      };
    case 'waiting':
      return unknownVerdict(
        target,
        evidence,
        `${basis} ${b.pods} pod(s) are waiting to be evicted, and no event says what blocks them.`,
      );
  }
}

function pdbInspect(ref: string): string {
  const [ns = 'default', name = '?'] = ref.split('/');
  return commandStep('the budget the event names', `kubectl get pdb -n ${shellQuote(ns)} ${shellQuote(name)} -o yaml`);
}

function unknownVerdict(target: StepTarget, evidence: string[], detail: string): Verdict {
  return { cause: 'UNKNOWN', what: 'cause unknown', detail, evidence, steps: unknownSteps(target, false) };
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
  if (!controllerAbsenceKnown(s, ctx.index)) return undefined;
  const controllers = ctx.index.controllers;
  const name = (c: (typeof controllers)[number]) => `${c.namespace}/${c.deploymentName ?? 'karpenter'}`;
  if (s.captured.has('pods') && s.pods.some((p) => p.status?.phase === 'Running')) {
    const pods = controllers.flatMap((c) => c.pods);
    if (controllers.some((c) => c.readyPods > 0)) return undefined;
    const scaled = controllers.filter((c) => c.deployment?.spec?.replicas === 0 && c.pods.length === 0);
    if (pods.length === 0 && scaled.length > 0) return `Deployment ${scaled.map(name).join(', ')} is scaled to 0 replicas`;
    if (pods.length === 0) return 'no pod labelled app.kubernetes.io/name=karpenter exists';
    return `${pods.length} controller pod(s), none Ready: ${listCapped(
      pods.map((p) => `${podRef(p)} ${p.status?.phase ?? '?'}`),
      4,
    )}`;
  }
  if (s.captured.has('deployments')) {
    const deployments = controllers.filter((c) => c.deployment);
    if (deployments.length === 0) return 'no Deployment labelled app.kubernetes.io/name=karpenter exists';
    if (deployments.some((c) => (c.deployment?.status?.readyReplicas ?? 0) > 0)) return undefined;
    return `Deployment ${deployments.map(name).join(', ')} has no ready replica`;
  }
  return undefined;
}
