import { describe, expect, it } from 'vitest';
import { controllerPending } from '../../../../src/detectors/karpenter-controller-pending/detector.ts';
import type { Node, PodSpec } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { T0, karpenterPod, minutesAfter, node, pod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

/**
 * A Karpenter meant for Fargate without the Fargate toleration and no scheduler message
 * (test/incidents/fargate-taint-karpenter-pods-pending): every node is a Fargate node whose taint
 * the pods do not tolerate.
 */
const NOW = minutesAfter(T0, 30);
const FARGATE_TAINT = { key: 'eks.amazonaws.com/compute-type', value: 'fargate', effect: 'NoSchedule' };
const TOLERATION = '{"key":"eks.amazonaws.com/compute-type","operator":"Equal","value":"fargate","effect":"NoSchedule"}';

function fargateNode(name: string): Node {
  return node({
    name,
    labels: { 'eks.amazonaws.com/compute-type': 'fargate' },
    taints: [FARGATE_TAINT],
    allocatable: { cpu: '2', memory: '3943372Ki', pods: '1' },
  });
}

function snapshot(spec: Partial<PodSpec>, nodes: Node[]): ClusterSnapshot {
  const corednsOn = (nodeName: string, n: number) =>
    pod({ name: `coredns-7975d6fb9b-${n}`, namespace: 'kube-system', nodeName, spec: { tolerations: [{ operator: 'Exists' }] } });
  return snapshotOf({
    pods: [
      karpenterPod({ name: 'karpenter-b8796757b-7gpr2', spec, unschedulableMessage: '' }),
      ...nodes.filter((n) => n.metadata?.name?.startsWith('fargate-')).map((n, i) => corednsOn(n.metadata?.name ?? '', i)),
    ],
    nodes,
  });
}

function detect(s: ClusterSnapshot) {
  const [finding] = controllerPending.detect({
    snapshot: s,
    index: new SnapshotIndex(s),
    prices: priceBookOf(s),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  });
  return { finding, steps: finding?.remediation?.steps.join('\n') ?? '' };
}

const CHART: Partial<PodSpec> = { tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }] };
const NODES = [
  fargateNode('fargate-ip-10-0-18-201.eu-west-1.compute.internal'),
  fargateNode('fargate-ip-10-0-41-77.eu-west-1.compute.internal'),
];

describe('KARPENTER_CONTROLLER_PENDING on Fargate nodes only', () => {
  it('UNTOLERATED_TAINT: names the Fargate taint, lists the profiles first, then adds the toleration', () => {
    // Act
    const { finding, steps } = detect(snapshot(CHART, NODES));
    // Assess
    expect(finding?.cause?.code).toBe('UNTOLERATED_TAINT');
    expect(finding?.cause?.detail).toContain('does not tolerate eks.amazonaws.com/compute-type=fargate:NoSchedule');
    expect(finding?.remediation?.steps[0]).toContain('aws eks list-fargate-profiles');
    expect(steps).toContain(TOLERATION);
  });

  it('a pod that already tolerates the Fargate taint: no toleration to add', () => {
    // Prepare
    const tolerating = { tolerations: [...(CHART.tolerations ?? []), { ...FARGATE_TAINT, operator: 'Equal' }] };
    // Act
    const { finding, steps } = detect(snapshot(tolerating, NODES));
    // Assess
    expect(finding?.cause?.code).not.toBe('UNTOLERATED_TAINT');
    expect(steps).not.toContain('add the toleration');
  });

  it('a node that is not Fargate (here NotReady) is another explanation: not the Fargate taint', () => {
    // Prepare
    const nodes = [...NODES, node({ name: 'ip-10-0-7-12.eu-west-1.compute.internal', ready: false })];
    // Act
    const { finding, steps } = detect(snapshot(CHART, nodes));
    // Assess
    expect(finding?.cause?.code).not.toBe('UNTOLERATED_TAINT');
    expect(steps).not.toContain(TOLERATION);
  });
});
