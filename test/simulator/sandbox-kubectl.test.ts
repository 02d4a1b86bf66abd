/**
 * The sandbox as kubectl v1.32 (/usr/bin/kubectl) sees it: the columns a cluster prints, a watch
 * that reports a change made through the API, a rollout restart, and logs refused for a
 * container that never started, with the kubelet's words.
 */
import { execFile, spawn } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/simulator/sandbox.ts';
import { cluster, snapshotOf } from '../factories/aws.ts';
import { nodeClaim, nodePool } from '../factories/karpenter.ts';
import {
  containerStatus,
  deployment,
  event,
  karpenterPod,
  minutesAfter,
  node,
  pod,
  service,
  T0,
  volumeAttachment,
} from '../factories/kube.ts';

const run = promisify(execFile);
let sandbox: Sandbox;
let home: string;

beforeAll(async () => {
  const snapshot = snapshotOf({
    cluster: cluster({ version: '1.32' }),
    nodes: [node({ name: 'n1' })],
    deployments: [
      deployment({
        name: 'karpenter',
        namespace: 'kube-system',
        labels: { app: 'karpenter' },
        replicas: 1,
        spec: {
          containers: [
            { name: 'main', image: 'example.com/app:1' },
            { name: 'sidecar', image: 'example.com/proxy:1' },
          ],
        },
      }),
    ],
    pods: [
      karpenterPod({ name: 'karpenter-abc', namespace: 'kube-system', nodeName: 'n1', containerStatuses: [containerStatus()] }),
      pod({
        name: 'crashing',
        namespace: 'shop',
        nodeName: 'n1',
        ready: false,
        containerStatuses: [
          containerStatus({
            name: 'main',
            restarts: 4,
            waiting: 'CrashLoopBackOff',
            lastTerminated: { reason: 'Error', exitCode: 1, finishedAt: minutesAfter(T0, 50) },
          }),
        ],
      }),
      pod({
        name: 'creating',
        namespace: 'shop',
        nodeName: 'n1',
        phase: 'Pending',
        containerStatuses: [{ name: 'main', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
      }),
      pod({ name: 'unschedulable', namespace: 'shop' }),
    ],
    nodePools: [nodePool({ name: 'default', nodeClass: 'al2023' })],
    nodeClaims: [nodeClaim({ name: 'default-abc', instanceId: 'i-0abc' })],
    services: [
      (() => {
        const web = service({ name: 'web', namespace: 'shop', ports: [80, 443] });
        return {
          ...web,
          metadata: { ...web.metadata, creationTimestamp: T0 },
          spec: { ...web.spec, clusterIP: '10.100.0.10', clusterIPs: ['10.100.0.10'], selector: { app: 'web' } },
        };
      })(),
    ],
    volumeAttachments: [volumeAttachment({ name: 'csi-0abc', nodeName: 'n1', persistentVolumeName: 'pvc-data' })],
    events: [
      // A singleton event of events.k8s.io (no count), about a kind without a name, its message ending in a newline.
      {
        ...event({ kind: 'Node', name: '', namespace: 'shop', reason: 'Rebooted', message: 'node rebooted\n' }),
        count: undefined,
      },
    ],
  });
  sandbox = await startSandbox(snapshot, { capturedAt: new Date(minutesAfter(T0, 60)) });
  home = await mkdtemp(join(tmpdir(), 'sandbox-kubectl-home-'));
});

afterAll(async () => {
  await sandbox.close();
  await rm(home, { recursive: true, force: true });
});

const env = () => ({ ...process.env, HOME: home, KUBECONFIG: sandbox.kubeconfigPath });

async function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run('kubectl', args, { timeout: 20_000, env: env() });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

/** The table kubectl printed: rows of whitespace-separated cells, the header first. */
function rows(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

describe('kubectl v1.32 against the sandbox', () => {
  it('uses the sandbox context of the kubeconfig it wrote', async () => {
    const { stdout } = await kubectl('config', 'current-context');

    expect(stdout.trim()).toBe(sandbox.context);
  });

  it('get pods -A shows READY, STATUS and RESTARTS as a cluster prints them', async () => {
    const { stdout } = await kubectl('get', 'pods', '-A');

    const table = rows(stdout);
    expect(table[0]).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(table.slice(1)).toEqual([
      ['kube-system', 'karpenter-abc', '1/1', 'Running', '0', '60m'],
      ['shop', 'crashing', '0/1', 'CrashLoopBackOff', '4 (10m ago)', '60m'],
      ['shop', 'creating', '0/1', 'ContainerCreating', '0', '60m'],
      ['shop', 'unschedulable', '0/1', 'Pending', '0', '60m'],
    ]);
  });

  it('get pods -o wide adds the IP and NODE columns', async () => {
    const { stdout } = await kubectl('get', 'pods', '-n', 'shop', '-o', 'wide');

    const [header, crashing] = rows(stdout);
    expect(header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(crashing?.slice(5, 7)).toEqual(['<none>', 'n1']);
  });

  it('get nodes, deployments, nodepools and nodeclaims show their printer columns', async () => {
    const nodes = rows((await kubectl('get', 'nodes')).stdout);
    const deployments = rows((await kubectl('get', 'deployments', '-n', 'kube-system')).stdout);
    const nodePools = rows((await kubectl('get', 'nodepools')).stdout);
    const nodeClaims = rows((await kubectl('get', 'nodeclaims')).stdout);

    expect(nodes[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(nodes[1]?.slice(0, 3)).toEqual(['n1', 'Ready', '<none>']);
    expect(deployments[0]).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(deployments[1]?.slice(0, 2)).toEqual(['karpenter', '0/1']);
    expect(nodePools[0]).toEqual(['NAME', 'NODECLASS', 'NODES', 'READY', 'AGE']);
    expect(nodePools[1]?.slice(0, 2)).toEqual(['default', 'al2023']);
    expect(nodeClaims[0]).toEqual(['NAME', 'TYPE', 'CAPACITY', 'ZONE', 'NODE', 'READY', 'AGE']);
  });

  it('get services -o wide and get volumeattachments show the columns a cluster prints', async () => {
    const services = rows((await kubectl('get', 'services', '-n', 'shop', '-o', 'wide')).stdout);
    const attachments = rows((await kubectl('get', 'volumeattachments')).stdout);

    expect(services).toEqual([
      ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR'],
      ['web', 'ClusterIP', '10.100.0.10', '<none>', '80/TCP,443/TCP', '60m', 'app=web'],
    ]);
    expect(attachments).toEqual([
      ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE'],
      ['csi-0abc', 'ebs.csi.aws.com', 'pvc-data', 'n1', 'true', '60m'],
    ]);
  });

  it('get events -o wide prints a nameless object as its kind, the message trimmed and a singleton count of 1', async () => {
    const { stdout } = await kubectl('get', 'events', '-n', 'shop', '-o', 'wide');

    const [header, row] = rows(stdout);
    expect(header).toEqual([
      'LAST SEEN',
      'TYPE',
      'REASON',
      'OBJECT',
      'SUBOBJECT',
      'SOURCE',
      'MESSAGE',
      'FIRST SEEN',
      'COUNT',
      'NAME',
    ]);
    expect(row?.slice(2, 4)).toEqual(['Rebooted', 'node']);
    expect(row?.slice(-4, -1)).toEqual(['node rebooted', '60m', '1']);
    expect(stdout.split('\n')).toHaveLength(3);
  });

  it('get pods -w prints the existing pods, then a change made through the API', async () => {
    const watch = spawn('kubectl', ['get', 'pods', '-n', 'shop', '-w', '--output-watch-events'], { env: env() });
    let out = '';
    watch.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    try {
      await until(() => out.includes('unschedulable'));
      const deleted = await kubectl('delete', 'pod', '-n', 'shop', 'unschedulable');
      expect(deleted.code).toBe(0);
      await until(() => /DELETED\s+unschedulable/.test(out));
    } finally {
      watch.kill('SIGINT');
    }

    const lines = rows(out);
    expect(lines[0]?.[0]).toBe('EVENT');
    expect(lines.filter((l) => l[0] === 'ADDED').map((l) => l[1])).toEqual(['crashing', 'creating', 'unschedulable']);
    expect(lines.at(-1)?.slice(0, 2)).toEqual(['DELETED', 'unschedulable']);
  });

  it('rollout restart deployment/karpenter -n kube-system sets the pod template annotation', async () => {
    const restarted = await kubectl('rollout', 'restart', 'deployment/karpenter', '-n', 'kube-system');
    const { stdout } = await kubectl(
      'get',
      'deployment',
      'karpenter',
      '-n',
      'kube-system',
      '-o',
      'jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}',
    );

    expect(restarted.stdout.trim()).toBe('deployment.apps/karpenter restarted');
    expect(Date.parse(stdout)).not.toBeNaN();
  });

  it("logs of a container that never started are refused with the kubelet's words", async () => {
    const refused = await kubectl('logs', '-n', 'shop', 'creating');

    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      'Error from server (BadRequest): container "main" in pod "creating" is waiting to start: ContainerCreating',
    );
  });

  it('kubectl patch merges containers by name (strategic merge), leaving the others as they were', async () => {
    const patched = await kubectl(
      'patch',
      'deployment',
      'karpenter',
      '-n',
      'kube-system',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"example.com/app:2"}]}}}}',
    );
    const { stdout } = await kubectl(
      'get',
      'deployment',
      'karpenter',
      '-n',
      'kube-system',
      '-o',
      'jsonpath={.spec.template.spec.containers}',
    );

    expect(patched.code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([
      { name: 'main', image: 'example.com/app:2' },
      { name: 'sidecar', image: 'example.com/proxy:1' },
    ]);
  });
});

describe('closing the sandbox', () => {
  it('removes its kubeconfig and ends an open watch', async () => {
    const other = await startSandbox(snapshotOf({ pods: [pod({ name: 'a', nodeName: 'n1' })] }));
    const watch = spawn('kubectl', ['get', 'pods', '-w'], { env: { ...env(), KUBECONFIG: other.kubeconfigPath } });
    let out = '';
    watch.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => watch.on('exit', resolve));
    await until(() => out.includes('Running'));

    await other.close();

    await exited;
    await expect(access(other.kubeconfigPath)).rejects.toThrow();
  });
});

/** Polls until `ready` holds (kubectl prints asynchronously); fails the test after 15 s. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out waiting for kubectl output');
}
