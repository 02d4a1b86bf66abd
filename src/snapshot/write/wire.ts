/**
 * Snapshot records back to what the cluster's API and `kubectl logs` print, for the simulator to
 * serve and `snapshot --out` to write. Reading the result back gives the same records.
 */
import { createHash } from 'node:crypto';
import type { LogLine } from '../../domain/aws.ts';
import type { KubeEvent } from '../../domain/kube.ts';
import type { JsonRecord } from '../../domain/shape.ts';

const DEFAULT_EVENT_NAMESPACE = 'default';

/**
 * A normalised event → the events.k8s.io/v1 Event the API server shows for an event recorded
 * through core/v1 (times and count in the `deprecated*` fields), which normalises back to it.
 */
export function eventObject(event: KubeEvent, index: number): JsonRecord {
  const namespace = event.namespace ?? event.regarding.namespace ?? DEFAULT_EVENT_NAMESPACE;
  const digest = createHash('sha1')
    .update(`${index}\n${JSON.stringify(event)}`)
    .digest('hex')
    .slice(0, 16);
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: {
      name: `${event.regarding.name ?? 'event'}.${digest}`,
      namespace,
      ...(event.firstTime ? { creationTimestamp: event.firstTime } : {}),
    },
    regarding: { ...event.regarding },
    ...(event.reason !== undefined ? { reason: event.reason } : {}),
    ...(event.message !== undefined ? { note: event.message } : {}),
    ...(event.type !== undefined ? { type: event.type } : {}),
    ...(event.source !== undefined ? { reportingController: event.source, deprecatedSource: { component: event.source } } : {}),
    ...(event.firstTime !== undefined ? { deprecatedFirstTimestamp: event.firstTime } : {}),
    ...(event.lastTime !== undefined ? { deprecatedLastTimestamp: event.lastTime } : {}),
    ...(event.count !== undefined ? { deprecatedCount: event.count } : {}),
  };
}

/** A JSON line from its fields when the line was JSON, else the line as captured. */
export function logLineAsPrinted(line: LogLine): string {
  const fields = line.fields;
  if (typeof fields.message === 'string' || typeof fields.msg === 'string') return JSON.stringify(fields);
  if (line.time === undefined && line.level === undefined && Object.keys(fields).length === 0) return line.message;
  return JSON.stringify({
    ...(line.level !== undefined ? { level: line.level } : {}),
    ...(line.time !== undefined ? { time: line.time } : {}),
    ...fields,
    message: line.message,
    ...(line.error !== undefined ? { error: line.error } : {}),
  });
}

/** A whole log, one line each. */
export function logLinesToText(lines: readonly LogLine[]): string {
  return lines.map((line) => `${logLineAsPrinted(line)}\n`).join('');
}
