import { describe, expect, it } from 'vitest';
import { cleanupProgressDisplay } from '../../../src/cli/render/cleanup-progress.ts';
import { ANSI_STYLE } from '../../../src/cli/render/style.ts';
import type { CleanupProgress } from '../../../src/domain/cleanup.ts';
import { ANSI } from './cli-harness.ts';

function stream(options: { isTTY?: boolean; columns?: number } = {}) {
  const writes: string[] = [];
  return { writes, isTTY: options.isTTY ?? false, ...options, write: (s: string) => writes.push(s) };
}

const run: CleanupProgress[] = [
  { kind: 'step', step: 'nodepools', message: 'deleting 2 NodePools: default, spot' },
  { kind: 'waiting', step: 'nodepools', nodeClaims: 2, waitedMs: 10_000, limitMs: 300_000 },
  { kind: 'waiting', step: 'nodepools', nodeClaims: 2, waitedMs: 20_000, limitMs: 300_000 },
  { kind: 'step', step: 'instances', message: 'terminating 3 instances' },
  { kind: 'waiting', step: 'instances', shuttingDown: 3, waitedMs: 10_000 },
  { kind: 'waiting', step: 'instances', shuttingDown: 3, waitedMs: 20_000 },
  { kind: 'waiting', step: 'instances', shuttingDown: 1, waitedMs: 70_000 },
  { kind: 'step', step: 'launch-templates', message: 'deleting 2 launch templates' },
];

describe('cleanup progress in a log (not a terminal)', () => {
  it('prints a line per step and per change in what it waits for, no escape codes', () => {
    const out = stream();
    const display = cleanupProgressDisplay(out, { inPlace: false, style: ANSI_STYLE });

    for (const event of run) display.show(event);
    display.clear();

    expect(out.writes.join('')).toBe(
      [
        '[1/4] nodepools: deleting 2 NodePools: default, spot',
        '[1/4] nodepools: waiting for 2 NodeClaims to go (10s of 5m)',
        '[2/4] instances: terminating 3 instances',
        '[2/4] instances: waiting for 3 instances still shutting down (10s)',
        '[2/4] instances: waiting for 1 instance still shutting down (1m10s)',
        '[3/4] launch-templates: deleting 2 launch templates',
        '',
      ].join('\n'),
    );
    expect(out.writes.join('')).not.toMatch(ANSI);
  });

  it('prints the same count again once a step came in between', () => {
    const out = stream();
    const display = cleanupProgressDisplay(out, { inPlace: false });
    const waiting: CleanupProgress = { kind: 'waiting', step: 'instances', shuttingDown: 2, waitedMs: 0 };

    display.show(waiting);
    display.show({ kind: 'step', step: 'instances', message: 'terminating 1 new instance' });
    display.show(waiting);

    expect(out.writes).toHaveLength(3);
  });

  it('shows control characters from an AWS message as text', () => {
    const out = stream();

    cleanupProgressDisplay(out, { inPlace: false }).show({ kind: 'step', step: 'instances', message: 'bad\r\u001b[2Kname' });

    expect(out.writes).toEqual(['[2/4] instances: bad\\x0d\\x1b[2Kname\n']);
  });
});

describe('cleanup progress on a terminal', () => {
  it('keeps each step as a line, rewrites the wait in place below it and erases that at the end', () => {
    const out = stream({ isTTY: true });
    const display = cleanupProgressDisplay(out, { inPlace: true });

    for (const event of run.slice(3, 7)) display.show(event);
    display.clear();

    expect(out.writes).toEqual([
      '[2/4] instances: terminating 3 instances\n',
      '\r\u001b[2K[2/4] instances: waiting for 3 instances still shutting down (10s)',
      '\r\u001b[2K[2/4] instances: waiting for 3 instances still shutting down (20s)',
      '\r\u001b[2K[2/4] instances: waiting for 1 instance still shutting down (1m10s)',
      '\r\u001b[2K',
    ]);
  });

  it('cuts the line to the terminal width so it never wraps', () => {
    const out = stream({ isTTY: true, columns: 40 });

    cleanupProgressDisplay(out, { inPlace: true }).show(run[4]!);

    const line = out.writes[0]!.replace('\r\u001b[2K', '');
    expect(line).toBe('[2/4] instances: waiting for 3 instanc…');
    expect(line.length).toBe(39);
  });

  it('a note after a wait replaces the status line and stays', () => {
    const out = stream({ isTTY: true });
    const display = cleanupProgressDisplay(out, { inPlace: true });

    display.show(run[1]!);
    display.show({ kind: 'step', step: 'nodepools', message: 'stopped waiting for 2 NodeClaims after 5m' });
    display.clear();

    expect(out.writes).toEqual([
      '\r\u001b[2K[1/4] nodepools: waiting for 2 NodeClaims to go (10s of 5m)',
      '\r\u001b[2K[1/4] nodepools: stopped waiting for 2 NodeClaims after 5m\n',
    ]);
  });

  it('erases nothing when nothing was shown', () => {
    const out = stream({ isTTY: true });

    cleanupProgressDisplay(out, { inPlace: true }).clear();

    expect(out.writes).toEqual([]);
  });
});

describe('cleanup progress lines on a narrow terminal', () => {
  it('wraps a step’s note under its label and puts the command it tells to run whole on a line of its own', () => {
    const out = stream();
    const display = cleanupProgressDisplay(out, { inPlace: false, width: 60 });
    const command = 'kubectl patch nodeclaim default-x2k4p --type merge -p \'{"metadata":{"finalizers":null}}\'';

    display.show({
      kind: 'step',
      step: 'nodepools',
      message: `the NodeClaim stays held by the karpenter.sh/termination finalizer; once its instance is terminated, run: ${command}`,
    });
    display.show({
      kind: 'step',
      step: 'instances',
      message: 'terminating 3 instances: i-04c1e8a2f6b9d3705, i-07e3b9d1c5a2f8406',
    });

    expect(out.writes.join('')).toBe(
      [
        '[1/4] nodepools: the NodeClaim stays held by the',
        '    karpenter.sh/termination finalizer; once its instance is',
        '    terminated, run:',
        `    ${command}`,
        '[2/4] instances: terminating 3 instances:',
        '    i-04c1e8a2f6b9d3705, i-07e3b9d1c5a2f8406',
        '',
      ].join('\n'),
    );
  });
});
