import { describe, expect, it } from 'vitest';
import {
  karpenterLogFacts,
  limitsReached,
  nodeClassProblem,
  nodePoolIncompatibility,
} from '../../../../src/detectors/pods-pending-prolonged/nodepools.ts';
import type { NodePool, Taint } from '../../../../src/domain/kube.ts';
import { logLine } from '../../../factories/aws.ts';
import { ec2NodeClass, nodePool } from '../../../factories/karpenter.ts';
import { condition, pod } from '../../../factories/kube.ts';

function withTemplate(pool: NodePool, labels: Record<string, string>, taints: Taint[] = []): NodePool {
  return {
    ...pool,
    spec: { ...pool.spec, template: { metadata: { labels }, spec: { ...pool.spec?.template?.spec, taints } } },
  };
}

describe('nodePoolIncompatibility', () => {
  const defaultPool = nodePool({ name: 'default' });

  it('accepts pods without constraints and well-known labels Karpenter resolves itself', () => {
    expect(nodePoolIncompatibility(pod({ name: 'a' }), defaultPool)).toBeUndefined();
    expect(
      nodePoolIncompatibility(
        pod({ name: 'b', spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1a' } } }),
        defaultPool,
      ),
    ).toBeUndefined();
    expect(
      nodePoolIncompatibility(
        pod({ name: 'c', spec: { nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' } } }),
        defaultPool,
      ),
    ).toBeUndefined();
  });

  it('rejects a custom label no NodePool defines, in Karpenter words (seed: role)', () => {
    const p = pod({ name: 'a', spec: { nodeSelector: { role: 'system' } } });
    expect(nodePoolIncompatibility(p, defaultPool)).toBe('label "role" does not have known values');
    expect(nodePoolIncompatibility(p, withTemplate(defaultPool, { role: 'system' }))).toBeUndefined();
    expect(nodePoolIncompatibility(p, withTemplate(defaultPool, { role: 'apps' }))).toBe(
      'incompatible requirements, key role, role In [system] not in role In [apps]',
    );
  });

  it('rejects requirements outside the NodePool values', () => {
    const arm = pod({ name: 'a', spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } } });
    expect(nodePoolIncompatibility(arm, defaultPool)).toBe(
      'incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]',
    );
  });

  it('accepts when any required affinity term fits and honours the nodepool name', () => {
    const p = pod({
      name: 'a',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['gpu'] }] },
                { matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] }] },
              ],
            },
          },
        },
      },
    });
    expect(nodePoolIncompatibility(p, defaultPool)).toBeUndefined();
    expect(nodePoolIncompatibility(p, nodePool({ name: 'batch' }))).toContain('karpenter.sh/nodepool');
  });

  it('rejects NodePools whose taints the pod does not tolerate', () => {
    const tainted = withTemplate(defaultPool, {}, [{ key: 'workload-type', value: 'ci-runner', effect: 'NoSchedule' }]);
    expect(nodePoolIncompatibility(pod({ name: 'a' }), tainted)).toBe('did not tolerate workload-type=ci-runner:NoSchedule');
  });
});

describe('limitsReached', () => {
  it('compares status.resources with spec.limits across units', () => {
    expect(
      limitsReached(nodePool({ name: 'd', limits: { cpu: '100', memory: '200Gi' }, resources: { cpu: '100', memory: '180Gi' } })),
    ).toEqual([{ resource: 'cpu', limit: '100', usage: '100' }]);
    expect(limitsReached(nodePool({ name: 'd', limits: { cpu: '8' }, resources: { cpu: '7500m' } }))).toEqual([]);
    expect(limitsReached(nodePool({ name: 'd' }))).toEqual([]);
  });
});

describe('nodeClassProblem', () => {
  it('reads the NodePool NodeClassReady condition first', () => {
    const pool = nodePool({
      name: 'default',
      conditions: [
        condition('NodeClassReady', 'False', { reason: 'NodeClassNotFound', message: 'NodeClass not found on cluster' }),
        condition('Ready', 'False'),
      ],
    });
    expect(nodeClassProblem(pool, undefined)).toBe(
      'NodePool default: NodeClassReady=False (NodeClassNotFound: NodeClass not found on cluster)',
    );
  });

  it('falls back on the EC2NodeClass itself', () => {
    const pool = nodePool({ name: 'default', conditions: [condition('Ready', 'True')] });
    const broken = ec2NodeClass({
      name: 'default',
      conditions: [condition('Ready', 'False', { reason: 'UnhealthyDependents', message: 'AMIsReady=False' })],
    });
    expect(nodeClassProblem(pool, new Map([['default', broken]]))).toBe(
      'EC2NodeClass default: Ready=False (UnhealthyDependents: AMIsReady=False)',
    );
    expect(nodeClassProblem(pool, new Map())).toBe('EC2NodeClass default (used by NodePool default) does not exist');
    expect(nodeClassProblem(pool, new Map([['default', ec2NodeClass({ name: 'default' })]]))).toBeUndefined();
  });
});

describe('karpenterLogFacts', () => {
  it('reads v1 JSON lines and v0.x text', () => {
    const facts = karpenterLogFacts([
      logLine({
        level: 'ERROR',
        message: 'could not schedule pod',
        Pod: { name: 'web-1', namespace: 'shop' },
        error:
          'incompatible with nodepool "default", daemonset overhead={}, incompatible requirements, label "role" does not have known values',
      }),
      logLine({
        level: 'ERROR',
        message: 'Could not schedule pod, all available instance types exceed limits for provisioner: "default"',
        pod: 'shop/web-2',
      }),
      logLine({ level: 'ERROR', message: 'ignoring nodepool, not ready', NodePool: { name: 'spot-pool' } }),
      logLine({ level: 'INFO', message: 'no nodepools found' }),
    ]);
    expect(facts.errorsByPod.get('shop/web-1')?.error).toContain('label "role"');
    expect(facts.errorsByPod.get('shop/web-2')?.error).toBe(
      'all available instance types exceed limits for provisioner: "default"',
    );
    expect([...facts.notReadyPools]).toEqual(['spot-pool']);
    expect(facts.noNodePools).toBe(true);
  });
});
