/**
 * The time a scan of captured files judges ages at: the capture's own, not the wall clock's (a
 * capture read in a ticket a week later must say what it said on the day). docs/capture.md
 * "The capture's time" gives the order and why:
 *
 * 1. `--now`: the user's word.
 * 2. `SNAPSHOT.md`'s "Taken at" line, written by `snapshot` when it had read the cluster.
 * 3. `captured-at.txt`, written by the capture script when it had run its commands.
 * 4. The capture script's folder name (`karpenter-capture-NAME-20260101T010000Z`): when the script
 *    started, seconds to minutes before the commands read the cluster.
 * 5. The newest timestamp in the files: the capture was taken at or after it (a lower bound, so
 *    ages come out shorter, never longer, than they were: nothing is made to look stuck).
 * 6. The wall clock, with a note, when the capture holds no time at all.
 *
 * A recorded time that is not a time, after the wall clock or before Kubernetes existed is a note
 * and the next source is tried: a hand-edited file cannot make a scan judge at year 9999.
 */
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import type { TimeSource, TimeSourceKind } from '../domain/report.ts';
import { parseIsoTime, toIsoSeconds } from '../domain/kube-helpers.ts';
import { formatDuration } from '../domain/settings.ts';
import { oneLine } from '../domain/shape.ts';
import { visibleLine } from '../domain/visible.ts';
import { newestTimestamp } from './newest-timestamp.ts';
import { SNAPSHOT_SUMMARY, takenAtIn } from './taken-at.ts';

/** Written by the capture script at the end of its reads: one line, `date -u +%Y-%m-%dT%H:%M:%SZ`. */
export const CAPTURED_AT_FILE = 'captured-at.txt';
/** How much of either file is read: the time is on its first lines. */
export const MAX_TIME_FILE_BYTES = 64 * 1024;

/** A clock a day fast (or a zone mistaken for UTC) is tolerated; a time later still is no capture's. */
const FUTURE_TOLERANCE_MS = 24 * 3600_000;
/** Kubernetes' first commit (June 2014): no capture is older. */
const EARLIEST = Date.UTC(2014, 5, 1);
/** A recorded time this much older than a stamp in the files is worth a note: files of another capture. */
const STAMP_AFTER_RECORD_MS = 10 * 60_000;

type RecordedSource = Extract<TimeSourceKind, 'snapshot-summary' | 'captured-at-file' | 'capture-folder-name'>;

/** A time the capture says it was taken at, as written (parsed only when judged). */
export interface RecordedTime {
  source: RecordedSource;
  /** The file or folder that says it. */
  where: string;
  /** The time as written: `2026-01-01T01:00:00Z`, or `20260101T010000Z` in a folder's name. */
  text: string;
}

export function isCaptureTimeFile(name: string): boolean {
  return name === CAPTURED_AT_FILE || name === SNAPSHOT_SUMMARY;
}

/** The time a `SNAPSHOT.md` or `captured-at.txt` holds (`name` says which); `where` names it in notes. */
export function recordedTimeIn(name: string, where: string, text: string): RecordedTime {
  if (name === SNAPSHOT_SUMMARY) {
    return { source: 'snapshot-summary', where, text: takenAtIn(text) ?? '(no "Taken at" line)' };
  }
  return { source: 'captured-at-file', where, text: text.trim().split('\n')[0]?.trim() ?? '' };
}

/** The folder the capture script named for its start time, when `path` is in one. */
export function folderTimeOf(path: string): RecordedTime | undefined {
  const folders = path.split(/[\\/]/).slice(0, -1);
  for (let i = folders.length - 1; i >= 0; i--) {
    const stamp = /^karpenter-capture-.+-(\d{8}T\d{6}Z)$/.exec(folders[i] ?? '')?.[1];
    if (stamp) return { source: 'capture-folder-name', where: folders.slice(0, i + 1).join('/'), text: stamp };
  }
  return undefined;
}

interface JudgedTime {
  time: Date;
  timeSource: TimeSource;
}

