import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { logHeadText, logText } from '../../../src/detectors/cloud-errors/cloud-errors.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { readControllerLog, readControllerLogFrom } from '../../../src/snapshot/controller-logs.ts';
import { MAX_RECORD_CHARS, MAX_RECORD_LINES } from '../../../src/snapshot/log-records.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { snapshotOf } from '../../factories/aws.ts';

const incident = (slug: string, file: string) =>
  readFileSync(fileURLToPath(new URL(`../../incidents/${slug}/${file}`, import.meta.url)), 'utf8');

/** The v0.32 controller's panic and stack trace (test/incidents/crd-machine-missing-v032). */
const PANIC = incident('crd-machine-missing-v032', 'karpenter-previous.log');
/** A pretty-printed JSON record from the report (test/incidents/multiple-pdbs-eviction-loop). */
const PRETTY = incident('multiple-pdbs-eviction-loop', 'karpenter.log');
/** One JSON line (test/incidents/instance-profile-missing-getting-started). */
const ONE_LINE = incident('instance-profile-missing-getting-started', 'karpenter.log');
/**
 * zap's console format of the record reported in aws/karpenter-provider-aws#1666 (the message
 * verbatim, with its line breaks printed as the console encoder prints them; its fields left out).
 */
const CONSOLE = [
  '2024-01-04T20:42:05.150Z\tFATAL\tcontroller\tChecking EC2 API connectivity, WebIdentityErr: failed to retrieve credentials',
  'caused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity',
  '\tstatus code: 403, request id: 97ec51e8-f5f8-4aee-bb04-e08f323ebc8a',
].join('\n');

describe('controller logs as records: a multi-line entry is one record, quoted by its first line', () => {
  it('a Go panic and its stack trace (crd-machine-missing-v032): one record at line 1, the frames matched with it', () => {
    // Act
    const lines = readControllerLog(PANIC, 'karpenter-previous.log');

    // Assess
    expect(lines).toHaveLength(1);
    const [panic] = lines;
    expect(panic?.origin).toBe('karpenter-previous.log:1');
    expect(panic?.message).toMatch(/^panic: failed to setup machine provider id indexer: /);
    expect(panic?.continuation).toContain('goroutine 1 [running]:');
    expect(panic?.continuation).toContain('main.main()');
    expect(panic?.continuation).toContain('github.com/aws/karpenter/cmd/controller/main.go:33 +0x25');
    expect(logText(panic!)).toContain('github.com/aws/karpenter-core/pkg/operator.NewOperator()');
    expect(logHeadText(panic!)).not.toContain('goroutine');
  });

  it('a pretty-printed JSON record (multiple-pdbs-eviction-loop): parsed whole, its error and fields read', () => {
    // Act
    const lines = readControllerLog(PRETTY, 'karpenter.log');

    // Assess
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      origin: 'karpenter.log:1',
      level: 'ERROR',
      time: '2025-07-10T02:45:55.200Z',
      message: 'failed evicting pod',
      error: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      fields: { Pod: { name: 'somepod-7678668685-t2t7d', namespace: 'development' } },
    });
    expect(lines[0]).not.toHaveProperty('continuation');
  });

  it("zap's console format with the error continued on further lines: one record, denied call quoted by its first line", () => {
    // Act
    const lines = readControllerLog(CONSOLE, 'karpenter-previous.log');
    const report = analyze(snapshotOf({ logs: lines }), {
      detection: DEFAULT_DETECTION,
      actions: CLI_ACTIONS,
      now: new Date('2024-01-04T21:00:00Z'),
    });

    // Assess
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'FATAL', time: '2024-01-04T20:42:05.150Z', origin: 'karpenter-previous.log:1' });
    expect(logText(lines[0]!)).toContain('caused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity');
    const quoted = report.findings.flatMap((f) => f.evidence).filter((e) => e.includes('karpenter-previous.log:'));
    expect(quoted.length).toBeGreaterThan(0);
    for (const e of quoted) expect(e).toContain('karpenter-previous.log:1: Checking EC2 API connectivity');
  });

  it('records that follow keep their own line numbers, and lines without a time stay one record each', () => {
    // Prepare: a pretty record, a one-line record, a panic, then two lines pasted without times.
    const pasted = ' ERROR   controller.provisioner  launching machine, creating cloud provider instance';
    const text = [PRETTY.trimEnd(), ONE_LINE.trimEnd(), PANIC.trimEnd(), pasted, pasted].join('\n');
    const prettyLines = PRETTY.trimEnd().split('\n').length;
    const panicLines = PANIC.trimEnd().split('\n').length;

    // Act
    const lines = readControllerLog(text, 'k.log');

    // Assess
    expect(lines.map((l) => l.origin)).toEqual([
      'k.log:1',
      `k.log:${prettyLines + 1}`,
      `k.log:${prettyLines + 2}`,
      `k.log:${prettyLines + 2 + panicLines}`,
      `k.log:${prettyLines + 3 + panicLines}`,
    ]);
    expect(lines[1]?.message).toBe('Reconciler error');
    expect(lines.slice(3).every((l) => l.continuation === undefined)).toBe(true);
  });

  it('`kubectl logs --timestamps` (a time before every line): the panic is still one record', () => {
    // Prepare
    const stamped = PANIC.trimEnd()
      .split('\n')
      .map((l) => `2023-11-09T12:08:19.277000000Z ${l}`)
      .join('\n');

    // Act
    const lines = readControllerLog(stamped, 'k.log');

    // Assess
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toMatch(/^panic: failed to setup machine provider id indexer/);
    expect(lines[0]?.continuation).toContain('goroutine 1 [running]:');
  });

  it('reading a piece at a time gives the same records', () => {
    // Prepare
    const text = [PRETTY.trimEnd(), PANIC.trimEnd(), CONSOLE].join('\r\n');
    const bytes = Buffer.from(text, 'utf8');

    for (const size of [1, 7, bytes.length]) {
      let at = 0;
      const reader = {
        next: () => (at < bytes.length ? bytes.subarray(at, (at += size)) : undefined),
        close: () => undefined,
      };

      // Act
      const { lines } = readControllerLogFrom(reader, 'k.log');

      // Assess
      expect(lines).toEqual(readControllerLog(text, 'k.log'));
      expect(lines).toHaveLength(3);
    }
  });
});

