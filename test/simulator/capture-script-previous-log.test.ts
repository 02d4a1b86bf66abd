/**
 * The capture recipe (`capture-script`), run with the real kubectl against the simulator seeded
 * from examples/controller-private-vpc-no-endpoints, saves the previous container's log of the
 * restarted controller pods as karpenter-previous.log (and tolerates pods with none); the scan of
 * that folder explains the crash loop from it. The AWS CLI is a fake printing the example's cluster.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/domain/report.ts';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { run } from '../unit/cli/cli-harness.ts';
import { captureWorkspace, type CaptureWorkspace } from './support/capture-workspace.ts';

const EXAMPLE = new URL('../../examples/controller-private-vpc-no-endpoints/', import.meta.url).pathname;
const CLUSTER = 'fin-core-private';

let sim: Simulation;
let work: CaptureWorkspace;

beforeAll(async () => {
  sim = await startSimulation([EXAMPLE]);
  work = await captureWorkspace(sim, EXAMPLE, 'vpc-0a6e3c9d2f7b14850');
});

afterAll(async () => {
  await sim.close();
  await work.remove();
});

describe('the capture recipe with the real kubectl, on a controller crash-looping in a private VPC', () => {
  it('saves karpenter-previous.log; scan --from the folder names AWS_API_UNREACHABLE from it', async () => {
    // Prepare
    const printed = await run(['capture-script', '--cluster', CLUSTER, '--region', 'eu-west-1']);
    await writeFile(join(work.dir, 'capture.sh'), printed.stdout);

    // Act
    const captured = await work.sh('capture.sh');
    const { path: dir } = await work.captureFolder(CLUSTER);
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
