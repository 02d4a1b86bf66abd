/**
 * scripts/on-demand-prices.ts turns Karpenter's committed price file into the bundled table
 * (docs/cost.md, "Prices"); the committed table is what the script writes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ON_DEMAND_ROWS, ON_DEMAND_TABLE } from '../../src/domain/bundled-on-demand-prices.ts';
import { decodePriceRow } from '../../src/domain/on-demand-prices.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(REPO_ROOT, 'scripts/on-demand-prices.ts');
const FIXTURE = join(REPO_ROOT, 'test/scripts/fixtures/zz_generated.pricing_aws.go');
const COMMIT = '6fc13b5236fd04fd16ff3f9dc7490d0813994099';

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { cwd: REPO_ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

function outFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'prices-')), 'table.ts');
}

describe('scripts/on-demand-prices.ts', () => {
  it("writes the region's prices from Karpenter's file, sorted, with its repository, path, commit, date and region", async () => {
    const out = outFile();

    const result = await run([FIXTURE, '--commit', COMMIT, '--out', out]);

    expect(result).toMatchObject({ code: 0, stdout: `7 us-east-1 on-demand prices of 2026-07-20T13:44:30Z written to ${out}\n` });
    const text = readFileSync(out, 'utf8');
    expect(text).toContain(`pkg/providers/pricing/zz_generated.pricing_aws.go at commit ${COMMIT}`);
    expect(text).toContain('generatedAt: "2026-07-20T13:44:30Z",\n  region: "us-east-1",');
    const rows = [...text.matchAll(/^ {2}"([^"]+)",$/gm)].map((m) => m[1]);
    expect(rows).toEqual([
      'c5.2xlarge|0.34',
      'c5.12xlarge|2.04',
      'c5.large|0.085',
      'm5.large|0.096',
      'm5.xlarge|0.192',
      'x8g.medium|0.0977',
      'x8g.metal-24xl|10.31712',
    ]);
  });

  it("reproduces the committed table from a file of Karpenter's shape holding its prices", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const pairs = ON_DEMAND_ROWS.map((row) => decodePriceRow(row)!);
    const go = [
      `// generated at ${ON_DEMAND_TABLE.generatedAt} for us-east-1`,
      'var InitialOnDemandPricesAWS = map[string]map[ec2types.InstanceType]float64{',
      `\t"${ON_DEMAND_TABLE.region}": {`,
      // Karpenter's order (by name) and layout (several per line, 6 decimals), not the table's.
      ...pairs
        .map(([type, usd]) => `\t\t"${type}": ${usd.toFixed(6)},`)
        .sort()
        .reverse(),
      '\t},',
      '}',
    ].join('\n');
    writeFileSync(join(dir, 'prices.go'), go);
    const out = join(dir, 'table.ts');

    const result = await run([join(dir, 'prices.go'), '--commit', ON_DEMAND_TABLE.commit, '--out', out]);

    expect(result.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(REPO_ROOT, 'src/domain/bundled-on-demand-prices.ts'), 'utf8'));
  });

  it('refuses, in one line, a file without its date, a region it does not hold, and a run without the commit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    writeFileSync(join(dir, 'undated.go'), readFileSync(FIXTURE, 'utf8').replace(/^\/\/ generated at .*$/m, ''));

    const undated = await run([join(dir, 'undated.go'), '--commit', COMMIT, '--out', outFile()]);
    const region = await run([FIXTURE, '--commit', COMMIT, '--region', 'eu-west-1', '--out', outFile()]);
    const noCommit = await run([FIXTURE]);

    expect(undated).toMatchObject({ code: 2, stderr: expect.stringMatching(/no "\/\/ generated at <time>" line.*\n$/) });
    expect(region).toMatchObject({ code: 2, stderr: `${FIXTURE}: no prices for eu-west-1 (it holds: us-east-1, us-west-2)\n` });
    expect(noCommit).toMatchObject({ code: 2, stderr: expect.stringMatching(/^usage: .*--commit/) });
  });
});

describe('the bundled on-demand table', () => {
  it("decodes every row, holds Karpenter's prices for common types, and names its source", () => {
    const pairs = ON_DEMAND_ROWS.map(decodePriceRow);
    const prices = new Map(pairs.flatMap((p) => (p ? [p] : [])));

    expect(pairs.every(Boolean)).toBe(true);
    expect(prices.size).toBe(ON_DEMAND_ROWS.length);
    expect(prices.size).toBeGreaterThan(1300);
    expect([prices.get('m5.large'), prices.get('t3.medium'), prices.get('m7g.large')]).toEqual([0.096, 0.0416, 0.0816]);
    expect(ON_DEMAND_TABLE).toMatchObject({ repo: 'aws/karpenter-provider-aws', region: 'us-east-1' });
    expect(ON_DEMAND_TABLE.generatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});
