/**
 * EKS Auto Mode end to end: capture files as `aws eks describe-cluster` and `kubectl get -o json`
 * print them for an Auto Mode cluster, loaded and analysed like `scan --from`. AWS runs Karpenter
 * there: no controller pod, NodePools on `eks.amazonaws.com` NodeClasses, no EC2NodeClass.
 */
import { describe, expect, it } from 'vitest';
import { awsRunsKarpenter, isAutoModeRef, isEc2NodeClassRef, nodeClassKind } from '../../../src/domain/auto-mode.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { snapshotFromFiles } from '../../../src/snapshot/load.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { ACCOUNT, snapshotOf } from '../../factories/aws.ts';
import { autoModeNodePool, nodePool } from '../../factories/karpenter.ts';
import { T0, minutesAfter, pod } from '../../factories/kube.ts';

const NOW = new Date(minutesAfter(T0, 60));
const AUTO_REF = { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' };

function list(kind: string, items: unknown[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.map((i) => ({ kind, ...(i as object) })) });
}

const describeCluster = JSON.stringify({
  cluster: {
    name: 'auto-demo',
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:cluster/auto-demo`,
    status: 'ACTIVE',
    version: '1.33',
    accessConfig: { authenticationMode: 'API' },
    computeConfig: {
      enabled: true,
      nodePools: ['general-purpose', 'system'],
      nodeRoleArn: `arn:aws:iam::${ACCOUNT}:role/AmazonEKSAutoNodeRole`,
    },
  },
});

const builtInPool = (name: string, ready = 'True') => ({
  apiVersion: 'karpenter.sh/v1',
  metadata: { name, creationTimestamp: T0, labels: { 'app.kubernetes.io/managed-by': 'eks' } },
  spec: {
    template: {
      spec: {
        nodeClassRef: AUTO_REF,
        requirements: [{ key: 'eks.amazonaws.com/instance-category', operator: 'In', values: ['c', 'm', 'r'] }],
      },
    },
  },
  status: {
    conditions: [
      {
        type: 'NodeClassReady',
        status: ready,
        reason: ready === 'True' ? 'NodeClassReady' : 'NodeClassNotReady',
        lastTransitionTime: T0,
      },
      { type: 'Ready', status: ready, reason: ready === 'True' ? 'Ready' : 'UnhealthyDependents', lastTransitionTime: T0 },
    ],
  },
});

const pendingWorkload = {
  apiVersion: 'v1',
  metadata: { name: 'web-7d9f8c6b5-abcde', namespace: 'shop', creationTimestamp: T0 },
  spec: {
    schedulerName: 'default-scheduler',
    nodeSelector: { 'eks.amazonaws.com/compute-type': 'auto' },
    containers: [{ name: 'web' }],
  },
  status: {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/2 nodes are available: 2 Insufficient cpu.',
        lastTransitionTime: T0,
      },
    ],
  },
};

const leftover = JSON.stringify({
  Reservations: [
    {
      Instances: [
        {
          InstanceId: 'i-0aaaaaaaaaaaaaaa1',
          State: { Name: 'running' },
          LaunchTime: T0,
          Tags: [
            { Key: 'eks:eks-cluster-name', Value: 'auto-demo' },
            { Key: 'eks:kubernetes-node-pool-name', Value: 'general-purpose' },
            { Key: 'eks:kubernetes-node-class-name', Value: 'default' },
          ],
        },
      ],
    },
  ],
});

function scan(extra: { path: string; text: string }[] = [], pools = [builtInPool('general-purpose'), builtInPool('system')]) {
  const { snapshot } = snapshotFromFiles([
    { path: 'capture/cluster.json', text: describeCluster },
    { path: 'capture/nodepools.json', text: list('NodePool', pools) },
    { path: 'capture/ec2nodeclasses.json', text: list('EC2NodeClass', []) },
    { path: 'capture/nodeclaims.json', text: list('NodeClaim', []) },
    { path: 'capture/pods.json', text: list('Pod', [pendingWorkload]) },
    { path: 'capture/instances.json', text: leftover },
    ...extra,
  ]);
  return analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW });
}

describe('EKS Auto Mode capture, end to end', () => {
  it('a Pending workload is not blamed on a missing controller, nor on a missing EC2NodeClass', () => {
    // Act
    const report = scan();

    // Assess
    const causes = report.findings.map((f) => `${f.code}/${f.cause?.code}`);
    expect(causes).toEqual(['PODS_PENDING_PROLONGED/UNKNOWN']);
    expect(report.findings.some((f) => f.remediation?.action === 'TERMINATE_INSTANCE')).toBe(false);
  });

  it('a NodePool whose NodeClass is not ready is NODECLASS_NOT_READY from its condition, never NODECLASS_NOT_FOUND', () => {
    const report = scan([], [builtInPool('general-purpose', 'False')]);

    const pool = report.findings.find((f) => f.code === 'NODEPOOL_NOT_READY');
    expect(pool?.cause?.code).toBe('NODECLASS_NOT_READY');
    expect(report.findings.find((f) => f.code === 'PODS_PENDING_PROLONGED')?.cause?.code).toBe('NODECLASS_NOT_READY');
  });
});

describe('nodeClassRef kinds', () => {
  it('tells Auto Mode NodeClasses from EC2NodeClasses, including the v1beta1 name-only form', () => {
    expect(isAutoModeRef(AUTO_REF)).toBe(true);
    expect(isEc2NodeClassRef(AUTO_REF)).toBe(false);
    expect(isEc2NodeClassRef({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' })).toBe(true);
    expect(isEc2NodeClassRef({ name: 'default' })).toBe(true);
    expect(isEc2NodeClassRef({ apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' })).toBe(true);
    expect(isAutoModeRef({ apiVersion: 'eks.amazonaws.com/v1', kind: 'NodeClass', name: 'default' })).toBe(true);
    expect(nodeClassKind(AUTO_REF)).toEqual({ kind: 'NodeClass', resource: 'nodeclasses.eks.amazonaws.com' });
  });

  it('AWS runs Karpenter when describe-cluster says so or an Auto Mode NodePool exists', () => {
    expect(awsRunsKarpenter(snapshotOf({ nodePools: [autoModeNodePool({ name: 'system' })] }))).toBe(true);
    expect(awsRunsKarpenter(snapshotOf({ nodePools: [nodePool({ name: 'default' })], pods: [pod({ name: 'a' })] }))).toBe(false);
  });
});
