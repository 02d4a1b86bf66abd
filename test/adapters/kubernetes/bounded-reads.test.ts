/**
 * Bounded live reads against the real HTTPS simulator and the real transport: a hostile body
 * (too long, endless, a gzip bomb) or endless `continue` tokens make that source a gap with one
 * line naming the limit, while the scan reads everything else.
 */
import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import type { KubernetesApi } from '../../../src/adapters/kubernetes/kubernetes-api.ts';
import type { KubeReadLimits } from '../../../src/domain/kube-read-limits.ts';
import { SOURCE_NAMES, type ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import { ResponseTooLargeError } from '../../../src/ports/errors.ts';
import type { HostileBody } from '../../../src/simulator/faults.ts';
import { simulateSnapshot, type Simulation } from '../../../src/simulator/simulation.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { nodeClaim } from '../../factories/karpenter.ts';
import { karpenterDeployment, karpenterPod, node, pod } from '../../factories/kube.ts';
import { closedAfterEachTest } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();
const KiB = 1024;
const MiB = 1024 ** 2;
/** The most a bounded read may take past its cap: what one read off the socket (or out of gunzip) brings. */
const ONE_CHUNK = 64 * KiB;
const NODES = '/api/v1/nodes';

async function cluster(readLimits: Partial<KubeReadLimits>, parts: Parameters<typeof snapshotOf>[0] = {}): Promise<Simulation> {
  const seed = snapshotOf(
    {
      nodes: [node({ name: 'node-a' })],
      nodeClaims: [nodeClaim({ name: 'default-1' })],
      pods: [pod({ name: 'stuck', namespace: 'shop' }), karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })],
      deployments: [karpenterDeployment()],
      ...parts,
    },
    'demo',
  );
  seed.cluster = { name: 'demo', status: 'ACTIVE' };
  for (const source of SOURCE_NAMES) seed.captured.add(source);
  const simulation = await simulateSnapshot(seed, { kube: { readLimits } });
  simulations.push(simulation);
  return simulation;
}

function hostileNodes(simulation: Simulation, body: HostileBody): void {
  simulation.kubeApi.faults.add({ method: 'GET', path: NODES, body });
}

function gapOf(snapshot: ClusterSnapshot, source: string): string | undefined {
  return snapshot.gaps.find((g) => g.source === source)?.error;
}

/** The other sources were read: the NodeClaim and both pods are there, and only `source` is a gap. */
function expectOnlyGap(snapshot: ClusterSnapshot, source: string): void {
  expect(snapshot.gaps.map((g) => g.source)).toEqual([source]);
  expect(snapshot.nodeClaims.map((c) => c.metadata?.name)).toEqual(['default-1']);
  expect(snapshot.pods.map((p) => p.metadata?.name).sort()).toEqual(['karpenter-1', 'stuck']);
}

