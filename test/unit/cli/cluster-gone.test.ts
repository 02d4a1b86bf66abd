/** EKS's "no such cluster" gives the same outcome offline as live (src/domain/cluster-gone.ts). */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../src/cli/commands/demo.ts';
import type { Report } from '../../../src/domain/report.ts';
import { run } from './cli-harness.ts';

/** What `aws eks describe-cluster --name foo` prints for a cluster EKS does not know (AWS CLI v2). */
const NOT_FOUND =
  'An error occurred (ResourceNotFoundException) when calling the DescribeCluster operation: No cluster found for name: foo.\n';
const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sentinel-gone-'));
  folders.push(dir);
  return dir;
}

describe('scan --from a capture of a cluster EKS does not know', () => {
  it('is one line and exit 2, as a live scan, without naming a region the capture does not prove', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'cluster.json'), NOT_FOUND);

    const result = await run(['scan', '--from', dir, '--now', EXAMPLES_NOW]);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'karpenter-sentinel: cluster foo does not exist for this AWS account (EKS DescribeCluster: ResourceNotFoundException)',
    );
    expect(result.stderr).not.toContain('No findings');
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('karpenter-sentinel:')),
    ).toHaveLength(1);
  });

  it('with instances still tagged for it: their report, with one note that the cluster does not exist', async () => {
    const dir = await folder();
    await cp(join(examples, 'orphans-after-destroy'), dir, { recursive: true });
    await writeFile(join(dir, 'cluster.json'), NOT_FOUND.replace('foo', 'platform-eks-dev'));

    const result = await run(['scan', '--from', dir, '--now', EXAMPLES_NOW, '-o', 'json']);

    expect(result.stderr).toContain('note: cluster platform-eks-dev does not exist for this AWS account');
    expect((JSON.parse(result.stdout) as Report).findings.map((f) => f.code)).toContain('ORPHANED_INSTANCE');
  });
});
