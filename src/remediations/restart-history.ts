import { toIsoSeconds } from '../domain/kube-helpers.ts';
import { formatDuration } from '../domain/settings.ts';

/**
 * When a ROLLOUT_RESTART may run, decided from the Deployment alone, so the answer is the same for
 * the planner (snapshot), the executor (fresh read), every tool and every Lambda invocation,
 * without any other state.
 */

/** What `kubectl rollout restart` writes on the pod template; changing it rolls the pods. */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/**
 * On the Deployment's own `metadata.annotations` (changing it rolls nothing): the restarts of the
 * last hour as comma-separated UTC ISO times, oldest first, e.g.
 * `2026-01-01T00:10:00Z,2026-01-01T00:30:00Z`. Pruned on every write.
 */
export const RESTART_HISTORY = 'karpenter-sentinel.io/restarts';

/** The window the hourly cap counts restarts in. */
const RESTART_WINDOW_MS = 3_600_000;

/** `2026-01-01T01:00:00Z`: kubectl writes RFC 3339 in its local offset; UTC is the same instant. */
export function restartStamp(at: Date | number): string {
  return toIsoSeconds(new Date(at));
}

/**
 * A restart time as milliseconds; undefined when absent, unparseable, or more than the window in
 * the future (garbage that would otherwise block restarts for ever). A time slightly ahead of
 * `now` (another machine's clock) counts as just now.
 */
function restartTime(text: string | undefined, now: Date): number | undefined {
  if (!text) return undefined;
  const t = Date.parse(text.trim());
  if (Number.isNaN(t) || t - now.getTime() > RESTART_WINDOW_MS) return undefined;
  return Math.min(t, now.getTime());
}

/** The restarts of the last hour, oldest first, deduplicated to the second. */
export function parseRestartHistory(history: string | undefined, now: Date, alsoRestartedAt?: string): number[] {
  const times = [...(history ?? '').split(','), alsoRestartedAt]
    .map((text) => restartTime(text, now))
    .filter((t): t is number => t !== undefined && now.getTime() - t < RESTART_WINDOW_MS)
    .map((t) => Math.floor(t / 1000) * 1000);
  return [...new Set(times)].sort((a, b) => a - b);
}

export function formatRestartHistory(times: readonly number[]): string {
  return times.map(restartStamp).join(',');
}

export interface RestartInput {
  /** `spec.template.metadata.annotations[RESTARTED_AT]`: the last restart, by anyone. */
  restartedAt: string | undefined;
  /** `metadata.annotations[RESTART_HISTORY]`. */
  history: string | undefined;
  /** When the controller began Pending (the finding's `since`). */
  pendingSince: string | null;
  now: Date;
  cooldownMs: number;
  maxPerHour: number;
}

export type RestartVerdict =
  | { restart: true; /** the new restartedAt */ stamp: string; /** the new RESTART_HISTORY */ history: string; count: number }
  | { restart: false; reason: string };

const HUMAN = 'not restarting again — a human must look';

/**
 * In this order:
 * 1. cooldown: no restart within `cooldownMs` of the last one (whoever made it);
 * 2. hourly cap: at most `maxPerHour` restarts in the last hour (kubectl's included);
 * 3. "did not help": a restart of the last hour older than the cooldown, while the controller has
 *    been Pending since before that cooldown ended, means the restart's own pods are stuck too;
 *    another restart would do the same. A controller that recovered and went Pending again later
 *    (its `since` after that cooldown) may be restarted, up to the cap. After an hour without
 *    a restart the sentinel tries once more.
 */
export function restartVerdict(input: RestartInput): RestartVerdict {
  const { now, cooldownMs, maxPerHour } = input;
  if (maxPerHour <= 0) return { restart: false, reason: `maxRestartsPerHour is ${maxPerHour}: automated restarts are off` };
  const recent = parseRestartHistory(input.history, now, input.restartedAt);
  const newestRecent = recent.at(-1);
  const last = Math.max(newestRecent ?? -Infinity, restartTime(input.restartedAt, now) ?? -Infinity);
  if (Number.isFinite(last) && now.getTime() - last < cooldownMs) {
    return {
      restart: false,
      reason: `restarted ${formatDuration(now.getTime() - last)} ago (${restartStamp(last)}), within the ${formatDuration(cooldownMs)} cooldown; waiting for that restart to take effect`,
    };
  }
  if (recent.length >= maxPerHour) {
    return {
      restart: false,
      reason: `${recent.length} restart${recent.length === 1 ? '' : 's'} in the last hour did not help (${recent.map(restartStamp).join(', ')}; cap ${maxPerHour} per hour); ${HUMAN}`,
    };
  }
  const pendingSince = input.pendingSince ? Date.parse(input.pendingSince) : Number.NaN;
  if (newestRecent !== undefined && !Number.isNaN(pendingSince) && pendingSince <= newestRecent + cooldownMs) {
    return {
      restart: false,
      reason: `the restart at ${restartStamp(newestRecent)} did not help: the controller has been Pending since ${restartStamp(pendingSince)}, through the ${formatDuration(cooldownMs)} cooldown after it; ${HUMAN}`,
    };
  }
  const stamp = restartStamp(now);
  const history = [...recent, Date.parse(stamp)];
  return { restart: true, stamp, history: formatRestartHistory(history), count: history.length };
}
