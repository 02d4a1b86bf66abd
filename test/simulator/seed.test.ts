import { afterEach, describe, expect, it } from 'vitest';
import type { LogLine } from '../../src/domain/aws.ts';
import type { KubeEvent } from '../../src/domain/kube.ts';
import type { ClusterSnapshot } from '../../src/domain/snapshot.ts';
import { KUBE_RESOURCES, KUBE_RESOURCE_NAMES, apiVersionOf } from '../../src/ports/kubernetes.ts';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { setAsideGap } from '../../src/domain/snapshot.ts';
import { denialOf, SIMULATED_ANNOTATION, storeFromSnapshot } from '../../src/simulator/seed.ts';
import { eventObject } from '../../src/snapshot/write/wire.ts';
import { readControllerLog } from '../../src/snapshot/controller-logs.ts';
import { classifyKubeObject } from '../../src/snapshot/kube-objects.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import type { JsonRecord } from '../../src/domain/shape.ts';
import { logLine, snapshotOf } from '../factories/aws.ts';
import { nodeClaim } from '../factories/karpenter.ts';
import { event, karpenterDeployment, karpenterPod, pod } from '../factories/kube.ts';
import { call, listAll } from './support/https-client.ts';

let api: SimulatedKubeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function serve(snapshot: ClusterSnapshot): Promise<SimulatedKubeApi> {
  api = await startKubeApiServer(storeFromSnapshot(snapshot));
  return api;
}

function classifiedEvent(object: JsonRecord): KubeEvent | undefined {
  const verdict = classifyKubeObject(object, String(object.apiVersion), String(object.kind), 'test');
  return verdict.type === 'event' ? verdict.event : undefined;
}

/** What the collector reads from the controller's log: time, level, message and error of each line. */
function essentials(lines: readonly LogLine[]) {
  return lines.map(({ time, level, message, error }) => ({ time, level, message, error }));
}

describe('events', () => {
  it.each<[string, KubeEvent]>([
    [
      'a scheduler event',
      event({
        kind: 'Pod',
        name: 'web-1',
        namespace: 'shop',
        reason: 'FailedScheduling',
        message: '0/3 nodes are available',
        count: 7,
      }),
    ],
    [
      'a Karpenter event with distinct first and last times',
      event({
        kind: 'NodeClaim',
        name: 'default-x',
        namespace: 'default',
        reason: 'FailedLaunch',
        message: 'insufficient capacity',
        source: 'karpenter',
        firstTime: '2026-01-01T00:00:00Z',
        lastTime: '2026-01-01T00:05:00Z',
      }),
    ],
    ['an event with only a reason', { regarding: { kind: 'Node', name: 'n1' }, namespace: 'default', reason: 'NodeNotReady' }],
    [
      'an event with a uid and no count',
      {
        regarding: { kind: 'Pod', namespace: 'a', name: 'p', uid: 'u-1' },
        namespace: 'a',
        type: 'Normal',
        lastTime: '2026-01-01T00:00:00Z',
      },
    ],
  ])('%s comes back the same through events.k8s.io/v1', (_, original) => {
    expect(classifiedEvent(eventObject(original, 0))).toEqual(original);
  });

  it('puts an event without a namespace where Kubernetes does, in default', () => {
    const original: KubeEvent = { regarding: { kind: 'Node', name: 'n1' }, reason: 'NodeNotReady' };

    expect(classifiedEvent(eventObject(original, 0))).toEqual({ ...original, namespace: 'default' });
  });

  it('serves them all, each under its own name', async () => {
    const events = [
      event({ kind: 'Pod', name: 'web-1', namespace: 'shop', reason: 'FailedScheduling', message: 'a' }),
      event({ kind: 'Pod', name: 'web-1', namespace: 'shop', reason: 'FailedScheduling', message: 'a' }),
      event({ kind: 'Pod', name: 'web-2', namespace: 'shop', reason: 'Scheduled', message: 'b', type: 'Normal' }),
    ];
    const server = await serve(snapshotOf({ events }));

    const listed = (await call(server, '/apis/events.k8s.io/v1/events')).json();

    expect(listed.items?.map((i) => classifiedEvent({ ...i, apiVersion: 'events.k8s.io/v1', kind: 'Event' }))).toEqual(
      expect.arrayContaining(events),
    );
    expect(listed.items).toHaveLength(3);
  });

  it('serves the same events as core/v1 too, selectable by involvedObject', async () => {
    const events = [
      event({ kind: 'Pod', name: 'web-1', namespace: 'shop', reason: 'FailedScheduling', message: 'a', count: 3 }),
      event({ kind: 'Pod', name: 'web-2', namespace: 'shop', reason: 'Scheduled', message: 'b', type: 'Normal' }),
    ];
    const server = await serve(snapshotOf({ events }));

    const listed = (await call(server, '/api/v1/namespaces/shop/events?fieldSelector=involvedObject.name%3Dweb-1')).json();
    const name = (listed.items?.[0]?.metadata as { name: string }).name;
    const one = (await call(server, `/api/v1/namespaces/shop/events/${name}`)).json();
    const patch = await call(server, `/api/v1/namespaces/shop/events/${name}`, { method: 'PATCH', body: {} });

    expect(listed).toMatchObject({ kind: 'EventList', apiVersion: 'v1' });
    expect(listed.items?.map((i) => classifiedEvent({ ...i, apiVersion: 'v1', kind: 'Event' }))).toEqual([events[0]]);
    expect(one).toMatchObject({ apiVersion: 'v1', kind: 'Event', involvedObject: { name: 'web-1' }, count: 3 });
    expect(classifiedEvent(one)).toEqual(events[0]);
    expect(patch.status).toBe(405);
  });
});

