/** Record factories for Karpenter custom resources (karpenter.sh/v1, karpenter.k8s.aws/v1). */
import type {
  Condition,
  EC2NodeClass,
  NodeClaim,
  NodePool,
  NodePoolDisruption,
  NodeSelectorRequirementWithMinValues,
  SelectorTerm,
  Taint,
} from '../../src/domain/kube.ts';
import { T0, condition } from './kube.ts';

export function nodeClaim(input: {
  name: string;
  nodePool?: string;
  nodeClass?: string;
  instanceId?: string;
  zone?: string;
  nodeName?: string;
  createdAt?: string;
  conditions?: Condition[];
}): NodeClaim {
  const zone = input.zone ?? 'us-east-1a';
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: input.name,
      uid: `uid-${input.name}`,
      creationTimestamp: input.createdAt ?? T0,
      labels: { 'karpenter.sh/nodepool': input.nodePool ?? 'default', 'topology.kubernetes.io/zone': zone },
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: input.nodePool ?? 'default', uid: 'uid-np' }],
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: input.nodeClass ?? 'default' },
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
    },
    status: {
      ...(input.instanceId ? { providerID: `aws:///${zone}/${input.instanceId}` } : {}),
      ...(input.nodeName ? { nodeName: input.nodeName } : {}),
      conditions: input.conditions ?? [
        condition('Launched', 'True'),
        condition('Registered', 'True'),
        condition('Initialized', 'True'),
        condition('Ready', 'True'),
      ],
    },
  };
}

/** Conditions of a NodeClaim whose instance launched at `launchedAt` but whose Node never registered. */
export function unregisteredConditions(launchedAt: string = T0): Condition[] {
  return [
    condition('Launched', 'True', { lastTransitionTime: launchedAt }),
    condition('Registered', 'Unknown', {
      reason: 'NodeNotFound',
      message: 'Node not registered with cluster',
      lastTransitionTime: launchedAt,
    }),
    condition('Initialized', 'Unknown', {
      reason: 'NodeNotFound',
      message: 'Node not registered with cluster',
      lastTransitionTime: launchedAt,
    }),
    condition('Ready', 'Unknown', {
      reason: 'UnhealthyDependents',
      message: 'Registered=Unknown, Initialized=Unknown',
      lastTransitionTime: launchedAt,
    }),
  ];
}

/** Conditions of a NodeClaim whose Node registered at `registeredAt` but never initialised. */
export function uninitializedConditions(reason: string, message: string, registeredAt: string = T0): Condition[] {
  return [
    condition('Launched', 'True', { lastTransitionTime: registeredAt }),
    condition('Registered', 'True', { lastTransitionTime: registeredAt }),
    condition('Initialized', 'Unknown', { reason, message, lastTransitionTime: registeredAt }),
    condition('Ready', 'Unknown', {
      reason: 'UnhealthyDependents',
      message: 'Initialized=Unknown',
      lastTransitionTime: registeredAt,
    }),
  ];
}

export function nodePool(input: {
  name: string;
  nodeClass?: string;
  limits?: Record<string, string>;
  resources?: Record<string, string>;
  conditions?: Condition[];
  /** Added to the default capacity-type and arch requirements. */
  requirements?: NodeSelectorRequirementWithMinValues[];
  startupTaints?: Taint[];
  /** `spec.disruption` as written (absent: Karpenter's defaults apply). */
  disruption?: NodePoolDisruption;
}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: input.name, uid: `uid-${input.name}`, creationTimestamp: T0 },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: input.nodeClass ?? 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            ...(input.requirements ?? []),
          ],
          ...(input.startupTaints ? { startupTaints: input.startupTaints } : {}),
        },
      },
      ...(input.limits ? { limits: input.limits } : {}),
      ...(input.disruption ? { disruption: input.disruption } : {}),
    },
    status: {
      resources: input.resources ?? { cpu: '0', memory: '0', nodes: '0', pods: '0' },
      conditions: input.conditions ?? [
        condition('NodeClassReady', 'True'),
        condition('ValidationSucceeded', 'True'),
        condition('NodeRegistrationHealthy', 'True'),
        condition('Ready', 'True'),
      ],
    },
  };
}

export function ec2NodeClass(input: {
  name: string;
  role?: string;
  instanceProfile?: string;
  amiSelectorTerms?: SelectorTerm[];
  conditions?: Condition[];
  amis?: { id: string; name: string }[];
  /** `status.subnets`, as Karpenter resolved them (none unless told). */
  subnets?: { id: string; zone?: string; zoneID?: string }[];
  subnetSelectorTerms?: SelectorTerm[];
}): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: input.name, uid: `uid-${input.name}`, creationTimestamp: T0 },
    spec: {
      amiFamily: 'AL2023',
      amiSelectorTerms: input.amiSelectorTerms ?? [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: input.subnetSelectorTerms ?? [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      ...(input.instanceProfile ? { instanceProfile: input.instanceProfile } : { role: input.role ?? 'KarpenterNodeRole-demo' }),
    },
    status: {
      amis: input.amis ?? [{ id: 'ami-071a9f2683c2da4bd', name: 'amazon-eks-node-al2023-x86_64-standard-1.32-v20251120' }],
      ...(input.subnets ? { subnets: input.subnets } : {}),
      conditions: input.conditions ?? [
        condition('AMIsReady', 'True'),
        condition('SubnetsReady', 'True'),
        condition('SecurityGroupsReady', 'True'),
        condition('InstanceProfileReady', 'True'),
        condition('ValidationSucceeded', 'True'),
        condition('Ready', 'True'),
      ],
    },
  };
}

/** EKS Auto Mode's built-in NodeClass, as its NodePools and NodeClaims reference it. */
const AUTO_MODE_NODECLASS_REF = { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' };

/** A NodePool of EKS Auto Mode (Karpenter run by AWS): it references an `eks.amazonaws.com` NodeClass. */
export function autoModeNodePool(input: Parameters<typeof nodePool>[0]): NodePool {
  const np = nodePool(input);
  const spec = np.spec?.template?.spec;
  if (spec) spec.nodeClassRef = { ...AUTO_MODE_NODECLASS_REF, name: input.nodeClass ?? 'default' };
  return np;
}

/** A NodeClaim EKS Auto Mode launched. */
export function autoModeNodeClaim(input: Parameters<typeof nodeClaim>[0]): NodeClaim {
  const nc = nodeClaim(input);
  if (nc.spec) nc.spec.nodeClassRef = { ...AUTO_MODE_NODECLASS_REF, name: input.nodeClass ?? 'default' };
  return nc;
}
