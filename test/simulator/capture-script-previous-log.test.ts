/**
 * The capture recipe (`capture-script`), run with the real kubectl against the simulator seeded
 * from examples/controller-private-vpc-no-endpoints, saves the previous container's log of the
 * restarted controller pods as karpenter-previous.log (and tolerates pods with none); the scan of
 * that folder explains the crash loop from it. The AWS CLI is a fake printing the example's cluster.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/domain/report.ts';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { run } from '../unit/cli/cli-harness.ts';

const EXAMPLE = new URL('../../examples/controller-private-vpc-no-endpoints/', import.meta.url).pathname;
const CLUSTER = 'fin-core-private';

function fakeAws(clusterJson: string): string {
  return `#!/bin/sh
case "$*" in
  *"describe-cluster"*--query*) echo vpc-0a6e3c9d2f7b14850 ;;
  *"describe-cluster"*) cat <<'JSON'
${clusterJson.trim()}
JSON
  ;;
  *"list-fargate-profiles"*--query*) ;;
  *"list-fargate-profiles"*) echo '{"fargateProfileNames": []}' ;;
  *"list-access-entries"*) echo '{"accessEntries": []}' ;;
  *"describe-instances"*) echo '{"Reservations": []}' ;;
  *"describe-launch-templates"*) echo '{"LaunchTemplates": []}' ;;
  *"list-instance-profiles"*) echo '{"InstanceProfiles": []}' ;;
  *"describe-subnets"*) echo '{"Subnets": []}' ;;
  *) echo "fake aws: unexpected: $*" >&2; exit 1 ;;
esac
`;
}

let sim: Simulation;
let work: string;

beforeAll(async () => {
  sim = await startSimulation([EXAMPLE]);
  work = await mkdtemp(join(tmpdir(), 'sentinel-previous-'));
  await mkdir(join(work, 'bin'));
  await writeFile(join(work, 'kubeconfig'), sim.kubeApi.kubeconfig());
  await writeFile(join(work, 'bin', 'aws'), fakeAws(await readFile(join(EXAMPLE, 'cluster.json'), 'utf8')));
  await chmod(join(work, 'bin', 'aws'), 0o755);
});

afterAll(async () => {
  await sim.close();
  await rm(work, { recursive: true, force: true });
});

function sh(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [script], {
      cwd,
      env: {
        ...process.env,
        HOME: work,
        KUBECONFIG: join(work, 'kubeconfig'),
        PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}`,
      },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

describe('the capture recipe with the real kubectl, on a controller crash-looping in a private VPC', () => {
  it('saves karpenter-previous.log; scan --from the folder names AWS_API_UNREACHABLE from it', async () => {
    // Prepare
    const printed = await run(['capture-script', '--cluster', CLUSTER, '--region', 'eu-west-1']);
    await writeFile(join(work, 'capture.sh'), printed.stdout);

    // Act
    const captured = await sh('capture.sh', work);
    const folder = (await readdir(work)).find((n) => n.startsWith(`karpenter-capture-${CLUSTER}-`) && !n.endsWith('.tgz'));
    const dir = join(work, folder ?? '?');
    const previous = await readFile(join(dir, 'karpenter-previous.log'), 'utf8');
    const scan = await run(['scan', '--from', dir, '--output', 'json', '--now', '2026-01-01T01:00:00Z']);

    // Assess
    expect(captured.stdout).toContain('karpenter-previous.log');
    expect(previous).toContain('Post "https://sts.eu-west-1.amazonaws.com/": dial tcp 52.94.28.134:443: i/o timeout');
    expect((await readdir(dir)).filter((n) => n.includes('previous'))).toEqual(['karpenter-previous.log']);
    const report = JSON.parse(scan.stdout) as Report;
    expect(report.findings.map((f) => [f.code, f.cause?.code])).toContainEqual([
      'KARPENTER_CONTROLLER_UNHEALTHY',
      'AWS_API_UNREACHABLE',
    ]);
  }, 180_000);
});