async function tooLargeError(simulation: Simulation): Promise<ResponseTooLargeError> {
  const kube = (await simulation.connection.connectKube(undefined)) as KubernetesApi;
  const error: unknown = await kube.list({ resource: 'nodes' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ResponseTooLargeError);
  return error as ResponseTooLargeError;
}

describe('bounded live reads: a hostile API server', () => {
  it('a body longer than response-size makes that list a gap naming the limit; the rest is read', async () => {
    const simulation = await cluster({ responseBytes: 1 * MiB });
    hostileNodes(simulation, { kind: 'oversize', bytes: 64 * MiB });

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(gapOf(snapshot, 'nodes')).toBe(
      'GET /api/v1/nodes: a page of one item is longer than 1 MiB (the response-size limit; raise it with --kube-read-limits response-size=2MiB or KUBE_READ_LIMITS)',
    );
    expectOnlyGap(snapshot, 'nodes');
  });

  it('a body that never ends is abandoned at response-size plus one chunk', async () => {
    const simulation = await cluster({ responseBytes: 1 * MiB });
    hostileNodes(simulation, { kind: 'endless', maxBytes: 256 * MiB });

    const error = await tooLargeError(simulation);
    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(error.bytesReceived).toBeGreaterThan(1 * MiB);
    expect(error.bytesReceived).toBeLessThanOrEqual(1 * MiB + ONE_CHUNK);
    expect(gapOf(snapshot, 'nodes')).toContain('the response-size limit');
    expectOnlyGap(snapshot, 'nodes');
  });

  it('a gzip bomb is unpacked as it arrives and abandoned once it unpacks past response-size', async () => {
    const simulation = await cluster({ responseBytes: 1 * MiB });
    hostileNodes(simulation, { kind: 'gzip-bomb', unpackedBytes: 512 * MiB });

    const error = await tooLargeError(simulation);
    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    // 1 MiB of whitespace is about 1 kB of gzip: what came off the wire stays tiny.
    expect(error.bytesReceived).toBeLessThanOrEqual(ONE_CHUNK);
    expect(error.unpacked).toBe(true);
    expect(gapOf(snapshot, 'nodes')).toBe(
      'GET /api/v1/nodes: a page of one item unpacks (gzip) to more than 1 MiB (the response-size limit; raise it with --kube-read-limits response-size=2MiB or KUBE_READ_LIMITS)',
    );
    expectOnlyGap(snapshot, 'nodes');
  });

  it('a single object too large is one gap line naming the limit, not a stack', async () => {
    const simulation = await cluster({ responseBytes: 1 * MiB });
    simulation.kubeApi.faults.add({
      method: 'GET',
      path: '/apis/apiextensions.k8s.io',
      body: { kind: 'oversize', bytes: 8 * MiB },
    });

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(gapOf(snapshot, 'crds')).toMatch(
      /^GET \/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions\/\S+: the response is longer than 1 MiB \(the response-size limit; raise it with --kube-read-limits response-size=2MiB or KUBE_READ_LIMITS\)$/,
    );
  });

  it('endless distinct continue tokens stop at list-pages', async () => {
    const simulation = await cluster({ listPages: 20 });
    hostileNodes(simulation, { kind: 'endless-continue' });

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(gapOf(snapshot, 'nodes')).toBe(
      'GET /api/v1/nodes: more than 20 pages (the list-pages limit; raise it with --kube-read-limits list-pages=40 or KUBE_READ_LIMITS)',
    );
    expectOnlyGap(snapshot, 'nodes');
    expect(simulation.kubeApi.faults.list()[0]?.hits).toBe(20);
  });
});

describe('bounded live reads: big but honest lists', () => {
  /** Pods of about 100 KiB each (a large annotation, kept: no detector drops it). */
  const bigPods = Array.from({ length: 24 }, (_, i) => {
    const p = pod({ name: `big-${String(i).padStart(2, '0')}`, namespace: 'shop' });
    p.metadata = { ...p.metadata, annotations: { 'example.com/blob': 'x'.repeat(100 * KiB) } };
    return p;
  });

  it('a page past response-size is read again in smaller pages: every object arrives, no gap', async () => {
    const simulation = await cluster(
      { responseBytes: 1 * MiB },
      { pods: [...bigPods, karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })] },
    );

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.pods.filter((p) => p.metadata?.name?.startsWith('big-'))).toHaveLength(24);
  });

  it('a list keeping more than list-size is a gap naming the limit', async () => {
    const simulation = await cluster(
      { listBytes: 1 * MiB },
      { pods: [...bigPods, karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })] },
    );

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo', sources: new Set(['pods']) });

    expect(gapOf(snapshot, 'pods')).toBe(
      'GET /api/v1/pods?fieldSelector=status.phase=Pending: its items take more than 1 MiB (the list-size limit; raise it with --kube-read-limits list-size=2MiB or KUBE_READ_LIMITS)',
    );
  });

  it('a list of more than list-items is a gap naming the limit', async () => {
    const simulation = await cluster({ listItems: 3 }, { nodes: ['a', 'b', 'c', 'd'].map((n) => node({ name: `node-${n}` })) });

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(gapOf(snapshot, 'nodes')).toBe(
      'GET /api/v1/nodes: more than 3 items (the list-items limit; raise it with --kube-read-limits list-items=6 or KUBE_READ_LIMITS)',
    );
    expectOnlyGap(snapshot, 'nodes');
  });

  it('a list not read within list-time is a gap naming the limit', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    // Each look at the clock is a minute later: the second page is past a 90-second list-time.
    const clock = { now: () => new Date((now += 60_000)), sleep: async () => {} };
    const seed = snapshotOf({ nodes: ['a', 'b', 'c'].map((n) => node({ name: `node-${n}` })) }, 'demo');
    seed.captured.add('nodes');
    const simulation = await simulateSnapshot(seed, { kube: { clock, pageSize: 1, readLimits: { listMs: 90_000 } } });
    simulations.push(simulation);

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo', sources: new Set(['nodes']) });

    expect(gapOf(snapshot, 'nodes')).toBe(
      'GET /api/v1/nodes: not read in full within 1m30s (the list-time limit; raise it with --kube-read-limits list-time=3m or KUBE_READ_LIMITS)',
    );
  });
});

describe('bounded live reads: pod logs', () => {
  it('a log past log-size is cut there: its first lines are kept and the cut is noted', async () => {
    const seed = snapshotOf({ pods: [karpenterPod({ name: 'karpenter-1', nodeName: 'node-a' })] }, 'demo');
    seed.logs = Array.from({ length: 400 }, (_, i) => {
      const message = `line ${String(i).padStart(3, '0')} ${'.'.repeat(80)}`;
      return { level: 'INFO', message, fields: { level: 'INFO', message }, origin: `x.log:${i + 1}` };
    });
    seed.captured.add('logs');
    seed.captured.add('pods');
    const simulation = await simulateSnapshot(seed, { kube: { readLimits: { logBytes: 4 * KiB } } });
    simulations.push(simulation);

    const { snapshot, notices } = await collectSnapshot(simulation.connection, {
      clusterName: 'demo',
      sources: new Set(['pods', 'logs']),
    });

    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.logs.length).toBeGreaterThan(10);
    expect(snapshot.logs.length).toBeLessThan(400);
    expect(snapshot.logs[0]?.message).toContain('line 000');
    expect(notices).toContain(
      'GET /api/v1/namespaces/karpenter/pods/karpenter-1/log: the log was cut at 4 KiB; its first 4 KiB are kept (the log-size limit; raise it with --kube-read-limits log-size=8KiB or KUBE_READ_LIMITS)',
    );
  });
});
