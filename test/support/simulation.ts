/** Simulations started by a test file, closed after every test. */
import { afterEach } from 'vitest';
import type { Simulation } from '../../src/simulator/simulation.ts';

/** A list to push each started simulation on; an `afterEach` of the calling file closes and empties it. */
export function closedAfterEachTest(): Simulation[] {
  const started: Simulation[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });
  return started;
}