describe('controller logs', () => {
  const jsonLine = logLine({
    level: 'ERROR',
    time: '2026-01-01T00:01:00.000Z',
    logger: 'controller',
    message: 'failed launching nodeclaim',
    error: 'UnauthorizedOperation: You are not authorized',
    NodeClaim: { name: 'default-x' },
  });
  const plainLine: LogLine = { message: 'panic: something odd', fields: {}, origin: 'karpenter.log:2' };
  const consoleLine: LogLine = {
    time: '2026-01-01T00:02:00.000Z',
    level: 'WARN',
    message: 'discovered subnets',
    fields: { logger: 'controller' },
    origin: 'karpenter.log:3',
  };
  const logs = [jsonLine, plainLine, consoleLine];

  it('are served as the log of the running controller pod, which reads back to the same lines', async () => {
    const server = await serve(
      snapshotOf({
        pods: [
          karpenterPod({ name: 'karpenter-5697769d6c-a', phase: 'Pending' }),
          karpenterPod({ name: 'karpenter-5697769d6c-b', nodeName: 'n1' }),
        ],
        logs,
      }),
    );

    const running = await call(server, '/api/v1/namespaces/karpenter/pods/karpenter-5697769d6c-b/log?tailLines=500');
    const pending = await call(server, '/api/v1/namespaces/karpenter/pods/karpenter-5697769d6c-a/log');

    const read = readControllerLog(running.text, 'karpenter/karpenter-5697769d6c-b');
    expect(essentials(read)).toEqual(essentials(logs));
    expect(read[0]?.fields).toEqual(jsonLine.fields);
    expect(pending.text).toBe('');
  });

  it('without captured pods, a running controller pod marked as simulated carries them', async () => {
    const server = await serve(snapshotOf({ deployments: [karpenterDeployment()], logs }));

    const controllers = (await call(server, '/api/v1/pods?labelSelector=app.kubernetes.io%2Fname%3Dkarpenter')).json();
    const [stand_in] = controllers.items ?? [];
    const name = (stand_in?.metadata as { name: string; annotations: Record<string, string> } | undefined)?.name;
    const log = await call(server, `/api/v1/namespaces/karpenter/pods/${name}/log?container=controller`);

    expect(controllers.items).toHaveLength(1);
    expect(stand_in).toMatchObject({
      metadata: { annotations: { [SIMULATED_ANNOTATION]: expect.any(String) } },
      status: { phase: 'Running' },
    });
    expect(essentials(readControllerLog(log.text, 'x'))).toEqual(essentials(logs));
  });

  it('with captured pods but no controller pod, no pod appears; the log is that of the Deployment name', async () => {
    const server = await serve(
      snapshotOf({ pods: [pod({ name: 'web', nodeName: 'n1' })], deployments: [karpenterDeployment()], logs }),
    );

    const pods = (await call(server, '/api/v1/pods')).json();
    const log = await call(server, '/api/v1/namespaces/karpenter/pods/karpenter/log');

    expect(pods.items).toHaveLength(1);
    expect(essentials(readControllerLog(log.text, 'x'))).toEqual(essentials(logs));
  });
});

