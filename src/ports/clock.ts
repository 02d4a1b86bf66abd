/** Time as the use cases see it: tests and `--now` fix it, waits can be skipped. */
export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * A clock that reads `start` now and runs on as `wall` does: a simulated capture's clock, so ages
 * read as on the day it was captured and the simulation's own writes come after (docs/simulator.md).
 */
export function clockStartingAt(start: Date, wall: () => Date = () => new Date()): Clock {
  const offset = start.getTime() - wall().getTime();
  return { now: () => new Date(wall().getTime() + offset), sleep: SYSTEM_CLOCK.sleep };
}
