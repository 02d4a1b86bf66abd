/** NodeClaims, Nodes and EC2 instances consistent with each other, plus the NodePools they belong to. */
import type { Instance, InstanceProfile, LaunchTemplate } from '../../src/domain/aws.ts';
import type {
  Condition,
  EC2NodeClass,
  Node,
  NodeClaim,
  NodePool,
  NodeSelectorRequirementWithMinValues,
} from '../../src/domain/kube.ts';
import { KUBE_SUFFIX_ALPHABET } from '../rng.ts';
import { DAY, HOUR, MINUTE, condition, instanceId, iso, privateAddress, type Generation } from './context.ts';
import {
  SYSTEM_TYPE,
  buildNetwork,
  instanceProfileArn,
  instanceProfileOf,
  karpenterTags,
  launchTemplateOf,
  nodeClassOf,
  nodePoolOf,
  pickWeighted,
  planPools,
  type InstanceTypeSpec,
  type Network,
  type PoolPlan,
} from './pools.ts';

export type { PoolPlan } from './pools.ts';

export interface Fleet {
  pools: PoolPlan[];
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  nodeClaims: NodeClaim[];
  nodes: Node[];
  instances: Instance[];
  instanceProfiles: InstanceProfile[];
  launchTemplates: LaunchTemplate[];
  /** Karpenter nodes that run workload pods. */
  workerNodes: { name: string; pool: PoolPlan }[];
  /** Managed node group nodes (run the Karpenter controller). */
  systemNodes: string[];
  nodeRole: string;
  systemNodeRole: string;
  unmappedNodeRole: string;
}

export function buildFleet(gen: Generation): Fleet {
  const { rng, options } = gen;
  const cluster = options.clusterName;
  const network = buildNetwork(gen);
  const nodeRole = `KarpenterNodeRole-${cluster}`;
  const unmappedNodeRole = `KarpenterNodeRole-${cluster}-v2`;
  const systemNodeRole = `${cluster}-system-node-role`;
  const pools = planPools(gen, network, nodeRole, unmappedNodeRole);
  const fleet: Fleet = {
    pools,
    nodePools: [],
    nodeClasses: [],
    nodeClaims: [],
    nodes: [],
    instances: [],
    instanceProfiles: [],
    launchTemplates: [],
    workerNodes: [],
    systemNodes: [],
    nodeRole,
    systemNodeRole,
    unmappedNodeRole,
  };

  const eligible = pools.filter((p) => p.role === 'general' || p.role === 'limited');
  const unmapped = pools.find((p) => p.role === 'unmapped');
  if (!unmapped || eligible.length === 0) throw new RangeError('the pool plan needs general and unmapped pools');
  const registered = options.nodeClaims - options.unregisteredNodeClaims;
  for (let i = 0; i < registered; i += 1) {
    addClaim(gen, fleet, network, pickWeighted(gen, eligible), gen.nowMs - rng.int(HOUR, 30 * DAY), true);
  }
  for (let i = 0; i < options.unregisteredNodeClaims; i += 1) {
    addClaim(gen, fleet, network, unmapped, gen.nowMs - rng.int(11 * MINUTE + 30_000, 14 * MINUTE), false);
  }
  const systemProfile = `eks-${rng.uuid()}`;
  for (let i = 0; i < options.nodes - registered; i += 1) addSystemNode(gen, fleet, network, systemProfile);
  for (let i = 0; i < options.orphanInstances; i += 1) {
    addStrayInstance(gen, fleet, network, pickWeighted(gen, eligible), 'running', gen.nowMs - rng.int(HOUR, 72 * HOUR));
  }
  for (let i = 0; i < options.terminatedInstances; i += 1) {
    addStrayInstance(gen, fleet, network, pickWeighted(gen, eligible), 'terminated', gen.nowMs - rng.int(DAY, 10 * DAY));
  }
  const templateOfPool = new Map<string, string>();
  for (const pool of pools) {
    fleet.nodePools.push(nodePoolOf(gen, pool));
    fleet.nodeClasses.push(nodeClassOf(gen, pool, network));
    fleet.instanceProfiles.push(
      instanceProfileOf(gen, pool.instanceProfile, pool.nodeRole, {
        ...karpenterTags(gen),
        'karpenter.k8s.aws/ec2nodeclass': pool.nodeClass,
      }),
    );
    if (pool.role !== 'not-ready') {
      const template = launchTemplateOf(gen, pool);
      fleet.launchTemplates.push(template);
      templateOfPool.set(pool.name, template.id);
    }
  }
  addLaunchTags(fleet, templateOfPool);
  fleet.instanceProfiles.push(instanceProfileOf(gen, systemProfile, systemNodeRole, {}));
  return fleet;
}

/**
 * The tags EC2 itself puts on what an EC2 Fleet launched from a launch template: what proves the
 * instances Karpenter's (src/domain/provenance.ts). Added after the fact, from the instance id, so
 * the random sequence and with it every other generated value stay as they were.
 */
