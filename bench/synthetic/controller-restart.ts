/**
 * The Karpenter controller, still healthy: one replica restarted once, half its life ago (12 h at
 * least), and ran since (under KARPENTER_CONTROLLER_UNHEALTHY's threshold), the other never. The restarted one
 * has a previous container's log, which a live scan reads (`previous=true`).
 */
import type { LogLine } from '../../src/domain/aws.ts';
import type { Pod } from '../../src/domain/kube.ts';
import { DAY, MINUTE, iso, type Generation } from './context.ts';

const PREVIOUS_LOG_LINES = [
  'Starting EventSource',
  'Starting Controller',
  'Starting workers',
  'Stopping and waiting for non leader election runnables',
  'Stopping and waiting for leader election runnables',
];

/** Sets the controller pods' restarts; returns the restarted one's previous log. */
export function restartController(gen: Generation, controllerPods: readonly Pod[]): LogLine[] {
  const [restarted, ...others] = controllerPods;
  for (const pod of others)
    for (const c of pod.status?.containerStatuses ?? []) {
      c.restartCount = 0;
      // Running since the pod started: an API server serves the logs of a running container only.
      c.state ??= {
        running: { startedAt: pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? iso(gen.nowMs - 2 * DAY) },
      };
    }
  if (!restarted?.status) return [];
  const startedMs = Date.parse(restarted.metadata?.creationTimestamp ?? '') || gen.nowMs - 2 * DAY;
  const stoppedMs = startedMs + Math.floor((gen.nowMs - startedMs) / 2) + gen.rng.int(0, 60 * MINUTE);
  restarted.status.containerStatuses = (restarted.status.containerStatuses ?? []).map((c) => ({
    ...c,
    restartCount: 1,
    state: { running: { startedAt: iso(stoppedMs + 2_000) } },
    lastState: { terminated: { reason: 'Completed', exitCode: 0, startedAt: iso(startedMs), finishedAt: iso(stoppedMs) } },
  }));
  return PREVIOUS_LOG_LINES.map((message, i) => {
    const time = new Date(stoppedMs - (PREVIOUS_LOG_LINES.length - i) * 1_000).toISOString();
    const fields = { level: 'INFO', time, logger: 'controller', message, commit: '1ad0d78' };
    return { time, level: 'INFO', message, fields, origin: `karpenter-previous.log:${i + 1}`, previous: true };
  });
}
