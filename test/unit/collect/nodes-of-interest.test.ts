import { describe, expect, it } from 'vitest';
import { nodesOfInterest } from '../../../src/collect/nodes-of-interest.ts';
import { parseGoDuration } from '../../../src/domain/kube-helpers.ts';
import type { NodePool } from '../../../src/domain/kube.ts';
import { nodeClaim, nodePool, uninitializedConditions, unregisteredConditions } from '../../factories/karpenter.ts';
import { condition, node, T0 } from '../../factories/kube.ts';

const NOW = new Date('2026-02-01T00:00:00Z');

function expiring(name: string, expireAfter: string): NodePool {
  const pool = nodePool({ name });
  const spec = pool.spec?.template?.spec;
  if (spec) spec.expireAfter = expireAfter;
  return pool;
}

describe('nodesOfInterest', () => {
  it('a healthy cluster has none', () => {
    const nodes = [node({ name: 'a' }), node({ name: 'b' })];
    const claims = [nodeClaim({ name: 'default-1', nodeName: 'a' }), nodeClaim({ name: 'default-2', nodeName: 'b' })];

    expect(nodesOfInterest(nodes, claims, [expiring('default', '720h')], new Date('2026-01-02T00:00:00Z'))).toEqual([]);
  });

  it("picks Karpenter's nodes NotReady for at least NODE_NOT_READY's default 10 minutes, not a managed node group's", () => {
    const notReady = (name: string, minutesAgo: number, pool?: string) => {
      const n = node({ name, ready: false, ...(pool ? { labels: { 'karpenter.sh/nodepool': pool } } : {}) });
      const since = new Date(NOW.getTime() - minutesAgo * 60_000).toISOString();
      n.status = {
        ...n.status,
        conditions: [condition('Ready', 'Unknown', { reason: 'NodeStatusUnknown', lastTransitionTime: since })],
      };
      return n;
    };
    const nodes = [
      notReady('fell', 10, 'default'),
      notReady('just-now', 9, 'default'),
      notReady('nodegroup', 60),
      node({ name: 'ok' }),
    ];

    expect(nodesOfInterest(nodes, [], [], NOW)).toEqual(['fell']);
  });

  it('picks Nodes being deleted and Nodes tainted karpenter.sh/disrupted:NoSchedule, nothing else of taints', () => {
    const deleting = node({ name: 'deleting' });
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: T0 };
    const nodes = [
      deleting,
      node({ name: 'disrupted', taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }),
      node({ name: 'legacy', taints: [{ key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' }] }),
      node({ name: 'other-effect', taints: [{ key: 'karpenter.sh/disrupted', effect: 'PreferNoSchedule' }] }),
      node({ name: 'tainted-else', taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }] }),
    ];

    expect(nodesOfInterest(nodes, [], [], NOW)).toEqual(['deleting', 'disrupted', 'legacy']);
  });

  it('picks the node of a NodeClaim being deleted or Drifted, by status.nodeName or else by providerID', () => {
    const deleted = nodeClaim({ name: 'default-1', nodeName: 'n-1' });
    deleted.metadata = { ...deleted.metadata, deletionTimestamp: T0 };
    const drifted = nodeClaim({
      name: 'default-2',
      instanceId: 'i-0a1b2c3d4e5f60002',
      conditions: [condition('Drifted', 'True')],
    });
    const notDrifted = nodeClaim({ name: 'default-3', nodeName: 'n-3', conditions: [condition('Drifted', 'False')] });
    const nodes = [node({ name: 'n-2', providerID: 'aws:///us-east-1a/i-0a1b2c3d4e5f60002' }), node({ name: 'n-3' })];

    expect(nodesOfInterest(nodes, [deleted, drifted, notDrifted], [], NOW)).toEqual(['n-1', 'n-2']);
  });

  it("picks the node of a NodeClaim older than its NodePool's expireAfter; Never never expires", () => {
    const claims = [
      nodeClaim({ name: 'short-1', nodePool: 'short', nodeName: 'old', createdAt: '2026-01-01T00:00:00Z' }),
      nodeClaim({ name: 'short-2', nodePool: 'short', nodeName: 'young', createdAt: '2026-01-31T00:00:00Z' }),
      nodeClaim({ name: 'forever-1', nodePool: 'forever', nodeName: 'ancient', createdAt: '2020-01-01T00:00:00Z' }),
      nodeClaim({ name: 'unset-1', nodePool: 'unset', nodeName: 'unset-node', createdAt: '2020-01-01T00:00:00Z' }),
    ];
    const pools = [expiring('short', '720h'), expiring('forever', 'Never'), nodePool({ name: 'unset' })];

    expect(nodesOfInterest([], claims, pools, NOW)).toEqual(['old']);
  });

  it('picks the node of a NodeClaim registered but not initialised (its agents are on it, or missing)', () => {
    const claims = [
      nodeClaim({
        name: 'default-1',
        nodeName: 'stuck',
        conditions: uninitializedConditions('StartupTaintsExist', 'StartupTaint "a:NoSchedule" still exists'),
      }),
      nodeClaim({ name: 'default-2', nodeName: 'fine' }),
      nodeClaim({ name: 'default-3', conditions: unregisteredConditions() }),
    ];

    expect(nodesOfInterest([], claims, [], NOW)).toEqual(['stuck']);
  });

  it('reads a v1beta1 NodePool’s spec.disruption.expireAfter too', () => {
    const pool = nodePool({ name: 'default' });
    pool.spec = { ...pool.spec, disruption: { expireAfter: '24h' } };

    expect(nodesOfInterest([], [nodeClaim({ name: 'default-1', nodeName: 'n', createdAt: T0 })], [pool], NOW)).toEqual(['n']);
  });
});

describe('parseGoDuration', () => {
  it.each([
    ['8h', 8 * 3_600_000],
    ['30m', 30 * 60_000],
    ['1h30m', 90 * 60_000],
    ['1h30m0s', 90 * 60_000],
    ['1.5h', 90 * 60_000],
    ['0s', 0],
    ['8 h', undefined],
    ['h', undefined],
    ['1d', undefined],
  ])('budget durations: parseGoDuration(%j) = %s', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });
  it.each([
    ['720h', 720 * 3_600_000],
    ['1h30m', 90 * 60_000],
    ['2160h0m0s', 2160 * 3_600_000],
    ['1.5h', 90 * 60_000],
    ['500ms', 500],
    ['0', 0],
    ['Never', Number.POSITIVE_INFINITY],
  ])('%s', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each(['', '30d', '10', 'never', 'h', '5m junk'])('%j is no Go duration', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it('picks nodes Consolidatable for at least 6h, at most 20 per NodePool and those waiting longest, never one consolidatable for 10 minutes', () => {
    const consolidatable = (name: string, pool: string, hoursAgo: number) =>
      nodeClaim({
        name,
        nodePool: pool,
        nodeName: `n-${name}`,
        conditions: [
          condition('Initialized', 'True'),
          condition('Consolidatable', 'True', {
            lastTransitionTime: new Date(NOW.getTime() - hoursAgo * 3_600_000).toISOString(),
          }),
        ],
      });
    const big = Array.from({ length: 25 }, (_, i) => consolidatable(`big-${String(i).padStart(2, '0')}`, 'big', 7 + i));
    const claims = [...big, consolidatable('small-1', 'small', 8), consolidatable('small-2', 'small', 10 / 60)];

    const picked = nodesOfInterest([], claims, [], NOW);

    expect(picked.filter((n) => n.startsWith('n-big-'))).toHaveLength(20);
    expect(picked).not.toContain('n-big-00');
    expect(picked).toContain('n-big-24');
    expect(picked).toContain('n-small-1');
    expect(picked).not.toContain('n-small-2');
  });

  it('a node Consolidatable for 8h whose last pod event was 2 minutes ago is not picked (consolidateAfter 0s never resets the condition)', () => {
    const claim = nodeClaim({
      name: 'busy',
      nodePool: 'p',
      nodeName: 'n-busy',
      conditions: [
        condition('Initialized', 'True'),
        condition('Consolidatable', 'True', { lastTransitionTime: new Date(NOW.getTime() - 8 * 3_600_000).toISOString() }),
      ],
    });
    claim.status = { ...claim.status, lastPodEventTime: new Date(NOW.getTime() - 2 * 60_000).toISOString() };

    expect(nodesOfInterest([], [claim], [], NOW)).toEqual([]);
  });

  it('where consolidateAfter is Never (no Consolidatable condition), picks nodes initialised at least 6h ago', () => {
    const never = nodePool({ name: 'never', disruption: { consolidateAfter: 'Never' } });
    const on = nodePool({ name: 'on', disruption: { consolidateAfter: '5m' } });
    const initialised = (name: string, pool: string) =>
      nodeClaim({
        name,
        nodePool: pool,
        nodeName: `n-${name}`,
        conditions: [condition('Initialized', 'True', { lastTransitionTime: T0 })],
      });

    expect(nodesOfInterest([], [initialised('a', 'never'), initialised('b', 'on')], [never, on], NOW)).toEqual(['n-a']);
  });
});