function addLaunchTags(fleet: Fleet, templateOfPool: ReadonlyMap<string, string>): void {
  for (const instance of fleet.instances) {
    const template = templateOfPool.get(instance.tags['karpenter.sh/nodepool'] ?? '');
    if (template === undefined) continue;
    instance.tags['aws:ec2:fleet-id'] = `fleet-${instance.id.slice(-8)}-4a52-4e86-a97e-${instance.id.slice(2, 14)}`;
    instance.tags['aws:ec2launchtemplate:id'] = template;
    instance.tags['aws:ec2launchtemplate:version'] = '1';
  }
}

function claimName(gen: Generation, pool: PoolPlan): string {
  return gen.rng.unique(gen.seen.nodeClaims, () => `${pool.name}-${gen.rng.chars(KUBE_SUFFIX_ALPHABET, 5)}`);
}

/** Memory a Node reports for an instance type (a little under the nominal GiB). */
function memoryKiOf(type: InstanceTypeSpec): number {
  return Math.round(type.memoryGi * 1024 * 1024 * 0.96);
}

function capacityOf(type: InstanceTypeSpec): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const memoryKi = memoryKiOf(type);
  return {
    capacity: { cpu: String(type.cpu), 'ephemeral-storage': '20Gi', memory: `${memoryKi}Ki`, pods: String(type.maxPods) },
    allocatable: {
      cpu: `${type.cpu * 1000 - 90}m`,
      'ephemeral-storage': '17Gi',
      memory: `${memoryKi - 1_010_000}Ki`,
      pods: String(type.maxPods),
    },
  };
}

function karpenterLabels(gen: Generation, pool: PoolPlan, type: InstanceTypeSpec, zone: string): Record<string, string> {
  return {
    'karpenter.sh/nodepool': pool.name,
    'karpenter.k8s.aws/ec2nodeclass': pool.nodeClass,
    'karpenter.sh/capacity-type': pool.capacityType,
    'node.kubernetes.io/instance-type': type.name,
    'topology.kubernetes.io/zone': zone,
    'topology.kubernetes.io/region': gen.options.region,
    'kubernetes.io/arch': type.arch,
    'kubernetes.io/os': 'linux',
  };
}

/** The tags Karpenter puts on an instance it launched for NodeClaim `claim` of `pool`. */
function launchedInstanceTags(gen: Generation, pool: PoolPlan, claim: string): Record<string, string> {
  return {
    ...karpenterTags(gen),
    'karpenter.sh/nodepool': pool.name,
    'karpenter.sh/nodeclaim': claim,
    'karpenter.k8s.aws/ec2nodeclass': pool.nodeClass,
    Name: `${pool.name}/${claim}`,
  };
}

function addClaim(gen: Generation, fleet: Fleet, network: Network, pool: PoolPlan, createdMs: number, registers: boolean): void {
  const { rng } = gen;
  const type = rng.pick(pool.types);
  const zone = rng.pick(network.zones);
  const name = claimName(gen, pool);
  const id = instanceId(gen);
  const address = privateAddress(gen);
  const providerID = `aws:///${zone}/${id}`;
  const { capacity, allocatable } = capacityOf(type);
  const claimUid = rng.uuid();
  const conditions: Condition[] = registers
    ? [
        condition('Launched', 'True', createdMs + 5_000),
        condition('Registered', 'True', createdMs + 45_000),
        condition('Initialized', 'True', createdMs + 70_000),
        condition('ConsistentStateFound', 'True', createdMs + 80_000),
        condition('Ready', 'True', createdMs + 70_000),
      ]
    : [
        condition('Launched', 'True', createdMs + 5_000),
        condition('Registered', 'Unknown', createdMs + 5_000, {
          reason: 'NodeNotFound',
          message: 'Node not registered with cluster',
        }),
        condition('Initialized', 'Unknown', createdMs + 5_000, {
          reason: 'NodeNotFound',
          message: 'Node not registered with cluster',
        }),
        condition('Ready', 'Unknown', createdMs + 5_000, {
          reason: 'UnhealthyDependents',
          message: 'Registered=Unknown, Initialized=Unknown',
        }),
      ];
  const requirements: NodeSelectorRequirementWithMinValues[] = [
    { key: 'karpenter.sh/nodepool', operator: 'In', values: [pool.name] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: [pool.capacityType] },
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: pool.types.map((t) => t.name) },
    { key: 'kubernetes.io/arch', operator: 'In', values: [type.arch] },
  ];
  fleet.nodeClaims.push({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      uid: claimUid,
      resourceVersion: String(rng.int(1_000_000, 99_999_999)),
      creationTimestamp: iso(createdMs),
      labels: karpenterLabels(gen, pool, type, zone),
      annotations: {
        'karpenter.k8s.aws/ec2nodeclass-hash': rng.chars('0123456789', 19),
        'karpenter.sh/nodepool-hash': rng.chars('0123456789', 19),
      },
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: pool.name, uid: pool.uid }],
      finalizers: ['karpenter.sh/termination'],
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: pool.nodeClass },
      requirements,
      ...(pool.taint ? { taints: [{ ...pool.taint }] } : {}),
      resources: {
        requests: { cpu: `${rng.int(2, 30) * 100}m`, memory: `${rng.int(2, 24) * 128}Mi`, pods: String(rng.int(3, 20)) },
      },
    },
    status: {
      providerID,
      ...(registers ? { nodeName: address.dnsName } : {}),
      imageID: pool.amiId,
      capacity,
      allocatable,
      conditions,
    },
  });
  fleet.instances.push({
    id,
    state: 'running',
    launchTime: iso(createdMs + 3_000),
    instanceType: type.name,
    availabilityZone: zone,
    privateDnsName: address.dnsName,
    iamInstanceProfileArn: instanceProfileArn(gen, pool.instanceProfile),
    tags: launchedInstanceTags(gen, pool, name),
  });
  pool.used.cpu += type.cpu;
  pool.used.memoryKi += memoryKiOf(type);
  pool.used.nodes += 1;
  if (!registers) return;
  fleet.nodes.push({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: address.dnsName,
      uid: rng.uuid(),
      creationTimestamp: iso(createdMs + 40_000),
      labels: {
        ...karpenterLabels(gen, pool, type, zone),
        'kubernetes.io/hostname': address.dnsName,
        'karpenter.sh/registered': 'true',
        'karpenter.sh/initialized': 'true',
        'k8s.io/cloud-provider-aws': rng.hex(32),
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name, uid: claimUid }],
      finalizers: ['karpenter.sh/termination'],
    },
    spec: { providerID, ...(pool.taint ? { taints: [{ ...pool.taint }] } : {}) },
    status: { conditions: nodeConditions(createdMs + 60_000), ...capacityOf(type) },
  });
  fleet.workerNodes.push({ name: address.dnsName, pool });
}

