import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleComposition, inputName, type BundleComposition, type BundleMeasurement } from '../../../bench/bundles.ts';
import { measureInterruptions, type InterruptionBatchMeasurement } from '../../../bench/interruptions.ts';
import { interruptionsVersusScan, parseSections, targets, type BenchResults } from '../../../bench/render.ts';
import { benchResults } from '../../factories/bench.ts';

const EC2_SCHEMA = 'node_modules/@aws-sdk/client-ec2/dist-es/schemas/schemas_0.js';

function metafile(inputs: Record<string, { source: number; inBundle: number }>): Metafile {
  return {
    inputs: Object.fromEntries(Object.entries(inputs).map(([p, i]) => [p, { bytes: i.source, imports: [] }])),
    outputs: {
      'dist/fn/index.mjs.map': { bytes: 10, inputs: {}, imports: [], exports: [] },
      'dist/fn/index.mjs': {
        bytes: 1,
        inputs: Object.fromEntries(Object.entries(inputs).map(([p, i]) => [p, { bytesInOutput: i.inBundle }])),
        imports: [],
        exports: ['handler'],
      },
    },
  };
}

function composition(overrides: Partial<BundleComposition> = {}): BundleComposition {
  return { inputs: 600, kubernetesInputs: 0, kubernetesBytes: 0, sdkClients: [], largestInput: undefined, ...overrides };
}

function bundle(name: string, overrides: Partial<BundleMeasurement> = {}): BundleMeasurement {
  return {
    name,
    zipBytes: 200_000,
    bundleBytes: 800_000,
    importSamplesMs: [300],
    composition: composition(),
    ...overrides,
  };
}

function batch(name: string, describeInstancesCalls: number): InterruptionBatchMeasurement {
  return {
    name,
    label: name,
    records: 10,
    kinds: { SpotInterruption: 10 },
    instances: 10,
    describeInstancesCalls,
    otherAwsCalls: 0,
    metricsWrites: 1,
    alertsPublished: 0,
    batchItemFailures: 0,
    firstRunMs: 5,
    samplesMs: [0.2],
  };
}

const results = (overrides: Partial<BenchResults>) =>
  benchResults({ notMeasured: { analysis: '--only lambda', live: '--only lambda' }, ...overrides });

const bundles = (...functions: BundleMeasurement[]): BenchResults['bundles'] => ({
  ok: true,
  value: { nodeVersion: 'v22.0.0', functions },
});

describe('parseSections', () => {
  it('expands "lambda" to the bundle and interruption sections and accepts a comma-separated list', () => {
    // Act / Assess
    expect(parseSections('lambda')).toEqual(new Set(['bundles', 'interruptions']));
    expect(parseSections('analysis, live')).toEqual(new Set(['analysis', 'live']));
  });

  it('rejects an unknown section, naming the valid ones', () => {
    // Act
    const parsed = parseSections('lambda,bundle');

    // Assess
    expect(parsed).toEqual({ error: expect.stringContaining('unknown section "bundle"') });
    expect((parsed as { error: string }).error).toContain(
      'analysis, live, bundles, interruptions, state-round-trips, cleanup, bounded-read, distribution, lambda',
    );
  });
});

describe('bundleComposition', () => {
  it('counts Kubernetes modules of the import graph, the SDK clients with code in the bundle, and the largest module', () => {
    // Prepare
    const meta = metafile({
      [EC2_SCHEMA]: { source: 1_336_887, inBundle: 553_859 },
      'node_modules/@aws-sdk/client-sns/dist-es/index.js': { source: 900, inBundle: 400 },
      'node_modules/@aws-sdk/client-iam/dist-es/index.js': { source: 900, inBundle: 0 },
      'src/adapters/kubernetes/connect-eks.ts': { source: 5_000, inBundle: 2_000 },
      'node_modules/@kubernetes/client-node/dist/index.js': { source: 7_000, inBundle: 3_000 },
      'src/usecases/scan-service.ts': { source: 4_000, inBundle: 1_500 },
    });

    // Act
    const c = bundleComposition(meta);

    // Assess
    expect(c).toEqual({
      inputs: 6,
      kubernetesInputs: 2,
      kubernetesBytes: 5_000,
      sdkClients: ['@aws-sdk/client-ec2', '@aws-sdk/client-sns'],
      largestInput: { path: '@aws-sdk/client-ec2/dist-es/schemas/schemas_0.js', bytes: 553_859, sourceBytes: 1_336_887 },
    });
  });

  it('finds no Kubernetes code where there is none', () => {
    // Act
    const c = bundleComposition(metafile({ 'src/usecases/handle-interruptions.ts': { source: 10, inBundle: 5 } }));

    // Assess
    expect(c.kubernetesInputs).toBe(0);
    expect(c.kubernetesBytes).toBe(0);
  });
});

describe('inputName', () => {
  it('drops everything up to node_modules/ and leading ../ of repository paths', () => {
    // Act / Assess
    expect(inputName('../../node_modules/@smithy/core/dist-es/x.js')).toBe('@smithy/core/dist-es/x.js');
    expect(inputName('../src/config.ts')).toBe('src/config.ts');
  });
});

