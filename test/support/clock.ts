import type { Clock } from '../../src/ports/clock.ts';

/** A clock that only moves when slept on, advanced or set: waits take no real time, and `sleeps` records them. */
export function steppingClock(
  start: Date | string,
): Clock & { sleeps: number[]; advance(ms: number): void; set(time: Date | string): void } {
  let now = new Date(start).getTime();
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => new Date(now),
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
    set: (time) => {
      now = new Date(time).getTime();
    },
  };
}

/** Real time whose waits pass at once: the Kubernetes client's retries against a simulated API server. */
export const NO_WAIT_CLOCK: Clock = { now: () => new Date(), sleep: async () => undefined };
