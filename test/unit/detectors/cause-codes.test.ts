/**
 * The cause-code contract of docs/findings.md's cause tables, across every detector at once: each detector
 * emits only the cause codes of its own row (CAUSES_BY_FINDING), and every cause code of the table
 * is produced by some realistic scenario. A property test then throws random mixes of the same
 * objects (captured or not) at all detectors: no throw, and still no cause outside its row.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DETECTORS } from '../../../src/detectors/registry.ts';
import { CAUSES_BY_FINDING, FINDING_CODES } from '../../../src/domain/codes.ts';
import type { Finding } from '../../../src/domain/finding.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { emptySnapshot, SOURCE_NAMES, type ClusterSnapshot, type SourceName } from '../../../src/domain/snapshot.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { SnapshotIndex } from '../../../src/domain/snapshot-index.ts';
import { detectorVerdict } from '../../../src/detectors/detector.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { cluster, PART_SOURCE } from '../../factories/aws.ts';
import { T0, minutesAfter } from '../../factories/kube.ts';
import { NOW, SCENARIOS, type Pair } from './cause-scenarios.ts';
import { priceBookOf } from '../../../src/domain/price-book.ts';

function run(snapshot: ClusterSnapshot, now = NOW): Finding[] {
  return analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now }).findings;
}

/** Every finding whose cause is outside its row, as `CODE/CAUSE` (empty when the contract holds). */
function outsideTheirRow(findings: readonly Finding[]): string[] {
  return findings
    .filter((f) => f.cause !== null && !(CAUSES_BY_FINDING[f.code] as readonly string[]).includes(f.cause.code))
    .map((f) => `${f.code}/${f.cause?.code}`);
}

/** The listed snapshots' objects in one snapshot where exactly `captured` was captured. */
function mergeSnapshots(parts: readonly ClusterSnapshot[], captured: Set<SourceName>): ClusterSnapshot {
  const merged = emptySnapshot('demo');
  const lists = merged as unknown as Record<string, unknown>;
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (Array.isArray(value) && Array.isArray(lists[key]) && key !== 'gaps')
        (lists[key] as unknown[]).push(...(value as unknown[]));
    }
    merged.cluster ??= part.cluster;
  }
  for (const [key, source] of Object.entries(PART_SOURCE)) if (key !== 'cluster' && !captured.has(source)) lists[key] = [];
  if (!captured.has('cluster')) delete merged.cluster;
  merged.captured = captured;
  return merged;
}

const pairsOf = (findings: readonly Finding[]): Pair[] => findings.map((f) => `${f.code}/${f.cause?.code ?? 'null'}` as Pair);

describe('cause codes: docs/findings.md tables', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    // Act
    const findings = run(scenario.snapshot);

    // Assess
    expect(outsideTheirRow(findings)).toEqual([]);
    expect(findings.every((f) => f.cause !== null)).toBe(true);
    if (scenario.produces.length === 0) expect(findings).toEqual([]);
    else expect(pairsOf(findings)).toEqual(expect.arrayContaining(scenario.produces));
  });

  it('every cause code of the table is produced by some scenario', () => {
    const table = FINDING_CODES.flatMap((code) => CAUSES_BY_FINDING[code].map((cause) => `${code}/${cause}`));
    const produced = new Set(SCENARIOS.flatMap((s) => pairsOf(run(s.snapshot))));

    expect(table.filter((pair) => !produced.has(pair as Pair))).toEqual([]);
  });

  it('the bundled example captures stay within their rows too', async () => {
    const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));
    const dirs = readdirSync(examples, { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(dirs.length).toBeGreaterThan(0);
    for (const dir of dirs) {
      const { snapshot } = await loadSnapshot([`${examples}${dir.name}`]);
      expect(outsideTheirRow(run(snapshot, new Date('2026-01-01T01:00:00Z')))).toEqual([]);
    }
  });

  it('random mixes of these objects, captured or not, never make a detector throw, leave its row or its code', () => {
    const everything = SCENARIOS.map((s) => s.snapshot);
    const sources = SOURCE_NAMES.filter((source) => everything.some((s) => s.captured.has(source)));

    fc.assert(
      fc.property(
        fc.subarray(sources),
        fc.array(fc.integer({ min: 0, max: everything.length - 1 }), { minLength: 1, maxLength: 6 }),
        fc.option(
          fc.constantFrom(cluster(), cluster({ autoMode: true, authenticationMode: 'API' }), cluster({ status: 'DELETING' })),
        ),
        fc.integer({ min: 0, max: 24 * 60 }),
        (captured, picked, info, minutes) => {
          // Prepare: the objects of a few scenarios merged, only the chosen sources captured.
          const snapshot = mergeSnapshots(
            picked.map((i) => everything[i] as ClusterSnapshot),
            new Set(captured),
          );
          if (info && snapshot.captured.has('cluster')) snapshot.cluster = info;
          const ctx = {
            snapshot,
            index: new SnapshotIndex(snapshot),
            prices: priceBookOf(snapshot),
            settings: DEFAULT_DETECTION,
            now: new Date(minutesAfter(T0, minutes)),
          };

          for (const detector of DETECTORS) {
            if (!detectorVerdict(detector, snapshot.captured).run) continue;
            // Act
            const findings = detector.detect(ctx);
            // Assess
            expect(findings.filter((f) => f.code !== detector.code)).toEqual([]);
            expect(outsideTheirRow(findings)).toEqual([]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
