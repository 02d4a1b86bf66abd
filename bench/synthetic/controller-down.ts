/**
 * The live bench's second scenario: the same cluster with the Karpenter controller down, its pods
 * crash-looping (Running, not Ready). A live scan then lists every pod (judging where the
 * controller could run needs them all: src/collect/kube-collector.ts), the costliest read there is.
 */
import type { ClusterSnapshot } from '../../src/domain/snapshot.ts';
import { hasControllerLabel } from '../../src/domain/snapshot-index.ts';

/** Restarts each controller container has had by the time of the scan. */
const CRASH_RESTARTS = 14;

/** `snapshot` with its controller pods crash-looping; the rest untouched (changed in place, returned). */
export function takeControllerDown(snapshot: ClusterSnapshot): ClusterSnapshot {
  for (const pod of snapshot.pods) {
    if (!hasControllerLabel(pod.metadata?.labels) || !pod.status) continue;
    const status = pod.status;
    status.conditions = (status.conditions ?? []).map((c) =>
      c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False', reason: 'ContainersNotReady' } : c,
    );
    status.containerStatuses = (status.containerStatuses ?? []).map((c) => ({
      ...c,
      ready: false,
      restartCount: CRASH_RESTARTS,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { reason: 'Error', exitCode: 1 } },
    }));
  }
  return snapshot;
}
