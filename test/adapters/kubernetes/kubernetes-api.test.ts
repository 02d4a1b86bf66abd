import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { connectWithKubeconfig } from '../../../src/adapters/kubernetes/connect.ts';
import type { KubernetesApi, KubernetesApiOptions } from '../../../src/adapters/kubernetes/kubernetes-api.ts';
import type { Clock } from '../../../src/ports/clock.ts';
import type { JsonRecord } from '../../../src/domain/shape.ts';
import { KubeConflictError, KubeUnreachableError, SourceError } from '../../../src/ports/errors.ts';
import { KUBE_RESOURCE_NAMES, KUBE_RESOURCES, apiVersionOf } from '../../../src/ports/kubernetes.ts';
import { startKubeApiServer } from '../../../src/simulator/kube-api-server.ts';
import type { SimulatedKubeApi } from '../../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../../src/simulator/seed.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { ec2NodeClass, nodeClaim, nodePool } from '../../factories/karpenter.ts';
import {
  crd,
  event,
  karpenterDeployment,
  karpenterPod,
  node,
  pdb,
  pod,
  service,
  T0,
  volumeAttachment,
  admissionWebhookConfiguration,
  endpointSlice,
} from '../../factories/kube.ts';

const NODECLAIMS = 23;
const PODS_PER_NAMESPACE = 12;

function seededStore() {
  return storeFromSnapshot(
    snapshotOf({
      nodeClaims: Array.from({ length: NODECLAIMS }, (_, i) => nodeClaim({ name: `default-${String(i).padStart(3, '0')}` })),
      nodePools: [nodePool({ name: 'default' }), nodePool({ name: 'gpu' })],
      nodeClasses: [ec2NodeClass({ name: 'default' })],
      nodes: Array.from({ length: 7 }, (_, i) => node({ name: `ip-10-0-0-${i}.ec2.internal` })),
      pods: [
        ...Array.from({ length: PODS_PER_NAMESPACE }, (_, i) =>
          pod({ name: `web-${i}`, namespace: 'shop', labels: { app: 'web' } }),
        ),
        ...Array.from({ length: PODS_PER_NAMESPACE }, (_, i) => pod({ name: `api-${i}`, namespace: 'checkout' })),
        karpenterPod({ name: 'karpenter-5697769d6c-abcde', nodeName: 'ip-10-0-0-0.ec2.internal' }),
      ],
      deployments: [karpenterDeployment()],
      replicaSets: [],
      services: [service({ name: 'karpenter', namespace: 'karpenter', ports: [8443] })],
      configMaps: [],
      crds: [crd({ plural: 'nodepools', group: 'karpenter.sh', kind: 'NodePool' })],
      events: [event({ kind: 'NodeClaim', name: 'default-000', reason: 'Launched', message: 'launched' })],
      pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' } })],
      volumeAttachments: [
        volumeAttachment({ name: 'csi-0a1b', nodeName: 'ip-10-0-0-0.ec2.internal', persistentVolumeName: 'pvc-1' }),
      ],
      webhookConfigurations: [
        admissionWebhookConfiguration({ name: 'validation.webhook.karpenter.sh' }),
        admissionWebhookConfiguration({ name: 'defaulting.webhook.karpenter.k8s.aws', kind: 'MutatingWebhookConfiguration' }),
      ],
      endpoints: [
        endpointSlice({ service: 'karpenter', namespace: 'karpenter', ports: [{ name: 'https-webhook', port: 8443 }] }),
        {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name: 'karpenter', namespace: 'karpenter' },
          subsets: [{ addresses: [{ ip: '10.0.12.40' }], ports: [{ name: 'https-webhook', port: 8443, protocol: 'TCP' }] }],
        },
      ],
    }),
  );
}

function fakeClock(): Clock & { sleep: ReturnType<typeof vi.fn> } {
  return { now: () => new Date(T0), sleep: vi.fn(async () => {}) };
}

