/**
 * Realistic snapshots, one or more per cause code of docs/findings.md, shared by the tests that
 * run every detector at once (cause-code contract, pasteable steps).
 */
import type { CauseCodeOf, FindingCode } from '../../../src/domain/codes.ts';
import type { ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import {
  ACCOUNT,
  cluster,
  fargateProfile,
  forgedInstance,
  instance,
  instanceProfile,
  karpenterSnapshotOf,
  launchTemplate,
  logLine,
  snapshotOf,
  subnet,
} from '../../factories/aws.ts';
import {
  autoModeNodeClaim,
  autoModeNodePool,
  ec2NodeClass,
  nodeClaim,
  nodePool,
  uninitializedConditions,
  unregisteredConditions,
} from '../../factories/karpenter.ts';
import { claimNode, poolWith, runningClaim, webPod } from './disruption-blocked/fixtures.ts';
import { apiServerService, chartWebhook, controllerAt, karpenterService, slice } from './admission-webhook-broken/fixtures.ts';
import {
  QUEUE_ARN,
  V14_NOT_FOUND,
  interruptionSnapshot,
  queue,
  templateRules,
  type Parts,
} from './interruption-handling-off/fixtures.ts';
import { claimOf, kubeletSilent, memoryPressure, networkNotReady, poolNode } from './node-not-ready/fixtures.ts';
import { IDLE, daemonPod, idleClaim, idleNode, idlePool, karpenterEvent, webPodOn } from './consolidation-blocked/fixtures.ts';
import {
  T0,
  awsAuth,
  condition,
  containerStatus,
  crd,
  event,
  karpenterDeployment,
  karpenterPod,
  minutesAfter,
  node,
  pdb,
  pod,
  service,
  volumeAttachment,
  withAnnotations,
} from '../../factories/kube.ts';

function withoutTag<T extends { tags: Record<string, string> }>(resource: T, key: string): T {
  const { [key]: _dropped, ...tags } = resource.tags;
  return { ...resource, tags };
}

/** Karpenter v0.6's reconciler error (pkg/cloudprovider/aws/subnets.go) for Provisioner default. */
const provisionerSubnetsError = (selector: string) =>
  logLine({
    level: 'ERROR',
    time: minutesAfter(T0, 55),
    message: 'Reconciler error',
    'reconciler kind': 'Provisioner',
    name: 'default',
    error: `no subnets matched selector map[${selector}]`,
  });
const provisionerGroupsError = logLine({
  level: 'ERROR',
  time: minutesAfter(T0, 55),
  message:
    'Could not launch node, launching instances, getting launch template configs, getting launch templates, no security groups exist given constraints',
  provisioner: 'default',
});

/** When the scenarios are judged: an hour after their objects appeared. */
export const NOW = new Date(minutesAfter(T0, 60));
const SYSTEM_NODE = 'ip-10-59-127-151.ec2.internal';
const coredns = pod({ name: 'coredns-6b9575c64c-4xk2p', namespace: 'kube-system', nodeName: SYSTEM_NODE });
const runningController = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: SYSTEM_NODE });
const pendingController = (message: string, spec: Parameters<typeof karpenterPod>[0]['spec'] = {}) =>
  karpenterPod({ name: 'karpenter-5697769d6c-7lglp', unschedulableMessage: message, spec });
const workload = (name: string) =>
  pod({ name, namespace: 'shop', unschedulableMessage: '0/1 nodes are available: 1 Insufficient cpu.' });
const bigWorkload = pod({
  name: 'train-1',
  namespace: 'shop',
  unschedulableMessage: '0/1 nodes are available: 1 Insufficient cpu.',
  spec: { containers: [{ name: 'trainer', resources: { requests: { cpu: '96', memory: '64Gi' } } }] },
});
const failingPool = (name: string, ...conditions: ReturnType<typeof condition>[]) =>
  nodePool({ name, conditions: [...conditions, condition('Ready', 'False', { reason: 'UnhealthyDependents' })] });
const failingClass = (name: string, type: string, reason: string) =>
  ec2NodeClass({ name, conditions: [condition(type, 'False', { reason }), condition('Ready', 'False')] });
const failedLaunch = (name: string, reason: string, message: string) =>
  nodeClaim({ name, conditions: [condition('Launched', 'False', { reason, message })] });
