import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/domain/kube.ts';
import { simulateSnapshot, type Simulation, type SimulationOptions } from '../../src/simulator/simulation.ts';
import { steppingClock } from '../support/clock.ts';
import { instance, snapshotOf } from '../factories/aws.ts';
import { nodeClaim, nodePool } from '../factories/karpenter.ts';
import { karpenterPod, node } from '../factories/kube.ts';
import { call, namesOf } from './support/https-client.ts';
import { closedAfterEachTest } from '../support/simulation.ts';

const DELETED_AT = '2026-01-01T01:00:00Z';
const NODECLAIMS = '/apis/karpenter.sh/v1/nodeclaims';
const NODEPOOLS = '/apis/karpenter.sh/v1/nodepools';

const running = closedAfterEachTest();

/** Two pools, one NodeClaim + Node + instance each; the controller pod and simulation options as given. */
async function cluster(controller: Pod[] = [], options: SimulationOptions = {}) {
  const seed = snapshotOf({
    pods: controller,
    nodePools: [nodePool({ name: 'spot-pool' }), nodePool({ name: 'ondemand-pool' })],
    nodeClaims: [
      nodeClaim({ name: 'spot-pool-a1b2c', nodePool: 'spot-pool', instanceId: 'i-0aaa000000000001', nodeName: 'ip-10-0-1-1' }),
      nodeClaim({
        name: 'ondemand-pool-d3e4f',
        nodePool: 'ondemand-pool',
        instanceId: 'i-0bbb000000000002',
        nodeName: 'ip-10-0-1-2',
      }),
    ],
    nodes: [
      node({ name: 'ip-10-0-1-1', providerID: 'aws:///us-east-1a/i-0aaa000000000001' }),
      node({ name: 'ip-10-0-1-2', providerID: 'aws:///us-east-1a/i-0bbb000000000002' }),
    ],
    instances: [
      instance({ id: 'i-0aaa000000000001', nodePool: 'spot-pool' }),
      instance({ id: 'i-0bbb000000000002', nodePool: 'ondemand-pool' }),
    ],
  });
  const simulation = await simulateSnapshot(seed, { clock: steppingClock(DELETED_AT), ...options });
  running.push(simulation);
  return simulation;
}

const readyController = () => [karpenterPod({ name: 'karpenter-5697769d6c-x7k2p', nodeName: 'system-1' })];

async function claimNames(simulation: Simulation): Promise<string[]> {
  return namesOf((await call(simulation.kubeApi, NODECLAIMS)).json().items ?? []);
}

async function nodeNames(simulation: Simulation): Promise<string[]> {
  return namesOf((await call(simulation.kubeApi, '/api/v1/nodes')).json().items ?? []);
}

function instanceState(simulation: Simulation, id: string): string | undefined {
  return simulation.aws.state.instances.get(id)?.state;
}