describe('controller logs as records: bounded', () => {
  it(`a record stops at ${MAX_RECORD_LINES} lines: endless indented lines after one entry never make one giant record`, () => {
    // Prepare
    const text = [
      '2024-01-04T20:42:05.150Z\tERROR\tcontroller\tstart',
      ...Array.from({ length: 1_000 }, (_, i) => `\tframe ${i}`),
    ].join('\n');

    // Act
    const lines = readControllerLog(text, 'k.log');

    // Assess
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const l of lines) expect((l.continuation?.split('\n').length ?? 0) + 1).toBeLessThanOrEqual(MAX_RECORD_LINES);
    expect(lines[0]?.origin).toBe('k.log:1');
    expect(lines[1]?.origin).toBe(`k.log:${MAX_RECORD_LINES + 1}`);
  });

  it('a record stops at 64 KiB, and an unclosed `{` is read as text once cut', () => {
    // Prepare: a `{` never closed, then lines of 10 KiB.
    const text = ['{', ...Array.from({ length: 50 }, () => `  "x": "${'a'.repeat(10_240)}",`)].join('\n');

    // Act
    const lines = readControllerLog(text, 'k.log');

    // Assess
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l.message.length + (l.continuation?.length ?? 0)).toBeLessThanOrEqual(MAX_RECORD_CHARS);
    expect(lines[0]?.message).toBe('{');
  });

  it('a log with no entry at all (no times, nothing indented) stays one record per line', () => {
    // Prepare
    const text = Array.from({ length: 500 }, (_, i) => `something happened ${i}`).join('\n');

    // Act
    const lines = readControllerLog(text, 'k.log');

    // Assess
    expect(lines).toHaveLength(500);
  });
});
