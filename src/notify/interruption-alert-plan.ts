/**
 * Which alerts a batch sends, and which deliveries each stands for (when publishing fails, those
 * are retried). Pure: the statuses and surge counts were read before.
 */
import type { Alert } from '../domain/alert.ts';
import type { Severity } from '../domain/codes.ts';
import {
  alertWanted,
  controllerUnavailable,
  scheduledMaintenanceAlert,
  surgeAlert,
  UNATTENDED_KINDS,
  unattendedAlert,
} from './interruption-alerts.ts';
import type { ClusterStatus } from '../ports/state.ts';
import type { Delivery } from '../interruptions/batch.ts';
import type { ResolvedEvent } from '../interruptions/owner.ts';

/** The surge events of one cluster, NodePool and window in this batch. */
export interface SurgeGroup {
  cluster: string;
  nodePool: string;
  start: Date;
  events: ResolvedEvent[];
  deliveries: Set<Delivery>;
  /** The window's count after this batch was added. */
  total?: number;
  /** Set once this invocation holds the window's alert claim. */
  alertKey?: string;
}

export interface PlannedAlert {
  alert: Alert;
  from: Delivery[];
}

export interface AlertPlanSettings {
  surgeThreshold: number;
  surgeWindowMs: number;
  controllerStatusMaxAgeMs: number;
  minSeverity: Severity;
}

/**
 * - INTERRUPTION_UNATTENDED: one per Karpenter cluster whose saved status says the controller is
 *   unavailable (and is fresh), listing the batch's events of UNATTENDED_KINDS there;
 * - INTERRUPTION_SURGE: one per window whose alert claim this invocation took;
 * - SCHEDULED_MAINTENANCE: one per Health event and Karpenter cluster.
 * Instances of no Karpenter cluster are never alerted on.
 */
export function planAlerts(
  active: readonly Delivery[],
  groups: readonly SurgeGroup[],
  statuses: ReadonlyMap<string, ClusterStatus>,
  settings: AlertPlanSettings,
  now: Date,
): PlannedAlert[] {
  const planned: PlannedAlert[] = [];
  const karpenterEvents = active.flatMap((d) => d.resolved.filter((e) => e.karpenter).map((e) => ({ d, e })));

  if (alertWanted('INTERRUPTION_UNATTENDED', settings.minSeverity)) {
    for (const cluster of [...new Set(karpenterEvents.map(({ e }) => e.cluster))].sort()) {
      const status = statuses.get(cluster);
      if (!status || !controllerUnavailable(status, now, settings.controllerStatusMaxAgeMs)) continue;
      const mine = karpenterEvents.filter(({ e }) => e.cluster === cluster && UNATTENDED_KINDS.has(e.kind));
      if (mine.length === 0) continue;
      planned.push({
        alert: unattendedAlert({ cluster, status, events: mine.map(({ e }) => e), now }),
        from: [...new Set(mine.map(({ d }) => d))],
      });
    }
  }

  for (const g of groups) {
    if (!g.alertKey || g.total === undefined) continue;
    const alert = surgeAlert({
      ...g,
      total: g.total,
      threshold: settings.surgeThreshold,
      windowStart: g.start,
      windowMs: settings.surgeWindowMs,
      now,
    });
    planned.push({ alert, from: [...g.deliveries] });
  }

  if (alertWanted('SCHEDULED_MAINTENANCE', settings.minSeverity)) {
    for (const d of active) {
      const scheduled = d.resolved.filter((e) => e.karpenter && e.scheduledChange);
      for (const cluster of [...new Set(scheduled.map((e) => e.cluster))].sort()) {
        const events = scheduled.filter((e) => e.cluster === cluster);
        const change = events[0]?.scheduledChange;
        if (change) planned.push({ alert: scheduledMaintenanceAlert({ cluster, change, events, now }), from: [d] });
      }
    }
  }
  return planned;
}
