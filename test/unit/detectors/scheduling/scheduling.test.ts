import { describe, expect, it } from 'vitest';
import {
  evaluateNode,
  isCandidate,
  podRequests,
  requirementMatches,
  tolerates,
  untoleratedTaints,
  type FitOptions,
} from '../../../../src/detectors/scheduling/scheduling.ts';
import type { Node, Pod } from '../../../../src/domain/kube.ts';
import { karpenterPod, node, pod } from '../../../factories/kube.ts';

/** The Karpenter Helm chart's scheduling defaults (charts/karpenter/values.yaml). */
const CHART_SPEC = {
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }],
      },
    },
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          topologyKey: 'kubernetes.io/hostname',
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' } },
        },
      ],
    },
  },
};

function options(nodes: Node[], bound: Pod[], checkResources = false): FitOptions {
  const podsByNode = new Map<string, Pod[]>();
  for (const p of bound) podsByNode.set(p.spec?.nodeName ?? '', [...(podsByNode.get(p.spec?.nodeName ?? '') ?? []), p]);
  return {
    podsByNode,
    nodesByName: new Map(nodes.map((n) => [n.metadata?.name ?? '', n])),
    antiAffinityPeers: bound,
    checkResources,
  };
}

describe('tolerations', () => {
  it('follow Kubernetes semantics', () => {
    const taint = { key: 'workload-type', value: 'system', effect: 'NoSchedule' };
    expect(tolerates({ key: 'workload-type', operator: 'Equal', value: 'system', effect: 'NoSchedule' }, taint)).toBe(true);
    expect(tolerates({ key: 'workload-type', value: 'system' }, taint)).toBe(true);
    expect(tolerates({ key: 'workload-type', operator: 'Exists' }, taint)).toBe(true);
    expect(tolerates({ operator: 'Exists' }, taint)).toBe(true);
    expect(tolerates({ key: 'workload-type', operator: 'Equal', value: 'apps', effect: 'NoSchedule' }, taint)).toBe(false);
    expect(tolerates({ key: 'workload-type', operator: 'Exists', effect: 'NoExecute' }, taint)).toBe(false);
  });

  it('match any key when theirs is empty or missing, as Toleration.ToleratesTaint does', () => {
    const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
    // Exists with no key: every taint (of its effect, when it names one).
    expect(tolerates({ key: '', operator: 'Exists' }, taint)).toBe(true);
    expect(tolerates({ operator: 'Exists', effect: 'NoSchedule' }, taint)).toBe(true);
    expect(tolerates({ operator: 'Exists', effect: 'NoExecute' }, taint)).toBe(false);
    // Equal with no key (the API server refuses it, a capture may hold it): the values alone decide.
    expect(tolerates({ value: 'gpu' }, taint)).toBe(true);
    expect(tolerates({ operator: 'Equal' }, taint)).toBe(false);
    expect(tolerates({ operator: 'Equal' }, { key: 'dedicated', effect: 'NoSchedule' })).toBe(true);
    // An unknown operator tolerates nothing.
    expect(tolerates({ operator: 'In' }, taint)).toBe(false);
  });

  it('ignore PreferNoSchedule taints', () => {
    expect(
      untoleratedTaints(
        [],
        [
          { key: 'a', effect: 'PreferNoSchedule' },
          { key: 'b', value: 'x', effect: 'NoExecute' },
        ],
      ),
    ).toEqual([{ key: 'b', value: 'x', effect: 'NoExecute' }]);
  });
});

describe('node affinity requirements', () => {
  it('support every operator', () => {
    expect(requirementMatches({ key: 'k', operator: 'In', values: ['a'] }, 'a')).toBe(true);
    expect(requirementMatches({ key: 'k', operator: 'NotIn', values: ['a'] }, undefined)).toBe(true);
    expect(requirementMatches({ key: 'k', operator: 'DoesNotExist' }, 'x')).toBe(false);
    expect(requirementMatches({ key: 'k', operator: 'Exists' }, '')).toBe(true);
    expect(requirementMatches({ key: 'k', operator: 'Gt', values: ['3'] }, '4')).toBe(true);
    expect(requirementMatches({ key: 'k', operator: 'Lt', values: ['3'] }, 'x')).toBe(false);
  });
});

