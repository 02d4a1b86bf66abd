import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/domain/errors.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { karpenterDeployment, karpenterPod } from '../../factories/kube.ts';
import { captureDir, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const describeCluster = (name: string) => ({
  cluster: { name, status: 'ACTIVE', accessConfig: { authenticationMode: 'CONFIG_MAP' } },
});

const taggedInstances = (...clusters: string[]) => ({
  Reservations: [
    {
      Instances: clusters.map((cluster, i) => ({
        InstanceId: `i-0${i}d1ff6c07a0e70f9`,
        State: { Code: 16, Name: 'running' },
        Tags: [
          { Key: 'eks:eks-cluster-name', Value: cluster },
          { Key: 'karpenter.sh/nodepool', Value: 'default' },
        ],
      })),
    },
  ],
});

const controllerWithClusterName = (clusterName: string) =>
  karpenterDeployment({
    spec: {
      containers: [
        {
          name: 'controller',
          env: [
            { name: 'CLUSTER_NAME', value: clusterName },
            { name: 'LOG_LEVEL', value: 'info' },
          ],
        },
      ],
    },
  });

describe('loadSnapshot: which cluster the capture is for', () => {
  it('prefers --cluster over everything the capture says (when describe-cluster is absent)', async () => {
    // Prepare
    const dir = await captureDir({
      'deploy.json': kubeList([controllerWithClusterName('from-env')]),
      'instances.json': taggedInstances('from-tag'),
    });

    // Act
    const { snapshot } = await loadSnapshot([dir], { clusterName: 'from-option' });

    // Assess
    expect(snapshot.clusterName).toBe('from-option');
  });

  it('accepts --cluster that agrees with describe-cluster', async () => {
    // Prepare
    const dir = await captureDir({ 'cluster.json': describeCluster('aws-2026-eks') });

    // Act
    const { snapshot } = await loadSnapshot([dir], { clusterName: 'aws-2026-eks' });

    // Assess
    expect(snapshot.clusterName).toBe('aws-2026-eks');
  });

  it('rejects --cluster that disagrees with describe-cluster, naming both', async () => {
    // Prepare
    const dir = await captureDir({ 'cluster.json': describeCluster('aws-2026-eks') });

    // Act
    const loading = loadSnapshot([dir], { clusterName: 'pattern-infra-eks-dev' });

    // Assess
    await expect(loading).rejects.toThrow(UsageError);
    await expect(loading).rejects.toThrow(/pattern-infra-eks-dev.*aws-2026-eks/);
  });

  it('takes describe-cluster over the controller env and instance tags', async () => {
    // Prepare
    const dir = await captureDir({
      'cluster.json': describeCluster('aws-2026-eks'),
      'deploy.json': kubeList([controllerWithClusterName('from-env')]),
      'instances.json': taggedInstances('from-tag'),
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.clusterName).toBe('aws-2026-eks');
  });

  it('says so when describe-cluster (or --cluster) and the Karpenter controller name different clusters', async () => {
    // Prepare
    const dir = await captureDir({
      'cluster.json': describeCluster('acme-prod'),
      'deploy.json': kubeList([controllerWithClusterName('acme-staging')]),
    });
    const agreeing = await captureDir({
      'cluster.json': describeCluster('acme-prod'),
      'deploy.json': kubeList([controllerWithClusterName('acme-prod')]),
    });

    // Act
    const mixed = await loadSnapshot([dir]);
    const viaOption = await loadSnapshot([join(dir, 'deploy.json')], { clusterName: 'acme-prod' });
    const same = await loadSnapshot([agreeing]);

    // Assess
    expect(mixed.snapshot.clusterName).toBe('acme-prod');
    expect(mixed.notices).toEqual([
      'aws eks describe-cluster names cluster acme-prod, but the Karpenter controller in the capture is configured for acme-staging (CLUSTER_NAME): was kubectl pointed at another cluster?',
    ]);
    expect(viaOption.notices).toEqual([expect.stringMatching(/^--cluster names cluster acme-prod, but .* acme-staging/)]);
    expect(same.notices).toEqual([]);
  });

  it("takes the Karpenter controller's CLUSTER_NAME (Deployment or pod) over instance tags", async () => {
    // Prepare
    const controllerPod = karpenterPod({
      name: 'karpenter-5697769d6c-7lglp',
      spec: { containers: [{ name: 'controller', env: [{ name: 'CLUSTER_NAME', value: 'from-pod-env' }] }] },
    });
    const fromDeployment = await captureDir({
      'deploy.json': kubeList([controllerWithClusterName('from-env')]),
      'instances.json': taggedInstances('from-tag'),
    });
    const fromPod = await captureDir({ 'pods.json': kubeList([controllerPod]), 'instances.json': taggedInstances('from-tag') });

    // Act
    const [a, b] = await Promise.all([loadSnapshot([fromDeployment]), loadSnapshot([fromPod])]);

    // Assess
    expect(a.snapshot.clusterName).toBe('from-env');
    expect(b.snapshot.clusterName).toBe('from-pod-env');
  });

  it('ignores CLUSTER_NAME on Deployments that are not the Karpenter controller', async () => {
    // Prepare
    const other = {
      ...controllerWithClusterName('not-karpenter'),
      metadata: { name: 'other', namespace: 'default', labels: { app: 'other' } },
    };
    other.spec = { ...other.spec, template: { ...other.spec?.template, metadata: { labels: { app: 'other' } } } };
    const dir = await captureDir({ 'deploy.json': kubeList([other]) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.clusterName).toBe('unknown');
  });

  it("falls back to the instances' single eks:eks-cluster-name tag", async () => {
    // Prepare
    const dir = await captureDir({ 'instances.json': taggedInstances('aws-2026-eks', 'aws-2026-eks') });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.clusterName).toBe('aws-2026-eks');
  });

  it('refuses to guess when instances are tagged for several clusters', async () => {
    // Prepare
    const dir = await captureDir({ 'instances.json': taggedInstances('b-cluster', 'a-cluster', 'b-cluster') });

    // Act
    const loading = loadSnapshot([dir]);

    // Assess
    await expect(loading).rejects.toThrow(UsageError);
    await expect(loading).rejects.toThrow(
      'cannot tell which cluster this capture is for (instances tagged for a-cluster, b-cluster): pass --cluster NAME',
    );
  });

  it('lets --cluster settle instances tagged for several clusters', async () => {
    // Prepare
    const dir = await captureDir({ 'instances.json': taggedInstances('a-cluster', 'b-cluster') });

    // Act
    const { snapshot } = await loadSnapshot([dir], { clusterName: 'a-cluster' });

    // Assess
    expect(snapshot.clusterName).toBe('a-cluster');
  });

  it("is 'unknown' when nothing names the cluster", async () => {
    // Prepare
    const dir = await captureDir({ 'instances.json': { Reservations: [] } });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.clusterName).toBe('unknown');
  });

  it('rejects a capture describing two different clusters', async () => {
    // Prepare
    const dir = await captureDir({
      'a.json': describeCluster('aws-2026-eks'),
      'b.txt':
        'An error occurred (ResourceNotFoundException) when calling the DescribeCluster operation: No cluster found for name: acme-prod.',
    });

    // Act
    const loading = loadSnapshot([dir]);

    // Assess
    await expect(loading).rejects.toThrow(UsageError);
    await expect(loading).rejects.toThrow('acme-prod, aws-2026-eks');
  });
});