function nodeConditions(readyMs: number): Condition[] {
  return [
    condition('MemoryPressure', 'False', readyMs, {
      reason: 'KubeletHasSufficientMemory',
      message: 'kubelet has sufficient memory available',
    }),
    condition('DiskPressure', 'False', readyMs, { reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' }),
    condition('PIDPressure', 'False', readyMs, {
      reason: 'KubeletHasSufficientPID',
      message: 'kubelet has sufficient PID available',
    }),
    condition('Ready', 'True', readyMs, { reason: 'KubeletReady', message: 'kubelet is posting ready status' }),
  ];
}

function addSystemNode(gen: Generation, fleet: Fleet, network: Network, instanceProfile: string): void {
  const { rng, options } = gen;
  const nodeGroup = `${options.clusterName}-system`;
  const zone = network.zones[fleet.systemNodes.length % network.zones.length] as string;
  const id = instanceId(gen);
  const address = privateAddress(gen);
  const createdMs = gen.nowMs - 90 * DAY + rng.int(0, HOUR);
  fleet.nodes.push({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: address.dnsName,
      uid: rng.uuid(),
      creationTimestamp: iso(createdMs + 50_000),
      labels: {
        'eks.amazonaws.com/nodegroup': nodeGroup,
        'eks.amazonaws.com/capacityType': 'ON_DEMAND',
        'node.kubernetes.io/instance-type': SYSTEM_TYPE.name,
        'topology.kubernetes.io/zone': zone,
        'topology.kubernetes.io/region': options.region,
        'kubernetes.io/hostname': address.dnsName,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { providerID: `aws:///${zone}/${id}`, taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }] },
    status: { conditions: nodeConditions(createdMs + 70_000), ...capacityOf(SYSTEM_TYPE) },
  });
  fleet.instances.push({
    id,
    state: 'running',
    launchTime: iso(createdMs),
    instanceType: SYSTEM_TYPE.name,
    availabilityZone: zone,
    privateDnsName: address.dnsName,
    iamInstanceProfileArn: instanceProfileArn(gen, instanceProfile),
    tags: {
      'eks:cluster-name': options.clusterName,
      'eks:nodegroup-name': nodeGroup,
      'aws:autoscaling:groupName': `eks-${nodeGroup}-${rng.uuid()}`,
      [`kubernetes.io/cluster/${options.clusterName}`]: 'owned',
      Name: nodeGroup,
    },
  });
  fleet.systemNodes.push(address.dnsName);
}

/** An instance Karpenter launched whose NodeClaim is gone: still running (an orphan) or terminated. */
function addStrayInstance(
  gen: Generation,
  fleet: Fleet,
  network: Network,
  pool: PoolPlan,
  state: string,
  launchedMs: number,
): void {
  const name = claimName(gen, pool);
  fleet.instances.push({
    id: instanceId(gen),
    state,
    launchTime: iso(launchedMs),
    instanceType: gen.rng.pick(pool.types).name,
    availabilityZone: gen.rng.pick(network.zones),
    ...(state === 'terminated' ? {} : { privateDnsName: privateAddress(gen).dnsName }),
    iamInstanceProfileArn: instanceProfileArn(gen, pool.instanceProfile),
    tags: launchedInstanceTags(gen, pool, name),
  });
}
