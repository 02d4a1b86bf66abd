import type { Condition, KubeObject } from '../../domain/kube.ts';
import { ageMs, conditionOf, isoSeconds } from '../../domain/kube-helpers.ts';

/**
 * How long a Karpenter object may sit without a decided `Ready` (no condition yet, or `Unknown`)
 * before we call it not ready. Karpenter settles a new or edited NodePool/EC2NodeClass within a
 * reconcile or two (seconds); `Unknown` right after an edit ("ReconcilingDependents") is normal,
 * `Unknown` for minutes means nothing is reconciling it. `False` is reported at once: Karpenter
 * decided it.
 */
const READINESS_SETTLE_MS = 5 * 60_000;

export interface NotReady {
  /** The `Ready` condition, absent when Karpenter never wrote one. */
  ready: Condition | undefined;
  /** When it became not ready: the Ready transition, else the object's creation. */
  since: string | null;
}

/** Undefined when the object is Ready, or still within the settle time of an undecided Ready. */
export function notReady(obj: KubeObject & { status?: { conditions?: Condition[] } }, now: Date): NotReady | undefined {
  const ready = conditionOf(obj, 'Ready');
  if (ready?.status === 'True') return undefined;
  if (!ready && reconciledWithoutConditions(obj.status)) return undefined;
  const sinceRaw = ready?.lastTransitionTime ?? obj.metadata?.creationTimestamp;
  if (ready?.status !== 'False') {
    const age = ageMs(sinceRaw, now);
    if (age === undefined || age < READINESS_SETTLE_MS) return undefined;
  }
  return { ready, since: isoSeconds(sinceRaw) };
}

/** `AMINotFound: AMISelector did not match any AMIs`: a condition's reason and message, whichever it has. */
export function conditionText(c: { reason?: string; message?: string }): string {
  return [c.reason, c.message].filter(Boolean).join(': ');
}

/** `AMIsReady=False (AMINotFound: AMISelector did not match any AMIs)`. */
export function describeCondition(c: Condition): string {
  const why = conditionText(c);
  return why ? `${c.type}=${c.status} (${why})` : `${c.type}=${c.status}`;
}

/**
 * Karpenter before v0.37 (v1beta1) wrote no status conditions on NodePools and EC2NodeClasses: a
 * status holding what it resolved (`amis`, `subnets`, `resources`, …) and no conditions at all is a
 * reconciled object of that era, not one the controller never saw.
 */
function reconciledWithoutConditions(status: { conditions?: Condition[] } | undefined): boolean {
  if (!status || (status.conditions ?? []).length > 0) return false;
  return Object.entries(status).some(
    ([key, value]) =>
      key !== 'conditions' &&
      value !== null &&
      value !== undefined &&
      (typeof value !== 'object' || Object.keys(value).length > 0),
  );
}
