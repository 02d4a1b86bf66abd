/** NodePool plans (roles, instance types, taints) and the NodePools, EC2NodeClasses, launch templates and instance profiles they yield. */
import type { InstanceProfile, LaunchTemplate } from '../../src/domain/aws.ts';
import type { Condition, EC2NodeClass, NodePool, Taint } from '../../src/domain/kube.ts';
import { DAY, condition, iso, roleArn, type Generation } from './context.ts';

export interface InstanceTypeSpec {
  name: string;
  cpu: number;
  memoryGi: number;
  arch: 'amd64' | 'arm64';
  maxPods: number;
}

const AMD64_TYPES: InstanceTypeSpec[] = [
  { name: 'm6i.xlarge', cpu: 4, memoryGi: 16, arch: 'amd64', maxPods: 58 },
  { name: 'm6a.2xlarge', cpu: 8, memoryGi: 32, arch: 'amd64', maxPods: 58 },
  { name: 'c6i.2xlarge', cpu: 8, memoryGi: 16, arch: 'amd64', maxPods: 58 },
  { name: 'r6i.xlarge', cpu: 4, memoryGi: 32, arch: 'amd64', maxPods: 58 },
  { name: 'm6i.4xlarge', cpu: 16, memoryGi: 64, arch: 'amd64', maxPods: 234 },
];
const ARM64_TYPES: InstanceTypeSpec[] = [
  { name: 'c7g.2xlarge', cpu: 8, memoryGi: 16, arch: 'arm64', maxPods: 58 },
  { name: 'm7g.xlarge', cpu: 4, memoryGi: 16, arch: 'arm64', maxPods: 58 },
];
const GPU_TYPES: InstanceTypeSpec[] = [
  { name: 'g5.xlarge', cpu: 4, memoryGi: 16, arch: 'amd64', maxPods: 58 },
  { name: 'g5.2xlarge', cpu: 8, memoryGi: 32, arch: 'amd64', maxPods: 58 },
];
export const SYSTEM_TYPE: InstanceTypeSpec = { name: 'm6i.large', cpu: 2, memoryGi: 8, arch: 'amd64', maxPods: 29 };

const POOL_NAMES = [
  'default',
  'general-spot',
  'gpu-inference',
  'ci-runners',
  'batch-amd64',
  'batch-arm64',
  'memory-optimized',
  'compute-optimized',
  'data-pipeline',
  'web-frontend',
  'api-backend',
  'streaming',
  'search',
  'cache',
  'analytics',
  'monitoring',
  'ingress',
  'stateful',
  'ml-training',
  'sandbox',
];

/**
 * `limited` has reached its cpu limit; `unmapped` uses a node role that is in neither aws-auth nor
 * an access entry (its NodeClaims never register); `not-ready` pools use a NodeClass that is not Ready.
 */
type PoolRole = 'general' | 'limited' | 'unmapped' | 'not-ready';

export interface PoolPlan {
  index: number;
  name: string;
  uid: string;
  nodeClass: string;
  role: PoolRole;
  types: InstanceTypeSpec[];
  capacityType: 'spot' | 'on-demand';
  taint?: Taint;
  weight: number;
  nodeRole: string;
  instanceProfile: string;
  amiId: string;
  used: { cpu: number; memoryKi: number; nodes: number };
}

export interface Network {
  zones: string[];
  subnets: { id: string; zone: string }[];
  securityGroup: { id: string; name: string };
  amis: Record<'amd64' | 'arm64' | 'gpu', { id: string; name: string }>;
}

export function buildNetwork(gen: Generation): Network {
  const { rng, options } = gen;
  const zones = ['a', 'b', 'c'].map((z) => `${options.region}${z}`);
  return {
    zones,
    subnets: zones.map((zone) => ({ id: `subnet-0${rng.hex(16)}`, zone })),
    securityGroup: { id: `sg-0${rng.hex(16)}`, name: `eks-cluster-sg-${options.clusterName}-${rng.int(100000000, 999999999)}` },
    amis: {
      amd64: { id: `ami-0${rng.hex(16)}`, name: 'amazon-eks-node-al2023-x86_64-standard-1.32-v20251120' },
      arm64: { id: `ami-0${rng.hex(16)}`, name: 'amazon-eks-node-al2023-arm64-standard-1.32-v20251120' },
      gpu: { id: `ami-0${rng.hex(16)}`, name: 'amazon-eks-node-al2023-x86_64-nvidia-1.32-v20251120' },
    },
  };
}