describe('gaps', () => {
  it('a gap on a Kubernetes source denies its list and its objects with the captured status and message', async () => {
    const snapshot = snapshotOf({ nodeClaims: [nodeClaim({ name: 'c1' })] });
    snapshot.gaps.push({
      source: 'nodeclaims',
      error: '403 Forbidden: nodeclaims.karpenter.sh is forbidden: User "sentinel" cannot list resource "nodeclaims"',
    });
    const server = await serve(snapshot);

    const list = await call(server, '/apis/karpenter.sh/v1/nodeclaims?limit=500');
    const one = await call(server, '/apis/karpenter.sh/v1/nodeclaims/c1');
    const pools = await call(server, '/apis/karpenter.sh/v1/nodepools');

    expect(list.status).toBe(403);
    expect(list.json()).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'nodeclaims.karpenter.sh is forbidden: User "sentinel" cannot list resource "nodeclaims"',
    });
    expect(one.status).toBe(403);
    expect(pools.status).toBe(200);
  });

  it('a source with objects set aside as malformed is served, not denied: it was readable', async () => {
    const snapshot = snapshotOf({ nodeClaims: [nodeClaim({ name: 'c1' })] });
    snapshot.gaps.push(setAsideGap('nodeclaims', 1));
    const server = await serve(snapshot);

    const list = await call(server, '/apis/karpenter.sh/v1/nodeclaims?limit=500');

    expect(list.status).toBe(200);
  });

  it.each([
    ['Forbidden: pods is forbidden: User "x" cannot list resource "pods"', { status: 403, reason: 'Forbidden' }],
    ['500 InternalError: etcd timeout', { status: 500, reason: 'InternalError', message: 'etcd timeout' }],
    ['only part was captured', { status: 403, reason: 'Forbidden', message: 'only part was captured' }],
    [
      'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.karpenter.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found',
      { status: 500, reason: '', message: expect.stringMatching(/^conversion webhook for .* not found$/) },
    ],
    [
      '500 conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://k.k.svc:8443/": no endpoints available for service "k"',
      { status: 500, reason: '', message: expect.stringMatching(/^conversion webhook for .*"k"$/) },
    ],
  ])('reads %j as a denial', (error, expected) => {
    expect(denialOf({ source: 'pods', error })).toMatchObject({ resource: 'pods', ...expected });
  });

  it('a gap on the logs denies pod logs; AWS gaps are not the API server’s', () => {
    expect(denialOf({ source: 'logs', error: 'Forbidden: pods "k" is forbidden' })).toMatchObject({ resource: 'pods/log' });
    expect(denialOf({ source: 'instances', error: 'UnauthorizedOperation' })).toBeUndefined();
  });
});

describe('examples served as they were captured', () => {
  const LIST_OF: Record<string, keyof ClusterSnapshot> = {
    pods: 'pods',
    deployments: 'deployments',
    replicasets: 'replicaSets',
    nodes: 'nodes',
    configmaps: 'configMaps',
    services: 'services',
    customresourcedefinitions: 'crds',
    nodeclaims: 'nodeClaims',
    nodepools: 'nodePools',
    ec2nodeclasses: 'nodeClasses',
    poddisruptionbudgets: 'pdbs',
    volumeattachments: 'volumeAttachments',
  };

  /** The fields the server owns: resourceVersion and generation always, uid when the capture had none. */
  function comparable(object: JsonRecord, original?: JsonRecord): JsonRecord {
    const metadata = { ...(object.metadata as JsonRecord) };
    delete metadata.resourceVersion;
    delete metadata.generation;
    if (original && !(original.metadata as JsonRecord).uid) delete metadata.uid;
    return { ...object, metadata };
  }

  it.each(['healthy', 'controller-anti-affinity-one-node', 'orphans-after-destroy'])(
    '%s: every object, event and log line comes back through the API',
    async (example) => {
      const { snapshot } = await loadSnapshot([`examples/${example}`]);
      const server = await serve(snapshot);

      for (const resource of KUBE_RESOURCE_NAMES.filter((r) => r !== 'events')) {
        const info = KUBE_RESOURCES[resource];
        const listKey = LIST_OF[resource];
        if (!listKey) continue;
        const path = `/${info.group ? `apis/${info.group}` : 'api'}/${info.version}/${resource}`;
        const { items } = await listAll(server, path, 7);
        const served = items.map((item) => {
          const verdict = classifyKubeObject(item, apiVersionOf(info), info.kind, 'test');
          return verdict.type === 'object' ? (verdict.object as JsonRecord) : undefined;
        });
        const originals = snapshot[listKey] as JsonRecord[];
        expect(
          served.map((o) =>
            comparable(
              o ?? {},
              originals.find((x) => sameName(x, o)),
            ),
          ),
        ).toEqual(expect.arrayContaining(originals.map((o) => comparable(o, o))));
        expect(served).toHaveLength(originals.length);
      }
      const events = (await listAll(server, '/apis/events.k8s.io/v1/events', 50)).items.map((i) =>
        classifiedEvent({ ...i, apiVersion: 'events.k8s.io/v1', kind: 'Event' }),
      );
      expect(events).toEqual(expect.arrayContaining(snapshot.events.map((e) => ({ namespace: 'default', ...e }))));
      expect(events).toHaveLength(snapshot.events.length);
      const controllers =
        (await call(server, '/api/v1/pods?labelSelector=app.kubernetes.io%2Fname%3Dkarpenter')).json().items ?? [];
      const logs = [];
      for (const p of controllers.filter((c) => (c.status as { phase?: string }).phase === 'Running')) {
        const { namespace, name } = p.metadata as { namespace: string; name: string };
        const log = await call(server, `/api/v1/namespaces/${namespace}/pods/${name}/log?container=controller&tailLines=500`);
        logs.push(...readControllerLog(log.text, name));
      }
      expect(essentials(logs)).toEqual(essentials(snapshot.logs));
    },
  );
});

function sameName(a: JsonRecord, b: JsonRecord | undefined): boolean {
  const ma = a.metadata as JsonRecord;
  const mb = (b?.metadata ?? {}) as JsonRecord;
  return ma.name === mb.name && (ma.namespace ?? 'default') === (mb.namespace ?? 'default');
}
