import { describe, expect, it } from 'vitest';
import {
  activeDoNotDisrupt,
  describePdb,
  evictionBlockers,
  isDisruptedTaint,
  pdbsSelecting,
  waitsForDrain,
} from '../../../../src/detectors/karpenter/eviction-blockers.ts';
import { selectorArg } from '../../../../src/domain/kube-helpers.ts';
import type { LabelSelector, Pod, PodDisruptionBudget } from '../../../../src/domain/kube.ts';
import { T0, minutesAfter, pdb, pod, withAnnotations } from '../../../factories/kube.ts';

const NODE = 'ip-10-0-1-23.ec2.internal';
const NOW = new Date(minutesAfter(T0, 60));
const web = (name = 'web-7d4b9c-x2x1q', labels: Record<string, string> = { app: 'web' }) =>
  pod({ name, namespace: 'shop', nodeName: NODE, labels, ownerReplicaSet: 'web-7d4b9c' });
const blocking = (name = 'web', extra: Partial<Parameters<typeof pdb>[0]> = {}) =>
  pdb({
    name,
    namespace: 'shop',
    matchLabels: { app: 'web' },
    minAvailable: 1,
    disruptionsAllowed: 0,
    currentHealthy: 1,
    desiredHealthy: 1,
    expectedPods: 1,
    ...extra,
  });
const withSelector = (p: PodDisruptionBudget, selector: LabelSelector | undefined): PodDisruptionBudget => ({
  ...p,
  spec: { ...p.spec, selector },
});

