/**
 * The capture script packs a .tgz "to share": it must share no more than `snapshot` does. Run for
 * real with sh (dash) and bash against stub kubectl/aws printing env values `s3cr3t`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { stubWorkspace, type StubWorkspace } from './capture-script-stubs.ts';

const SECRET = 's3cr3t';
const CONTEXT = { context: 'arn:aws:eks:eu-west-1:111122223333:cluster/demo', server: 'https://127.0.0.1:6443' };

const LAST_APPLIED = `${JSON.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'shop', namespace: 'default' },
  spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'DB_PASSWORD', value: SECRET }] }] } } },
})}\n`;

const TOLERATION = { key: 'dedicated', operator: 'Equal', value: 'payments', effect: 'NoSchedule' };

const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': LAST_APPLIED, team: 'payments' },
    creationTimestamp: '2026-01-01T00:00:00Z',
    name: 'shop',
    namespace: 'default',
  },
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
              { name: 'CLUSTER_NAME', value: 'demo' },
              { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { key: 'password', name: 'db' } } },
              { name: 'DB_PASSWORD', value: SECRET },
            ],
          },
        ],
        tolerations: [TOLERATION],
      },
    },
  },
};

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { creationTimestamp: '2026-01-01T00:00:00Z', name: 'shop-1', namespace: 'default' },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'nginx',
        // A value that quotes JSON, and one whose key comes before its name (kubectl sorts keys; a stub need not).
        env: [
          { name: 'QUOTED', value: `", "value": "${SECRET}` },
          { value: SECRET, name: 'CLUSTER_NAME' },
        ],
      },
    ],
    initContainers: [{ name: 'init', image: 'busybox', env: [{ name: 'INIT_TOKEN', value: SECRET }] }],
    tolerations: [TOLERATION],
  },
  status: { phase: 'Pending' },
};

/** As kubectl 1.32 prints `get -o json`: four-space indents, one key a line. */
const asKubectlPrints = (items: object[]) =>
  `${JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, 4)}\n`;

let work: StubWorkspace;
beforeAll(async () => {
  work = await stubWorkspace();
});
afterAll(async () => {
  await work.remove();
});

describe.each(['sh', 'bash'])('the capture script run with %s', (shell) => {
  it('packs no env value and no last-applied copy; the folder still analyses (CLUSTER_NAME, tolerations kept)', async () => {
    // Act
    const captured = await work.capture({ shell }, CONTEXT, {
      kubectl: { pods: asKubectlPrints([POD]), deployments: asKubectlPrints([DEPLOYMENT]) },
    });
    const { snapshot } = await loadSnapshot([captured.folder ?? '?']);

    // Assess
    expect(captured.code).toBe(0);
    expect(captured.packed).toContain('pods.json');
    expect(captured.packed).not.toContain(SECRET);
    for (const name of await readdir(captured.folder ?? '?')) {
      expect(await readFile(join(captured.folder ?? '?', name), 'utf8')).not.toContain(SECRET);
    }
    expect(captured.stdout).toContain('left out, as snapshot does: 4 env values, 1 annotations copying a whole object');
    const deployment = snapshot.deployments[0];
    expect(deployment?.metadata?.annotations).toEqual({ team: 'payments' });
    expect(deployment?.spec?.template?.spec?.containers?.[0]?.env).toEqual([
      { name: 'CLUSTER_NAME', value: 'demo' },
      { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { key: 'password', name: 'db' } } },
      { name: 'DB_PASSWORD' },
    ]);
    expect(deployment?.spec?.template?.spec?.tolerations).toEqual([TOLERATION]);
    expect(snapshot.pods[0]?.spec?.containers?.[0]?.env).toEqual([{ name: 'QUOTED' }, { name: 'CLUSTER_NAME' }]);
    expect(snapshot.pods[0]?.spec?.tolerations).toEqual([TOLERATION]);
  });

  it('does not save an output it cannot redact (JSON on one line), and says so', async () => {
    // Act
    const captured = await work.capture({ shell }, CONTEXT, {
      kubectl: { pods: `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [POD] })}\n` },
    });

    // Assess
    expect(captured.code).toBe(0);
    expect(captured.packed).not.toContain(SECRET);
    expect(await readdir(captured.folder ?? '?')).not.toContain('pods.json');
    expect(captured.stderr).toMatch(/not saved: \S+\/pods\.json \(kubectl's output was not the indented JSON/);
  });
});
