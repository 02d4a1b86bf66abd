/** Simulations started by a test file, closed after every test. */
import { afterEach } from 'vitest';
import { SOURCE_NAMES } from '../../src/domain/snapshot.ts';
import { simulateSnapshot, type Simulation } from '../../src/simulator/simulation.ts';
import { snapshotOf, type SnapshotParts } from '../factories/aws.ts';

/** A list to push each started simulation on; an `afterEach` of the calling file closes and empties it. */
export function closedAfterEachTest(): Simulation[] {
  const started: Simulation[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });
  return started;
}

/**
 * `parts` served as cluster `demo`, ACTIVE, every source captured (a live scan of it reads them
 * all); pushed on `started` (closedAfterEachTest) to be closed after the test.
 */
export async function simulatedDemo(started: Simulation[], parts: SnapshotParts): Promise<Simulation> {
  const seed = snapshotOf(parts, 'demo');
  seed.cluster = { name: 'demo', status: 'ACTIVE' };
  for (const source of SOURCE_NAMES) seed.captured.add(source);
  const simulation = await simulateSnapshot(seed);
  started.push(simulation);
  return simulation;
}