/** The time to judge a captured snapshot at, and where it came from (module comment for the order). */
export function judgeCaptureTime(input: {
  nowOption?: Date;
  recorded: readonly RecordedTime[];
  snapshot: ClusterSnapshot;
  wallClock: Date;
}): JudgedTime {
  const { nowOption, recorded, snapshot, wallClock } = input;
  if (nowOption) return judged(nowOption, 'now-option', `--now ${toIsoSeconds(nowOption)}`, []);
  const latest = wallClock.getTime() + FUTURE_TOLERANCE_MS;
  const notes: string[] = [];
  const stamps = newestTimestamp(snapshot, latest);
  if (stamps.firstIgnored) {
    const first = stamps.firstIgnored;
    notes.push(
      `${stamps.ignored === 1 ? '1 timestamp' : `${stamps.ignored} timestamps`} in the capture after the wall clock not used as its time (${first.where} ${toIsoSeconds(first.time)})`,
    );
  }
  for (const source of ['snapshot-summary', 'captured-at-file', 'capture-folder-name'] as const) {
    const usable = recorded
      .filter((r) => r.source === source)
      .flatMap((r) => {
        const time = checkedTime(r, latest, notes);
        return time ? [{ record: r, time }] : [];
      })
      .sort((a, b) => b.time.getTime() - a.time.getTime());
    const chosen = usable[0];
    if (!chosen) continue;
    if (usable.some((u) => chosen.time.getTime() - u.time.getTime() > 60_000)) {
      notes.push(`the capture records several times (${usable.map((u) => describe(u.record)).join(', ')}); judged at the latest`);
    }
    const newest = stamps.newest;
    if (newest && newest.time.getTime() - chosen.time.getTime() > STAMP_AFTER_RECORD_MS) {
      notes.push(
        `the capture holds a time ${formatDuration(newest.time.getTime() - chosen.time.getTime())} after its recorded time (${newest.where} ${toIsoSeconds(newest.time)}): some files may be from a later capture`,
      );
    }
    return judged(chosen.time, source, describe(chosen.record), notes);
  }
  const newest = stamps.newest;
  if (newest && newest.time.getTime() >= EARLIEST) {
    notes.push(
      `no capture time recorded (${SNAPSHOT_SUMMARY}, ${CAPTURED_AT_FILE} or a capture-script folder name): judged at the newest timestamp in the capture, ${formatDuration(Math.max(0, wallClock.getTime() - newest.time.getTime()))} before the wall clock; it was taken at or after it, so ages may be longer than shown (--now sets the time)`,
    );
    return judged(newest.time, 'newest-timestamp', newest.where, notes);
  }
  notes.push(
    newest
      ? `the capture records no time, and its newest timestamp (${newest.where} ${toIsoSeconds(newest.time)}) is before Kubernetes existed: judged at the wall clock, ${formatDuration(wallClock.getTime() - newest.time.getTime())} after it (--now sets the time)`
      : 'the capture records no time and holds no timestamp: judged at the wall clock (--now sets the time)',
  );
  return judged(wallClock, 'wall-clock', 'the wall clock', notes);
}

function judged(time: Date, source: TimeSourceKind, detail: string, notes: string[]): JudgedTime {
  return { time, timeSource: { source, detail: visibleLine(detail), notes: notes.map(visibleLine) } };
}

function describe(record: RecordedTime): string {
  const what =
    record.source === 'snapshot-summary' ? 'Taken at ' : record.source === 'capture-folder-name' ? 'folder name, ' : '';
  return `${record.where}: ${what}${oneLine(record.text, 60)}`;
}

/** The recorded time, or undefined with a note saying why it is not used. */
function checkedTime(record: RecordedTime, latest: number, notes: string[]): Date | undefined {
  const iso = record.source === 'capture-folder-name' ? folderStampAsIso(record.text) : record.text;
  const time = isRealInstant(iso) ? parseIsoTime(iso) : undefined;
  const problem = !time
    ? 'is not a time'
    : time.getTime() > latest
      ? 'is after the wall clock'
      : time.getTime() < EARLIEST
        ? 'is before Kubernetes existed'
        : undefined;
  if (!problem) return time;
  notes.push(`${describe(record)} ${problem}; not used as the capture's time`);
  return undefined;
}

/** `20260101T010000Z` → `2026-01-01T01:00:00Z`. */
function folderStampAsIso(stamp: string): string {
  return stamp.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
}

/** A calendar date that exists (Date.parse turns 2026-02-30 into March 2) and a time of day that does. */
function isRealInstant(iso: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(iso);
  if (!m) return false;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day && hour < 24 && minute < 60;
}