export function planPools(gen: Generation, network: Network, nodeRole: string, unmappedNodeRole: string): PoolPlan[] {
  const { rng, options } = gen;
  const count = options.nodePools;
  if (count < 3 + options.notReadyNodeClasses) {
    throw new RangeError(`nodePools (${count}) must be at least 3 + notReadyNodeClasses (${options.notReadyNodeClasses})`);
  }
  const pools: PoolPlan[] = [];
  for (let i = 0; i < count; i += 1) {
    const name = POOL_NAMES[i] ?? `pool-${i}`;
    const role: PoolRole =
      i === 1 ? 'limited' : i === 2 ? 'unmapped' : i >= count - options.notReadyNodeClasses ? 'not-ready' : 'general';
    const gpu = name.startsWith('gpu');
    const arm = name.includes('arm64');
    const types = gpu
      ? GPU_TYPES
      : arm
        ? ARM64_TYPES
        : [AMD64_TYPES[i % AMD64_TYPES.length], AMD64_TYPES[(i + 2) % AMD64_TYPES.length]];
    const taint: Taint | undefined = gpu
      ? { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }
      : i === 3 && role === 'general'
        ? { key: 'dedicated', value: name, effect: 'NoSchedule' }
        : undefined;
    pools.push({
      index: i,
      name,
      uid: rng.uuid(),
      nodeClass: name,
      role,
      types: types.filter((t): t is InstanceTypeSpec => t !== undefined),
      capacityType: /spot|batch|ci-/.test(name) ? 'spot' : 'on-demand',
      ...(taint ? { taint } : {}),
      weight: i === 0 ? 6 : 1,
      nodeRole: role === 'unmapped' ? unmappedNodeRole : nodeRole,
      instanceProfile: `${options.clusterName}_${rng.chars('0123456789', 19)}`,
      amiId: (gpu ? network.amis.gpu : arm ? network.amis.arm64 : network.amis.amd64).id,
      used: { cpu: 0, memoryKi: 0, nodes: 0 },
    });
  }
  return pools;
}

export function pickWeighted(gen: Generation, pools: PoolPlan[]): PoolPlan {
  const total = pools.reduce((sum, p) => sum + p.weight, 0);
  let x = gen.rng.next() * total;
  for (const pool of pools) {
    x -= pool.weight;
    if (x < 0) return pool;
  }
  return pools[pools.length - 1] as PoolPlan;
}

function poolConditions(pool: PoolPlan, atMs: number): Condition[] {
  if (pool.role === 'not-ready') {
    return [
      condition('ValidationSucceeded', 'True', atMs),
      condition('NodeClassReady', 'False', atMs, {
        reason: 'NodeClassNotReady',
        message: `EC2NodeClass "${pool.nodeClass}" is not ready`,
      }),
      condition('NodeRegistrationHealthy', 'Unknown', atMs, {
        reason: 'AwaitingReconciliation',
        message: 'object is awaiting reconciliation',
      }),
      condition('Ready', 'False', atMs, { reason: 'UnhealthyDependents', message: 'NodeClassReady=False' }),
    ];
  }
  const registration =
    pool.role === 'unmapped'
      ? condition('NodeRegistrationHealthy', 'False', atMs, {
          reason: 'Unhealthy',
          message: 'Failed to launch node after 15m0s, node registration health check failed',
        })
      : condition('NodeRegistrationHealthy', 'True', atMs);
  return [
    condition('ValidationSucceeded', 'True', atMs),
    condition('NodeClassReady', 'True', atMs),
    registration,
    condition('Ready', 'True', atMs),
  ];
}

export function nodePoolOf(gen: Generation, pool: PoolPlan): NodePool {
  const createdMs = gen.nowMs - 120 * DAY;
  const cpuLimit = pool.role === 'limited' ? pool.used.cpu : 100_000;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: {
      name: pool.name,
      uid: pool.uid,
      creationTimestamp: iso(createdMs),
      annotations: { 'karpenter.sh/nodepool-hash': gen.rng.chars('0123456789', 19), 'karpenter.sh/nodepool-hash-version': 'v3' },
    },
    spec: {
      template: {
        metadata: { labels: { 'example.com/team': pool.name } },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: pool.nodeClass },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: [pool.capacityType] },
            { key: 'kubernetes.io/arch', operator: 'In', values: [...new Set(pool.types.map((t) => t.arch))] },
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: pool.types.map((t) => t.name) },
          ],
          ...(pool.taint ? { taints: [{ ...pool.taint }] } : {}),
        },
      },
      limits: { cpu: String(cpuLimit), memory: `${Math.max(cpuLimit * 8, 1)}Gi` },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
    },
    status: {
      resources: {
        cpu: String(pool.used.cpu),
        memory: `${pool.used.memoryKi}Ki`,
        nodes: String(pool.used.nodes),
        'ephemeral-storage': `${pool.used.nodes * 20}Gi`,
      },
      conditions: poolConditions(pool, createdMs + 30_000),
      nodeClassObservedGeneration: 1,
    },
  };
}

