/**
 * Surges are counted in tumbling windows per cluster and NodePool. An event falls in the window of
 * the time EventBridge saw it (a backlog drained late still lands where it happened), never in a
 * future one. The counter key names its window, so an expired counter is never added to again.
 */
import { toIsoSeconds } from '../domain/kube-helpers.ts';

export function windowStartOf(timeIso: string, now: Date, windowMs: number): Date {
  const at = Math.min(Date.parse(timeIso), now.getTime());
  return new Date(Math.floor(at / windowMs) * windowMs);
}

export function surgeCounterKey(cluster: string, nodePool: string, windowStart: Date): string {
  return `surge#${cluster}#${nodePool}#${toIsoSeconds(windowStart)}`;
}

/** Claimed by the invocation whose count reaches the threshold: the surge alert goes out once per window. */
export function surgeAlertKey(cluster: string, nodePool: string, windowStart: Date): string {
  return `surge-alert#${cluster}#${nodePool}#${toIsoSeconds(windowStart)}`;
}

/** Kept one window past its end (for late events), and at least one window from now. */
export function windowExpiry(windowStart: Date, now: Date, windowMs: number): Date {
  return new Date(Math.max(windowStart.getTime() + windowMs, now.getTime()) + windowMs);
}
