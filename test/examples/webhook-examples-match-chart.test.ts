import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * ADMISSION_WEBHOOK_BROKEN's examples render the controller as the chart of their version does:
 * the pods declare every port their EndpointSlices list (the chart adds `https-webhook` and
 * `webhook-metrics` only with webhook.enabled, together with DISABLE_WEBHOOK "false"), and the pods
 * are named after the chart's fullname (KARPENTER_SERVICE), as their ReplicaSet names them.
 */
interface Container {
  env?: { name: string; value?: string }[];
  ports?: { name?: string }[];
}
interface Pod {
  metadata: { name: string };
  spec: { containers: Container[] };
}

const root = join(import.meta.dirname, '../../examples');
const examples = readdirSync(root).filter((d) => d.startsWith('admission-webhook-broken-') && existsSync(join(root, d, 'pods.json')));
const json = (dir: string, file: string) => JSON.parse(readFileSync(join(root, dir, file), 'utf8')) as { items: unknown[] };

describe('admission webhook examples render the chart of their version', () => {
  it.each(examples)('%s', (dir) => {
    const pods = json(dir, 'pods.json').items as Pod[];
    const controller = (p: Pod) => p.spec.containers[0] as Container;
    for (const pod of pods) {
      const c = controller(pod);
      const env = new Map((c.env ?? []).map((e) => [e.name, e.value]));
      const ports = new Set((c.ports ?? []).map((p) => p.name));
      expect(pod.metadata.name.startsWith(`${env.get('KARPENTER_SERVICE')}-`)).toBe(true);
      // The chart writes the port and DISABLE_WEBHOOK "false" together, or neither.
      expect(ports.has('https-webhook')).toBe(env.get('DISABLE_WEBHOOK') === 'false');
      if (existsSync(join(root, dir, 'endpointslices.json'))) {
        const slices = json(dir, 'endpointslices.json').items as { ports?: { name?: string }[] }[];
        for (const name of slices.flatMap((s) => (s.ports ?? []).map((p) => p.name))) expect(ports).toContain(name);
      }
    }
  });
});
