import type { Clock } from '../../src/ports/clock.ts';

/** A clock that only moves when slept on: waits take no real time, and `sleeps` records them. */
export function steppingClock(start: Date | string): Clock & { sleeps: number[]; advance(ms: number): void } {
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
  };
}
