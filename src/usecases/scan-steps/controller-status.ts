/**
 * The controller status a scan saves for the interruptions function (docs/service.md): written when
 * it differs from the one last saved, while the controller is unavailable (the interruptions
 * function trusts that reading only while it is young), and at least hourly so the record (kept a
 * day) never lapses. A healthy, unchanged cluster's status is not rewritten every minute.
 */
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { ClusterStatus } from '../../ports/state.ts';
import { controllerStatusOf } from '../controller-status.ts';
import type { ScanStateStore } from './context.ts';

/** The controller status stays readable for a day; the interruptions function judges its age by `observedAt`. */
export const CLUSTER_STATUS_TTL_MS = 24 * 3_600_000;
/** An unchanged status is written again after this long: well inside its TTL. */
const STATUS_REFRESH_MS = 3_600_000;

/** Saves the status the scan saw when it must; returns the status as now saved. */
export async function saveControllerStatus(
  state: ScanStateStore,
  snapshot: ClusterSnapshot,
  now: Date,
  lastSaved: ClusterStatus | undefined,
): Promise<ClusterStatus> {
  const status = controllerStatusOf(snapshot, now);
  if (lastSaved && !mustSave(status, lastSaved, now)) return lastSaved;
  await state.saveClusterStatus(status, CLUSTER_STATUS_TTL_MS);
  return status;
}

function mustSave(status: ClusterStatus, lastSaved: ClusterStatus, now: Date): boolean {
  return (
    status.controller === 'unavailable' ||
    status.controller !== lastSaved.controller ||
    status.readyReplicas !== lastSaved.readyReplicas ||
    status.desiredReplicas !== lastSaved.desiredReplicas ||
    !(now.getTime() - Date.parse(lastSaved.observedAt) < STATUS_REFRESH_MS)
  );
}
