/**
 * The state table's items and their attributes (the layout is drawn in dynamodb-state.ts): how a
 * record becomes an item and back. An item this code cannot read is named in the error, so it can
 * be found and deleted.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { SEVERITIES, type Severity } from '../../domain/codes.ts';
import type { Finding, Remediation } from '../../domain/finding.ts';
import { SourceError } from '../../ports/errors.ts';
import type { ClusterRecordsSummary, ClusterStatus, OpenAlert, OutboxEntry, RemediationCooldown } from '../../ports/state.ts';
import { STATE_TABLE_KEYS } from './state-table.ts';

export type Item = Record<string, AttributeValue>;

/** An abandoned open alert (its cluster deleted, the service removed) vanishes this long after its last alert. */
export const OPEN_ALERT_TTL_MS = 30 * 24 * 3_600_000;
/** An action's announcement nobody could deliver (the topic refusing for two weeks) vanishes this long after it was recorded. */
export const OUTBOX_TTL_MS = 14 * 24 * 3_600_000;

const NO_SORT_KEY = '-';
const { partitionKey: PK, sortKey: SK, ttlAttribute: TTL } = STATE_TABLE_KEYS;
const CONTROLLER_STATES: readonly ClusterStatus['controller'][] = ['available', 'unavailable', 'not-found', 'managed', 'unknown'];

export function keyOf(pk: string, sk: string = NO_SORT_KEY): Item {
  return { [PK]: text(pk), [SK]: text(sk) };
}

export function text(value: string): AttributeValue {
  return { S: value };
}

export function number(value: number): AttributeValue {
  return { N: String(value) };
}

/** TTL is in whole seconds: rounded up, so nothing expires before its time. */
export function epochSeconds(ms: number): AttributeValue {
  return number(Math.ceil(ms / 1000));
}

function timeOf(iso: string, field: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new TypeError(`${field} is not an ISO-8601 time: ${JSON.stringify(iso)}`);
  return ms;
}

export function openAlertItem(alert: OpenAlert): Item {
  return {
    ...keyOf(`ALERT#${alert.cluster}`, alert.key),
    cluster: text(alert.cluster),
    key: text(alert.key),
    code: text(alert.code),
    severity: text(alert.severity),
    title: text(alert.title),
    firstSeen: text(alert.firstSeen),
    lastSent: text(alert.lastSent),
    [TTL]: epochSeconds(timeOf(alert.lastSent, 'lastSent') + OPEN_ALERT_TTL_MS),
  };
}

export function openAlertOf(item: Item): OpenAlert {
  const severity = textOf(item, 'severity');
  if (!(SEVERITIES as readonly string[]).includes(severity)) throw unexpectedItem(item, 'severity');
  return {
    cluster: textOf(item, 'cluster'),
    key: textOf(item, 'key'),
    code: textOf(item, 'code'),
    severity: severity as Severity,
    title: textOf(item, 'title'),
    firstSeen: textOf(item, 'firstSeen'),
    lastSent: textOf(item, 'lastSent'),
  };
}

export function cooldownItem(cooldown: RemediationCooldown): Item {
  return {
    ...keyOf(`COOLDOWN#${cooldown.cluster}`, `${cooldown.findingId}#${cooldown.action}`),
    cluster: text(cooldown.cluster),
    findingId: text(cooldown.findingId),
    action: text(cooldown.action),
    until: text(cooldown.until),
    lastOutcome: text(cooldown.lastOutcome),
    [TTL]: epochSeconds(timeOf(cooldown.until, 'until')),
  };
}

export function cooldownOf(item: Item): RemediationCooldown {
  return {
    cluster: textOf(item, 'cluster'),
    findingId: textOf(item, 'findingId'),
    action: textOf(item, 'action'),
    until: textOf(item, 'until'),
    lastOutcome: textOf(item, 'lastOutcome'),
  };
}

export function clusterStatusItem(status: ClusterStatus, ttlMs: number): Item {
  return {
    ...keyOf(`STATUS#${status.cluster}`),
    cluster: text(status.cluster),
    observedAt: text(status.observedAt),
    controller: text(status.controller),
    readyReplicas: number(status.readyReplicas),
    desiredReplicas: number(status.desiredReplicas),
    [TTL]: epochSeconds(timeOf(status.observedAt, 'observedAt') + ttlMs),
  };
}

export function clusterStatusOf(item: Item): ClusterStatus {
  const fields = {
    cluster: item.cluster?.S,
    observedAt: item.observedAt?.S,
    controller: item.controller?.S,
    readyReplicas: item.readyReplicas?.N === undefined ? undefined : Number(item.readyReplicas.N),
    desiredReplicas: item.desiredReplicas?.N === undefined ? undefined : Number(item.desiredReplicas.N),
  };
  const invalid = invalidStatusField(fields);
  if (invalid !== undefined) throw unexpectedItem(item, invalid);
  return fields as ClusterStatus;
}

