import type { CauseCodeOf } from '../../domain/codes.ts';
import type { Condition, EC2NodeClass } from '../../domain/kube.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';

/**
 * EC2NodeClass status conditions as karpenter-provider-aws v1 writes them (pkg/apis/v1
 * ec2nodeclass_status.go); `Ready` is True only when all of these are.
 */
const NODECLASS_CONDITIONS = [
  'AMIsReady',
  'SubnetsReady',
  'SecurityGroupsReady',
  'InstanceProfileReady',
  'ValidationSucceeded',
  'CapacityReservationsReady',
] as const;

/**
 * Karpenter sets ValidationSucceeded=False with this reason whenever another condition is
 * False: a consequence, not a cause of its own.
 */
const VALIDATION_DEPENDENCIES_NOT_READY = 'DependenciesNotReady';

/** ValidationSucceeded's reason when Karpenter's eks:DescribeCluster call failed (v1.7+). */
const CLUSTER_CIDR_RESOLUTION_FAILED = 'ClusterCIDRResolutionFailed';

export type NodeClassCauseCode = CauseCodeOf<'NODECLASS_NOT_READY'>;

/** Sub-condition whose False status means the cause, most fundamental first. */
const CAUSE_BY_CONDITION: readonly [string, NodeClassCauseCode][] = [
  ['AMIsReady', 'AMI_NOT_FOUND'],
  ['SubnetsReady', 'SUBNETS_NOT_FOUND'],
  ['SecurityGroupsReady', 'SECURITY_GROUPS_NOT_FOUND'],
  ['InstanceProfileReady', 'INSTANCE_PROFILE_NOT_READY'],
  ['ValidationSucceeded', 'VALIDATION_FAILED'],
];

export interface NodeClassFailure {
  code: NodeClassCauseCode;
  condition: Condition;
}

/** Every sub-condition that is not True (False or Unknown), in Karpenter's order. */
export function unhealthyConditions(nodeClass: EC2NodeClass): Condition[] {
  return NODECLASS_CONDITIONS.map((t) => conditionOf(nodeClass, t)).filter((c): c is Condition => !!c && c.status !== 'True');
}

/** Every False sub-condition that is a cause in itself, most fundamental first. */
export function nodeClassFailures(nodeClass: EC2NodeClass): NodeClassFailure[] {
  const failures: NodeClassFailure[] = [];
  for (const [type, code] of CAUSE_BY_CONDITION) {
    const c = conditionOf(nodeClass, type);
    if (c?.status !== 'False') continue;
    if (type === 'ValidationSucceeded' && c.reason === VALIDATION_DEPENDENCIES_NOT_READY) continue;
    // v1.7+ moved `Failed to detect the cluster CIDR` from Ready to ValidationSucceeded.
    const cidr = type === 'ValidationSucceeded' && c.reason === CLUSTER_CIDR_RESOLUTION_FAILED;
    failures.push({ code: cidr ? 'CLUSTER_CIDR_NOT_RESOLVED' : code, condition: c });
  }
  return failures;
}