/** Every value in a JSON tree is a plain JSON value (no Date, class instance or undefined). */
function isPlainJson(value: unknown): boolean {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value).every(isPlainJson);
  return false;
}

describe('KubernetesApi against the simulated API server', () => {
  let sim: SimulatedKubeApi;
  let dir: string;
  let clock: ReturnType<typeof fakeClock>;
  const opened: KubernetesApi[] = [];

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sentinel-k8s-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    sim = await startKubeApiServer(seededStore());
    clock = fakeClock();
  });
  afterEach(async () => {
    for (const api of opened.splice(0)) api.close();
    await sim.close();
  });

  function kubeconfigFile(text: string = sim.kubeconfig()): string {
    const at = path.join(dir, `config-${Math.random().toString(36).slice(2)}`);
    writeFileSync(at, text);
    return at;
  }

  /** The kubeconfig the simulator hands out, edited. */
  function editedKubeconfig(
    edit: (config: { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[] }) => void,
  ) {
    const config = parse(sim.kubeconfig()) as Parameters<typeof edit>[0];
    edit(config);
    return kubeconfigFile(stringify(config));
  }

  function connect(options: KubernetesApiOptions = {}, kubeconfigPath = kubeconfigFile()): KubernetesApi {
    const api = connectWithKubeconfig({ kubeconfigPath }, { clock, random: () => 0.5, ...options });
    opened.push(api);
    return api;
  }

  describe('list', () => {
    it('follows limit + continue over several pages and returns every object once', async () => {
      const api = connect({ pageSize: 5 });
      sim.stats.reset();

      const items = await api.list({ resource: 'nodeclaims' });

      const names = items.map((i) => (i.metadata as { name: string }).name);
      expect(names).toHaveLength(NODECLAIMS);
      expect(new Set(names).size).toBe(NODECLAIMS);
      expect(sim.stats.requests).toBe(Math.ceil(NODECLAIMS / 5));
    });

    it('returns wire shape: plain JSON, ISO-8601 strings, apiVersion and kind on every item', async () => {
      const api = connect({ pageSize: 10 });

      const pods = await api.list({ resource: 'pods' });

      expect(pods).toHaveLength(2 * PODS_PER_NAMESPACE + 1);
      for (const item of pods) {
        expect(item.apiVersion).toBe('v1');
        expect(item.kind).toBe('Pod');
        expect(Object.keys(item).slice(0, 2)).toEqual(['apiVersion', 'kind']);
        expect(isPlainJson(item)).toBe(true);
      }
      expect((pods[0]?.metadata as { creationTimestamp: unknown }).creationTimestamp).toBe(T0);
    });

    it.each(KUBE_RESOURCE_NAMES)('lists %s with its apiVersion and kind', async (resource) => {
      const api = connect();

      const items = await api.list({ resource });

      const info = KUBE_RESOURCES[resource];
      for (const item of items) expect([item.apiVersion, item.kind]).toEqual([apiVersionOf(info), info.kind]);
      if (resource !== 'replicasets' && resource !== 'configmaps') expect(items.length).toBeGreaterThan(0);
    });

    it('passes namespace and label selector', async () => {
      const api = connect({ pageSize: 5 });

      const web = await api.list({ resource: 'pods', namespace: 'shop', labelSelector: 'app=web' });
      const checkout = await api.list({ resource: 'pods', namespace: 'checkout', labelSelector: 'app=web' });

      expect(web).toHaveLength(PODS_PER_NAMESPACE);
      expect(checkout).toEqual([]);
    });

    it('drops managedFields and the last-applied copy as each page arrives', async () => {
      const api = connect();
      sim.store.put('pods', {
        ...pod({ name: 'bulky', namespace: 'shop' }),
        metadata: {
          name: 'bulky',
          namespace: 'shop',
          managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', team: 'web' },
        },
      } as JsonRecord);

      const [bulky] = await api.list({ resource: 'pods', namespace: 'shop', fieldSelector: 'metadata.name=bulky' });

      expect(bulky?.metadata).not.toHaveProperty('managedFields');
      expect(bulky?.metadata).toMatchObject({ name: 'bulky', annotations: { team: 'web' } });
      expect(Object.keys((bulky?.metadata as { annotations: object }).annotations)).toEqual(['team']);
    });

    it('starts over once when a continue token expired (410 Gone)', async () => {
      const api = connect({ pageSize: 5 });
      const expired = sim.faults.add({
        method: 'GET',
        path: '/apis/karpenter.sh/v1/nodeclaims',
        query: (q) => q.has('continue'),
        status: 410,
        times: 1,
      });

      const items = await api.list({ resource: 'nodeclaims' });

      expect(expired.hits).toBe(1);
      expect(new Set(items.map((i) => (i.metadata as { name: string }).name)).size).toBe(NODECLAIMS);
      expect(items).toHaveLength(NODECLAIMS);
    });

    it('a token that expires again on the second pass is the API 410, as a SourceError', async () => {
      const api = connect({ pageSize: 5 });
      sim.faults.add({
        method: 'GET',
        path: '/apis/karpenter.sh/v1/nodeclaims',
        query: (q) => q.has('continue'),
        status: 410,
        times: 2,
      });

      const failure = await api.list({ resource: 'nodeclaims' }).catch((e: unknown) => e);

      expect(failure).toBeInstanceOf(SourceError);
      expect(failure).toMatchObject({ code: '410' });
    });
  });

  describe('get, podLog, writes', () => {
    it('gets one object in wire shape, undefined when it does not exist', async () => {
      const api = connect();

      const found = await api.get('deployments', 'karpenter', 'karpenter');
      const missing = await api.get('nodepools', 'nope');

      expect(found).toMatchObject({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'karpenter', namespace: 'karpenter' },
      });
      expect(missing).toBeUndefined();
    });

    it('reads the last lines of a container log', async () => {
      sim.store.setPodLog('karpenter', 'karpenter-5697769d6c-abcde', ['one', 'two', 'three'], 'main');
      const api = connect();

      const log = await api.podLog({
        namespace: 'karpenter',
        pod: 'karpenter-5697769d6c-abcde',
        container: 'main',
        tailLines: 2,
      });

      expect(log).toBe('two\nthree\n');
    });

    it('reads the previous container log (`?previous=true`), bounded by limitBytes', async () => {
      // Prepare
      sim.store.setPodLog('karpenter', 'karpenter-5697769d6c-abcde', ['now'], 'main');
      sim.store.setPodLog('karpenter', 'karpenter-5697769d6c-abcde', ['before 1', 'panic: leader election lost'], 'main', true);
      const api = connect();
      // Act
      const previous = await api.podLog({
        namespace: 'karpenter',
        pod: 'karpenter-5697769d6c-abcde',
        container: 'main',
        tailLines: 500,
        previous: true,
        limitBytes: 20,
      });
      const current = await api.podLog({
        namespace: 'karpenter',
        pod: 'karpenter-5697769d6c-abcde',
        container: 'main',
        tailLines: 500,
      });
      // Assess
      expect(previous).toBe('before 1\npanic: lead');
      expect(current).toBe('now\n');
    });

    it('patches Deployment and template annotations in one merge patch guarded by resourceVersion', async () => {
      const api = connect();
      const before = await api.get('deployments', 'karpenter', 'karpenter');
      const resourceVersion = (before?.metadata as { resourceVersion: string }).resourceVersion;
      sim.stats.reset();

      const patched = await api.patchDeploymentAnnotations({
        namespace: 'karpenter',
        name: 'karpenter',
        resourceVersion,
        annotations: { 'sentinel.example/restarts': '1' },
        templateAnnotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:10:00Z' },
      });

      const stored = sim.store.get('deployments', 'karpenter', 'karpenter')?.object;
      expect(sim.stats.requests).toBe(1);
      expect(stored).toMatchObject({
        metadata: { annotations: { 'sentinel.example/restarts': '1' } },
        spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:10:00Z' } } } },
      });
      expect(patched).toMatchObject({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { resourceVersion: (stored?.metadata as { resourceVersion: string }).resourceVersion },
      });
    });

    it('rejects a patch based on a stale read with KubeConflictError and changes nothing', async () => {
      const api = connect();
      const before = sim.store.get('deployments', 'karpenter', 'karpenter')?.bodyJson;

      const error = await api
        .patchDeploymentAnnotations({
          namespace: 'karpenter',
          name: 'karpenter',
          resourceVersion: '1',
          templateAnnotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:10:00Z' },
        })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(KubeConflictError);
      expect((error as SourceError).code).toBe('409');
      expect((error as SourceError).summary).toMatch(
        /^409 Conflict: Operation cannot be fulfilled on deployments.apps "karpenter"/,
      );
      expect(sim.store.get('deployments', 'karpenter', 'karpenter')?.bodyJson).toBe(before);
      expect(clock.sleep).not.toHaveBeenCalled();
    });

    it('deletes a NodePool, false when it was already gone', async () => {
      const api = connect();

      expect(await api.deleteNodePool('gpu')).toBe(true);
      expect(sim.store.get('nodepools', 'gpu')).toBeUndefined();
      expect(await api.deleteNodePool('gpu')).toBe(false);
    });
  });

  describe('failures', () => {
    it('a 403 on a list is a SourceError with the Status message, not retried', async () => {
      const message =
        'nodeclaims.karpenter.sh is forbidden: User "system:serviceaccount:sentinel:scan" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope';
      sim.faults.add({ method: 'GET', path: '/apis/karpenter.sh/v1/nodeclaims', status: 403, message });
      const api = connect();
      sim.stats.reset();

      const error = await api.list({ resource: 'nodeclaims' }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(SourceError);
      expect(error).not.toBeInstanceOf(KubeUnreachableError);
      expect((error as SourceError).code).toBe('403');
      expect((error as SourceError).summary).toBe(`403 Forbidden: ${message}`);
      expect(sim.stats.requests).toBe(1);
      expect(clock.sleep).not.toHaveBeenCalled();
    });

    it('honours Retry-After on 429, then completes the list', async () => {
      const throttled = sim.faults.add({
        method: 'GET',
        path: '/apis/karpenter.sh/v1/nodeclaims',
        query: (q) => q.has('continue'),
        status: 429,
        retryAfterSeconds: 3,
        times: 1,
      });
      const api = connect({ pageSize: 10 });

      const items = await api.list({ resource: 'nodeclaims' });

      expect(throttled.hits).toBe(1);
      expect(items).toHaveLength(NODECLAIMS);
      expect(clock.sleep).toHaveBeenCalledTimes(1);
      expect(clock.sleep).toHaveBeenCalledWith(3000);
    });

    it('retries a burst of 500s with backoff', async () => {
      sim.faults.add({ method: 'GET', path: '/api/v1/nodes', status: 500, times: 3 });
      const api = connect();

      const items = await api.list({ resource: 'nodes' });

      expect(items).toHaveLength(7);
      // Full jitter, random() = 0.5: half of each ceiling (250, 500, 1000).
      expect(clock.sleep.mock.calls.map(([ms]) => ms as number)).toEqual([125, 250, 500]);
    });

    it('retries dropped connections', async () => {
      sim.faults.add({ method: 'GET', path: '/api/v1/nodes', drop: true, times: 2 });
      const api = connect();

      const items = await api.list({ resource: 'nodes' });

      expect(items).toHaveLength(7);
      expect(clock.sleep).toHaveBeenCalledTimes(2);
    });

    it('retries a request that gets no answer within the timeout', async () => {
      sim.faults.add({ method: 'GET', path: '/api/v1/nodes', latencyMs: 400, times: 1 });
      const api = connect({ requestTimeoutMs: 100 });

      const items = await api.list({ resource: 'nodes' });

      expect(items).toHaveLength(7);
      expect(clock.sleep).toHaveBeenCalledTimes(1);
    });

    it('gives up with a SourceError after the retry bound', async () => {
      sim.faults.add({ method: 'GET', path: '/api/v1/nodes', status: 503, message: 'etcd is unavailable' });
      const api = connect();
      sim.stats.reset();

      const error = await api.list({ resource: 'nodes' }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(SourceError);
      expect((error as SourceError).code).toBe('503');
      expect((error as SourceError).summary).toBe('503 Service Unavailable: etcd is unavailable (after 5 attempts)');
      expect(sim.stats.requests).toBe(5);
      expect(clock.sleep).toHaveBeenCalledTimes(4);
    });

    it('a wrong token (401) is KubeUnreachableError', async () => {
      const api = connect({}, kubeconfigFile(sim.kubeconfig({ token: 'not-the-token' })));

      const error = await api.list({ resource: 'nodes' }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(KubeUnreachableError);
      expect((error as SourceError).summary).toBe('401 Unauthorized: Unauthorized');
    });

    it('verifies TLS: a CA that did not sign the server certificate is KubeUnreachableError', async () => {
      const wrongCa = Buffer.from(rootCertificates[0] ?? '').toString('base64');
      const api = connect(
        {},
        editedKubeconfig((c) => (c.clusters[0]!.cluster['certificate-authority-data'] = wrongCa)),
      );
      sim.stats.reset();

      const error = await api.list({ resource: 'nodes' }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(KubeUnreachableError);
      expect((error as SourceError).code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      expect((error as SourceError).summary).toMatch(
        /^TLS verification failed for https:\/\/127\.0\.0\.1:\d+: unable to verify the first certificate$/,
      );
      expect(sim.stats.requests).toBe(0);
      expect(clock.sleep).not.toHaveBeenCalled();
    });

    it('verifies the server name against tls-server-name', async () => {
      const api = connect(
        {},
        editedKubeconfig((c) => (c.clusters[0]!.cluster['tls-server-name'] = 'kubernetes.other.example')),
      );

      const error = await api.list({ resource: 'nodes' }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(KubeUnreachableError);
      expect((error as SourceError).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    });

    it('connection refused is KubeUnreachableError, not retried', async () => {
      const api = connect();
      await sim.close();

      const error = await api.list({ resource: 'nodes' }).catch((e: unknown) => e);
      sim = await startKubeApiServer(seededStore());

      expect(error).toBeInstanceOf(KubeUnreachableError);
      expect((error as SourceError).summary).toMatch(/^connection refused by https:\/\/127\.0\.0\.1:\d+$/);
      expect(clock.sleep).not.toHaveBeenCalled();
    });
  });

  describe('authentication through client-node', () => {
    it('uses an exec credential plugin from the kubeconfig', async () => {
      const credential = JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        kind: 'ExecCredential',
        status: { token: sim.token },
      });
      const api = connect(
        {},
        editedKubeconfig((c) => {
          c.users[0]!.user = {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: 'sh',
              args: ['-c', `printf '%s' '${credential}'`],
              interactiveMode: 'Never',
            },
          };
        }),
      );

      expect(await api.list({ resource: 'nodes' })).toHaveLength(7);
    });

    it('a credential plugin that fails is KubeUnreachableError naming the user', async () => {
      const api = connect(
        {},
        editedKubeconfig((c) => {
          c.users[0]!.user = {
            exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'sh', args: ['-c', 'exit 3'] },
          };
        }),
      );

      const error = await api.list({ resource: 'nodes' }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(KubeUnreachableError);
      expect((error as SourceError).summary).toMatch(/^cannot get credentials for kubeconfig user "simulator": /);
    });
  });
});