const FULL_SUBNET = 'subnet-0c4e1f7a9b2d38e51';
const ROOMY_SUBNET = 'subnet-07d2f9c4a1e6b3058';
const crashingController = (lastTerminated: { reason: string; exitCode: number; message?: string }) =>
  karpenterPod({
    name: 'karpenter-5697769d6c-7lglp',
    nodeName: SYSTEM_NODE,
    ready: false,
    spec: { containers: [{ name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.8.1' }] },
    containerStatuses: [
      containerStatus({
        restarts: 14,
        waiting: 'CrashLoopBackOff',
        lastTerminated: { ...lastTerminated, finishedAt: minutesAfter(T0, 57) },
      }),
    ],
  });
const previousLine = (fields: Record<string, unknown>) => ({
  ...logLine({ level: 'ERROR', time: minutesAfter(T0, 56), ...fields }, 'karpenter-previous.log:1'),
  previous: true as const,
});
const crashing = (lastTerminated: { reason: string; exitCode: number; message?: string }, logs?: ReturnType<typeof logLine>[]) =>
  snapshotOf({
    pods: [coredns, crashingController(lastTerminated)],
    deployments: [karpenterDeployment({ replicas: 1, readyReplicas: 0 })],
    ...(logs ? { logs } : {}),
  });
const NODE_ROLE = `arn:aws:iam::${ACCOUNT}:role/KarpenterNodeRole-demo`;
const mapRoles = (groups: string[]) =>
  `- rolearn: ${NODE_ROLE}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n${groups.map((g) => `    - ${g}\n`).join('')}`;
const stuck = () => nodeClaim({ name: 'default-kb85v', instanceId: 'i-01d1ff6c07a0e70f9', conditions: unregisteredConditions() });
const NEW_NODE = 'ip-10-59-140-22.ec2.internal';
const CILIUM_TAINT = { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' };
const uninitialized = (name: string, nodeName: string, reason: string, message: string) =>
  nodeClaim({
    name,
    nodePool: name.split('-')[0],
    instanceId: 'i-0e5b3c1d2a4f69870',
    nodeName,
    conditions: uninitializedConditions(reason, message),
  });
const registration = { nodePools: [nodePool({ name: 'default' })], nodeClasses: [ec2NodeClass({ name: 'default' })] };
const denied = logLine({
  level: 'ERROR',
  time: T0,
  controller: 'instanceprofile.garbagecollection',
  'aws-error-code': 'AccessDenied',
  error: `listing instance profiles, User is not authorized to perform: iam:ListInstanceProfiles on resource: arn:aws:iam::${ACCOUNT}:instance-profile/`,
});
/** Karpenter's EC2NodeClass validation log line (karpenter-provider-aws #8432) with AWS's access-denied context. */
const deniedWith = (operation: string, context: string) =>
  logLine({
    level: 'ERROR',
    time: T0,
    message: `unauthorized to call ec2:${operation}`,
    controller: 'nodeclass',
    'aws-error-code': 'UnauthorizedOperation',
    error: `api error UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::${ACCOUNT}:assumed-role/KarpenterController-demo/1756500455 is not authorized to perform: ec2:${operation} on resource: arn:aws:ec2:us-east-1:${ACCOUNT}:instance/* ${context}. Encoded authorization failure message: QmFzZTY0YmxvYg`,
  });
const DRAINING_NODE = 'ip-10-59-88-14.ec2.internal';
/** A Node and its NodeClaim Karpenter started deleting at T0 (an hour before NOW), with `pods` on the node. */
const draining = (parts: Parameters<typeof snapshotOf>[0]): ClusterSnapshot => {
  const n = node({
    name: DRAINING_NODE,
    providerID: 'aws:///us-east-1a/i-0d4e5f6a7b8c9d0e1',
    taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }],
  });
  const c = nodeClaim({ name: 'default-q8w2z', instanceId: 'i-0d4e5f6a7b8c9d0e1', nodeName: DRAINING_NODE });
  const gone = { deletionTimestamp: T0, finalizers: ['karpenter.sh/termination'] };
  return snapshotOf({
    nodes: [{ ...n, metadata: { ...n.metadata, ...gone } }, node({ name: SYSTEM_NODE })],
    nodeClaims: [{ ...c, metadata: { ...c.metadata, ...gone } }],
    nodePools: [nodePool({ name: 'default' })],
    pdbs: [],
    volumeAttachments: [],
    ...parts,
  });
};
const onDrainingNode = (name: string, namespace = 'shop', labels: Record<string, string> = { app: 'web' }) =>
  pod({ name, namespace, nodeName: DRAINING_NODE, labels, ownerReplicaSet: `${name.replace(/-[a-z0-9]+$/, '')}` });
const zeroBudget = (name: string, matchLabels: Record<string, string> = { app: 'web' }, disruptionsAllowed = 0) =>
  pdb({
    name,
    namespace: 'shop',
    matchLabels,
    minAvailable: 1,
    disruptionsAllowed,
    currentHealthy: 1,
    desiredHealthy: 1,
    expectedPods: 1,
  });
const webhookCrd = (port: number) =>
  crd({
    plural: 'nodeclaims',
    group: 'karpenter.sh',
    kind: 'NodeClaim',
    webhook: { name: 'karpenter', namespace: 'karpenter', port },
  });

/** Karpenter's two events for each of `n` nodes it consolidated, one every 4 minutes up to 2 minutes before NOW. */
const consolidated = (pool: string, n: number, reason = 'Underutilized') =>
  Array.from({ length: n }, (_, i) => {
    const at = minutesAfter(T0, 58 - 4 * (n - 1 - i));
    const suffix = `${String.fromCharCode(97 + i)}x7k${i % 10}`;
    const common = { reason: 'DisruptionTerminating', type: 'Normal', source: 'karpenter', firstTime: at, lastTime: at };
    return [
      event({ ...common, kind: 'Node', name: `ip-10-59-80-${i + 10}.ec2.internal`, message: `Disrupting Node: ${reason}` }),
      event({ ...common, kind: 'NodeClaim', name: `${pool}-${suffix}`, message: `Disrupting NodeClaim: ${reason}` }),
    ];
  }).flat();

const DRIFTED = 'default-x7k2p';
/** A NodeClaim drifted (AMIDrift) three hours before NOW, with its Node and a web pod, plus `parts`. */
const blockedDrift = (parts: Parameters<typeof snapshotOf>[0]) =>
  snapshotOf({
    nodeClaims: [runningClaim({ name: DRIFTED, drift: { reason: 'AMIDrift', at: minutesAfter(T0, -180) } })],
    nodePools: [poolWith({})],
    nodes: [claimNode(DRIFTED)],
    pods: [webPod(DRIFTED)],
    pdbs: [],
    ...parts,
  });

export type Pair = `${FindingCode}/${string}`;
export interface Scenario {
  name: string;
  snapshot: ClusterSnapshot;
  produces: Pair[];
}

/** One or more realistic snapshots per cause code of docs/findings.md. */
export const SCENARIOS: Scenario[] = [
  {
    name: 'controller kept default-scheduler under an ACTIVE Fargate profile',
    snapshot: snapshotOf({
      pods: [pendingController('no nodes available to schedule pods')],
      fargateProfiles: [fargateProfile({ name: 'karpenter', selectors: [{ namespace: 'karpenter' }] })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/FARGATE_SCHEDULER_RACE'],
  },
  {
    name: 'controller selected by a CREATING Fargate profile',
    snapshot: snapshotOf({
      pods: [pendingController('no nodes available to schedule pods')],
      fargateProfiles: [fargateProfile({ name: 'karpenter', status: 'CREATING', selectors: [{ namespace: 'karpenter' }] })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/FARGATE_PROFILE_NOT_ACTIVE'],
  },
  {
    name: 'controller on fargate-scheduler with no profile',
    snapshot: snapshotOf({
      pods: [pendingController('', { schedulerName: 'fargate-scheduler' })],
      fargateProfiles: [],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/NO_FARGATE_PROFILE_MATCH'],
  },
  {
    name: 'controller Pending on an old "no nodes" while a node fits now',
    snapshot: snapshotOf({
      pods: [pendingController('no nodes available to schedule pods')],
      nodes: [node({ name: SYSTEM_NODE })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/STALE_SCHEDULING'],
  },
  {
    name: 'controller rejected on anti-affinity (nodes not captured)',
    snapshot: snapshotOf({
      pods: [runningController, pendingController("0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.")],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/ANTI_AFFINITY_TOO_FEW_NODES'],
  },
  {
    name: 'controller does not tolerate the system taint',
    snapshot: snapshotOf({
      pods: [pendingController('0/2 nodes are available: 2 node(s) had untolerated taint {workload-type: system}.')],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/UNTOLERATED_TAINT'],
  },
  {
    name: 'controller nodeSelector matches no node',
    snapshot: snapshotOf({
      pods: [pendingController("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.")],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/NODE_SELECTOR_MISMATCH'],
  },
  {
    name: 'controller with no node and no Fargate at all',
    snapshot: snapshotOf({ pods: [pendingController('no nodes available to schedule pods')], nodes: [] }),
    produces: ['KARPENTER_CONTROLLER_PENDING/UNKNOWN'],
  },
  {
    name: 'workload Pending, no controller anywhere',
    snapshot: snapshotOf({ pods: [coredns, workload('web-1')] }),
    produces: ['PODS_PENDING_PROLONGED/CONTROLLER_UNAVAILABLE'],
  },
  {
    name: 'workload Pending, no NodePool',
    snapshot: snapshotOf({ pods: [runningController, workload('web-1')], nodePools: [] }),
    produces: ['PODS_PENDING_PROLONGED/NO_NODEPOOL_MATCH'],
  },
  {
    name: 'workload Pending, NodePool at its limit',
    snapshot: snapshotOf({
      pods: [runningController, workload('web-1')],
      nodePools: [nodePool({ name: 'default', limits: { cpu: '8' }, resources: { cpu: '8' } })],
    }),
    produces: ['PODS_PENDING_PROLONGED/NODEPOOL_LIMIT_REACHED'],
  },
  {
    name: 'workload Pending, EC2NodeClass not ready',
    snapshot: snapshotOf({
      pods: [runningController, workload('web-1')],
      nodePools: [failingPool('default', condition('NodeClassReady', 'False', { reason: 'NodeClassNotReady' }))],
      nodeClasses: [failingClass('default', 'AMIsReady', 'AMINotFound')],
    }),
    produces: [
      'PODS_PENDING_PROLONGED/NODECLASS_NOT_READY',
      'NODEPOOL_NOT_READY/NODECLASS_NOT_READY',
      'NODECLASS_NOT_READY/AMI_NOT_FOUND',
    ],
  },
  {
    name: 'workload Pending, requests 96 CPUs of a NodePool limited to instance-cpu Lt 33',
    snapshot: snapshotOf({
      pods: [runningController, bigWorkload],
      nodePools: [
        nodePool({ name: 'default', requirements: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['33'] }] }),
      ],
      events: [
        event({
          kind: 'Pod',
          namespace: 'shop',
          name: 'train-1',
          reason: 'FailedScheduling',
          source: 'karpenter',
          message:
            'Failed to schedule pod, no instance type has enough resources, requirements=karpenter.k8s.aws/instance-cpu Exists <=32, karpenter.sh/capacity-type In [on-demand], karpenter.sh/nodepool In [default], kubernetes.io/arch In [amd64], kubernetes.io/os In [linux], resources={"cpu":"96150m","pods":"4"}',
        }),
      ],
    }),
    produces: ['PODS_PENDING_PROLONGED/NO_INSTANCE_TYPE_FITS'],
  },
  {
    name: 'workload Pending, its volume in a zone no EC2NodeClass subnet is in',
    snapshot: snapshotOf({
      pods: [runningController, workload('postgres-0')],
      nodePools: [nodePool({ name: 'default' })],
      nodeClasses: [
        ec2NodeClass({
          name: 'default',
          subnets: [
            { id: 'subnet-0a1b2c3d4e5f60001', zone: 'us-east-1a' },
            { id: 'subnet-0a1b2c3d4e5f60002', zone: 'us-east-1b' },
          ],
        }),
      ],
      events: [
        event({
          kind: 'Pod',
          namespace: 'shop',
          name: 'postgres-0',
          reason: 'FailedScheduling',
          source: 'karpenter',
          message:
            'Failed to schedule pod, incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1c] not in topology.kubernetes.io/zone In [us-east-1a us-east-1b]',
        }),
      ],
    }),
    produces: ['PODS_PENDING_PROLONGED/TOPOLOGY_UNSATISFIABLE'],
  },
  {
    name: 'workload Pending, a Ready NodePool could serve it',
    snapshot: snapshotOf({ pods: [runningController, workload('web-1')], nodePools: [nodePool({ name: 'default' })] }),
    produces: ['PODS_PENDING_PROLONGED/UNKNOWN'],
  },
  {
    name: 'node role missing from aws-auth',
    snapshot: snapshotOf({ nodeClaims: [stuck()], ...registration, configMaps: [awsAuth('')] }),
    produces: ['NODECLAIM_NOT_REGISTERED/NODE_ROLE_NOT_MAPPED'],
  },
  {
    name: 'node role mapped without system:bootstrappers',
    snapshot: snapshotOf({ nodeClaims: [stuck()], ...registration, configMaps: [awsAuth(mapRoles(['system:nodes']))] }),
    produces: ['NODECLAIM_NOT_REGISTERED/NODE_ROLE_MAPPING_INVALID'],
  },
  {
    name: 'unregistered instance terminated',
    snapshot: snapshotOf({
      nodeClaims: [stuck()],
      ...registration,
      instances: [instance({ id: 'i-01d1ff6c07a0e70f9', state: 'terminated' })],
    }),
    produces: ['NODECLAIM_NOT_REGISTERED/INSTANCE_NOT_RUNNING'],
  },
  {
    name: 'node role mapped, yet no Node',
    snapshot: snapshotOf({
      nodeClaims: [stuck()],
      ...registration,
      configMaps: [awsAuth(mapRoles(['system:bootstrappers', 'system:nodes']))],
    }),
    produces: ['NODECLAIM_NOT_REGISTERED/UNKNOWN'],
  },
  {
    name: 'registered node whose VPC CNI never came up',
    snapshot: snapshotOf({
      nodeClaims: [uninitialized('default-cn1', NEW_NODE, 'NodeNotReady', 'Node status is NotReady')],
      nodes: [
        node({
          name: NEW_NODE,
          ready: false,
          notReady: {
            reason: 'KubeletNotReady',
            message:
              'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
          },
        }),
      ],
    }),
    produces: ['NODE_NOT_INITIALIZED/CNI_NOT_READY'],
  },
  {
    name: 'Cilium startup taint never removed',
    snapshot: snapshotOf({
      nodeClaims: [
        uninitialized(
          'default-ct1',
          NEW_NODE,
          'StartupTaintsExist',
          'StartupTaint "node.cilium.io/agent-not-ready=true:NoExecute" still exists',
        ),
      ],
      nodes: [node({ name: NEW_NODE, taints: [CILIUM_TAINT] })],
      nodePools: [nodePool({ name: 'default', startupTaints: [CILIUM_TAINT] })],
      pods: [coredns],
    }),
    produces: ['NODE_NOT_INITIALIZED/STARTUP_TAINT_REMAINS'],
  },
  {
    name: 'GPU node without the NVIDIA device plugin',
    snapshot: snapshotOf({
      nodeClaims: [
        uninitialized('gpu-rn1', NEW_NODE, 'ResourceNotRegistered', 'Resource "nvidia.com/gpu" was requested but not registered'),
      ],
    }),
    produces: ['NODE_NOT_INITIALIZED/RESOURCE_NOT_REGISTERED'],
  },
  {
    name: 'registered node NotReady for another reason',
    snapshot: snapshotOf({
      nodeClaims: [uninitialized('default-nr1', NEW_NODE, 'NodeNotReady', 'Node status is NotReady')],
      nodes: [
        node({
          name: NEW_NODE,
          ready: false,
          notReady: { reason: 'KubeletNotReady', message: 'PLEG is not healthy: pleg was last seen active 3m0s ago' },
        }),
      ],
    }),
    produces: ['NODE_NOT_INITIALIZED/NODE_NOT_READY'],
  },
  {
    name: 'registered node not initialised, no reason given',
    snapshot: snapshotOf({
      nodeClaims: [uninitialized('default-un1', NEW_NODE, '', '')],
      nodes: [node({ name: NEW_NODE })],
    }),
    produces: ['NODE_NOT_INITIALIZED/UNKNOWN'],
  },
  {
    name: 'launch failures of every kind',
    snapshot: snapshotOf({
      nodeClaims: [
        failedLaunch('default-aaaaa', 'SpotSLRCreationFailed', 'Instance launch failed'),
        failedLaunch('default-bbbbb', 'LaunchFailed', 'InsufficientInstanceCapacity: no capacity in us-east-1a'),
        failedLaunch('default-ccccc', 'Unauthorized', 'Instance launch failed'),
        failedLaunch('default-ddddd', 'LaunchFailed', 'InvalidAMIID.NotFound: The image id does not exist'),
        failedLaunch('default-eeeee', 'LaunchFailed', 'Security group sg-0a and subnet subnet-0b belong to different networks.'),
        failedLaunch('default-fffff', 'VCPULimitExceeded', 'Instance launch failed'),
        failedLaunch('default-ggggg', 'LaunchFailed', 'Instance launch failed'),
      ],
    }),
    produces: [
      'NODECLAIM_LAUNCH_FAILED/SPOT_SERVICE_LINKED_ROLE_MISSING',
      'NODECLAIM_LAUNCH_FAILED/INSUFFICIENT_CAPACITY',
      'NODECLAIM_LAUNCH_FAILED/UNAUTHORIZED',
      'NODECLAIM_LAUNCH_FAILED/AMI_NOT_FOUND',
      'NODECLAIM_LAUNCH_FAILED/SECURITY_GROUP_SUBNET_VPC_MISMATCH',
      'NODECLAIM_LAUNCH_FAILED/QUOTA_EXCEEDED',
      'NODECLAIM_LAUNCH_FAILED/UNKNOWN',
    ],
  },
  {
    name: 'a subnet out of addresses and EC2 throttling the launches',
    snapshot: snapshotOf({
      nodeClaims: [failedLaunch('default-hhhhh', 'RequestLimitExceeded', 'Error creating fleet request: Request limit exceeded')],
      events: [
        event({
          kind: 'NodeClaim',
          name: 'default-iiiii',
          reason: 'InsufficientCapacityError',
          type: 'Warning',
          message: `NodeClaim default-iiiii event: creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '${FULL_SUBNET}' to satisfy the requested number of instances.`,
        }),
      ],
      nodePools: [nodePool({ name: 'default' })],
      nodeClasses: [
        ec2NodeClass({
          name: 'default',
          subnets: [
            { id: FULL_SUBNET, zone: 'us-east-1a' },
            { id: ROOMY_SUBNET, zone: 'us-east-1b' },
          ],
        }),
      ],
      subnets: [
        subnet({ id: FULL_SUBNET, zone: 'us-east-1a', cidr: '10.0.1.0/24', free: 0 }),
        subnet({ id: ROOMY_SUBNET, zone: 'us-east-1b', free: 8000 }),
      ],
    }),
    produces: [
      'NODECLAIM_LAUNCH_FAILED/SUBNET_IP_EXHAUSTED',
      'NODECLAIM_LAUNCH_FAILED/API_THROTTLED',
      'SUBNET_IPS_LOW/FEW_FREE_ADDRESSES',
    ],
  },
  {
    name: 'EC2NodeClasses failing each sub-condition',
    snapshot: snapshotOf({
      nodeClasses: [
        failingClass('subnets', 'SubnetsReady', 'SubnetsNotFound'),
        failingClass('groups', 'SecurityGroupsReady', 'SecurityGroupsNotFound'),
        failingClass('profile', 'InstanceProfileReady', 'InstanceProfileNotFound'),
        failingClass('invalid', 'ValidationSucceeded', 'InvalidUserData'),
        ec2NodeClass({ name: 'undecided', conditions: [condition('Ready', 'False', { reason: 'Unknown' })] }),
      ],
    }),
    produces: [
      'NODECLASS_NOT_READY/SUBNETS_NOT_FOUND',
      'NODECLASS_NOT_READY/SECURITY_GROUPS_NOT_FOUND',
      'NODECLASS_NOT_READY/INSTANCE_PROFILE_NOT_READY',
      'NODECLASS_NOT_READY/VALIDATION_FAILED',
      'NODECLASS_NOT_READY/UNKNOWN',
    ],
  },
  {
    // test/incidents/eksctl-subnets-missing-discovery-tag and security-group-selector-criteria-anded: no EC2NodeClass yet.
    name: 'Provisioner-era log: no subnet and no security group matches the selectors',
    snapshot: snapshotOf({
      logs: [provisionerSubnetsError('karpenter.sh/discovery:demo-cluster'), provisionerGroupsError],
      subnets: [subnet({ id: 'subnet-0a1b2c3d4e5f60001' })],
    }),
    produces: ['NODECLASS_NOT_READY/SUBNETS_NOT_FOUND', 'NODECLASS_NOT_READY/SECURITY_GROUPS_NOT_FOUND'],
  },
  {
    name: 'Provisioner-era log: no subnet matched, yet a captured subnet carries the tags',
    snapshot: snapshotOf({
      logs: [provisionerSubnetsError('karpenter.sh/discovery:demo')],
      subnets: [subnet({ id: 'subnet-0a1b2c3d4e5f60001' })],
    }),
    produces: ['NODECLASS_NOT_READY/UNKNOWN'],
  },
  {
    name: "EC2NodeClasses explained by Karpenter's own words (Ready message, nodeclass controller log)",
    snapshot: snapshotOf({
      nodeClasses: [
        ec2NodeClass({
          name: 'al2023',
          conditions: [
            condition('Ready', 'False', { reason: 'NodeClassNotReady', message: 'Failed to detect the cluster CIDR' }),
          ],
        }),
        (({ status: _status, ...rest }) => rest)(ec2NodeClass({ name: 'private' })),
      ],
      logs: [
        logLine({
          level: 'ERROR',
          time: minutesAfter(T0, 30),
          message: 'Reconciler error',
          controller: 'nodeclass',
          controllerKind: 'EC2NodeClass',
          EC2NodeClass: { name: 'private' },
          name: 'private',
          error:
            'resolving instance profile, getting instance profile "KarpenterNodeRole-demo", RequestError: send request failed\ncaused by: Post "https://iam.amazonaws.com/": dial tcp 52.46.159.95:443: i/o timeout',
        }),
      ],
    }),
    produces: ['NODECLASS_NOT_READY/CLUSTER_CIDR_NOT_RESOLVED', 'NODECLASS_NOT_READY/IAM_API_UNREACHABLE'],
  },
  {
    name: 'a launch names an instance profile the captured list lacks',
    snapshot: snapshotOf({
      nodeClaims: [
        failedLaunch(
          'default-jjjjj',
          'LaunchFailed',
          'InvalidParameterValue: Value (KarpenterNodeInstanceProfile-demo) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name',
        ),
      ],
      instanceProfiles: [instanceProfile({ name: 'eks-node-group-demo', role: 'eks-node-group-role' })],
    }),
    produces: ['NODECLAIM_LAUNCH_FAILED/INSTANCE_PROFILE_NOT_FOUND'],
  },
  {
    name: 'NodePools not ready for every reason',
    snapshot: snapshotOf({
      nodePools: [
        { ...failingPool('missing'), spec: nodePool({ name: 'missing', nodeClass: 'gone' }).spec },
        failingPool('invalid', condition('ValidationSucceeded', 'False', { reason: 'ValidationFailed', message: 'bad' })),
        failingPool('unexplained'),
      ],
      nodeClasses: [ec2NodeClass({ name: 'default' })],
    }),
    produces: ['NODEPOOL_NOT_READY/NODECLASS_NOT_FOUND', 'NODEPOOL_NOT_READY/VALIDATION_FAILED', 'NODEPOOL_NOT_READY/UNKNOWN'],
  },
  {
    name: 'orphan after terraform destroy removed the controller',
    snapshot: karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })], nodeClaims: [], pods: [coredns] }),
    produces: ['ORPHANED_INSTANCE/CONTROLLER_UNAVAILABLE'],
  },
  {
    name: 'orphan of a cluster being deleted',
    snapshot: karpenterSnapshotOf({
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      nodeClaims: [],
      cluster: cluster({ status: 'DELETING' }),
    }),
    produces: ['ORPHANED_INSTANCE/CLUSTER_GONE'],
  },
  {
    name: 'orphan next to a running controller',
    snapshot: karpenterSnapshotOf({
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      nodeClaims: [],
      pods: [runningController],
    }),
    produces: ['ORPHANED_INSTANCE/NO_NODECLAIM'],
  },
  {
    name: 'instances tagged like Karpenter orphans that nothing proves Karpenter launched',
    snapshot: karpenterSnapshotOf({
      instances: [
        forgedInstance('i-0f00d5ba5e0b1e7a2'),
        withoutTag(instance({ id: 'i-0aaaaaaaaaaaaaaa2' }), 'aws:ec2:fleet-id'),
        withoutTag(instance({ id: 'i-0aaaaaaaaaaaaaaa3' }), 'karpenter.sh/nodeclaim'),
        instance({ id: 'i-0aaaaaaaaaaaaaaa4', launchTemplateId: 'lt-0deleted0000000' }),
        instance({ id: 'i-0aaaaaaaaaaaaaaa5', launchTemplateId: 'lt-0nodegroup00000' }),
      ],
      nodeClaims: [],
      pods: [runningController],
      launchTemplates: [
        launchTemplate({ id: 'lt-0d3e9a7c1b5f28e46' }),
        launchTemplate({ id: 'lt-0nodegroup00000', name: 'eks-system-20260101' }),
      ],
    }),
    produces: [
      'INSTANCE_PROVENANCE_UNPROVEN/NOT_LAUNCHED_FROM_TEMPLATE',
      'INSTANCE_PROVENANCE_UNPROVEN/NOT_LAUNCHED_BY_FLEET',
      'INSTANCE_PROVENANCE_UNPROVEN/KARPENTER_TAGS_MISSING',
      'INSTANCE_PROVENANCE_UNPROVEN/LAUNCH_TEMPLATE_UNKNOWN',
      'INSTANCE_PROVENANCE_UNPROVEN/LAUNCH_TEMPLATE_NOT_KARPENTERS',
    ],
  },
  {
    name: 'controller denied iam:ListInstanceProfiles',
    snapshot: snapshotOf({ logs: [denied] }),
    produces: ['KARPENTER_IAM_DENIED/MISSING_PERMISSION'],
  },
  {
    name: 'controller denied by an SCP (EC2NodeClass validation dry-run)',
    snapshot: snapshotOf({ logs: [deniedWith('RunInstances', 'with an explicit deny in a service control policy')] }),
    produces: ['KARPENTER_IAM_DENIED/DENIED_BY_SCP'],
  },
  {
    name: 'controller denied by its permissions boundary',
    snapshot: snapshotOf({
      logs: [
        deniedWith('CreateFleet', `with an explicit deny in a permissions boundary: arn:aws:iam::${ACCOUNT}:policy/boundary`),
      ],
    }),
    produces: ['KARPENTER_IAM_DENIED/DENIED_BY_PERMISSIONS_BOUNDARY'],
  },
  {
    name: "controller denied by a Deny statement in the role's policies",
    snapshot: snapshotOf({ logs: [deniedWith('CreateLaunchTemplate', 'with an explicit deny in an identity-based policy')] }),
    produces: ['KARPENTER_IAM_DENIED/EXPLICIT_DENY'],
  },
  {
    name: 'controller denied by a VPC endpoint policy',
    snapshot: snapshotOf({
      logs: [deniedWith('RunInstances', 'with an explicit deny in a VPC endpoint policy')],
      cluster: cluster(),
    }),
    produces: ['KARPENTER_IAM_DENIED/DENIED_BY_OTHER_POLICY'],
  },
  {
    name: 'controller denied a call the message names neither action nor policy of',
    snapshot: snapshotOf({
      logs: [
        logLine({
          level: 'ERROR',
          time: T0,
          error:
            'describing subnets, UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: QmFzZTY0YmxvYg',
        }),
      ],
    }),
    produces: ['KARPENTER_IAM_DENIED/DENIED_UNKNOWN_POLICY'],
  },
  {
    name: "controller's web identity refused by its role's trust policy (karpenter-provider-aws #1666)",
    snapshot: snapshotOf({
      logs: [
        logLine({
          level: 'ERROR',
          time: T0,
          message: 'Reconciler error',
          error:
            'fetching instance types using ec2.DescribeInstanceTypes, WebIdentityErr: failed to retrieve credentials\ncaused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity\n\tstatus code: 403, request id: a88c1c3c-e52e-4a72-9baa',
        }),
      ],
    }),
    produces: ['KARPENTER_IAM_DENIED/IRSA_TRUST_POLICY_MISMATCH'],
  },
  {
    name: 'conversion webhook Service missing',
    snapshot: snapshotOf({
      crds: [webhookCrd(8443)],
      services: [service({ name: 'kubernetes', namespace: 'default', ports: [443] })],
    }),
    produces: ['CRD_CONVERSION_WEBHOOK_BROKEN/SERVICE_MISSING'],
  },
  {
    name: 'conversion webhook port not exposed',
    snapshot: snapshotOf({
      crds: [webhookCrd(8443)],
      services: [service({ name: 'karpenter', namespace: 'karpenter', ports: [8000] })],
    }),
    produces: ['CRD_CONVERSION_WEBHOOK_BROKEN/PORT_MISMATCH'],
  },
  {
    name: 'kubectl get nodeclaims saved the conversion webhook error: no pod serves the webhook Service',
    snapshot: {
      ...snapshotOf({}),
      gaps: [
        {
          source: 'nodeclaims',
          error:
            'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.karpenter.svc:8443/?timeout=30s": no endpoints available for service "karpenter"',
        },
      ],
    },
    produces: ['CRD_CONVERSION_WEBHOOK_BROKEN/UNKNOWN'],
  },
  {
    name: 'v0.37 admission webhook configurations left behind under a v1.0.1 controller',
    snapshot: snapshotOf({
      webhookConfigurations: [
        chartWebhook('validation.webhook.karpenter.sh'),
        chartWebhook('defaulting.webhook.karpenter.k8s.aws'),
      ],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: true })],
      pods: [controllerAt('1.0.1')],
    }),
    produces: ['ADMISSION_WEBHOOK_BROKEN/STALE_AFTER_V1_UPGRADE', 'ADMISSION_WEBHOOK_BROKEN/STALE_AFTER_V1_UPGRADE'],
  },
  {
    name: 'admission webhook whose Service is gone, controller version not captured',
    snapshot: snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh')],
      services: [apiServerService],
    }),
    produces: ['ADMISSION_WEBHOOK_BROKEN/SERVICE_MISSING'],
  },
  {
    name: 'admission webhook Service with no ready endpoint (v0.32 controller down)',
    snapshot: snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.k8s.aws')],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: false })],
      pods: [controllerAt('0.32.1')],
    }),
    produces: ['ADMISSION_WEBHOOK_BROKEN/NO_ENDPOINTS'],
  },
  {
    name: 'admission webhook without a caBundle under a v0.37 controller',
    snapshot: snapshotOf({
      webhookConfigurations: [chartWebhook('defaulting.webhook.karpenter.k8s.aws', { caBundle: null })],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: true })],
      pods: [controllerAt('0.37.0')],
    }),
    produces: ['ADMISSION_WEBHOOK_BROKEN/CERTIFICATE_INVALID'],
  },
  {
    name: 'a saved kubectl apply refused by a Karpenter webhook for a reason none of the causes names',
    snapshot: {
      ...snapshotOf({}),
      gaps: [
        {
          source: 'nodepools',
          error:
            'InternalError: Internal error occurred: failed calling webhook "defaulting.webhook.karpenter.k8s.aws": failed to call webhook: Post "https://karpenter.karpenter.svc:8443/default/karpenter.k8s.aws?timeout=10s": Address is not allowed',
        },
      ],
    },
    produces: ['ADMISSION_WEBHOOK_BROKEN/UNKNOWN'],
  },
  {
    name: 'AMIs selected by name without an owner',
    snapshot: snapshotOf({
      nodeClasses: [ec2NodeClass({ name: 'default', amiSelectorTerms: [{ name: 'amazon-eks-node-al2023-*' }] })],
    }),
    produces: ['AMI_SELECTOR_UNSCOPED/NO_OWNER'],
  },
  {
    name: 'EKS Auto Mode cluster with a Pending workload, an unregistered NodeClaim and a foreign instance',
    snapshot: snapshotOf({
      pods: [workload('web-1')],
      nodePools: [autoModeNodePool({ name: 'general-purpose' })],
      nodeClaims: [
        autoModeNodeClaim({ name: 'general-purpose-abcde', nodePool: 'general-purpose', conditions: unregisteredConditions() }),
      ],
      nodeClasses: [],
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1', nodePool: 'general-purpose' })],
      instanceProfiles: [instanceProfile({ name: 'eks-auto', role: 'AmazonEKSAutoNodeRole' })],
      cluster: cluster({ autoMode: true, authenticationMode: 'API' }),
    }),
    produces: ['PODS_PENDING_PROLONGED/UNKNOWN', 'NODECLAIM_NOT_REGISTERED/UNKNOWN'],
  },
  {
    name: 'controller OOMKilled in a crash loop, no memory limit',
    snapshot: crashing({ reason: 'OOMKilled', exitCode: 137 }),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/OOM_KILLED'],
  },
  {
    name: 'controller exits after losing its lease',
    snapshot: crashing({ reason: 'Error', exitCode: 1 }, [
      previousLine({ message: 'panic: Unable to start manager, leader election lost' }),
    ]),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/LEADER_ELECTION_LOST'],
  },
  {
    name: 'controller in a private subnet cannot reach STS',
    snapshot: crashing({ reason: 'Error', exitCode: 1 }, [
      previousLine({
        message: 'failed to get caller identity',
        error:
          'WebIdentityErr: failed to retrieve credentials caused by: Post "https://sts.us-east-1.amazonaws.com/": dial tcp 52.94.7.128:443: i/o timeout',
      }),
    ]),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/AWS_API_UNREACHABLE'],
  },
  {
    // test/incidents/fargate-dnspolicy-sts-lookup-timeout: a lookup that timed out is DNS, not a route.
    name: 'controller cannot resolve STS',
    snapshot: crashing({ reason: 'Error', exitCode: 1 }, [
      previousLine({
        level: 'FATAL',
        message:
          'Checking EC2 API connectivity, WebIdentityErr: failed to retrieve credentials\ncaused by: RequestError: send request failed\ncaused by: Post "https://sts.us-east-1.amazonaws.com/": dial tcp: lookup sts.us-east-1.amazonaws.com: i/o timeout',
      }),
    ]),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/DNS_RESOLUTION_FAILED'],
  },
  {
    // test/incidents/vpc-endpoint-sg-secondary-cidr: a private address is an endpoint that exists.
    name: 'controller times out on the private address of the STS endpoint',
    snapshot: crashing({ reason: 'Error', exitCode: 2 }, [
      previousLine({
        message: 'caused by: Post "https://sts.us-east-2.amazonaws.com/": dial tcp 10.188.214.212:443: i/o timeout',
      }),
    ]),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/VPC_ENDPOINT_BLOCKED'],
  },
  {
    // test/incidents/cluster-name-empty-wrong-values-key: the option parser wants the name the env leaves unset.
    name: 'controller started without a cluster name',
    snapshot: crashing({ reason: 'Error', exitCode: 2 }, [
      previousLine({ message: 'validating options, missing field, cluster-name' }),
    ]),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/CLUSTER_NAME_MISSING'],
  },
  {
    // test/incidents/crd-machine-missing-v032: the API server serves no karpenter.sh/v1alpha5 and no captured CRD does.
    name: 'controller needs a CRD that is not installed',
    snapshot: snapshotOf({
      pods: [coredns, crashingController({ reason: 'Error', exitCode: 2 })],
      deployments: [karpenterDeployment({ replicas: 1, readyReplicas: 0 })],
      logs: [
        previousLine({
          message:
            'panic: failed to setup machine provider id indexer: failed to get API group resources: unable to retrieve the complete list of server APIs: karpenter.sh/v1alpha5: the server could not find the requested resource',
        }),
      ],
      crds: [crd({ plural: 'nodepools', group: 'karpenter.sh', kind: 'NodePool' })],
    }),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/CRD_MISSING'],
  },
  {
    name: 'controller panics on a bad setting',
    snapshot: crashing({ reason: 'Error', exitCode: 2 }, [
      previousLine({ message: 'panic: validating settings, invalid batch max duration' }),
    ]),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/CRASH_LOOP'],
  },
  {
    name: 'controller crash-looping, no log captured',
    snapshot: crashing({ reason: 'Error', exitCode: 1 }),
    produces: ['KARPENTER_CONTROLLER_UNHEALTHY/UNKNOWN'],
  },
  {
    name: 'controller restarted once a week ago, running since',
    snapshot: snapshotOf({
      pods: [
        coredns,
        karpenterPod({
          name: 'karpenter-5697769d6c-cdwct',
          nodeName: SYSTEM_NODE,
          containerStatuses: [
            containerStatus({
              restarts: 1,
              lastTerminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: minutesAfter(T0, -7 * 24 * 60) },
            }),
          ],
        }),
      ],
      deployments: [karpenterDeployment({ replicas: 1, readyReplicas: 1 })],
    }),
    produces: [],
  },
  {
    name: 'NodePool consolidated 12 times in the hour with consolidateAfter 0s',
    snapshot: snapshotOf({
      events: consolidated('default', 12),
      nodePools: [
        nodePool({ name: 'default', disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' } }),
      ],
    }),
    produces: ['CONSOLIDATION_CHURN/CONSOLIDATE_AFTER_TOO_SHORT'],
  },
  {
    name: 'NodePool consolidated 10 times in the hour, consolidateAfter 10m, budgets only for drift',
    snapshot: snapshotOf({
      events: consolidated('general-purpose', 10),
      nodePools: [
        nodePool({
          name: 'general-purpose',
          disruption: { consolidateAfter: '10m', budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }] },
        }),
      ],
    }),
    produces: ['CONSOLIDATION_CHURN/NO_DISRUPTION_BUDGET'],
  },
  {
    name: 'NodePool emptied 10 times in the hour despite consolidateAfter 15m and a one-at-a-time budget',
    snapshot: snapshotOf({
      events: consolidated('batch', 10, 'Empty'),
      nodePools: [
        nodePool({
          name: 'batch',
          disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '15m', budgets: [{ nodes: '1' }] },
        }),
      ],
    }),
    produces: ['CONSOLIDATION_CHURN/UNKNOWN'],
  },
  {
    name: 'idle node 8h in a NodePool with consolidateAfter: Never',
    snapshot: idlePool({
      nodePools: [nodePool({ name: 'default', disruption: { consolidateAfter: 'Never' } })],
      nodeClaims: [idleClaim(IDLE, { since: null })],
    }),
    produces: ['CONSOLIDATION_BLOCKED/CONSOLIDATION_DISABLED'],
  },
  {
    name: 'underused node 8h in a WhenEmpty NodePool',
    snapshot: idlePool({
      nodePools: [nodePool({ name: 'default', disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '3m' } })],
    }),
    produces: ['CONSOLIDATION_BLOCKED/CONSOLIDATION_DISABLED'],
  },
  {
    name: 'idle node held by a budget of 0 for Underutilized',
    snapshot: idlePool({
      nodePools: [poolWith({ disruption: { consolidateAfter: '5m', budgets: [{ nodes: '0', reasons: ['Underutilized'] }] } })],
    }),
    produces: ['CONSOLIDATION_BLOCKED/BUDGET_BLOCKS'],
  },
  {
    name: 'idle node held by a PDB that allows no disruption',
    snapshot: idlePool({ pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0 })] }),
    produces: ['CONSOLIDATION_BLOCKED/PDB_BLOCKS_EVICTION'],
  },
  {
    name: 'idle node held by a pod under two PDBs',
    snapshot: idlePool({
      pdbs: [
        pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' } }),
        pdb({ name: 'web-all', namespace: 'shop', matchLabels: { app: 'web' } }),
      ],
    }),
    produces: ['CONSOLIDATION_BLOCKED/MULTIPLE_PDBS'],
  },
  {
    name: 'idle node held by a do-not-disrupt pod',
    snapshot: idlePool({
      pods: [daemonPod(IDLE), webPodOn(IDLE, 'etl-5f6d7c8b9-q8w7e', { 'karpenter.sh/do-not-disrupt': 'true' })],
    }),
    produces: ['CONSOLIDATION_BLOCKED/DO_NOT_DISRUPT_POD'],
  },
  {
    name: 'idle node annotated do-not-disrupt',
    snapshot: idlePool({ nodes: [withAnnotations(idleNode(IDLE), { 'karpenter.sh/do-not-disrupt': 'true' })] }),
    produces: ['CONSOLIDATION_BLOCKED/DO_NOT_DISRUPT_NODE'],
  },
  {
    name: 'idle Spot node, spot-to-spot consolidation off',
    snapshot: idlePool({
      nodes: [idleNode(IDLE, { capacity: 'spot' })],
      events: [
        karpenterEvent(
          'NodeClaim',
          IDLE,
          'Unconsolidatable',
          "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
          12,
        ),
      ],
    }),
    produces: ['CONSOLIDATION_BLOCKED/SPOT_TO_SPOT_DISABLED'],
  },
  {
    name: 'idle Spot node, fewer than 15 cheaper types',
    snapshot: idlePool({
      nodes: [idleNode(IDLE, { capacity: 'spot' })],
      events: [
        karpenterEvent(
          'NodeClaim',
          IDLE,
          'Unconsolidatable',
          'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 6',
          3,
        ),
      ],
    }),
    produces: ['CONSOLIDATION_BLOCKED/TOO_FEW_CHEAPER_TYPES'],
  },
  {
    name: 'idle node, no cheaper replacement',
    snapshot: idlePool({
      events: [
        karpenterEvent('Node', idleNode(IDLE).metadata?.name ?? '', 'Unconsolidatable', "Can't replace with a cheaper node", 47),
      ],
    }),
    produces: ['CONSOLIDATION_BLOCKED/NO_CHEAPER_REPLACEMENT'],
  },
  {
    name: 'idle node whose pods would not schedule elsewhere',
    snapshot: idlePool({
      events: [
        karpenterEvent(
          'NodeClaim',
          IDLE,
          'Unconsolidatable',
          'Not all pods would schedule, shop/web-7d4b9c8f6d-x2x9k => unsatisfiable topology constraint for pod anti-affinity, key=kubernetes.io/hostname (counts = map[], podDomains = [], nodeDomains = [] ',
        ),
      ],
    }),
    produces: ['CONSOLIDATION_BLOCKED/PODS_WOULD_NOT_SCHEDULE'],
  },
  {
    name: 'idle node, nothing captured says why',
    snapshot: idlePool(),
    produces: ['CONSOLIDATION_BLOCKED/UNKNOWN'],
  },
  {
    name: 'AMI drift held by a budget of 0 for Drifted',
    snapshot: blockedDrift({ nodePools: [poolWith({ disruption: { budgets: [{ nodes: '0', reasons: ['Drifted'] }] } })] }),
    produces: ['DISRUPTION_BLOCKED/BUDGET_BLOCKS'],
  },
  {
    name: 'AMI drift held by a PDB that allows no disruption',
    snapshot: blockedDrift({
      pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0 })],
    }),
    produces: ['DISRUPTION_BLOCKED/PDB_BLOCKS_EVICTION'],
  },
  {
    name: 'AMI drift held by a pod under two PDBs',
    snapshot: blockedDrift({
      pdbs: [
        pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' } }),
        pdb({ name: 'web-all', namespace: 'shop', matchLabels: { app: 'web' } }),
      ],
    }),
    produces: ['DISRUPTION_BLOCKED/MULTIPLE_PDBS'],
  },
  {
    name: 'AMI drift held by a do-not-disrupt pod',
    snapshot: blockedDrift({ pods: [webPod(DRIFTED, 'etl-5f6d7c8b9-q8w7e', { 'karpenter.sh/do-not-disrupt': 'true' })] }),
    produces: ['DISRUPTION_BLOCKED/DO_NOT_DISRUPT_POD'],
  },
  {
    name: 'AMI drift held by a do-not-disrupt Node',
    snapshot: blockedDrift({ nodes: [withAnnotations(claimNode(DRIFTED), { 'karpenter.sh/do-not-disrupt': 'true' })] }),
    produces: ['DISRUPTION_BLOCKED/DO_NOT_DISRUPT_NODE'],
  },
  {
    name: 'AMI drift not replaced: the node never initialised (a startup taint stays)',
    snapshot: blockedDrift({
      nodeClaims: [
        (() => {
          const claim = runningClaim({ name: DRIFTED, drift: { reason: 'AMIDrift', at: minutesAfter(T0, -180) } });
          const initialized = claim.status?.conditions?.find((c) => c.type === 'Initialized');
          if (initialized)
            Object.assign(initialized, {
              status: 'Unknown',
              reason: 'StartupTaintsExist',
              message: 'StartupTaint "efs.csi.aws.com/agent-not-ready:NoSchedule" still exists',
            });
          return claim;
        })(),
      ],
    }),
    produces: ['DISRUPTION_BLOCKED/NODE_NOT_INITIALIZED'],
  },
  {
    name: 'AMI drift not replaced, nothing captured says why',
    snapshot: blockedDrift({}),
    produces: ['DISRUPTION_BLOCKED/UNKNOWN'],
  },
  {
    name: 'node terminating, its controller scaled to 0',
    snapshot: draining({
      pods: [coredns, onDrainingNode('web-7d4b9c8f6d-x2x1q')],
      deployments: [karpenterDeployment({ replicas: 0, readyReplicas: 0 })],
    }),
    produces: ['NODE_TERMINATION_STUCK/CONTROLLER_UNAVAILABLE'],
  },
  {
    name: 'node terminating, a single-replica PDB at 0',
    snapshot: draining({ pods: [coredns, runningController, onDrainingNode('web-7d4b9c8f6d-x2x1q')], pdbs: [zeroBudget('web')] }),
    produces: ['NODE_TERMINATION_STUCK/PDB_BLOCKS_EVICTION'],
  },
  {
    name: 'node terminating, two PDBs select one pod',
    snapshot: draining({
      pods: [coredns, runningController, onDrainingNode('web-7d4b9c8f6d-x2x1q')],
      pdbs: [zeroBudget('web', { app: 'web' }, 1), zeroBudget('web-all', { app: 'web' }, 1)],
    }),
    produces: ['NODE_TERMINATION_STUCK/MULTIPLE_PDBS'],
  },
  {
    name: 'node terminating, a do-not-disrupt pod on it',
    snapshot: draining({
      pods: [
        coredns,
        runningController,
        withAnnotations(onDrainingNode('report-28391', 'batch', { job: 'report' }), { 'karpenter.sh/do-not-disrupt': 'true' }),
      ],
    }),
    produces: ['NODE_TERMINATION_STUCK/DO_NOT_DISRUPT_POD'],
  },
  {
    name: 'node drained, an EBS volume still attached',
    snapshot: draining({
      pods: [coredns, runningController],
      volumeAttachments: [
        volumeAttachment({ name: 'csi-3f1e9a7c5b', nodeName: DRAINING_NODE, persistentVolumeName: 'pvc-0b5e1d2c' }),
      ],
    }),
    produces: ['NODE_TERMINATION_STUCK/VOLUME_DETACH_PENDING'],
  },
  {
    name: 'node terminating, its pods not captured and no telling event',
    snapshot: draining({ pods: [workload('web-1')] }),
    produces: ['NODE_TERMINATION_STUCK/UNKNOWN'],
  },
  ...(
    [
      ['KUBELET_UNRESPONSIVE', kubeletSilent],
      ['RESOURCE_PRESSURE', memoryPressure],
      ['NETWORK_NOT_READY', networkNotReady],
      [
        'UNKNOWN',
        (at: string) => [
          condition('Ready', 'False', {
            reason: 'KubeletNotReady',
            message: 'PLEG is not healthy: pleg was last seen active 3m5.1s ago; threshold is 3m0s',
            lastTransitionTime: at,
          }),
        ],
      ],
    ] as const
  ).map(([cause, conditions]) => {
    const fell = poolNode('ip-10-0-77-12.ec2.internal', 'default', conditions(minutesAfter(T0, 20)));
    return {
      name: `initialised node NotReady: ${cause}`,
      snapshot: snapshotOf({ nodes: [fell], nodeClaims: [claimOf(fell, 'default-fell1')] }),
      produces: [`NODE_NOT_READY/${cause}` as const],
    };
  }),
  ...(
    [
      ['no queue set, Spot NodeClaims running', { env: [], queues: [] }, 'QUEUE_NOT_CONFIGURED'],
      ['queue set to its ARN', { env: [{ name: 'INTERRUPTION_QUEUE', value: QUEUE_ARN }] }, 'QUEUE_NAME_INVALID'],
      ['queue set, GetQueueUrl said NonExistentQueue', { queues: [{ name: 'shop-prod', exists: false }] }, 'QUEUE_MISSING'],
      [
        'queue set, only the controller log says NonExistentQueue',
        { queues: [], rules: [], logs: [V14_NOT_FOUND] },
        'QUEUE_MISSING',
      ],
      [
        'no rule sends Spot interruptions to the queue',
        { rules: templateRules({ SpotInterruptionRule: 'DISABLED' }) },
        'RULES_MISSING',
      ],
      ['queue without a policy', { queues: [queue({ Policy: undefined })] }, 'QUEUE_POLICY_DENIES_EVENTS'],
      ['queue encrypted with alias/aws/sqs', { queues: [queue({ KmsMasterKeyId: 'alias/aws/sqs' })] }, 'KMS_KEY_UNUSABLE'],
      ['oldest message 10 minutes old', { age: 600 }, 'NOT_CONSUMED'],
      ['queue exists, the controller log still says NonExistentQueue', { logs: [V14_NOT_FOUND] }, 'UNKNOWN'],
    ] satisfies [string, Parts, CauseCodeOf<'INTERRUPTION_HANDLING_OFF'>][]
  ).map(([name, parts, cause]) => ({
    name: `interruption queue: ${name}`,
    snapshot: interruptionSnapshot(parts),
    produces: [`INTERRUPTION_HANDLING_OFF/${cause}` as Pair],
  })),
  {
    name: 'healthy cluster with routine noise',
    snapshot: snapshotOf({
      pods: [coredns, runningController, pod({ name: 'job-1', namespace: 'shop', phase: 'Succeeded' })],
      deployments: [karpenterDeployment({ replicas: 1, readyReplicas: 1 })],
      nodes: [node({ name: SYSTEM_NODE })],
      nodeClaims: [nodeClaim({ name: 'default-aaaaa', instanceId: 'i-0aaaaaaaaaaaaaaa1', nodeName: SYSTEM_NODE })],
      nodePools: [nodePool({ name: 'default' })],
      nodeClasses: [ec2NodeClass({ name: 'default' })],
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      events: [event({ kind: 'Pod', namespace: 'shop', name: 'job-1', reason: 'Scheduled', message: 'ok', type: 'Normal' })],
      logs: [logLine({ level: 'INFO', time: T0, message: 'discovered ssm parameter' })],
    }),
    produces: [],
  },
];
