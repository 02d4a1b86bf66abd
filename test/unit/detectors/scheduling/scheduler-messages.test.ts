import { describe, expect, it } from 'vitest';
import {
  incompatibilitySubject,
  latestFailedScheduling,
  nodesRejectedFor,
  parseKarpenterMessage,
  parseSchedulerMessage,
} from '../../../../src/detectors/scheduling/scheduler-messages.ts';
import { event, minutesAfter, T0 } from '../../../factories/kube.ts';

describe('parseSchedulerMessage (kube-scheduler)', () => {
  it('splits anti-affinity and taint reasons and drops the preemption summary', () => {
    // Act
    const m = parseSchedulerMessage(
      "0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 node(s) had untolerated taint {workload-type: system}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
    );
    // Assess
    expect(m.totalNodes).toBe(3);
    expect(m.noNodesAvailable).toBe(false);
    expect(m.reasons).toEqual([
      { count: 1, kind: 'anti-affinity', text: "node(s) didn't match pod anti-affinity rules" },
      {
        count: 2,
        kind: 'taint',
        text: 'node(s) had untolerated taint {workload-type: system}',
        taint: { key: 'workload-type', value: 'system' },
      },
    ]);
    expect(nodesRejectedFor(m, 'anti-affinity')).toBe(1);
  });

  it('reads "no nodes available to schedule pods" (the bootstrap deadlock)', () => {
    expect(parseSchedulerMessage('no nodes available to schedule pods')).toEqual({
      totalNodes: 0,
      noNodesAvailable: true,
      reasons: [],
    });
    expect(parseSchedulerMessage('0/0 nodes are available: no nodes available to schedule pods.').noNodesAvailable).toBe(true);
  });

  it('reads the node affinity/selector reason and resources', () => {
    const m = parseSchedulerMessage(
      "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) had untolerated taint {CriticalAddonsOnly: true}. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    );
    expect(m.reasons.map((r) => [r.count, r.kind])).toEqual([
      [1, 'insufficient'],
      [1, 'node-selector'],
      [2, 'taint'],
    ]);
    expect(m.reasons[0]?.resource).toBe('cpu');
    expect(m.reasons[2]?.taint).toEqual({ key: 'CriticalAddonsOnly', value: 'true' });
  });

  it('reads the pre-1.25 taint wording and the 1.32+ one without details', () => {
    const old = parseSchedulerMessage(
      "0/1 nodes are available: 1 node(s) had taint {CriticalAddonsOnly: true}, that the pod didn't tolerate.",
    );
    expect(old.reasons).toHaveLength(1);
    expect(old.reasons[0]).toMatchObject({ kind: 'taint', taint: { key: 'CriticalAddonsOnly', value: 'true' } });
    const recent = parseSchedulerMessage(
      '0/17 nodes are available: 17 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/17 nodes are available: 17 Preemption is not helpful for scheduling.',
    );
    expect(recent.reasons).toEqual([{ count: 17, kind: 'taint', text: 'node(s) had untolerated taint(s)' }]);
  });

  it('treats node lifecycle taints and cordons as node state, not a missing toleration', () => {
    const m = parseSchedulerMessage(
      '0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable.',
    );
    expect(m.reasons.map((r) => r.kind)).toEqual(['node-condition', 'node-condition']);
  });

  it('returns no reasons for text it does not know', () => {
    expect(parseSchedulerMessage('something else')).toEqual({ totalNodes: undefined, noNodesAvailable: false, reasons: [] });
    expect(parseSchedulerMessage(undefined).reasons).toEqual([]);
  });
});

describe('parseKarpenterMessage', () => {
  it('reads incompatible NodePools with their reasons (seed: label "role" has no known values)', () => {
    const k = parseKarpenterMessage(
      'Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"150m","memory":"120Mi","pods":"3"}, incompatible requirements, label "role" does not have known values',
    );
    expect(k.incompatible).toEqual([
      { nodePool: 'default', detail: 'incompatible requirements, label "role" does not have known values' },
    ]);
    expect(k.limitsExceeded).toEqual([]);
    expect(incompatibilitySubject(k.incompatible[0]?.detail ?? '')).toEqual({ label: 'role' });
  });

  it('reads every limit wording Karpenter has used', () => {
    expect(
      parseKarpenterMessage('Failed to schedule pod, all available instance types exceed limits for nodepool: "default"')
        .limitsExceeded,
    ).toEqual(['default']);
    expect(parseKarpenterMessage('all available instance types exceed limits for nodepool "graviton"').limitsExceeded).toEqual([
      'graviton',
    ]);
    expect(
      parseKarpenterMessage('all available instance types exceed limits for nodepool (NodePool=linux-x64)').limitsExceeded,
    ).toEqual(['linux-x64']);
    expect(parseKarpenterMessage('node limits have been exhausted for nodepool (NodePool=batch)').limitsExceeded).toEqual([
      'batch',
    ]);
  });

  it('splits multierr lists across NodePools', () => {
    const k = parseKarpenterMessage(
      'Failed to schedule pod, incompatible with nodepool "system", daemonset overhead={"cpu":"821m","memory":"1350Mi","pods":"10"}, did not tolerate workload-type=ci-runner:NoSchedule; all available instance types exceed limits for nodepool "graviton"; incompatible with nodepool "gpu", daemonset overhead={}, incompatible requirements, key node.kubernetes.io/instance-type, node.kubernetes.io/instance-type In [g6e.4xlarge] not in node.kubernetes.io/instance-type In [g6.2xlarge g6.xlarge]',
    );
    expect(k.incompatible.map((i) => i.nodePool)).toEqual(['system', 'gpu']);
    expect(k.limitsExceeded).toEqual(['graviton']);
    expect(incompatibilitySubject(k.incompatible[0]?.detail ?? '')).toEqual({ taint: 'workload-type=ci-runner:NoSchedule' });
    expect(incompatibilitySubject(k.incompatible[1]?.detail ?? '')).toEqual({ label: 'node.kubernetes.io/instance-type' });
  });

  it('reads "no nodepools found" and nodeclass readiness', () => {
    expect(parseKarpenterMessage('no nodepools found').noNodePools).toBe(true);
    expect(parseKarpenterMessage('Failed to schedule pod, NodeClass is not ready').nodeClassNotReady).toBe(true);
    expect(parseKarpenterMessage(undefined)).toEqual({
      incompatible: [],
      limitsExceeded: [],
      noNodePools: false,
      nodeClassNotReady: false,
      instanceTypes: [],
      topology: [],
      other: [],
    });
  });
});

describe('latestFailedScheduling', () => {
  it('picks the newest event of the asked component', () => {
    const events = [
      event({ kind: 'Pod', name: 'p', namespace: 'a', reason: 'FailedScheduling', message: 'old', lastTime: T0 }),
      event({
        kind: 'Pod',
        name: 'p',
        namespace: 'a',
        reason: 'FailedScheduling',
        message: 'new',
        lastTime: minutesAfter(T0, 5),
      }),
      event({
        kind: 'Pod',
        name: 'p',
        namespace: 'a',
        reason: 'FailedScheduling',
        message: 'karpenter says',
        source: 'karpenter',
        lastTime: minutesAfter(T0, 9),
      }),
      event({
        kind: 'Pod',
        name: 'p',
        namespace: 'a',
        reason: 'Nominated',
        message: 'Pod should schedule on: nodeclaim/default-x',
        source: 'karpenter',
        lastTime: minutesAfter(T0, 10),
      }),
    ];
    expect(latestFailedScheduling(events, 'kube-scheduler')?.message).toBe('new');
    expect(latestFailedScheduling(events, 'karpenter')?.message).toBe('karpenter says');
    expect(latestFailedScheduling(events, 'fargate-scheduler')).toBeUndefined();
  });
});
