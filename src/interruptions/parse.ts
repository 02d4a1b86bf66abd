/**
 * An SQS record of the sentinel's event queue → the interruption events it carries, or the reason
 * it is malformed. Pure: the use case claims, resolves and counts what this returns.
 */
import { toIsoSeconds } from '../domain/kube-helpers.ts';
import type { EventBridgeEvent, InterruptionEvent, InterruptionKind, KindParser, ParseError } from './event.ts';
import { capacityReservationInterruption } from './kinds/capacity-reservation-interruption.ts';
import { rebalanceRecommendation } from './kinds/rebalance-recommendation.ts';
import { scheduledChange } from './kinds/scheduled-change.ts';
import { spotInterruption } from './kinds/spot-interruption.ts';
import { stateChange } from './kinds/state-change.ts';

/** Every kind the queue's EventBridge rules send: one line each. */
export const KIND_PARSERS: readonly KindParser[] = [
  spotInterruption,
  rebalanceRecommendation,
  stateChange,
  scheduledChange,
  capacityReservationInterruption,
];

const BY_SOURCE_AND_TYPE = new Map(KIND_PARSERS.map((p) => [registryKey(p.source, p.detailType), p]));

export interface ParsedRecord {
  /** The EventBridge event id: its deliveries share it. */
  eventId: string;
  kind: InterruptionKind;
  /** Empty when the event is no interruption (a `running` state, a Health event of another service). */
  events: InterruptionEvent[];
}

export function parseRecord(record: { body: string }): ParsedRecord | ParseError {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch (error) {
    return { code: 'bad-json', message: `body is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const envelope = eventBridgeEvent(body);
  if ('error' in envelope) return envelope.error;
  const { event } = envelope;
  const parser = BY_SOURCE_AND_TYPE.get(registryKey(event.source, event['detail-type']));
  if (!parser) {
    return {
      code: 'unknown-detail-type',
      message: `unknown detail-type ${JSON.stringify(event['detail-type'])} from source ${JSON.stringify(event.source)}`,
    };
  }
  const events = parser.parse(event);
  return Array.isArray(events) ? { eventId: event.id, kind: parser.kind, events } : events;
}

/** The envelope's fields this function relies on, checked; `time` normalised to ISO seconds. */
function eventBridgeEvent(body: unknown): { event: EventBridgeEvent } | { error: ParseError } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { error: { code: 'not-an-event', message: 'body is not an EventBridge event (not a JSON object)' } };
  }
  const fields = body as Record<string, unknown>;
  for (const name of ['id', 'detail-type', 'source', 'time', 'region']) {
    const value = fields[name];
    if (typeof value !== 'string' || value === '') {
      return { error: { code: 'not-an-event', message: `body is not an EventBridge event: "${name}" is missing` } };
    }
  }
  const detail = fields.detail;
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
    return { error: { code: 'not-an-event', message: 'body is not an EventBridge event: "detail" is missing' } };
  }
  const time = Date.parse(fields.time as string);
  if (Number.isNaN(time)) {
    return { error: { code: 'invalid-field', message: `"time" ${JSON.stringify(fields.time)} is not a date` } };
  }
  return { event: { ...(fields as unknown as EventBridgeEvent), time: toIsoSeconds(new Date(time)) } };
}

function registryKey(source: string, detailType: string): string {
  return `${source}\u0000${detailType}`;
}
