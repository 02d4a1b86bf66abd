/**
 * `AWS Health Event` (aws.health) for EC2 scheduled changes: instance retirement, stop, reboot or
 * maintenance, announced days ahead. Like Karpenter, only `service: EC2` with
 * `eventTypeCategory: scheduledChange` counts; other Health events are ignored. One event per
 * affected instance (`affectedEntities[].entityValue`); entities that are not instances (a
 * Dedicated Host `h-...`) are skipped.
 */
import { parseIsoTime, toIsoSeconds } from '../../domain/kube-helpers.ts';
import {
  instanceEvent,
  isInstanceId,
  type EventBridgeEvent,
  type KindParser,
  type ParseError,
  type ScheduledChange,
} from '../event.ts';

const DETAIL_TYPE = 'AWS Health Event';

export const scheduledChange: KindParser = {
  kind: 'ScheduledChange',
  source: 'aws.health',
  detailType: DETAIL_TYPE,
  parse(event) {
    const { detail } = event;
    if (detail.service !== 'EC2' || detail.eventTypeCategory !== 'scheduledChange') return [];
    const change = scheduledChangeOf(event);
    if ('code' in change) return change;
    const entities = detail.affectedEntities;
    if (!Array.isArray(entities)) {
      return { code: 'missing-instance-id', message: `${DETAIL_TYPE}: detail.affectedEntities is missing` };
    }
    const instanceIds = [...new Set(entities.map(entityValue).filter(isInstanceId))];
    return instanceIds.map((instanceId) => ({
      ...instanceEvent('ScheduledChange', event, instanceId, change.eventTypeCode),
      scheduledChange: change,
    }));
  },
};

function scheduledChangeOf(event: EventBridgeEvent): ScheduledChange | ParseError {
  const { detail } = event;
  const eventArn = detail.eventArn;
  const eventTypeCode = detail.eventTypeCode;
  if (typeof eventArn !== 'string' || eventArn === '') return missing('detail.eventArn');
  if (typeof eventTypeCode !== 'string' || eventTypeCode === '') return missing('detail.eventTypeCode');
  const change: ScheduledChange = { eventArn, eventTypeCode };
  for (const field of ['startTime', 'endTime'] as const) {
    const value = detail[field];
    if (value === undefined || value === null || value === '') continue;
    const iso = typeof value === 'string' ? healthTime(value) : undefined;
    if (iso === undefined) {
      return { code: 'invalid-field', message: `${DETAIL_TYPE}: detail.${field} ${JSON.stringify(value)} is not a date` };
    }
    change[field] = iso;
  }
  if (typeof detail.statusCode === 'string' && detail.statusCode !== '') change.statusCode = detail.statusCode;
  return change;
}

function missing(field: string): ParseError {
  return { code: 'invalid-field', message: `${DETAIL_TYPE}: ${field} is missing` };
}

function entityValue(entity: unknown): unknown {
  return typeof entity === 'object' && entity !== null ? (entity as Record<string, unknown>).entityValue : undefined;
}

/** RFC 1123 as AWS Health writes it (`Sat, 05 Jun 2027 17:00:00 GMT`), or ISO-8601. */
const RFC_1123 = /^(?:[A-Z][a-z]{2}, )?\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}(?::\d{2})? (?:GMT|UTC|Z|[+-]\d{4})$/;

/** A Health timestamp as ISO-8601 seconds; undefined when it is neither form (Date.parse alone accepts too much). */
export function healthTime(text: string): string | undefined {
  const trimmed = text.trim();
  const ms = RFC_1123.test(trimmed) ? Date.parse(trimmed) : (parseIsoTime(trimmed)?.getTime() ?? Number.NaN);
  return Number.isNaN(ms) ? undefined : toIsoSeconds(new Date(ms));
}
