import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readAwsAuth } from '../../../../src/detectors/nodeclaim-not-registered/aws-auth.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';

const FORBIDDEN =
  'Error from server (Forbidden): configmaps "aws-auth" is forbidden: User "readonly" cannot get resource "configmaps" in API group "" in the namespace "kube-system"\n';
const GLOBAL_SETTINGS = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
  data: { 'aws.interruptionQueueName': 'aws-2026-eks' },
};

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** examples/healthy with kubectl's refusal saved as aws-auth.yaml, plus `extra` files. */
async function healthyWithoutAwsAuth(extra: Record<string, object>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sentinel-aws-auth-'));
  dirs.push(dir);
  await cp('examples/healthy', dir, { recursive: true });
  await writeFile(join(dir, 'aws-auth.yaml'), FORBIDDEN);
  for (const [name, value] of Object.entries(extra)) await writeFile(join(dir, name), JSON.stringify(value));
  return dir;
}

describe('an aws-auth that could not be read', () => {
  it('is not captured, alone', async () => {
    const { snapshot } = await loadSnapshot([await healthyWithoutAwsAuth({})]);
    expect(readAwsAuth(snapshot).state).toBe('not-captured');
  });

  it('is not captured, never "absent", when another ConfigMap (karpenter-global-settings) was read', async () => {
    const { snapshot } = await loadSnapshot([await healthyWithoutAwsAuth({ 'karpenter-global-settings.json': GLOBAL_SETTINGS })]);
    expect(snapshot.configMaps.some((c) => c.metadata?.name === 'karpenter-global-settings')).toBe(true);
    expect(readAwsAuth(snapshot).state).toBe('not-captured');
  });
});
