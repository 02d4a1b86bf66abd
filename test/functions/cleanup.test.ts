/**
 * The cleanup function's handler fed the sample events over the simulated cluster of
 * examples/cleanup-partial-destroy (real Kubernetes adapter over HTTPS on 127.0.0.1, in-memory AWS,
 * a Karpenter controller that is gone, or for the waits one that runs but drains slowly): what it
 * returns, what it changes, what it logs, how it watches Lambda's remaining time, and how it refuses
 * a bad request.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CleanupRequestError, parseCleanupRequest } from '../../src/cleanup/request.ts';
import type { CleanupResult } from '../../src/domain/cleanup.ts';
import { CleanupNotServedError, createCleanupHandler } from '../../src/service/handlers/cleanup.ts';
import { AWS_WRITE_OPERATIONS } from '../../src/simulator/in-memory-aws.ts';
import { simulateSnapshot } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { karpenterPod } from '../factories/kube.ts';
import { NO_WAIT_CLOCK, steppingClock } from '../support/clock.ts';
import { lambdaContext, sampleEvent } from '../support/lambda.ts';
import { CLEANED, CLEANUP_EXAMPLE, RUNNING_WITH_NODECLAIM } from '../examples/cleanup-partial-destroy.ts';
import { closedAfterEachTest } from '../support/simulation.ts';

const EXAMPLE = CLEANUP_EXAMPLE;
const START = '2026-01-01T01:00:00Z';
const MARGIN_MS = 30_000;
const NODECLAIM_WAIT_MS = 5 * 60_000;
/** The example's cluster; the harness's stack serves it (`clusters`) unless told otherwise. */
const CLUSTER = 'platform-eks-dev';

const NODEPOOLS = CLEANED.nodePoolsDeleted;
const SPOT_INSTANCE = RUNNING_WITH_NODECLAIM;
const INSTANCES = CLEANED.instancesTerminated;
const LAUNCH_TEMPLATES = CLEANED.launchTemplatesDeleted;
const INSTANCE_PROFILES = CLEANED.instanceProfilesDeleted;

const simulations = closedAfterEachTest();

/**
 * The handler over a fresh simulation of the example; `remainingMs` is what Lambda says is left. The
 * example's controller is gone; `slow` runs one that drains slower than the NodeClaim wait
 * (PodDisruptionBudgets, long grace periods), so the NodeClaims are waited for and outlast the wait.
 */