export function nodeClassOf(gen: Generation, pool: PoolPlan, network: Network): EC2NodeClass {
  const { rng, options } = gen;
  const createdMs = gen.nowMs - 120 * DAY;
  const at = createdMs + 20_000;
  const missingSubnets = pool.role === 'not-ready' && pool.index % 2 === 0;
  const missingAmis = pool.role === 'not-ready' && !missingSubnets;
  const discovery = { 'karpenter.sh/discovery': options.clusterName };
  const ami = Object.values(network.amis).find((a) => a.id === pool.amiId);
  const conditions: Condition[] = [
    missingAmis
      ? condition('AMIsReady', 'False', at, { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' })
      : condition('AMIsReady', 'True', at),
    missingSubnets
      ? condition('SubnetsReady', 'False', at, { reason: 'SubnetsNotFound', message: 'SubnetSelector did not match any Subnets' })
      : condition('SubnetsReady', 'True', at),
    condition('SecurityGroupsReady', 'True', at),
    condition('InstanceProfileReady', 'True', at),
    condition('ValidationSucceeded', 'True', at),
    pool.role === 'not-ready'
      ? condition('Ready', 'False', at, {
          reason: 'UnhealthyDependents',
          message: missingAmis ? 'AMIsReady=False' : 'SubnetsReady=False',
        })
      : condition('Ready', 'True', at),
  ];
  const unscopedAmiSelector = pool.role === 'general' && pool.name === POOL_NAMES[4];
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: {
      name: pool.nodeClass,
      uid: rng.uuid(),
      creationTimestamp: iso(createdMs),
      annotations: {
        'karpenter.k8s.aws/ec2nodeclass-hash': rng.chars('0123456789', 19),
        'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4',
      },
      finalizers: ['karpenter.k8s.aws/termination'],
    },
    spec: {
      amiFamily: 'AL2023',
      amiSelectorTerms: unscopedAmiSelector
        ? [{ name: 'amazon-eks-node-al2023-x86_64-standard-1.32-*' }]
        : [{ alias: 'al2023@v20251120' }],
      subnetSelectorTerms: [{ tags: missingSubnets ? { 'karpenter.sh/discovery': `${options.clusterName}-old` } : discovery }],
      securityGroupSelectorTerms: [{ tags: discovery }],
      role: pool.nodeRole,
      tags: { 'example.com/team': pool.name },
    },
    status: {
      amis: missingAmis || !ami ? [] : [{ id: ami.id, name: ami.name, requirements: [] }],
      subnets: missingSubnets ? [] : network.subnets.map((s) => ({ ...s })),
      securityGroups: [{ ...network.securityGroup }],
      instanceProfile: pool.instanceProfile,
      conditions,
    },
  };
}

export function launchTemplateOf(gen: Generation, pool: PoolPlan): LaunchTemplate {
  const cluster = gen.options.clusterName;
  return {
    id: `lt-0${gen.rng.hex(16)}`,
    name: `karpenter.k8s.aws/${gen.rng.chars('0123456789', 19)}`,
    createTime: iso(gen.nowMs - gen.rng.int(1, 30) * DAY),
    tags: {
      'karpenter.k8s.aws/cluster': cluster,
      'eks:eks-cluster-name': cluster,
      'karpenter.k8s.aws/ec2nodeclass': pool.nodeClass,
      'karpenter.sh/managed-by': cluster,
    },
  };
}

export function instanceProfileOf(gen: Generation, name: string, role: string, tags: Record<string, string>): InstanceProfile {
  const { rng, options } = gen;
  return {
    name,
    path: '/',
    arn: instanceProfileArn(gen, name),
    id: `AIPA${rng.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 17)}`,
    createDate: iso(gen.nowMs - 120 * DAY),
    roles: [{ name: role, arn: roleArn(gen, role) }],
    tags: Object.keys(tags).length > 0 ? { ...tags, 'topology.kubernetes.io/region': options.region } : {},
  };
}

export function karpenterTags(gen: Generation): Record<string, string> {
  const cluster = gen.options.clusterName;
  return { 'eks:eks-cluster-name': cluster, [`kubernetes.io/cluster/${cluster}`]: 'owned', 'karpenter.sh/managed-by': cluster };
}

export function instanceProfileArn(gen: Generation, name: string): string {
  return `arn:aws:iam::${gen.options.accountId}:instance-profile/${name}`;
}
