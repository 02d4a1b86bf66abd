/**
 * The instance types a live scan reads are the ones `snapshot --out` writes and `scan --from` of
 * that folder reads back: the same `snapshot.instanceTypes` (and the same gap when
 * DescribeInstanceTypes is denied) in every mode, so a requirement evaluated live and offline
 * gives the same verdict.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import { collectSnapshot } from '../../src/collect/collect.ts';
import { awsError } from '../../src/simulator/in-memory-aws.ts';
import { simulatedInstanceTypes } from '../../src/simulator/instance-types.ts';
import { simulateSnapshot, type Simulation } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { run } from '../unit/cli/cli-harness.ts';
import { closedAfterEachTest } from '../support/simulation.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/no-instance-type-fits', import.meta.url));
const running = closedAfterEachTest();
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sentinel-instance-types-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The example served as a cluster; its capture holds no instance types, the simulated account has its 22. */
async function simulated(): Promise<Simulation> {
  const { snapshot } = await loadSnapshot([EXAMPLE]);
  const simulation = await simulateSnapshot(snapshot);
  running.push(simulation);
  return simulation;
}

async function snapshotOut(simulation: Simulation): Promise<string> {
  const out = join(dir, 'capture');
  const services = {
    connectLive: async () => simulation.connection,
    clock: () => new Date(EXAMPLES_NOW),
  };
  const written = await run(['snapshot', '--cluster', simulation.seed.clusterName, '--out', out], { services });
  expect(written.code).toBe(0);
  return out;
}

describe('instance types: live scan, snapshot --out, scan --from', () => {
  it('the live scan and the folder snapshot wrote hold the same instance types', async () => {
    // Prepare
    const simulation = await simulated();

    // Act
    const live = (await collectSnapshot(simulation.connection, { clusterName: simulation.seed.clusterName })).snapshot;
    const out = await snapshotOut(simulation);
    const fromFolder = (await loadSnapshot([out])).snapshot;

    // Assess
    expect(live.instanceTypes).toEqual(simulatedInstanceTypes());
    expect(await readdir(out)).toContain('instance-types.json');
    expect(fromFolder.instanceTypes).toEqual(live.instanceTypes);
    expect(fromFolder.captured.has('instancetypes')).toBe(true);
  });

  it('a denied DescribeInstanceTypes is the same gap live and from the folder; the scan goes on', async () => {
    // Prepare
    const simulation = await simulated();
    simulation.aws.faults.fail('DescribeInstanceTypes', {
      error: awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.'),
      times: 'always',
    });

    // Act
    const live = await collectSnapshot(simulation.connection, { clusterName: simulation.seed.clusterName });
    const out = await snapshotOut(simulation);
    const fromFolder = (await loadSnapshot([out])).snapshot;

    // Assess
    const denied = {
      source: 'instancetypes',
      error: 'DescribeInstanceTypes failed: UnauthorizedOperation: You are not authorized to perform this operation.',
    };
    expect(live.unreadable).toBeUndefined();
    const ofInstanceTypes = (gaps: readonly { source: string }[]) => gaps.filter((g) => g.source === 'instancetypes');
    expect(ofInstanceTypes(live.snapshot.gaps)).toEqual([denied]);
    expect(live.snapshot.pods.length).toBeGreaterThan(0);
    expect(ofInstanceTypes(fromFolder.gaps)).toEqual([denied]);
    expect(fromFolder.captured.has('instancetypes')).toBe(false);
    expect(fromFolder.instanceTypes).toEqual([]);
  });
});
