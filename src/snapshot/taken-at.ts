/**
 * SNAPSHOT.md's "Taken at" line: the capture's time as `snapshot --out` records it, written by
 * write/capture-files.ts and read back by capture-time.ts (docs/capture.md, "The capture's time").
 * Both sides are here, so the words written and the words looked for cannot drift apart.
 */
import { toIsoSeconds } from '../domain/kube-helpers.ts';

/** Written by `snapshot --out` for the human reading a bug report; its "Taken at TIME." line. */
export const SNAPSHOT_SUMMARY = 'SNAPSHOT.md';

/** `Taken at 2026-01-01T01:00:00Z. Analyse it with:` */
export function takenAtLine(takenAt: Date): string {
  return `Taken at ${toIsoSeconds(takenAt)}. Analyse it with:`;
}

/** The time a SNAPSHOT.md's "Taken at" line holds, as written (parsed only when judged); none without the line. */
export function takenAtIn(summary: string): string | undefined {
  return /^Taken at (\S*?)\.? Analyse it with/m.exec(summary)?.[1];
}
