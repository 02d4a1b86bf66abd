import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/domain/errors.ts';
import { snapshotFromFiles, type CaptureFile } from '../../../src/snapshot/build-snapshot.ts';
import { judgeCaptureTime } from '../../../src/snapshot/capture-time.ts';

const WALL_CLOCK = new Date('2026-06-01T12:00:00Z');

/** A node whose kubelet last reported at `heartbeat`: the freshest stamp a capture usually holds. */
function nodes(heartbeat: string, extra: Record<string, unknown> = {}): CaptureFile {
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'ip-10-0-1-20.ec2.internal', creationTimestamp: '2025-12-01T00:00:00Z', ...extra },
    status: {
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: heartbeat, lastTransitionTime: '2025-12-01T00:01:00Z' }],
    },
  };
  return { path: 'capture/nodes.json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node] }) };
}

const SNAPSHOT_MD = (taken: string): CaptureFile => ({
  path: 'capture/SNAPSHOT.md',
  text: `# karpenter-sentinel snapshot of demo\n\nTaken at ${taken}. Analyse it with:\n\n    karpenter-sentinel scan --from THIS-FOLDER\n`,
});
const CAPTURED_AT = (text: string, path = 'capture/captured-at.txt'): CaptureFile => ({ path, text });

function judge(files: CaptureFile[], nowOption?: Date) {
  const { snapshot, notices, recordedTimes, files: read } = snapshotFromFiles(files);
  const judged = judgeCaptureTime({
    recorded: recordedTimes ?? [],
    snapshot,
    wallClock: WALL_CLOCK,
    ...(nowOption ? { nowOption } : {}),
  });
  return { ...judged, notices, read };
}

