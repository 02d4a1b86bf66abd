import { describe, expect, it } from 'vitest';
import {
  earliestSince,
  isUnboundPending,
  listCapped,
  pendingAtLeast,
  schedulerMessageOf,
} from '../../../../src/detectors/scheduling/pending.ts';
import { condition, event, minutesAfter, pod, T0 } from '../../../factories/kube.ts';

describe('pending pods', () => {
  it('counts unbound Pending pods only', () => {
    expect(isUnboundPending(pod({ name: 'a' }))).toBe(true);
    expect(isUnboundPending(pod({ name: 'b', nodeName: 'n1' }))).toBe(false);
    const gated = pod({ name: 'c' });
    gated.status = { phase: 'Pending', conditions: [condition('PodScheduled', 'False', { reason: 'SchedulingGated' })] };
    expect(isUnboundPending(gated)).toBe(false);
    const deleting = pod({ name: 'd' });
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: T0 };
    expect(isUnboundPending(deleting)).toBe(false);
  });

  it('a pod with spec.schedulingGates is not waiting for capacity, whatever its conditions say', () => {
    const gated = pod({ name: 'e' });
    gated.spec = { ...gated.spec, schedulingGates: [{ name: 'kueue.x-k8s.io/admission' }] } as typeof gated.spec;
    gated.status = { phase: 'Pending' };
    expect(isUnboundPending(gated)).toBe(false);
    const emptyGates = pod({ name: 'f' });
    emptyGates.spec = { ...emptyGates.spec, schedulingGates: [] } as typeof emptyGates.spec;
    expect(isUnboundPending(emptyGates)).toBe(true);
  });

  it('treats exactly the threshold as pending long enough', () => {
    const p = pod({ name: 'a', createdAt: T0 });
    expect(pendingAtLeast(p, 5 * 60_000, new Date(minutesAfter(T0, 5)))).toBe(true);
    expect(pendingAtLeast(p, 5 * 60_000, new Date(minutesAfter(T0, 4)))).toBe(false);
  });

  it('reports the earliest creation', () => {
    expect(
      earliestSince([pod({ name: 'a', createdAt: minutesAfter(T0, 3) }), pod({ name: 'b', createdAt: minutesAfter(T0, 1) })]),
    ).toBe(minutesAfter(T0, 1));
  });

  it('caps long lists', () => {
    expect(listCapped(['a', 'b', 'c'], 2)).toBe('a, b and 1 more');
    expect(listCapped(['a', 'b'], 2)).toBe('a, b');
  });

  it("prefers kube-scheduler's newest event over the pod condition", () => {
    const p = pod({ name: 'a', unschedulableMessage: '0/1 nodes are available: 1 Too many pods.' });
    expect(schedulerMessageOf(p, [])).toBe('0/1 nodes are available: 1 Too many pods.');
    const e = event({
      kind: 'Pod',
      name: 'a',
      namespace: 'default',
      reason: 'FailedScheduling',
      message: 'no nodes available to schedule pods',
    });
    expect(schedulerMessageOf(p, [e])).toBe('no nodes available to schedule pods');
  });
});
