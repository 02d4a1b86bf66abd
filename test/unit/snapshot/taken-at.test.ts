/**
 * SNAPSHOT.md's "Taken at" line round-trips: the time `snapshot --out` writes is the time a scan of
 * the folder reads back and judges at.
 */
import { describe, expect, it } from 'vitest';
import { snapshotFromFiles } from '../../../src/snapshot/load.ts';
import { SNAPSHOT_SUMMARY, takenAtIn, takenAtLine } from '../../../src/snapshot/taken-at.ts';
import { captureFiles } from '../../../src/snapshot/write/capture-files.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { node } from '../../factories/kube.ts';

describe("SNAPSHOT.md's 'Taken at' line", () => {
  it('reads back the time it was written with, to the second', () => {
    const line = takenAtLine(new Date('2026-01-01T01:02:03.456Z'));

    expect(line).toBe('Taken at 2026-01-01T01:02:03Z. Analyse it with:');
    expect(takenAtIn(`# karpenter-sentinel snapshot of demo\n\n${line}\n`)).toBe('2026-01-01T01:02:03Z');
  });

  it('a summary without the line holds no time', () => {
    expect(takenAtIn('# karpenter-sentinel snapshot of demo\n\nTaken yesterday.\n')).toBeUndefined();
  });

  it('the folder snapshot writes is read back at the time it was taken', () => {
    const takenAt = new Date('2026-03-04T05:06:07Z');
    const files = captureFiles(snapshotOf({ nodes: [node({ name: 'n1' })] }), takenAt);

    const { recordedTimes } = snapshotFromFiles(files.map((f) => ({ path: `capture/${f.name}`, text: f.text })));

    expect(files.map((f) => f.name)).toContain(SNAPSHOT_SUMMARY);
    expect(recordedTimes).toEqual([
      { source: 'snapshot-summary', where: `capture/${SNAPSHOT_SUMMARY}`, text: '2026-03-04T05:06:07Z' },
    ]);
  });
});
