import { describe, expect, it } from 'vitest';
import type { BombCase } from '../../../bench/bounded-read.ts';
import { boundedReadTargets, parseSections, renderMarkdown } from '../../../bench/render.ts';
import { benchResults } from '../../factories/bench.ts';

const GiB = 1024 ** 3;

function bomb(overrides: Partial<BombCase> = {}): BombCase {
  return {
    name: 'gzip bomb',
    file: 'pods.json.gz',
    bytes: 3_700_000,
    unpackedBytes: 2.2 * GiB,
    buildMs: 5000,
    ms: 1800,
    maxRssBytes: 170_000_000,
    exitCode: 0,
    signal: null,
    stderr:
      'note: DIR/pods.json.gz: unpacks to more than 1 GiB (the limit; raise it with --max-file-size);\n  left out (pods is a gap), the scan goes on without it',
    ...overrides,
  };
}

function targetsFor(...cases: BombCase[]) {
  return boundedReadTargets(benchResults({ boundedRead: { ok: true, value: { cases, limitBytes: GiB } } }));
}

describe('bench: hostile capture files', () => {
  it('passes files left out with a note naming them while the scan goes on, in under 10 s and 1.5 GB', () => {
    // Act
    const [time, memory] = targetsFor(
      bomb(),
      bomb({
        file: 'karpenter.log.gz',
        stderr: 'note: DIR/karpenter.log.gz: a binary file, not a kubectl or aws CLI output; left out (logs is a gap)',
        ms: 900,
      }),
    );

    // Assess
    expect(time).toMatchObject({ measured: 'all 2 refused; slowest 1800.0 ms', pass: true });
    expect(memory).toMatchObject({ measured: 'largest 170.0 MB', pass: true });
  });

  it('fails a slow refusal, a large one, a crash, a run that stopped at the file and a file read as if it were fine', () => {
    // Act
    const slow = targetsFor(bomb({ ms: 10_000 }));
    const large = targetsFor(bomb({ maxRssBytes: 1_500_000_000 }));
    const aborted = targetsFor(bomb({ exitCode: 133, stderr: '# Check failed: ...' }));
    const read = targetsFor(bomb({ exitCode: 0, stderr: '' }));
    const stopped = targetsFor(bomb({ exitCode: 2, stderr: 'karpenter-sentinel: DIR/pods.json.gz: unpacks to more than 1 GiB' }));
    const killed = targetsFor(
      bomb({ exitCode: null, signal: 'SIGKILL', killed: 'killed at 4.0 GiB RSS', maxRssBytes: undefined }),
    );

    // Assess
    expect(slow[0]?.pass).toBe(false);
    expect(large[1]?.pass).toBe(false);
    expect(aborted[0]).toMatchObject({ measured: 'NOT refused: pods.json.gz: exit 133; slowest 1800.0 ms', pass: false });
    expect(read[0]?.pass).toBe(false);
    expect(stopped[0]?.pass).toBe(false);
    expect(killed.map((t) => t.pass)).toEqual([false, false]);
    expect(killed[0]?.measured).toContain('pods.json.gz: killed at 4.0 GiB RSS');
  });

  it('is a section of its own for --only, and says why it was not measured', () => {
    // Act
    const selected = parseSections('bounded-read');
    const rows = boundedReadTargets(benchResults({ notMeasured: { 'bounded-read': '--only lambda' } }));

    // Assess
    expect(selected).toEqual(new Set(['bounded-read']));
    expect(rows.map((t) => [t.measured, t.pass])).toEqual([
      ['not measured (--only lambda)', undefined],
      ['not measured (--only lambda)', undefined],
    ]);
  });

  it('shows each file with its sizes, time, memory and what the CLI said', () => {
    // Act
    const md = renderMarkdown(benchResults({ boundedRead: { ok: true, value: { cases: [bomb()], limitBytes: GiB } } }));

    // Assess
    expect(md).toContain(
      '| pods.json.gz: gzip bomb | 3.7 MB → 2.20 GiB | 1800.0 ms | 170.0 MB | note: DIR/pods.json.gz: unpacks to more than 1 GiB (the limit; raise it with --max-file-size); left out (pods is a gap), the scan goes on without it (0) |',
    );
  });
});
