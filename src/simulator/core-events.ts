/**
 * core/v1 Events, served as the API server does: a second view of the events.k8s.io/v1 objects
 * (read-only here), so that `kubectl get events` and `kubectl describe` find them.
 */
import type { JsonRecord } from '../domain/shape.ts';
import type { ListView } from './kube-list.ts';

export const CORE_EVENTS_VIEW: ListView = { name: 'core-events', kind: 'Event', apiVersion: 'v1', render: coreEvent };

export const CORE_EVENTS_RESOURCE = {
  name: 'events',
  singularName: 'event',
  namespaced: true,
  kind: 'Event',
  verbs: ['get', 'list'],
  shortNames: ['ev'],
};

/** An events.k8s.io/v1 Event → the same event as core/v1 shows it (the renamed fields mapped back). */
export function coreEvent(event: JsonRecord): JsonRecord {
  const out: JsonRecord = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: event.metadata,
    involvedObject: event.regarding ?? {},
    reason: event.reason,
    message: event.note,
    source: event.deprecatedSource ?? {},
    firstTimestamp: event.deprecatedFirstTimestamp ?? null,
    lastTimestamp: event.deprecatedLastTimestamp ?? null,
    count: event.deprecatedCount,
    type: event.type,
    eventTime: event.eventTime ?? null,
    series: event.series,
    action: event.action,
    related: event.related,
    reportingComponent: event.reportingController ?? '',
    reportingInstance: event.reportingInstance ?? '',
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}