describe('evaluateNode', () => {
  const system = node({
    name: 'ip-10-59-127-151.ec2.internal',
    labels: { role: 'system', 'eks.amazonaws.com/nodegroup': 'system' },
  });

  it('accepts a chart-default controller on a clean system node', () => {
    const p = karpenterPod({ name: 'karpenter-5697769d6c-7lglp', spec: CHART_SPEC });
    expect(evaluateNode(p, system, options([system], [])).failures).toEqual([]);
  });

  it('reports the replica already on the node under required anti-affinity (seed: 2 replicas, 1 node)', () => {
    const running = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: system.metadata?.name, spec: CHART_SPEC });
    const pending = karpenterPod({ name: 'karpenter-5697769d6c-7lglp', spec: CHART_SPEC });
    const fit = evaluateNode(pending, system, options([system], [running]));
    expect(fit.failures.map((f) => f.kind)).toEqual(['anti-affinity']);
    expect(fit.failures[0]?.detail).toContain('karpenter/karpenter-5697769d6c-cdwct already runs on this node');
    expect(isCandidate(fit)).toBe(true);
  });

  it('reports untolerated taints, selector mismatches and Karpenter-managed nodes', () => {
    const tainted = node({
      name: 'sys-1',
      labels: { 'workload-type': 'system' },
      taints: [{ key: 'workload-type', value: 'system', effect: 'NoSchedule' }],
    });
    const karpenterNode = node({ name: 'kp-1', labels: { 'karpenter.sh/nodepool': 'default' } });
    const p = karpenterPod({ name: 'karpenter-x-1', spec: { ...CHART_SPEC, nodeSelector: { 'workload-type': 'system' } } });
    const onTainted = evaluateNode(p, tainted, options([tainted], []));
    expect(onTainted.failures).toEqual([
      {
        kind: 'taint',
        detail: 'taint workload-type=system:NoSchedule',
        taint: { key: 'workload-type', value: 'system', effect: 'NoSchedule' },
      },
    ]);
    const onKarpenterNode = evaluateNode(p, karpenterNode, options([karpenterNode], []));
    expect(onKarpenterNode.failures.map((f) => [f.kind, f.detail])).toEqual([
      ['node-selector', 'nodeSelector workload-type=system: node has no workload-type label'],
      ['node-affinity', 'required node affinity karpenter.sh/nodepool DoesNotExist not met'],
    ]);
    expect(isCandidate(onKarpenterNode)).toBe(false);
  });

  it('reports nodes that are not Ready, cordoned or Fargate', () => {
    const p = pod({ name: 'w' });
    const down = node({ name: 'down', ready: false });
    const fargate = node({ name: 'fargate-ip-10-0-1-1.ec2.internal', labels: { 'eks.amazonaws.com/compute-type': 'fargate' } });
    expect(evaluateNode(p, down, options([down], [])).failures.map((f) => f.kind)).toEqual(['not-ready']);
    expect(evaluateNode(p, fargate, options([fargate], [])).failures.map((f) => f.kind)).toEqual(['fargate']);
  });

  it('compares requests with free allocatable only when asked', () => {
    const small = node({ name: 'small', allocatable: { cpu: '1930m', memory: '3388304Ki', pods: '17' } });
    const hog = pod({
      name: 'hog',
      nodeName: 'small',
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1500m', memory: '1Gi' } } }] },
    });
    const p = karpenterPod({
      name: 'karpenter-x-1',
      spec: { containers: [{ name: 'controller', resources: { requests: { cpu: '500m', memory: '1Gi' } } }] },
    });
    expect(evaluateNode(p, small, options([small], [hog], false)).failures).toEqual([]);
    const fit = evaluateNode(p, small, options([small], [hog], true));
    expect(fit.failures.map((f) => f.detail)).toEqual([
      'Insufficient cpu on small: requests 500m, free 430m of 1930m allocatable',
    ]);
  });

  it('sums containers and takes the largest init container', () => {
    const p = pod({
      name: 'w',
      spec: {
        containers: [
          { name: 'a', resources: { requests: { cpu: '100m', memory: '128Mi' } } },
          { name: 'b', resources: { requests: { cpu: '200m' } } },
        ],
        initContainers: [{ name: 'init', resources: { requests: { cpu: '1', memory: '64Mi' } } }],
      },
    });
    expect(podRequests(p)).toEqual({ cpu: 1, memory: 128 * 2 ** 20 });
  });
});
