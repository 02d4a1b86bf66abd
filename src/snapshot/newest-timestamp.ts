/**
 * The newest time written anywhere in a capture: the capture was taken at or after it. Kubernetes
 * stamps what changes (a Node's `lastHeartbeatTime` about every minute, `managedFields[].time` on
 * every write, events' `lastTimestamp`), and the controller logs as it works, so on a live cluster
 * the newest stamp is seconds to minutes before the capture (docs/capture.md "The capture's time").
 */
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import type { KubeObject } from '../domain/kube.ts';
import { parseIsoTime } from '../domain/kube-helpers.ts';
import { isRecord } from '../domain/shape.ts';

interface NewestTimestamp {
  time: Date;
  /** Where it was written: `Node ip-10-0-1-20.ec2.internal lastHeartbeatTime`, `karpenter.log:12`. */
  where: string;
}

export interface NewestTimestamps {
  newest?: NewestTimestamp;
  /** Stamps after `notAfter`, not taken: no capture holds a time from the future. */
  ignored: number;
  /** The first of them, to name in a note. */
  firstIgnored?: NewestTimestamp;
}

/** Field names Kubernetes gives times: `creationTimestamp`, `lastTransitionTime`, `startedAt`, `time`. */
const TIME_FIELD = /(?:Time|Timestamp|At)$|^time$/;
/** Deep enough for every stamp Kubernetes writes (`status.containerStatuses[].lastState.terminated.finishedAt`). */
const MAX_DEPTH = 8;

/** The newest stamp at or before `notAfter` (ms since the epoch), and how many were after it. */
export function newestTimestamp(snapshot: ClusterSnapshot, notAfter: number): NewestTimestamps {
  const found: NewestTimestamps = { ignored: 0 };
  const offer = (text: unknown, where: () => string, earlierMs = 0) => {
    if (typeof text !== 'string' || text.length > 40) return;
    const parsed = parseIsoTime(text);
    if (!parsed) return;
    const time = new Date(parsed.getTime() - earlierMs);
    if (time.getTime() > notAfter) {
      found.ignored++;
      found.firstIgnored ??= { time, where: where() };
    } else if (!found.newest || time > found.newest.time) found.newest = { time, where: where() };
  };
  const kubeObjects: readonly (readonly KubeObject[])[] = [
    snapshot.pods,
    snapshot.deployments,
    snapshot.replicaSets,
    snapshot.nodes,
    snapshot.configMaps,
    snapshot.services,
    snapshot.nodeClaims,
    snapshot.nodePools,
    snapshot.nodeClasses,
    snapshot.pdbs,
    snapshot.volumeAttachments,
    snapshot.webhookConfigurations ?? [],
    snapshot.endpoints ?? [],
  ];
  for (const objects of kubeObjects) {
    for (const object of objects) {
      const name = () => `${object.kind ?? 'object'} ${objectName(object)}`;
      visitTimes(object.metadata, 0, (key, value) => {
        // When the object will be deleted: a pod's is its grace period (30 s, or hours) after the request.
        const grace = (object.metadata as Record<string, unknown> | undefined)?.deletionGracePeriodSeconds;
        const earlierMs = key === 'deletionTimestamp' && typeof grace === 'number' && grace > 0 ? grace * 1000 : 0;
        offer(value, () => `${name()} ${key}`, earlierMs);
      });
      visitTimes((object as { status?: unknown }).status, 0, (key, value) => offer(value, () => `${name()} ${key}`));
    }
  }
  for (const event of snapshot.events) {
    const about = `Event ${event.reason ?? ''} on ${event.regarding.kind ?? ''} ${event.regarding.name ?? ''}`.replace(
      /\s+/g,
      ' ',
    );
    offer(event.lastTime, () => `${about} lastTimestamp`);
    offer(event.firstTime, () => `${about} firstTimestamp`);
  }
  for (const line of snapshot.logs) offer(line.time, () => line.origin);
  for (const instance of snapshot.instances) offer(instance.launchTime, () => `Instance ${instance.id} LaunchTime`);
  return found;
}

function objectName(object: KubeObject): string {
  const { namespace, name } = object.metadata ?? {};
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** Calls `visit` with every field named like a time, in records and lists `depth` levels down at most. */
function visitTimes(value: unknown, depth: number, visit: (key: string, value: unknown) => void): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) visitTimes(item, depth + 1, visit);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === 'string') {
      if (TIME_FIELD.test(key)) visit(key, field);
    } else visitTimes(field, depth + 1, visit);
  }
}