describe('interruptionsVersusScan', () => {
  it('says interruptions loads no Kubernetes code and that the EC2 schema both carry makes them close, with the numbers', () => {
    // Prepare
    const largest = (bytes: number) => ({
      path: '@aws-sdk/client-ec2/dist-es/schemas/schemas_0.js',
      bytes,
      sourceBytes: 1_336_887,
    });
    const functions = [
      bundle('scan', {
        zipBytes: 340_266,
        bundleBytes: 1_220_756,
        composition: composition({ kubernetesInputs: 7, kubernetesBytes: 12_700, largestInput: largest(554_311) }),
      }),
      bundle('interruptions', {
        zipBytes: 267_271,
        bundleBytes: 983_513,
        composition: composition({ inputs: 2_013, largestInput: largest(553_859) }),
      }),
    ];

    // Act
    const text = interruptionsVersusScan(functions);

    // Assess
    expect(text).toContain('`interruptions` loads no Kubernetes code: none of its 2,013 modules');
    expect(text).toContain('(`scan`: 7, 12.7 kB)');
    expect(text).toContain('983.5 kB vs 1,220.8 kB (81%), 267.3 kB vs 340.3 kB zipped');
    expect(text).toContain("the EC2 SDK client's schema file");
    expect(text).toContain('553.9 kB of `interruptions` (56%) and 554.3 kB of `scan` (45%)');
    expect(text).toContain('Without it: `interruptions` 429.7 kB, `scan` 666.4 kB');
  });

  it('names the Kubernetes code when interruptions has some', () => {
    // Prepare
    const functions = [
      bundle('scan', { composition: composition({ kubernetesInputs: 7, kubernetesBytes: 12_700 }) }),
      bundle('interruptions', { composition: composition({ kubernetesInputs: 3, kubernetesBytes: 4_000 }) }),
    ];

    // Act / Assess
    expect(interruptionsVersusScan(functions)).toContain('`interruptions` carries Kubernetes code: 3 modules, 4.0 kB');
  });
});

describe('targets: the Lambda rows', () => {
  it('passes artifacts under 1 MB zipped and fails one at 1 MB; fails an interruptions bundle with Kubernetes code', () => {
    // Prepare
    const r = results({
      bundles: bundles(
        bundle('scan', { zipBytes: 999_999 }),
        bundle('interruptions', { zipBytes: 1_000_000, composition: composition({ kubernetesInputs: 1, kubernetesBytes: 900 }) }),
      ),
    });

    // Act
    const rows = targets(r);

    // Assess
    expect(rows.find((t) => t.target.startsWith('`scan` Lambda artifact'))).toMatchObject({ measured: '1,000.0 kB', pass: true });
    expect(rows.find((t) => t.target.startsWith('`interruptions` Lambda artifact'))?.pass).toBe(false);
    expect(rows.find((t) => t.target.includes('no Kubernetes code'))).toMatchObject({ measured: '1 modules', pass: false });
  });

  it('passes at most one DescribeInstances per batch and fails two', () => {
    // Prepare
    const withCalls = (calls: number) =>
      results({
        interruptions: { ok: true, value: { runs: 1, warmup: 1, batches: [batch('1 Spot', 1), batch('10 mixed', calls)] } },
      });

    // Act
    const row = (calls: number) => targets(withCalls(calls)).find((t) => t.target.includes('DescribeInstances'));

    // Assess
    expect(row(1)).toMatchObject({ measured: 'at most 1 per batch (1 Spot: 1; 10 mixed: 1)', pass: true });
    expect(row(2)).toMatchObject({ measured: 'at most 2 per batch (1 Spot: 1; 10 mixed: 2)', pass: false });
  });

  it('says which flag left a section out, without a verdict', () => {
    // Act
    const rows = targets(results({}));

    // Assess
    expect(rows.find((t) => t.target.startsWith('analysis under'))).toMatchObject({
      measured: 'not measured (--only lambda)',
      pass: undefined,
    });
    expect(rows.find((t) => t.target.includes('DescribeInstances'))).toMatchObject({ measured: 'not measured (not run)' });
  });
});

describe('measureInterruptions', () => {
  it('drives the handler over every batch: one DescribeInstances per new batch, none for a redelivered one, nothing failed', async () => {
    // Act
    const bench = await measureInterruptions(2, 1);

    // Assess
    expect(bench.batches.map((b) => [b.name, b.records, b.describeInstancesCalls, b.batchItemFailures])).toEqual([
      ['1 Spot', 1, 1, 0],
      ['10 Spot', 10, 1, 0],
      ['10 mixed', 10, 1, 0],
      ['10 mixed, redelivered', 10, 0, 0],
    ]);
    expect(Object.keys(bench.batches[2]?.kinds ?? {})).toHaveLength(5);
    expect(bench.batches.every((b) => b.otherAwsCalls === 0 && b.samplesMs.length === 2)).toBe(true);
  });
});