async function harness(controller: 'gone' | 'slow' = 'gone', served: string[] | 'unset' = [CLUSTER]) {
  const clusters = served === 'unset' ? undefined : served;
  const clock = steppingClock(START);
  const { snapshot } = await loadSnapshot([EXAMPLE]);
  const controllerPod = karpenterPod({ name: 'karpenter-6c8d9f7b54-q2w7r', nodeName: 'ip-10-0-12-37' });
  const seed = controller === 'slow' ? { ...snapshot, pods: [...snapshot.pods, controllerPod] } : snapshot;
  const simulation = await simulateSnapshot(seed, {
    clock,
    kube: { clock: NO_WAIT_CLOCK },
    ...(controller === 'slow' ? { karpenter: { drainDelayMs: 2 * NODECLAIM_WAIT_MS } } : {}),
  });
  simulations.push(simulation);
  const lines: Record<string, unknown>[] = [];
  const handler = createCleanupHandler({
    connection: simulation.connection,
    clock,
    logger: jsonLogger({}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    settings: { timeMarginMs: MARGIN_MS, nodeClaimWaitMs: NODECLAIM_WAIT_MS, clusters },
  });
  const invoke = (event: unknown, remainingMs = 900_000): Promise<CleanupResult> => handler(event, contextWith(remainingMs));
  const kube = await simulation.connection.connectKube(undefined);
  return {
    clock,
    simulation,
    lines,
    invoke,
    writes: () => AWS_WRITE_OPERATIONS.flatMap((op) => simulation.aws.callsTo(op)),
    terminated: () =>
      simulation.aws.callsTo('TerminateInstances').flatMap((c) => (c.input.instanceIds as string[] | undefined) ?? []),
    nodePools: async () => (await kube.list({ resource: 'nodepools' })).map((p) => (p.metadata as { name: string }).name).sort(),
    instanceState: (id: string) => simulation.aws.state.instances.get(id)?.state,
  };
}

function contextWith(remainingMs: number): Context {
  return lambdaContext({ getRemainingTimeInMillis: () => remainingMs });
}

describe('the sample events', () => {
  it.each(['dry-run', 'apply', 'nodepools', 'keep-nodepools'])(
    'events/cleanup.%s.json is a valid request for the example',
    (name) => {
      expect(parseCleanupRequest(sampleEvent(`cleanup.${name}`)).clusterName).toBe('platform-eks-dev');
    },
  );
});

describe('cleanup handler', () => {
  it('dry run: lists every Karpenter leftover of the cluster and changes nothing, without waiting', async () => {
    const h = await harness();

    const result = await h.invoke(sampleEvent('cleanup.dry-run'));

    expect(result).toEqual({
      cluster: 'platform-eks-dev',
      dryRun: true,
      complete: true,
      nodePoolsDeleted: NODEPOOLS,
      instancesTerminated: INSTANCES,
      instancesNotProven: CLEANED.instancesNotProven,
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
      instanceProfilesDeleted: INSTANCE_PROFILES,
      errors: [],
    });
    expect(h.writes()).toEqual([]);
    expect(await h.nodePools()).toEqual(NODEPOOLS);
    expect(h.clock.sleeps).toEqual([]);
  });

  it('apply: cleans the cluster completely, lists what the dry run listed, and a second invoke finds nothing to do', async () => {
    const h = await harness();
    const dryRun = await h.invoke(sampleEvent('cleanup.dry-run'));

    const result = await h.invoke(sampleEvent('cleanup.apply'));
    const again = await h.invoke(sampleEvent('cleanup.apply'));

    expect(result).toEqual({ ...dryRun, dryRun: false });
    expect(await h.nodePools()).toEqual([]);
    for (const id of INSTANCES) expect(h.instanceState(id), id).toBe('terminated');
    expect(h.instanceState('i-0d9f2b6e4a1c83575')).toBe('running'); // the managed node group's
    expect(h.instanceState('i-0e1a7c3f9b5d26487')).toBe('running'); // platform-eks-staging's
    expect(h.instanceState('i-0f00d5ba5e0b1e7a2')).toBe('running'); // only the two tags anyone can write
    expect([...h.simulation.aws.state.launchTemplates.keys()].sort()).toEqual(['lt-0b4e9a2d7c1f63805', 'lt-0f5a2d8c1e7b39640']);
    for (const name of INSTANCE_PROFILES) expect(h.simulation.aws.state.instanceProfiles.has(name), name).toBe(false);
    expect(again).toMatchObject({ complete: true, nodePoolsDeleted: [], instancesTerminated: [], errors: [] });
    expect(again.launchTemplatesDeleted).toEqual([]);
    expect(again.instanceProfilesDeleted).toEqual([]);
    expect(h.terminated().sort()).toEqual(INSTANCES);
  });

  it('logs each step and wait as one JSON line, then the result and the invocation summary', async () => {
    const h = await harness('slow');

    await h.invoke(sampleEvent('cleanup.apply'));

    const messages = h.lines.map((l) => String(l.message));
    expect(h.lines.filter((l) => l.step !== undefined).map((l) => l.step)).toEqual(
      expect.arrayContaining(['nodepools', 'instances', 'launch-templates', 'instance-profiles']),
    );
    // The controller drains too slowly: the run waits its 5 minutes, polling, and says so.
    expect(h.clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(NODECLAIM_WAIT_MS);
    expect(h.lines).toContainEqual(
      expect.objectContaining({ message: 'waiting for 2 NodeClaim(s) to go', cluster: 'platform-eks-dev', nodeClaims: 2 }),
    );
    expect(h.lines.at(-2)).toMatchObject({
      level: 'info',
      message: 'cleanup complete',
      cluster: 'platform-eks-dev',
      dryRun: false,
      instancesTerminated: INSTANCES,
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
    });
    expect(h.lines.at(-1)).toMatchObject({
      message: 'invocation done',
      function: 'cleanup',
      complete: true,
      nodePoolsDeleted: 2,
      instancesTerminated: 3,
      instancesNotProven: 1,
      launchTemplatesDeleted: 2,
      instanceProfilesDeleted: 2,
      errors: 0,
    });
    expect(messages.every((m) => !m.includes('\n'))).toBe(true);
  });

  it('controller gone: logs that nothing will drain the NodeClaims and does not wait for them', async () => {
    const h = await harness();

    const result = await h.invoke(sampleEvent('cleanup.apply'));

    expect(result).toMatchObject({ complete: true, nodePoolsDeleted: NODEPOOLS, instancesTerminated: INSTANCES, errors: [] });
    expect(h.lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        step: 'nodepools',
        message:
          'no Karpenter controller is running (no Ready pod labelled app.kubernetes.io/name=karpenter): nothing will drain the 2 NodeClaims; their instances are terminated next',
      }),
    );
    expect(h.lines.some((l) => String(l.message).startsWith('waiting for') && l.step === 'nodepools')).toBe(false);
    expect(h.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(NODECLAIM_WAIT_MS);
    expect(h.terminated().sort()).toEqual(INSTANCES);
  });

  it('a subset of NodePools: only those and their instances; launch templates and profiles serve the rest and stay', async () => {
    const h = await harness();

    const result = await h.invoke(sampleEvent('cleanup.nodepools'));

    expect(result).toMatchObject({
      complete: true,
      nodePoolsDeleted: ['spot-pool'],
      instancesTerminated: [SPOT_INSTANCE],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });
    expect(await h.nodePools()).toEqual(['ondemand-pool']);
    expect(h.terminated()).toEqual([SPOT_INSTANCE]);
  });

  it('deleteNodePools false: the NodePools stay, nothing is waited for, the rest is cleaned', async () => {
    const h = await harness();

    const result = await h.invoke(sampleEvent('cleanup.keep-nodepools'));

    expect(result).toMatchObject({
      complete: true,
      nodePoolsDeleted: [],
      instancesTerminated: INSTANCES,
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
      instanceProfilesDeleted: INSTANCE_PROFILES,
    });
    expect(await h.nodePools()).toEqual(NODEPOOLS);
    expect(h.lines.some((l) => String(l.message).startsWith('waiting for') && l.step === 'nodepools')).toBe(false);
  });

  it('little time left: returns complete:false with stoppedAt; the next invoke finishes, terminating nothing twice', async () => {
    const h = await harness('slow');

    // A minute of work before the margin: less than the 5-minute NodeClaim wait.
    const first = await h.invoke(sampleEvent('cleanup.apply'), MARGIN_MS + 60_000);
    const sleptBeforeStopping = h.clock.sleeps.reduce((a, b) => a + b, 0);
    const second = await h.invoke(sampleEvent('cleanup.apply'));

    expect(first).toMatchObject({ complete: false, stoppedAt: 'nodepools', nodePoolsDeleted: NODEPOOLS, errors: [] });
    expect(first.launchTemplatesDeleted).toEqual([]);
    expect(h.lines).toContainEqual(
      expect.objectContaining({ message: 'cleanup stopped before step nodepools: time ran out, invoke again to carry on' }),
    );
    // It waited, but started no wait past its deadline (the clock moves only when the run sleeps).
    expect(sleptBeforeStopping).toBeGreaterThan(0);
    expect(sleptBeforeStopping).toBeLessThanOrEqual(60_000);
    expect(second).toMatchObject({
      complete: true,
      nodePoolsDeleted: [],
      instancesTerminated: INSTANCES,
      launchTemplatesDeleted: LAUNCH_TEMPLATES,
      instanceProfilesDeleted: INSTANCE_PROFILES,
    });
    const terminated = h.terminated();
    expect(terminated.sort()).toEqual(INSTANCES);
    expect(new Set(terminated).size).toBe(terminated.length);
  });

  describe('a bad request is refused with one line naming the field, before anything is read or changed', () => {
    it.each([
      [
        { clusterName: 'platform-eks-dev', dryRun: 'false' },
        ['dryRun'],
        'dryRun must be true or false (a JSON boolean), got "false"',
      ],
      [{ clusterName: 'platform-eks-dev', dryrun: false }, ['dryrun'], 'unknown field "dryrun" (did you mean "dryRun"?)'],
      [{ dryRun: false }, ['clusterName'], 'clusterName is required'],
      [{ clusterName: 'platform-eks-dev', nodePools: [] }, ['nodePools'], 'nodePools must name at least one NodePool'],
      ['platform-eks-dev', ['event'], 'expected a JSON object'],
    ])('%j', async (event, fields, message) => {
      const h = await harness();

      const error = await h.invoke(event).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );

      expect(error).toBeInstanceOf(CleanupRequestError);
      expect((error as CleanupRequestError).fields).toEqual(fields);
      expect((error as Error).message).toContain(message);
      expect((error as Error).stack).not.toContain('\n');
      expect(h.simulation.aws.calls).toEqual([]);
      expect(h.lines).toHaveLength(1);
      expect(h.lines[0]).toMatchObject({ level: 'error', message: 'invocation failed', function: 'cleanup' });
      expect(h.lines[0]?.error).toBe(`CleanupRequestError: ${(error as Error).message}`);
    });
  });

  describe('a cluster the stack does not serve (param clusters): its role could delete nothing there', () => {
    it.each([
      ['unset' as const, 'this stack serves no cluster (param clusters is unset)', '--param="clusters=platform-eks-dev"'],
      [
        ['platform-eks-prod'],
        'this stack serves only platform-eks-prod',
        '--param="clusters=platform-eks-prod,platform-eks-dev"',
      ],
    ])(
      'clusters %j: a real run is refused in one line naming the param, before anything is read or changed',
      async (clusters, served, fix) => {
        const h = await harness('gone', clusters);

        const error = await h.invoke(sampleEvent('cleanup.apply')).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );

        expect(error).toBeInstanceOf(CleanupNotServedError);
        expect((error as Error).message).toContain(`cleanup of cluster ${CLUSTER} refused: ${served}`);
        expect((error as Error).message).toContain(fix);
        expect((error as Error).stack).not.toContain('\n');
        expect(h.simulation.aws.calls).toEqual([]);
        expect(await h.nodePools()).toEqual(NODEPOOLS);
        expect(h.lines).toHaveLength(1);
        expect(h.lines[0]?.error).toBe(`CleanupNotServedError: ${(error as Error).message}`);
      },
    );

    it('a dry run still runs and lists what a served stack would delete', async () => {
      const unserved = await harness('gone', 'unset');
      const served = await harness();

      const result = await unserved.invoke(sampleEvent('cleanup.dry-run'));

      expect(result).toEqual(await served.invoke(sampleEvent('cleanup.dry-run')));
      expect(result.instancesTerminated).toEqual(INSTANCES);
      expect(unserved.writes()).toEqual([]);
    });
  });

  it('refuses to start when the margin leaves no time (a timeout shorter than CLEANUP_TIME_MARGIN)', async () => {
    const h = await harness();

    await expect(h.invoke(sampleEvent('cleanup.apply'), MARGIN_MS)).rejects.toThrow(
      "CLEANUP_TIME_MARGIN 30s leaves nothing of this invocation's 30s: raise the function's timeout",
    );
    expect(h.simulation.aws.calls).toEqual([]);
  });
});
