import { describe, expect, it } from 'vitest';
import type { DistributionBench } from '../../../bench/distribution.ts';
import { parseSections, renderMarkdown } from '../../../bench/render.ts';
import { benchResults } from '../../factories/bench.ts';

function distribution(): DistributionBench {
  return {
    tarballBytes: 1_049_309,
    bundleBytes: 3_408_710,
    binaryBytes: 130_878_656,
    buildMs: { bundle: 5600, binary: 9200 },
    example: 'ami-selector-no-match',
    starts: [
      { artifact: 'tarball', versionMs: [150, 140, 190], scanMs: [200, 180, 280] },
      { artifact: 'binary', versionMs: [47, 45, 73], scanMs: [84, 80, 115] },
    ],
  };
}

describe('bench: distribution', () => {
  it('is a section of its own for --only', () => {
    // Act
    const selected = parseSections('distribution');

    // Assess
    expect(selected).toEqual(new Set(['distribution']));
  });

  it('shows each artifact with its size and the median start-up of --version and of a small scan', () => {
    // Act
    const md = renderMarkdown(benchResults({ distribution: { ok: true, value: distribution() } }));

    // Assess
    expect(md).toContain(
      '| installed tarball: karpenter-sentinel (ESM bundle) | 1.0 MB packed (bundle 3.4 MB) | 150.0 ms (140.0 ms–190.0 ms) | 200.0 ms (180.0 ms–280.0 ms) |',
    );
    expect(md).toContain(
      '| binary: kubectl-sentinel (Node SEA, no Node.js on PATH) | 130.9 MB | 47.0 ms (45.0 ms–73.0 ms) | 84.0 ms (80.0 ms–115.0 ms) |',
    );
  });

  it('says so when the artifacts could not be built', () => {
    // Act
    const md = renderMarkdown(benchResults({ distribution: { ok: false, error: 'postject failed' } }));

    // Assess
    expect(md).toContain('| failed | postject failed |');
  });
});