describe('the time a capture is judged at', () => {
  it("takes SNAPSHOT.md's 'Taken at' first, then captured-at.txt, then the capture script's folder name", () => {
    const folder = 'karpenter-capture-demo-20260101T005800Z/nodes.json';
    const heartbeat = '2026-01-01T00:59:30Z';
    const withFolder = { ...nodes(heartbeat), path: folder };

    const all = judge([SNAPSHOT_MD('2026-01-01T01:00:00Z'), CAPTURED_AT('2026-01-01T00:59:50Z\n'), withFolder]);
    const noSummary = judge([CAPTURED_AT('2026-01-01T00:59:50Z\n'), withFolder]);
    const folderOnly = judge([withFolder]);

    expect(all.time.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(all.timeSource).toEqual({
      source: 'snapshot-summary',
      detail: 'capture/SNAPSHOT.md: Taken at 2026-01-01T01:00:00Z',
      notes: [],
    });
    expect(noSummary.timeSource).toMatchObject({
      source: 'captured-at-file',
      detail: 'capture/captured-at.txt: 2026-01-01T00:59:50Z',
    });
    expect(folderOnly.time.toISOString()).toBe('2026-01-01T00:58:00.000Z');
    expect(folderOnly.timeSource).toMatchObject({
      source: 'capture-folder-name',
      detail: 'karpenter-capture-demo-20260101T005800Z: folder name, 20260101T005800Z',
    });
    // Neither file is a capture of the cluster: no note that it is "not an output", not counted as read.
    expect(all.notices).toEqual([]);
    expect(all.read).toBe(1);
  });

  it('--now wins over every time the capture records', () => {
    const judged = judge([SNAPSHOT_MD('2026-01-01T01:00:00Z'), nodes('2026-01-01T00:59:30Z')], new Date('2026-03-01T00:00:00Z'));

    expect(judged.time.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(judged.timeSource).toEqual({ source: 'now-option', detail: '--now 2026-03-01T00:00:00Z', notes: [] });
  });

  it('without a recorded time, takes the newest timestamp in the files and says ages may be longer', () => {
    const judged = judge([nodes('2026-01-01T00:59:30Z')]);

    expect(judged.time.toISOString()).toBe('2026-01-01T00:59:30.000Z');
    expect(judged.timeSource.source).toBe('newest-timestamp');
    expect(judged.timeSource.detail).toBe('Node ip-10-0-1-20.ec2.internal lastHeartbeatTime');
    expect(judged.timeSource.notes).toEqual([
      expect.stringContaining('judged at the newest timestamp in the capture, 151d11h before the wall clock'),
    ]);
    expect(judged.timeSource.notes[0]).toContain('ages may be longer than shown');
  });

  it("does not take a terminating pod's deletionTimestamp, which is its grace period after the request, as the newest time", () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-1',
        namespace: 'shop',
        creationTimestamp: '2026-01-01T00:00:00Z',
        deletionTimestamp: '2026-01-01T01:30:00Z',
        deletionGracePeriodSeconds: 3600,
      },
    };
    const pods = { path: 'capture/pods.json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod] }) };

    const judged = judge([pods, nodes('2026-01-01T00:59:30Z')]);

    expect(judged.time.toISOString()).toBe('2026-01-01T00:59:30.000Z');
  });

  it('judges at the wall clock, with a note, when the capture holds no time at all', () => {
    const subnets = {
      path: 'capture/subnets.json',
      text: JSON.stringify({
        Subnets: [{ SubnetId: 'subnet-0a1b2c3d', AvailabilityZone: 'eu-west-1a', AvailableIpAddressCount: 3 }],
      }),
    };

    const judged = judge([subnets]);

    expect(judged.time).toEqual(WALL_CLOCK);
    expect(judged.timeSource).toEqual({
      source: 'wall-clock',
      detail: 'the wall clock',
      notes: ['the capture records no time and holds no timestamp: judged at the wall clock (--now sets the time)'],
    });
  });

  it('says how long after the newest timestamp the wall clock is, when that stamp is before Kubernetes existed', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: 'shop', creationTimestamp: '1970-01-01T00:00:00Z' },
    };

    const judged = judge([{ path: 'capture/pods.json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod] }) }]);

    expect(judged.timeSource.source).toBe('wall-clock');
    expect(judged.timeSource.notes).toEqual([
      'the capture records no time, and its newest timestamp (Pod shop/web-1 creationTimestamp 1970-01-01T00:00:00Z) is before Kubernetes existed: judged at the wall clock, 20605d12h after it (--now sets the time)',
    ]);
  });

  it('keeps at most 20 recorded times, so thousands of hostile time files cannot flood the notes', () => {
    const files = Array.from({ length: 1000 }, (_, i) =>
      CAPTURED_AT('not a time', `capture/${String(i).padStart(4, '0')}/captured-at.txt`),
    );

    const judged = judge([...files, nodes('2026-01-01T00:59:30Z')]);

    expect(judged.timeSource.source).toBe('newest-timestamp');
    expect(judged.timeSource.notes.length).toBeLessThanOrEqual(21);
  });

  it.each([
    ['9999-12-31T23:59:59Z', 'is after the wall clock'],
    ['2026-06-03T12:00:00Z', 'is after the wall clock'],
    ['1970-01-01T00:00:00Z', 'is before Kubernetes existed'],
    ['2026-02-30T00:00:00Z', 'is not a time'],
    ['yesterday', 'is not a time'],
    ['', 'is not a time'],
  ])('a recorded time %j %s: a note, and the next source is used', (text, problem) => {
    const judged = judge([CAPTURED_AT(`${text}\n`), nodes('2026-01-01T00:59:30Z')]);

    expect(judged.timeSource.source).toBe('newest-timestamp');
    expect(judged.timeSource.notes[0]).toBe(`capture/captured-at.txt: ${text} ${problem}; not used as the capture's time`);
  });

  it('reads at most the start of a hostile time file, and shows its text on one visible line', () => {
    const hostile = `\u001b]8;;https://x.example\u0007${'x'.repeat(5_000_000)}`;

    const judged = judge([CAPTURED_AT(hostile), nodes('2026-01-01T00:59:30Z')]);

    const note = judged.timeSource.notes[0] ?? '';
    expect(note).toMatch(
      /^capture\/captured-at\.txt: ]8;;https:\/\/x\.example x+… is not a time; not used as the capture's time$/,
    );
    expect(note.length).toBeLessThan(200);
  });

  it('does not take stamps from the future as the newest time: a note names the first', () => {
    const judged = judge([nodes('2026-01-01T00:59:30Z', { creationTimestamp: '2099-01-01T00:00:00Z' })]);

    expect(judged.time.toISOString()).toBe('2026-01-01T00:59:30.000Z');
    expect(judged.timeSource.notes[0]).toBe(
      '1 timestamp in the capture after the wall clock not used as its time (Node ip-10-0-1-20.ec2.internal creationTimestamp 2099-01-01T00:00:00Z)',
    );
  });

  it('says so when the files hold a time well after the recorded one: some may be from a later capture', () => {
    const judged = judge([CAPTURED_AT('2026-01-01T00:00:00Z'), nodes('2026-01-01T03:00:00Z')]);

    expect(judged.timeSource.source).toBe('captured-at-file');
    expect(judged.timeSource.notes).toEqual([
      'the capture holds a time 3h after its recorded time (Node ip-10-0-1-20.ec2.internal lastHeartbeatTime 2026-01-01T03:00:00Z): some files may be from a later capture',
    ]);
  });

  it('refuses a capture time given with no capture in one line', () => {
    expect(() => snapshotFromFiles([CAPTURED_AT('2026-01-01T00:00:00Z')])).toThrow(InputError);
    expect(() => snapshotFromFiles([CAPTURED_AT('2026-01-01T00:00:00Z')])).toThrow(
      'capture/captured-at.txt: says when a capture was taken, but no capture file was given with it',
    );
  });
});
