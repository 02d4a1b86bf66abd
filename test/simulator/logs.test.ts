import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeStore } from '../../src/simulator/kube-store.ts';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import type { JsonRecord } from '../../src/domain/shape.ts';
import { pod } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

let api: SimulatedKubeApi;
const LOG = '/api/v1/namespaces/karpenter/pods/karpenter-a/log';
const lines = Array.from({ length: 10 }, (_, i) => `{"level":"INFO","message":"line ${i + 1}"}`);

beforeAll(async () => {
  const store = new KubeStore();
  const controller = pod({ name: 'karpenter-a', namespace: 'karpenter', nodeName: 'n1' });
  controller.spec = { nodeName: 'n1', containers: [{ name: 'controller' }] };
  const twoContainers = pod({ name: 'web', namespace: 'shop', nodeName: 'n1' });
  twoContainers.spec = { nodeName: 'n1', containers: [{ name: 'app' }, { name: 'sidecar' }] };
  store.put('pods', controller as JsonRecord);
  store.put('pods', twoContainers as JsonRecord);
  store.setPodLog('karpenter', 'karpenter-a', lines, 'controller');
  store.setPodLog('karpenter', 'karpenter-a', ['{"level":"ERROR","message":"panic: leader election lost"}'], 'controller', true);
  const restarted = pod({ name: 'karpenter-b', namespace: 'karpenter', nodeName: 'n1' });
  restarted.spec = { nodeName: 'n1', containers: [{ name: 'controller' }] };
  restarted.status = { ...restarted.status, containerStatuses: [{ name: 'controller', restartCount: 2, lastState: TERMINATED }] };
  store.put('pods', restarted as JsonRecord);
  const oneRestarted = pod({ name: 'one-restarted', namespace: 'shop', nodeName: 'n1' });
  oneRestarted.spec = { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b' }] };
  oneRestarted.status = {
    ...oneRestarted.status,
    containerStatuses: [
      { name: 'a', restartCount: 3, state: { running: {} }, lastState: TERMINATED },
      { name: 'b', restartCount: 0, state: { running: {} }, lastState: {} },
    ],
  };
  store.put('pods', oneRestarted as JsonRecord);
  // Never started, though a capture holds lines for them: the API server must not serve those.
  for (const [name, nodeName, status] of NEVER_STARTED) {
    const stuck = pod({ name, namespace: 'karpenter', ...(nodeName ? { nodeName } : {}), phase: 'Pending' });
    stuck.spec = { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'controller' }] };
    stuck.status = { phase: 'Pending', ...status };
    store.put('pods', stuck as JsonRecord);
    store.setPodLog('karpenter', name, ['{"level":"ERROR","message":"from another pod"}'], 'controller');
  }
  api = await startKubeApiServer(store);
});

const TERMINATED = { terminated: { reason: 'Error', exitCode: 1 } };
const waiting = (reason: string) => ({ containerStatuses: [{ name: 'controller', state: { waiting: { reason } } }] });
const NEVER_STARTED: readonly [string, string | undefined, JsonRecord][] = [
  ['creating', 'n1', waiting('ContainerCreating')],
  ['pull-backoff', 'n1', waiting('ImagePullBackOff')],
  ['pull-error', 'n1', waiting('ErrImagePull')],
  ['no-status-yet', 'n1', {}],
  ['unscheduled', undefined, {}],
];

afterAll(() => api.close());

describe('pod logs', () => {
  it('serves the whole log as text, one line per line', async () => {
    const response = await call(api, LOG);

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.text).toBe(`${lines.join('\n')}\n`);
  });

  it.each([
    [3, lines.slice(-3)],
    [10, lines],
    [500, lines],
    [0, []],
  ])('tailLines=%i gives the last lines', async (tailLines, expected) => {
    const response = await call(api, `${LOG}?container=controller&tailLines=${tailLines}`);

    expect(response.text.split('\n').filter((l) => l !== '')).toEqual(expected);
  });

  it('limitBytes cuts the answer', async () => {
    const response = await call(api, `${LOG}?limitBytes=12`);

    expect(response.text).toBe(lines[0]?.slice(0, 12));
  });

  it('refuses a container the pod does not have, and a pod of several containers without one', async () => {
    const wrong = await call(api, `${LOG}?container=manager`);
    const ambiguous = await call(api, '/api/v1/namespaces/shop/pods/web/log');

    expect(wrong.status).toBe(400);
    expect(wrong.json()).toMatchObject({ reason: 'BadRequest', message: 'container manager is not valid for pod karpenter-a' });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.json().message).toBe('a container name must be specified for pod web, choose one of: [app sidecar]');
  });

  it('an empty log for a container that logged nothing; 404 for a missing pod; 400 for a bad tailLines', async () => {
    const empty = await call(api, '/api/v1/namespaces/shop/pods/web/log?container=app');
    const missing = await call(api, '/api/v1/namespaces/karpenter/pods/gone/log');
    const bad = await call(api, `${LOG}?tailLines=-1`);

    expect(empty.status).toBe(200);
    expect(empty.text).toBe('');
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe('pods "gone" not found');
    expect(bad.status).toBe(400);
  });

  it('previous=true serves the previous container log; empty for a restarted pod whose log was not captured; 400 for one that never restarted', async () => {
    // Act
    const previous = await call(api, `${LOG}?container=controller&previous=true`);
    const uncaptured = await call(api, '/api/v1/namespaces/karpenter/pods/karpenter-b/log?previous=true');
    const never = await call(api, '/api/v1/namespaces/shop/pods/web/log?container=app&previous=true');
    // Assess
    expect(previous.text).toBe('{"level":"ERROR","message":"panic: leader election lost"}\n');
    expect(uncaptured.status).toBe(200);
    expect(uncaptured.text).toBe('');
    expect(never.status).toBe(400);
    expect(never.json().message).toBe('previous terminated container "app" in pod "web" not found');
  });

  it('previous=true for a container that never restarted is refused though another container of the pod did', async () => {
    const restartedOne = await call(api, '/api/v1/namespaces/shop/pods/one-restarted/log?container=a&previous=true');
    const otherOne = await call(api, '/api/v1/namespaces/shop/pods/one-restarted/log?container=b&previous=true');

    expect(restartedOne.status).toBe(200);
    expect(otherOne.status).toBe(400);
    expect(otherOne.json().message).toBe('previous terminated container "b" in pod "one-restarted" not found');
  });

  it.each([
    ['creating', 'container "controller" in pod "creating" is waiting to start: ContainerCreating'],
    ['pull-backoff', 'container "controller" in pod "pull-backoff" is waiting to start: trying and failing to pull image'],
    ['pull-error', `container "controller" in pod "pull-error" is waiting to start: image can't be pulled`],
    ['no-status-yet', 'container "controller" in pod "no-status-yet" is waiting to start: ContainerCreating'],
  ])(
    "a container that never started (%s) is refused with the kubelet's 400, its captured lines not served",
    async (name, message) => {
      const response = await call(api, `/api/v1/namespaces/karpenter/pods/${name}/log`);

      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ reason: 'BadRequest', message });
    },
  );

  it('a pod no node runs yet has an empty log, as the API server answers it', async () => {
    const response = await call(api, '/api/v1/namespaces/karpenter/pods/unscheduled/log');

    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });
});
