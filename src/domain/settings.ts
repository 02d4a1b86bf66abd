import type { ActionKind, Severity } from './codes.ts';
import { THRESHOLDS, type Threshold, type ThresholdSetting } from './finding-catalogue.ts';

/**
 * Thresholds the detectors use, one field per threshold of the finding catalogue
 * (src/domain/finding-catalogue.ts; defaults: docs/usage.md#thresholds). Durations in milliseconds, amounts in USD.
 */
export type DetectionSettings = Record<ThresholdSetting, number>;

export const DEFAULT_DETECTION: DetectionSettings = Object.fromEntries(
  THRESHOLDS.map((t) => [t.setting, t.default]),
) as DetectionSettings;

/** A threshold's value as it is written: `10m` for a duration, `10` for a count, `50` (or `12.5`) USD. */
export function thresholdText(threshold: Threshold, value: number): string {
  return threshold.unit === 'duration' ? formatDuration(value) : String(value);
}

/**
 * `50`, `12.5`, `0.25`: an amount of US dollars with at most two decimals (no sign, no `$`, no
 * exponent), or undefined. What `--waste-per-day` and `WASTE_PER_DAY` take.
 */
export function parseUsd(text: string): number | undefined {
  const trimmed = text.trim();
  return /^\d{1,9}(?:\.\d{1,2})?$/.test(trimmed) ? Number(trimmed) : undefined;
}

/**
 * `at least 5m` for a threshold with a minimum, else undefined: the same words in `scan --help` and
 * the docs tables. `quote` writes the value (backticks in Markdown).
 */
export function minimumText(threshold: Threshold, quote: (text: string) => string = (text) => text): string | undefined {
  return threshold.unit === 'duration' && threshold.min ? `at least ${quote(formatDuration(threshold.min.ms))}` : undefined;
}

export const ACTION_MODES = ['off', 'dry-run', 'apply'] as const;
export type ActionMode = (typeof ACTION_MODES)[number];

/** Guardrail settings for automated remediations. */
export interface ActionSettings {
  modes: Record<ActionKind, ActionMode>;
  maxTerminationsPerRun: number;
  restartCooldownMs: number;
  maxRestartsPerHour: number;
}

/** The CLI changes nothing unless asked (`--apply` flips every mode that is not `off`). */
export const CLI_ACTIONS: ActionSettings = {
  modes: { ROLLOUT_RESTART: 'dry-run', TERMINATE_INSTANCE: 'dry-run' },
  maxTerminationsPerRun: 20,
  restartCooldownMs: 15 * 60_000,
  maxRestartsPerHour: 3,
};

/**
 * Parses `90s`, `5m`, `1h30m`, `2h`, or plain seconds; returns milliseconds or undefined. Each unit
 * at most once and the larger first (`d`, `h`, `m`, `s`, `ms`): `5m5m` or `30s1m` is a typo, not
 * a sum. Nothing else is accepted: no sign, no space, no other unit.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (/^\d+$/.test(s)) return finite(Number(s) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  let lastUnit = -1;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const unit = DURATION_UNITS.indexOf(m[2] as (typeof DURATION_UNITS)[number]);
    if (unit <= lastUnit) return undefined;
    lastUnit = unit;
    total += Number(m[1]) * (DURATION_UNIT_MS[unit] as number);
    consumed = re.lastIndex;
  }
  return consumed === s.length && s.length > 0 ? finite(total) : undefined;
}

const DURATION_UNITS = ['d', 'h', 'm', 's', 'ms'] as const;
const DURATION_UNIT_MS = [86_400_000, 3_600_000, 60_000, 1000, 1];

function finite(ms: number): number | undefined {
  return Number.isFinite(ms) ? ms : undefined;
}

/** `300000` → `5m`, for messages. */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.round(ms / 1000);
  const d = Math.floor(totalSeconds / 86_400);
  const h = Math.floor((totalSeconds % 86_400) / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const sec = totalSeconds % 60;
  const parts = [d && `${d}d`, h && `${h}h`, m && `${m}m`, sec && `${sec}s`].filter(Boolean);
  return parts.length ? parts.slice(0, 2).join('') : '0s';
}

/** The tag that opts a cluster in to scheduled scans. */
export interface OptInTag {
  key: string;
  value: string;
}

export interface AlertSettings {
  topicArn: string;
  /** Findings below this severity are counted in metrics but never alerted. */
  minSeverity: Severity;
  /** A finding that persists is alerted again at most this often. */
  reminderIntervalMs: number;
}
