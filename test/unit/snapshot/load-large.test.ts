import { afterEach, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { pod } from '../../factories/kube.ts';
import { captureDir, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

// How fast and how much memory: `npm run bench` (BENCHMARKS.md). Here only that nothing is lost.
describe('loadSnapshot: large captures', () => {
  it('loads all 50,000 pods of one `kubectl get pods -A -o json` file, across read chunks, intact', async () => {
    // Prepare
    const pods = Array.from({ length: 50_000 }, (_, i) =>
      pod({
        name: `inflate-5cf78d58f6-${i.toString(36).padStart(5, '0')}`,
        namespace: `team-${i % 40}`,
        nodeName: `ip-10-0-${i % 250}-1.ec2.internal`,
      }),
    );
    const dir = await captureDir({ 'pods.json': kubeList(pods) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods).toHaveLength(50_000);
    expect(snapshot.pods[49_999]?.metadata?.name).toBe(pods[49_999]?.metadata?.name);
  });
});
