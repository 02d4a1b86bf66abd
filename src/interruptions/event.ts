/**
 * What the interruptions function reads from its queue: EventBridge events about EC2 instances,
 * turned into one InterruptionEvent per affected instance. Field names follow the EventBridge
 * schemas (and Karpenter's own parsers in karpenter-provider-aws, pkg/controllers/interruption/messages).
 */

/**
 * The kinds, as the `Kind` dimension of the InterruptionEvents metric: Karpenter's message kinds
 * without its `Kind` suffix, plus the capacity reservation warning.
 */
export const INTERRUPTION_KINDS = [
  'SpotInterruption',
  'RebalanceRecommendation',
  'StateChange',
  'ScheduledChange',
  'CapacityReservationInterruption',
] as const;
export type InterruptionKind = (typeof INTERRUPTION_KINDS)[number];

/** An AWS Health scheduled change (maintenance, retirement) as the event announced it. */
export interface ScheduledChange {
  eventArn: string;
  eventTypeCode: string;
  /** ISO-8601 seconds; AWS Health writes RFC 1123 (`Sat, 05 Jun 2027 17:00:00 GMT`). */
  startTime?: string;
  endTime?: string;
  /** `upcoming`, `open` or `closed`, when the event says. */
  statusCode?: string;
}

/** One instance affected by one EventBridge event. */
export interface InterruptionEvent {
  kind: InterruptionKind;
  /** The EventBridge event id (the idempotency key of its delivery). */
  eventId: string;
  instanceId: string;
  /** ISO-8601 seconds: when EventBridge saw it. */
  time: string;
  region: string;
  /** What happens to the instance: `terminate`/`stop`/`hibernate`, the new state, or the Health event type code. */
  action?: string;
  scheduledChange?: ScheduledChange;
}

/** The envelope every EventBridge event has (https://docs.aws.amazon.com/eventbridge/latest/ref/overiew-event-structure.html). */
export interface EventBridgeEvent {
  id: string;
  'detail-type': string;
  source: string;
  account?: string;
  time: string;
  region: string;
  resources?: unknown[];
  detail: Record<string, unknown>;
}

type ParseErrorCode = 'bad-json' | 'not-an-event' | 'unknown-detail-type' | 'missing-instance-id' | 'invalid-field';

/** Why a record is malformed: retrying cannot help, so it fails alone and reaches the DLQ. */
export interface ParseError {
  code: ParseErrorCode;
  /** One line naming the field and what was wrong with it. */
  message: string;
}

/** One module per event kind. `parse` returns no events for what is not an interruption (a `running` state). */
export interface KindParser {
  kind: InterruptionKind;
  source: string;
  detailType: string;
  parse(event: EventBridgeEvent): InterruptionEvent[] | ParseError;
}

export function isParseError<T>(result: T | ParseError): result is ParseError {
  return typeof result === 'object' && result !== null && !Array.isArray(result) && 'code' in result && 'message' in result;
}

/**
 * EC2 instance ids: `i-` and lower-case hex digits. EC2 issues 8 or 17; Karpenter's own examples
 * and tests use lengths in between (`i-0123456789` in its spot_interrupted example, `i-01234567890123`
 * in its docs), which Karpenter accepts, so 8 to 17 are. Still strictly hex and bounded: the id
 * reaches alerts, shell steps and DescribeInstances.
 */
const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

export function isInstanceId(value: unknown): value is string {
  return typeof value === 'string' && INSTANCE_ID.test(value);
}

/** `detail.instance-id`, or the error naming what was wrong with it. */
export function detailInstanceId(event: EventBridgeEvent): string | ParseError {
  const value = event.detail['instance-id'];
  if (value === undefined || value === null || value === '') {
    return { code: 'missing-instance-id', message: `${event['detail-type']}: detail.instance-id is missing` };
  }
  if (!isInstanceId(value)) {
    return {
      code: 'invalid-field',
      message: `${event['detail-type']}: detail.instance-id ${JSON.stringify(value)} is not an EC2 instance id`,
    };
  }
  return value;
}

/** An optional string field of `detail`; anything but a string is absent. */
export function detailString(event: EventBridgeEvent, field: string): string | undefined {
  const value = event.detail[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The fields every event of one instance carries. */
export function instanceEvent(
  kind: InterruptionKind,
  event: EventBridgeEvent,
  instanceId: string,
  action: string | undefined,
): InterruptionEvent {
  return {
    kind,
    eventId: event.id,
    instanceId,
    time: event.time,
    region: event.region,
    ...(action !== undefined ? { action } : {}),
  };
}
