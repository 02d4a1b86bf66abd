import { describe, expect, it } from 'vitest';
import { KubeStore } from '../../src/simulator/kube-store.ts';
import type { JsonRecord } from '../../src/domain/shape.ts';
import { deployment, node, pod } from '../factories/kube.ts';

function names(store: KubeStore, namespace?: string): string[] {
  return store.list('pods', namespace).map((o) => `${o.namespace}/${o.name}`);
}

describe('KubeStore', () => {
  it('keeps namespace-then-name order through creates, updates and deletes', () => {
    const store = new KubeStore();
    for (const [ns, name] of [
      ['b', 'x'],
      ['a-b', 'y'],
      ['a', 'z'],
      ['a', 'c'],
    ] as const) {
      store.put('pods', pod({ name, namespace: ns }) as JsonRecord);
    }
    expect(names(store)).toEqual(['a/c', 'a/z', 'a-b/y', 'b/x']);

    store.put('pods', { ...(pod({ name: 'z', namespace: 'a' }) as JsonRecord), status: { phase: 'Running' } });
    store.delete('pods', 'c', 'a');
    store.put('pods', pod({ name: 'a', namespace: 'b' }) as JsonRecord);

    expect(names(store)).toEqual(['a/z', 'a-b/y', 'b/a', 'b/x']);
    expect(store.get('pods', 'z', 'a')?.object.status).toEqual({ phase: 'Running' });
    expect(store.list('pods').find((o) => o.name === 'z')?.object.status).toEqual({ phase: 'Running' });
    expect(names(store, 'a')).toEqual(['a/z']);
    expect(names(store, 'a-b')).toEqual(['a-b/y']);
    expect(names(store, 'c')).toEqual([]);
  });

  it('gives each write a higher resourceVersion and keeps the uid; derives a stable uid when there is none', () => {
    const store = new KubeStore();
    const first = store.put('nodes', node({ name: 'n1' }) as JsonRecord);
    const second = store.put('nodes', { ...(node({ name: 'n1' }) as JsonRecord), metadata: { name: 'n1' } });
    const bare = store.put('configmaps', { metadata: { name: 'c', namespace: 'kube-system' } });
    const again = new KubeStore().put('configmaps', { metadata: { name: 'c', namespace: 'kube-system' } });

    const meta = (o: { object: JsonRecord }) => o.object.metadata as { resourceVersion: string; uid: string };
    expect(Number(meta(second).resourceVersion)).toBeGreaterThan(Number(meta(first).resourceVersion));
    expect(meta(second).uid).toBe('uid-n1');
    expect(meta(bare).uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(meta(again).uid).toBe(meta(bare).uid);
  });

  it('counts generations of spec changes on workloads, not on metadata or status changes', () => {
    const store = new KubeStore();
    const d = deployment({ name: 'web', namespace: 'shop' }) as JsonRecord;
    const generation = (o: { object: JsonRecord }) => (o.object.metadata as { generation: number }).generation;

    const created = store.put('deployments', d);
    const annotated = store.put('deployments', { ...d, metadata: { ...(d.metadata as JsonRecord), annotations: { a: 'b' } } });
    const scaled = store.put('deployments', { ...d, spec: { ...(d.spec as JsonRecord), replicas: 4 } });
    const pod1 = store.put('pods', pod({ name: 'p' }) as JsonRecord);

    expect([generation(created), generation(annotated), generation(scaled)]).toEqual([1, 1, 2]);
    expect((pod1.object.metadata as JsonRecord).generation).toBeUndefined();
  });

  it('puts namespaced objects without a namespace in default, creates their namespace, strips it from cluster-scoped ones', () => {
    const store = new KubeStore();

    const p = store.put('pods', { metadata: { name: 'p' } });
    const n = store.put('nodes', { metadata: { name: 'n', namespace: '' } });
    store.put('services', { metadata: { name: 's', namespace: 'shop', creationTimestamp: '2026-01-01T00:00:00Z' } });

    expect(p.namespace).toBe('default');
    expect(n.object.metadata).not.toHaveProperty('namespace');
    expect(store.get('namespaces', 'shop')?.object.metadata).toMatchObject({ creationTimestamp: '2026-01-01T00:00:00Z' });
  });
});
