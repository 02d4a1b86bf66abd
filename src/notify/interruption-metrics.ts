/**
 * The InterruptionEvents metric of one invocation: one datum per Cluster, NodePool and Kind, so
 * the whole batch is written at once (EMF lines).
 */
import { METRIC, type MetricDatum } from '../domain/metric.ts';
import type { ResolvedEvent } from '../interruptions/owner.ts';

export function interruptionMetrics(events: readonly ResolvedEvent[]): MetricDatum[] {
  const counts = new Map<string, { dimensions: Record<string, string>; value: number }>();
  for (const e of events) {
    const key = [e.cluster, e.nodePool, e.kind].join('\u0000');
    const existing = counts.get(key);
    if (existing) existing.value += 1;
    else counts.set(key, { dimensions: { Cluster: e.cluster, NodePool: e.nodePool, Kind: e.kind }, value: 1 });
  }
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, { dimensions, value }]) => ({ name: METRIC.interruptionEvents, unit: 'Count', value, dimensions }));
}
