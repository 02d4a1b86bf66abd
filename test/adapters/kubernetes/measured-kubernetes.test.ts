/**
 * The measured Kubernetes port over the real client (KubernetesApi) and the simulator's HTTPS API
 * server, whose fault injector answers as an API server does when it throttles (429, API Priority
 * and Fairness) or refuses (403, RBAC).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiCallMeter } from '../../../src/adapters/calls/api-call-metrics.ts';
import { measuredKubernetes } from '../../../src/adapters/kubernetes/measured-kubernetes.ts';
import { kubeConfigForEks } from '../../../src/adapters/kubernetes/kubeconfig.ts';
import { KubernetesApi } from '../../../src/adapters/kubernetes/kubernetes-api.ts';
import { startKubeApiServer, type SimulatedKubeApi } from '../../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../../src/simulator/seed.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { nodeClaim } from '../../factories/karpenter.ts';
import { node } from '../../factories/kube.ts';

let sim: SimulatedKubeApi;

beforeAll(async () => {
  sim = await startKubeApiServer(
    storeFromSnapshot(snapshotOf({ nodes: [node({ name: 'n1' })], nodeClaims: [nodeClaim({ name: 'c1' })] })),
  );
});
afterEach(() => sim.faults.clear());
afterAll(() => sim.close());

/** The real client, one attempt per call unless told (its retries of a 429 would only slow the test), its waits skipped. */
function client(maxAttempts = 1): KubernetesApi {
  const access = kubeConfigForEks(
    { name: 'sim', endpoint: sim.url, certificateAuthority: Buffer.from(sim.caPem).toString('base64') },
    { token: async () => sim.token },
  );
  return new KubernetesApi(access, { retry: { maxAttempts }, clock: { now: () => new Date(), sleep: async () => undefined } });
}

function calls(meter: ApiCallMeter): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const d of meter.drain()) if (d.name === 'ApiCalls') counted[`${d.dimensions.Api}/${d.dimensions.Outcome}`] = d.value;
  return counted;
}

describe('the measured Kubernetes port over the simulator’s HTTPS API', () => {
  it('counts each call by RBAC verb and resource: ok, throttled (429), access-denied (403), not-found (404)', async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const port = measuredKubernetes(client(), meter);
    sim.faults.add({ method: 'GET', path: '/apis/karpenter.sh/v1/nodeclaims', status: 429, retryAfterSeconds: 1 });
    sim.faults.add({ method: 'GET', path: '/api/v1/pods', status: 403, message: 'pods is forbidden' });

    // Act
    const nodes = await port.list({ resource: 'nodes' });
    const missing = await port.get('deployments', 'karpenter', 'kube-system');
    const throttled = await port.list({ resource: 'nodeclaims' }).catch((e: unknown) => e);
    const denied = await port.list({ resource: 'pods' }).catch((e: unknown) => e);
    const noPod = await port.podLog({ namespace: 'kube-system', pod: 'karpenter-0', tailLines: 10 }).catch((e: unknown) => e);
    port.close();

    // Assess
    expect(nodes).toHaveLength(1);
    expect(missing).toBeUndefined();
    expect(String(throttled)).toContain('429 Too Many Requests');
    expect(String(denied)).toContain('403 Forbidden: pods is forbidden');
    expect(String(noPod)).toContain('404');
    expect(calls(meter)).toEqual({
      'k8s:list nodes/ok': 1,
      // `get` answers a missing object with undefined: the call itself succeeded.
      'k8s:get deployments/ok': 1,
      'k8s:list nodeclaims/throttled': 1,
      'k8s:list pods/access-denied': 1,
      'k8s:get pods/log/not-found': 1,
    });
  });

  it('counts the retries the client made inside a call that ended ok', async () => {
    // Prepare: the API server throttles the first two requests.
    const meter = new ApiCallMeter();
    const port = measuredKubernetes(client(3), meter);
    sim.faults.add({ method: 'GET', path: '/apis/karpenter.sh/v1/nodeclaims', status: 429, times: 2 });

    // Act
    const claims = await port.list({ resource: 'nodeclaims' });
    port.close();

    // Assess
    expect(claims).toHaveLength(1);
    const datums = meter.drain();
    expect(datums.filter((d) => d.name === 'ApiCalls').map((d) => d.dimensions)).toEqual([
      { Api: 'k8s:list nodeclaims', Outcome: 'ok' },
    ]);
    expect(datums.filter((d) => d.name === 'ApiCallRetries')).toEqual([
      { name: 'ApiCallRetries', unit: 'Count', value: 2, dimensions: { Api: 'k8s:list nodeclaims' } },
    ]);
  });

  it('counts no call for the calls a server already known unreachable is not asked (the one that found it out is counted)', async () => {
    // Prepare: the API server refuses the token (401), which the client remembers for a minute.
    const meter = new ApiCallMeter();
    const port = measuredKubernetes(client(), meter);
    sim.faults.add({ method: 'GET', path: '/api/v1/nodes', status: 401, message: 'Unauthorized' });
    await expect(port.list({ resource: 'nodes' })).rejects.toThrow();
    expect(calls(meter)).toEqual({ 'k8s:list nodes/access-denied': 1 });

    // Act
    const later = await port.list({ resource: 'nodeclaims' }).catch((e: unknown) => e);

    // Assess
    expect(later).toBeInstanceOf(Error);
    expect(calls(meter)).toEqual({});
  });

  it('counts a dropped connection as network, and keeps the connection’s own members (close) working', async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const port = measuredKubernetes(client(), meter);
    sim.faults.add({ path: '/api/v1/nodes', drop: true });

    // Act
    await expect(port.list({ resource: 'nodes' })).rejects.toThrow();

    // Assess
    expect(calls(meter)).toEqual({ 'k8s:list nodes/network': 1 });
    expect(() => port.close()).not.toThrow();
  });
});
