/**
 * The capture script's redaction (an awk filter over kubectl's JSON, capture-script-redact.ts)
 * against the real kubectl v1.32: it relies on how kubectl indents `-o json`, so it is checked on
 * what kubectl prints, and it must leave out exactly what `snapshot` leaves out (redactObject).
 * The cluster is the simulator seeded from examples/healthy (a Karpenter controller with 18 env
 * values) plus a workload whose env values are `s3cr3t`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { noRedactions, redactObject } from '../../src/snapshot/write/redact.ts';
import { run } from '../unit/cli/cli-harness.ts';
import { captureWorkspace, type CaptureWorkspace } from './support/capture-workspace.ts';

const EXAMPLE = new URL('../../examples/healthy/', import.meta.url).pathname;
const CLUSTER = 'aws-2026-eks';
const SECRET = 's3cr3t';

const SHOP = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shop', namespace: 'default', creationTimestamp: '2025-12-31T00:00:00Z' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'shop' } },
        template: {
          metadata: { labels: { app: 'shop' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx',
                env: [
                  { name: 'DB_PASSWORD', value: SECRET },
                  { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
                ],
              },
            ],
            tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'payments', effect: 'NoSchedule' }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'shop-1', namespace: 'default', creationTimestamp: '2025-12-31T00:00:00Z', labels: { app: 'shop' } },
      spec: {
        containers: [{ name: 'web', image: 'nginx', env: [{ name: 'API_TOKEN', value: SECRET }] }],
        initContainers: [{ name: 'init', image: 'busybox', env: [{ name: 'INIT_TOKEN', value: SECRET }] }],
      },
      status: { phase: 'Pending' },
    },
  ],
};

let extra: string;
let sim: Simulation;
let work: CaptureWorkspace;

beforeAll(async () => {
  extra = await mkdtemp(join(tmpdir(), 'sentinel-shop-'));
  await writeFile(join(extra, 'shop.json'), JSON.stringify(SHOP));
  sim = await startSimulation([EXAMPLE, extra]);
  work = await captureWorkspace(sim, EXAMPLE, 'vpc-0a7c3e91d5b2f4816');
});

afterAll(async () => {
  await sim.close();
  await work.remove();
  await rm(extra, { recursive: true, force: true });
});

/** Asynchronously: the simulator answers from this process. */
async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('kubectl', args, {
    env: { ...process.env, KUBECONFIG: join(work.dir, 'kubeconfig') },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

describe('the capture script with the real kubectl: what it leaves out', () => {
  it('saves what snapshot would (env values and copies out, CLUSTER_NAME kept), as valid JSON; the .tgz holds no s3cr3t', async () => {
    // Prepare
    const printed = await run(['capture-script', '--cluster', CLUSTER, '--region', 'us-east-1']);
    await writeFile(join(work.dir, 'capture.sh'), printed.stdout);
    const raw = {
      'pods.json': await kubectl('get', 'pods', '-A', '-o', 'json'),
      'deployments.json': await kubectl('get', 'deployments', '-A', '-o', 'json'),
      'replicasets.json': await kubectl('get', 'replicasets', '-A', '-o', 'json'),
    };

    // Act
    const captured = await work.sh('capture.sh');
    const { name: folder, path: dir } = await work.captureFolder(CLUSTER);
    const packed = gunzipSync(await readFile(join(work.dir, `${folder}.tgz`))).toString('latin1');

    // Assess
    expect(captured.code).toBe(0);
    expect(captured.stdout).toContain("checked: kubectl's server is the endpoint of cluster aws-2026-eks");
    expect(raw['pods.json']).toContain(SECRET);
    expect(packed).toContain('pods.json');
    expect(packed).not.toContain(SECRET);
    const counts = noRedactions();
    for (const [file, text] of Object.entries(raw)) {
      // What the stubs of test/unit/cli/commands/capture-script-*.test.ts print is what kubectl prints.
      const list = JSON.parse(text) as { items: unknown[] };
      expect(text).toBe(`${JSON.stringify(list, null, 4)}\n`);
      const expected = { ...list, items: list.items.map((item) => redactObject(item, counts)) };
      expect(JSON.parse(await readFile(join(dir, file), 'utf8'))).toEqual(expected);
    }
    expect(counts.envValues).toBeGreaterThan(3);
    expect(captured.stdout).toContain(`left out, as snapshot does: ${counts.envValues} env values`);
  }, 180_000);
});
