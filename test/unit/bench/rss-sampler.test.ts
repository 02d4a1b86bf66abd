/**
 * The one watchdog the bench's measured children run under (scan --from of hostile files, a live
 * collection from a hostile API server): past its time or its RSS a child is killed, and says why.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { watchChild } from '../../../bench/rss-sampler.ts';

const IDLE = ['-e', 'setInterval(() => {}, 1000)'];

function idleChild() {
  const child = spawn(process.execPath, IDLE, { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  return { child, exited };
}

describe('bench: the watchdog over a measured child', () => {
  it('kills a child whose RSS passes the bound, and names the RSS it saw', async () => {
    const { child, exited } = idleChild();
    const watchdog = watchChild(child, { ms: 60_000, rssBytes: 1 });

    const signal = await exited;
    watchdog.stop();

    expect(signal).toBe('SIGKILL');
    expect(watchdog.killed).toMatch(/^killed at \d+\.\d GiB RSS$/);
  });

  it('kills a child that runs past its time, and says after how long', async () => {
    const { child, exited } = idleChild();
    const watchdog = watchChild(child, { ms: 100, rssBytes: 64 * 1024 ** 3 });

    const signal = await exited;
    watchdog.stop();

    expect(signal).toBe('SIGKILL');
    expect(watchdog.killed).toBe('killed after 0.1 s');
  });

  it('leaves alone a child within both bounds', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    const watchdog = watchChild(child, { ms: 60_000, rssBytes: 64 * 1024 ** 3 });

    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    watchdog.stop();

    expect(code).toBe(0);
    expect(watchdog.killed).toBeUndefined();
  });
});
