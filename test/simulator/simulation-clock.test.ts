/**
 * One simulation for `scan --simulate`, cleanup and the sandbox: the clock a simulation is given is
 * the cluster's time everywhere, the ages kubectl v1.32 prints included, not only the simulated
 * Karpenter's writes. (The sandbox used to assemble its own simulation to get this.)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockStartingAt } from '../../src/ports/clock.ts';
import { simulateSnapshot, type Simulation } from '../../src/simulator/simulation.ts';
import { snapshotOf } from '../factories/aws.ts';
import { minutesAfter, pod, T0 } from '../factories/kube.ts';

const run = promisify(execFile);
let simulation: Simulation;
let home: string;

beforeAll(async () => {
  const seed = snapshotOf({ pods: [pod({ name: 'waiting', namespace: 'shop' })] });
  simulation = await simulateSnapshot(seed, { clock: clockStartingAt(new Date(minutesAfter(T0, 42))) });
  home = await mkdtemp(join(tmpdir(), 'simulation-clock-'));
  await writeFile(join(home, 'kubeconfig'), simulation.kubeApi.kubeconfig(), { mode: 0o600 });
});

afterAll(async () => {
  await simulation.close();
  await rm(home, { recursive: true, force: true });
});

describe('a simulation given a clock', () => {
  it("shows kubectl the ages at that clock's time: a pod created at the capture's T0 is 42 minutes old, not years", async () => {
    const { stdout } = await run('kubectl', ['get', 'pods', '-n', 'shop'], {
      timeout: 20_000,
      env: { ...process.env, HOME: home, KUBECONFIG: join(home, 'kubeconfig') },
    });

    expect(stdout).toMatch(/^waiting\s+0\/1\s+Pending\s+0\s+4[2-3]m$/m);
  });
});