describe('deleting a NodePool through the simulated API', () => {
  it('marks its NodeClaims deleted at the clock time, held by the termination finalizer; the other pool is untouched', async () => {
    // Prepare
    const simulation = await cluster();

    // Act
    const deleted = await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });

    // Assess
    expect(deleted.status).toBe(200);
    const spot = (await call(simulation.kubeApi, `${NODECLAIMS}/spot-pool-a1b2c`)).json();
    const ondemand = (await call(simulation.kubeApi, `${NODECLAIMS}/ondemand-pool-d3e4f`)).json();
    expect(spot.metadata).toMatchObject({ deletionTimestamp: DELETED_AT, finalizers: ['karpenter.sh/termination'] });
    expect(ondemand.metadata).not.toHaveProperty('deletionTimestamp');
    expect(namesOf((await call(simulation.kubeApi, NODEPOOLS)).json().items ?? [])).toEqual(['ondemand-pool']);
  });

  it('finds NodeClaims by their NodePool owner reference when they carry no label', async () => {
    // Prepare
    const claim = nodeClaim({ name: 'spot-pool-zz9', nodePool: 'spot-pool' });
    delete claim.metadata?.labels?.['karpenter.sh/nodepool'];
    const simulation = await simulateSnapshot(snapshotOf({ nodePools: [nodePool({ name: 'spot-pool' })], nodeClaims: [claim] }), {
      clock: steppingClock(DELETED_AT),
    });
    running.push(simulation);

    // Act
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });

    // Assess
    const after = (await call(simulation.kubeApi, `${NODECLAIMS}/spot-pool-zz9`)).json();
    expect(after.metadata).toMatchObject({ deletionTimestamp: DELETED_AT });
  });

  it('without a Karpenter controller, nothing drains: NodeClaims, Nodes and instances stay', async () => {
    // Prepare
    const simulation = await cluster();

    // Act
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });
    const claims = await claimNames(simulation);

    // Assess
    expect(claims).toEqual(['ondemand-pool-d3e4f', 'spot-pool-a1b2c']);
    expect(await nodeNames(simulation)).toEqual(['ip-10-0-1-1', 'ip-10-0-1-2']);
    expect(instanceState(simulation, 'i-0aaa000000000001')).toBe('running');
  });

  it('with a controller pod that is Running but not Ready, nothing drains', async () => {
    // Prepare
    const simulation = await cluster([karpenterPod({ name: 'karpenter-5697769d6c-x7k2p', nodeName: 'system-1', ready: false })]);

    // Act
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });

    // Assess
    expect(await claimNames(simulation)).toEqual(['ondemand-pool-d3e4f', 'spot-pool-a1b2c']);
    expect(instanceState(simulation, 'i-0aaa000000000001')).toBe('running');
  });

  it('with a Ready controller, the next LIST no longer has the pool’s NodeClaims or Nodes and their instances shut down', async () => {
    // Prepare
    const simulation = await cluster(readyController());
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });
    expect(instanceState(simulation, 'i-0aaa000000000001')).toBe('running');

    // Act
    const claims = await claimNames(simulation);

    // Assess
    expect(claims).toEqual(['ondemand-pool-d3e4f']);
    expect(await nodeNames(simulation)).toEqual(['ip-10-0-1-2']);
    expect(instanceState(simulation, 'i-0aaa000000000001')).toBe('shutting-down');
    expect(instanceState(simulation, 'i-0bbb000000000002')).toBe('running');
  });

  it('with a slow drain (drainDelayMs), the NodeClaims go only at a LIST that long after their deletion', async () => {
    // Prepare: PodDisruptionBudgets and long grace periods hold the drain for 10 minutes.
    const clock = steppingClock(DELETED_AT);
    const simulation = await cluster(readyController(), { clock, karpenter: { drainDelayMs: 10 * 60_000 } });
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });

    // Act
    const atOnce = await claimNames(simulation);
    clock.advance(10 * 60_000 - 1000);
    const aSecondBefore = await claimNames(simulation);
    const stateBefore = instanceState(simulation, 'i-0aaa000000000001');
    clock.advance(1000);
    const atTheDelay = await claimNames(simulation);

    // Assess
    expect(atOnce).toEqual(['ondemand-pool-d3e4f', 'spot-pool-a1b2c']);
    expect(aSecondBefore).toEqual(['ondemand-pool-d3e4f', 'spot-pool-a1b2c']);
    expect(stateBefore).toBe('running');
    expect(atTheDelay).toEqual(['ondemand-pool-d3e4f']);
    expect(await nodeNames(simulation)).toEqual(['ip-10-0-1-2']);
    expect(instanceState(simulation, 'i-0aaa000000000001')).toBe('shutting-down');
  });

  it('a slow drain needs the controller too: without it, the NodeClaims stay past drainDelayMs', async () => {
    // Prepare
    const clock = steppingClock(DELETED_AT);
    const simulation = await cluster([], { clock, karpenter: { drainDelayMs: 60_000 } });
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });

    // Act
    clock.advance(60 * 60_000);
    const claims = await claimNames(simulation);

    // Assess
    expect(claims).toEqual(['ondemand-pool-d3e4f', 'spot-pool-a1b2c']);
    expect(instanceState(simulation, 'i-0aaa000000000001')).toBe('running');
  });

  it('Karpenter’s terminations are not the caller’s: no TerminateInstances call recorded, terminated after the next describe', async () => {
    // Prepare
    const simulation = await cluster(readyController());
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });
    await claimNames(simulation);

    // Act
    const described = await simulation.aws.ec2.describeInstances({ instanceIds: ['i-0aaa000000000001'] });

    // Assess
    expect(described.map((i) => [i.id, i.state])).toEqual([['i-0aaa000000000001', 'terminated']]);
    expect(simulation.aws.callsTo('TerminateInstances')).toEqual([]);
  });

  it('through the real Kubernetes client: deleteNodePool, then list shows only the other pool’s NodeClaim', async () => {
    // Prepare
    const simulation = await cluster(readyController());
    const kube = await simulation.connection.connectKube(undefined);

    // Act
    const deleted = await kube.deleteNodePool('spot-pool');
    const again = await kube.deleteNodePool('spot-pool');
    const claims = await kube.list({ resource: 'nodeclaims', labelSelector: 'karpenter.sh/nodepool=spot-pool' });

    // Assess
    expect([deleted, again]).toEqual([true, false]);
    expect(claims).toEqual([]);
    expect(instanceState(simulation, 'i-0aaa000000000001')).toBe('shutting-down');
  });

  it('a dry-run delete changes nothing', async () => {
    // Prepare
    const simulation = await cluster(readyController());

    // Act
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool?dryRun=All`, { method: 'DELETE' });

    // Assess
    const spot = (await call(simulation.kubeApi, `${NODECLAIMS}/spot-pool-a1b2c`)).json();
    expect(spot.metadata).not.toHaveProperty('deletionTimestamp');
    expect(await claimNames(simulation)).toEqual(['ondemand-pool-d3e4f', 'spot-pool-a1b2c']);
  });

  it('a NodeClaim the seed already shows terminating, of a pool not deleted here, stays as captured', async () => {
    // Prepare
    const stuck = nodeClaim({ name: 'spot-pool-old', nodePool: 'spot-pool', instanceId: 'i-0ccc000000000003' });
    stuck.metadata = { ...stuck.metadata, deletionTimestamp: '2025-12-31T23:00:00Z', finalizers: ['karpenter.sh/termination'] };
    const seed = snapshotOf({
      pods: readyController(),
      nodePools: [nodePool({ name: 'spot-pool' }), nodePool({ name: 'ondemand-pool' })],
      nodeClaims: [stuck],
      instances: [instance({ id: 'i-0ccc000000000003', nodePool: 'spot-pool' })],
    });
    const simulation = await simulateSnapshot(seed, { clock: steppingClock(DELETED_AT) });
    running.push(simulation);

    // Act
    await call(simulation.kubeApi, `${NODEPOOLS}/ondemand-pool`, { method: 'DELETE' });

    // Assess
    expect(await claimNames(simulation)).toEqual(['spot-pool-old']);
    expect(instanceState(simulation, 'i-0ccc000000000003')).toBe('running');
  });

  it('keeps an earlier deletionTimestamp when the pool is deleted later', async () => {
    // Prepare
    const earlier = nodeClaim({ name: 'spot-pool-old', nodePool: 'spot-pool' });
    earlier.metadata = {
      ...earlier.metadata,
      deletionTimestamp: '2025-12-31T23:00:00Z',
      finalizers: ['karpenter.sh/termination'],
    };
    const simulation = await simulateSnapshot(
      snapshotOf({ nodePools: [nodePool({ name: 'spot-pool' })], nodeClaims: [earlier] }),
      { clock: steppingClock(DELETED_AT) },
    );
    running.push(simulation);

    // Act
    await call(simulation.kubeApi, `${NODEPOOLS}/spot-pool`, { method: 'DELETE' });

    // Assess
    const after = (await call(simulation.kubeApi, `${NODECLAIMS}/spot-pool-old`)).json();
    expect(after.metadata).toMatchObject({ deletionTimestamp: '2025-12-31T23:00:00Z', finalizers: ['karpenter.sh/termination'] });
  });
});
