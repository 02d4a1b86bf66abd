/**
 * NODE_TERMINATION_STUCK's Detector and the finding it assembles for each stuck node: the subject
 * (the Node, else the NodeClaim), its severity by age, the evidence in reading order (since when,
 * the NodeClaim, the cause's own lines, Karpenter's drain events, the deadline) and the steps'
 * target. Which nodes (terminating.ts), when Karpenter gives up waiting (deadline.ts) and why they
 * are stuck (diagnosis.ts) are decided apart, so this file reads as the finding's outline.
 */
import { manualRemediation, newFinding, type Finding, type ResourceRef } from '../../domain/finding.ts';
import { instanceIdFromProviderID, isoSeconds } from '../../domain/kube-helpers.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { regionOf } from '../aws-iam/iam-arn.ts';
import { deadlineOf } from './deadline.ts';
import { diagnose } from './diagnosis.ts';
import { drainEvents, terminating, type Terminating } from './terminating.ts';
import { quoteEvent } from './termination-events.ts';
import type { StepTarget } from './termination-steps.ts';
import { costOf } from '../../domain/cost.ts';
import { billed, pricedClaim } from '../karpenter/priced-instances.ts';

type Code = 'NODE_TERMINATION_STUCK';

/** Past this, a stuck termination is critical: a node paid for twice, its replacement already up. */
const CRITICAL_AFTER_MS = 2 * 3_600_000;

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
    // The node held (docs/cost.md): its instance bills until the termination finishes, whatever
    // replaced it. An instance EC2 says is stopped or gone costs nothing.
    cost: costOf(ctx.prices, billed([pricedClaim(ctx.index, t.claim, t.node)])),
  });
}

function claimLine(t: Terminating): string[] {
  const c = t.claim;
  if (!c) return t.node ? ['no NodeClaim for this Node in the capture'] : [];
  const finalizers = c.metadata?.finalizers?.length ? `finalizers ${c.metadata.finalizers.join(', ')}` : 'no finalizers listed';
  const deleting = c.metadata?.deletionTimestamp ? `deletionTimestamp ${c.metadata.deletionTimestamp}` : 'not being deleted yet';
  return [`NodeClaim ${c.metadata?.name ?? '?'} (NodePool ${t.pool ?? '?'}): ${deleting}; ${finalizers}`];
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