describe('which pods a drain waits for (Karpenter IsWaitingEviction)', () => {
  it('waits for a running workload pod and a DaemonSet pod that does not tolerate the taint', () => {
    // Prepare
    const ds = pod({ name: 'fluentd-abcde', namespace: 'logging', nodeName: NODE, ownerKind: 'DaemonSet' });

    // Act / Assess
    expect(waitsForDrain(web(), NOW)).toBe(true);
    expect(waitsForDrain(ds, NOW)).toBe(true);
  });

  it('skips terminal pods, mirror pods, pods tolerating every taint and pods terminating for over a minute', () => {
    // Prepare
    const done = pod({ name: 'job-1', namespace: 'shop', nodeName: NODE, phase: 'Succeeded' });
    const failed = pod({ name: 'job-2', namespace: 'shop', nodeName: NODE, phase: 'Failed' });
    const mirror = pod({ name: `kube-proxy-${NODE}`, namespace: 'kube-system', nodeName: NODE, ownerKind: 'Node' });
    const tolerant: Pod = { ...web('aws-node-x'), spec: { ...web().spec, tolerations: [{ operator: 'Exists' }] } };
    const tolerantKey: Pod = {
      ...web('agent'),
      spec: { ...web().spec, tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists', effect: 'NoSchedule' }] },
    };
    const stuck: Pod = { ...web('old'), metadata: { ...web('old').metadata, deletionTimestamp: minutesAfter(T0, 55) } };
    const leaving: Pod = { ...web('new'), metadata: { ...web('new').metadata, deletionTimestamp: minutesAfter(T0, 59.5) } };

    // Act / Assess
    expect([done, failed, mirror, tolerant, tolerantKey, stuck].filter((p) => waitsForDrain(p, NOW))).toEqual([]);
    expect(waitsForDrain(leaving, NOW)).toBe(true);
  });
});

describe('evictionBlockers', () => {
  it('names the PDB allowing no disruption and its pods on the node', () => {
    // Prepare
    const pods = [web('web-1'), web('web-2'), pod({ name: 'api-1', namespace: 'shop', nodeName: NODE, labels: { app: 'api' } })];

    // Act
    const result = evictionBlockers(
      pods,
      [blocking(), pdb({ name: 'api', namespace: 'shop', matchLabels: { app: 'api' } })],
      NOW,
    );

    // Assess
    expect(result.pdbBlocked.map((b) => [b.pdb.metadata?.name, b.pods.map((p) => p.metadata?.name)])).toEqual([
      ['web', ['web-1', 'web-2']],
    ]);
    expect(result.multiplePdbs).toEqual([]);
    expect(result.doNotDisrupt).toEqual([]);
  });

  it('reports a pod two PDBs select as multiple PDBs, whatever they allow', () => {
    // Prepare
    const second = pdb({ name: 'web-extra', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 3 });

    // Act
    const result = evictionBlockers([web()], [blocking('web', { disruptionsAllowed: 1 }), second], NOW);

    // Assess
    expect(result.multiplePdbs.map((m) => m.pdbs.map((p) => p.metadata?.name))).toEqual([['web', 'web-extra']]);
    expect(result.pdbBlocked).toEqual([]);
  });

  it('an empty selector selects every pod of its namespace; a missing one none; other namespaces never', () => {
    // Prepare
    const all = withSelector(blocking('all'), {});
    const none = withSelector(blocking('none'), undefined);
    const elsewhere = pdb({ name: 'web', namespace: 'other', matchLabels: { app: 'web' }, disruptionsAllowed: 0 });

    // Act / Assess
    expect(pdbsSelecting(web(), [all, none, elsewhere]).map((p) => p.metadata?.name)).toEqual(['all']);
    expect(evictionBlockers([web()], [all, none, elsewhere], NOW).pdbBlocked.map((b) => b.pdb.metadata?.name)).toEqual(['all']);
  });

  it('matchExpressions select as Kubernetes does', () => {
    // Prepare
    const expr = {
      ...blocking('expr'),
      spec: { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] } },
    };

    // Act / Assess
    expect(evictionBlockers([web()], [expr], NOW).pdbBlocked).toHaveLength(1);
  });

  it('do-not-disrupt comes first: such a pod is never evicted, its PDB does not matter', () => {
    // Prepare
    const annotated = withAnnotations(web('batch-1'), { 'karpenter.sh/do-not-disrupt': 'true' });

    // Act
    const result = evictionBlockers([annotated], [blocking()], NOW);

    // Assess
    expect(result.doNotDisrupt.map((d) => [d.pod.metadata?.name, d.value])).toEqual([['batch-1', 'true']]);
    expect(result.pdbBlocked).toEqual([]);
  });

  it('a duration value blocks until it elapses from the pod start; an unparsable value is ignored', () => {
    // Prepare: started at T0, judged at T0+60m.
    const long = withAnnotations(web('a'), { 'karpenter.sh/do-not-disrupt': '2h' });
    const short = withAnnotations(web('b'), { 'karpenter.sh/do-not-disrupt': '30m' });
    const bad = withAnnotations(web('c'), { 'karpenter.sh/do-not-disrupt': 'yes' });

    // Act / Assess
    expect(activeDoNotDisrupt(long, NOW)).toMatchObject({ value: '2h', until: '2026-01-01T02:00:00Z' });
    expect(activeDoNotDisrupt(short, NOW)).toBeUndefined();
    expect(activeDoNotDisrupt(bad, NOW)).toBeUndefined();
  });

  it('AlwaysAllow lets an unready pod through a PDB at 0; terminating pods are not blockers', () => {
    // Prepare
    const unready = pod({ name: 'web-u', namespace: 'shop', nodeName: NODE, labels: { app: 'web' }, ready: false });
    const always = { ...blocking(), spec: { ...blocking().spec, unhealthyPodEvictionPolicy: 'AlwaysAllow' } };
    const terminating: Pod = { ...web('t'), metadata: { ...web('t').metadata, deletionTimestamp: minutesAfter(T0, 59.8) } };

    // Act / Assess
    expect(evictionBlockers([unready], [always], NOW).pdbBlocked).toEqual([]);
    expect(evictionBlockers([unready], [blocking()], NOW).pdbBlocked).toHaveLength(1);
    expect(evictionBlockers([terminating], [blocking()], NOW).pdbBlocked).toEqual([]);
  });

  it('a PDB with no status counts as allowing nothing', () => {
    // Prepare
    const { status: _status, ...fresh } = blocking();

    // Act / Assess
    expect(evictionBlockers([web()], [fresh], NOW).pdbBlocked).toHaveLength(1);
  });
});

describe('text helpers', () => {
  it('describes a PDB with its budget and status', () => {
    expect(describePdb(blocking())).toBe(
      'PDB shop/web (minAvailable 1; disruptionsAllowed 0, currentHealthy 1, desiredHealthy 1, expectedPods 1)',
    );
    expect(describePdb(pdb({ name: 'p', matchLabels: {}, maxUnavailable: '10%', disruptionsAllowed: 0 }))).toContain(
      'maxUnavailable 10%',
    );
  });

  it('writes a selector as kubectl -l takes it', () => {
    expect(
      selectorArg({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'x', operator: 'NotIn', values: ['c'] },
          { key: 'y', operator: 'Exists' },
          { key: 'z', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('app=web,tier in (a,b),x notin (c),y,!z');
    expect(selectorArg({})).toBe('');
    expect(selectorArg(undefined)).toBeUndefined();
  });

  it('knows the disrupted taint in its v1 and v1beta1 forms', () => {
    expect(isDisruptedTaint({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' })).toBe(true);
    expect(isDisruptedTaint({ key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' })).toBe(true);
    expect(isDisruptedTaint({ key: 'karpenter.sh/unregistered', effect: 'NoExecute' })).toBe(false);
    expect(isDisruptedTaint({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })).toBe(false);
  });
});
