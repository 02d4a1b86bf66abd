/** Time as the use cases see it: tests and `--now` fix it, waits can be skipped. */
export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