/** The first field that a controller status (an item's, or a summary's JSON) lacks or holds wrong; undefined when valid. */
function invalidStatusField(s: Record<string, unknown>): keyof ClusterStatus | undefined {
  if (!CONTROLLER_STATES.some((state) => state === s.controller)) return 'controller';
  if (typeof s.cluster !== 'string') return 'cluster';
  if (typeof s.observedAt !== 'string') return 'observedAt';
  if (!Number.isFinite(s.readyReplicas)) return 'readyReplicas';
  if (!Number.isFinite(s.desiredReplicas)) return 'desiredReplicas';
  return undefined;
}

/**
 * A released lease: no holder, the summary its holder left, and expired at its scan's time. The
 * version before summaries (a rollback) takes a lease once its expiresAt has passed, so it takes
 * this one at once; this version reads the summary whatever its expiresAt. TTL deletes it some time
 * later (DynamoDB deletes expired items within days, not at once): the next scan then finds no
 * summary and reads everything, once.
 */
export function releasedLeaseItem(cluster: string, summary: ClusterRecordsSummary): Item {
  return {
    ...keyOf(`LEASE#${cluster}`),
    summary: text(JSON.stringify(summary)),
    [TTL]: epochSeconds(timeOf(summary.scannedAt, 'scannedAt')),
  };
}

/**
 * The summary a released lease left, whatever its expiresAt; undefined when there is none or it
 * cannot be read (a lease of an older version, a held lease): the scan then reads everything, as
 * it did before summaries.
 */
export function leaseSummaryOf(item: Item | undefined): ClusterRecordsSummary | undefined {
  const raw = item?.summary?.S;
  if (raw === undefined || item?.holder !== undefined) return undefined;
  try {
    const summary = JSON.parse(raw) as unknown;
    return isSummary(summary) ? summary : undefined;
  } catch {
    return undefined;
  }
}

function isSummary(value: unknown): value is ClusterRecordsSummary {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s.scannedAt === 'string' &&
    typeof s.openAlerts === 'boolean' &&
    typeof s.outbox === 'boolean' &&
    (s.cooldownsUntil === undefined || (typeof s.cooldownsUntil === 'string' && !Number.isNaN(Date.parse(s.cooldownsUntil)))) &&
    (s.status === undefined || isClusterStatus(s.status))
  );
}

function isClusterStatus(value: unknown): value is ClusterStatus {
  return typeof value === 'object' && value !== null && invalidStatusField(value as Record<string, unknown>) === undefined;
}

export function outboxItem(entry: OutboxEntry): Item {
  return {
    ...keyOf(`OUTBOX#${entry.cluster}`, entry.id),
    cluster: text(entry.cluster),
    id: text(entry.id),
    recordedAt: text(entry.recordedAt),
    finding: text(JSON.stringify(entry.finding)),
    ...(entry.outcome ? { outcome: text(JSON.stringify(entry.outcome)) } : {}),
    [TTL]: epochSeconds(timeOf(entry.recordedAt, 'recordedAt') + OUTBOX_TTL_MS),
  };
}

export function outboxEntryOf(item: Item): OutboxEntry {
  const finding = jsonOf(item, 'finding');
  if (!isPlannedFinding(finding)) throw unexpectedItem(item, 'finding');
  const entry: OutboxEntry = {
    cluster: textOf(item, 'cluster'),
    id: textOf(item, 'id'),
    recordedAt: textOf(item, 'recordedAt'),
    finding,
  };
  if (item.outcome === undefined) return entry;
  const outcome = jsonOf(item, 'outcome');
  if (!isRemediation(outcome)) throw unexpectedItem(item, 'outcome');
  return { ...entry, outcome };
}

/** The fields the alert is rendered from; the rest is as this code wrote it. */
function isPlannedFinding(value: unknown): value is Finding {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return (
    typeof f.id === 'string' &&
    typeof f.code === 'string' &&
    typeof f.title === 'string' &&
    (SEVERITIES as readonly unknown[]).includes(f.severity) &&
    typeof f.resource === 'object' &&
    f.resource !== null &&
    isRemediation(f.remediation)
  );
}

function isRemediation(value: unknown): value is Remediation {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.action === 'string' && typeof r.status === 'string' && typeof r.reason === 'string' && Array.isArray(r.steps);
}

/** A JSON value stored as text. */
function jsonOf(item: Item, name: string): unknown {
  try {
    return JSON.parse(textOf(item, name));
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw unexpectedItem(item, name);
  }
}

function textOf(item: Item, name: string): string {
  const value = item[name]?.S;
  if (value === undefined) throw unexpectedItem(item, name);
  return value;
}

/** An item this code did not write (or an older layout): named, so it can be found and deleted. */
export function unexpectedItem(item: Item, attribute: string): SourceError {
  return new SourceError(`state item ${item[PK]?.S ?? '?'}/${item[SK]?.S ?? '?'} has no valid ${attribute}`, {
    code: 'UnexpectedItem',
  });
}
