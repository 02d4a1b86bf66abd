import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(REPO_ROOT, 'scripts/generate-instance-types.ts');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { cwd: REPO_ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const ITEM = {
  InstanceType: 'm6a.large',
  VCpuInfo: { DefaultVCpus: 2 },
  MemoryInfo: { SizeInMiB: 8192 },
  ProcessorInfo: { SupportedArchitectures: ['x86_64'], Manufacturer: 'AMD' },
  SupportedUsageClasses: ['on-demand', 'spot'],
  Hypervisor: 'nitro',
  NetworkInfo: { Ipv4AddressesPerInterface: 10, DefaultNetworkCardIndex: 0, NetworkCards: [{ MaximumNetworkInterfaces: 3 }] },
};

describe('scripts/generate-instance-types.ts', () => {
  it('writes the table from `aws ec2 describe-instance-types` output, sorted, with its source and date, leaving out broken items', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'itypes-'));
    const input = join(dir, 'types.json');
    writeFileSync(
      input,
      JSON.stringify({ InstanceTypes: [{ ...ITEM, InstanceType: 'm6a.xlarge' }, ITEM, { InstanceType: 'x.y' }] }),
    );
    const out = join(dir, 'table.ts');

    // Act
    const result = await run([input, '--source', 'a test capture', '--out', out]);

    // Assess
    expect(result).toMatchObject({ code: 0, stdout: `2 instance types written to ${out}\n` });
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('Source: a test capture');
    expect(text).toMatch(/Generated: \d{4}-\d{2}-\d{2}\. Instance types: 2\./);
    expect(text.indexOf('"m6a.large|')).toBeLessThan(text.indexOf('"m6a.xlarge|'));
  });

  it("reads moto's gzip copy, keyed by type name", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'itypes-'));
    const input = join(dir, 'instance_types.json.gz');
    writeFileSync(input, gzipSync(JSON.stringify({ 'm6a.large': ITEM })));
    const out = join(dir, 'table.ts');

    const result = await run([input, '--source', 'moto', '--out', out]);

    expect(result.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('"m6a.large|2|8192|x86_64|on-demand,spot|nitro|AMD|3|10|0|||"');
  });

  it('refuses to run without saying where the data came from', async () => {
    const result = await run(['types.json']);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^usage: .*--source/);
  });
});
