/** Public contract: finding codes, cause codes, severities and remediation vocabulary (docs/findings.md#findings-and-causes). */

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const FINDING_CODES = [
  'KARPENTER_CONTROLLER_PENDING',
  'PODS_PENDING_PROLONGED',
  'NODECLAIM_NOT_REGISTERED',
  'NODECLAIM_LAUNCH_FAILED',
  'NODECLASS_NOT_READY',
  'NODEPOOL_NOT_READY',
  'ORPHANED_INSTANCE',
  'KARPENTER_IAM_DENIED',
  'CRD_CONVERSION_WEBHOOK_BROKEN',
  'AMI_SELECTOR_UNSCOPED',
  'INSTANCE_PROVENANCE_UNPROVEN',
  'NODE_TERMINATION_STUCK',
  'DISRUPTION_BLOCKED',
  'CONSOLIDATION_CHURN',
  'NODE_NOT_INITIALIZED',
  'KARPENTER_CONTROLLER_UNHEALTHY',
  'SUBNET_IPS_LOW',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

/** Cause codes each finding code may carry. Detectors must stay within their row. */
export const CAUSES_BY_FINDING = {
  KARPENTER_CONTROLLER_PENDING: [
    'FARGATE_SCHEDULER_RACE',
    'STALE_SCHEDULING',
    'NO_FARGATE_PROFILE_MATCH',
    'FARGATE_PROFILE_NOT_ACTIVE',
    'ANTI_AFFINITY_TOO_FEW_NODES',
    'UNTOLERATED_TAINT',
    'NODE_SELECTOR_MISMATCH',
    'UNKNOWN',
  ],
  PODS_PENDING_PROLONGED: [
    'CONTROLLER_UNAVAILABLE',
    'NO_NODEPOOL_MATCH',
    'NODEPOOL_LIMIT_REACHED',
    'NODECLASS_NOT_READY',
    'NO_INSTANCE_TYPE_FITS',
    'TOPOLOGY_UNSATISFIABLE',
    'UNKNOWN',
  ],
  NODECLAIM_NOT_REGISTERED: ['NODE_ROLE_NOT_MAPPED', 'NODE_ROLE_MAPPING_INVALID', 'INSTANCE_NOT_RUNNING', 'UNKNOWN'],
  NODECLAIM_LAUNCH_FAILED: [
    'SPOT_SERVICE_LINKED_ROLE_MISSING',
    // Before INSUFFICIENT_CAPACITY: Karpenter files a subnet out of addresses under insufficient capacity.
    'SUBNET_IP_EXHAUSTED',
    'INSUFFICIENT_CAPACITY',
    'UNAUTHORIZED',
    'AMI_NOT_FOUND',
    'SECURITY_GROUP_SUBNET_VPC_MISMATCH',
    'QUOTA_EXCEEDED',
    'API_THROTTLED',
    // EC2 rejected iamInstanceProfile.name and the captured profile list lacks it.
    'INSTANCE_PROFILE_NOT_FOUND',
    'UNKNOWN',
  ],
  NODECLASS_NOT_READY: [
    'AMI_NOT_FOUND',
    'SUBNETS_NOT_FOUND',
    'SECURITY_GROUPS_NOT_FOUND',
    'INSTANCE_PROFILE_NOT_READY',
    'VALIDATION_FAILED',
    // Karpenter's own words, read from Ready's message or the nodeclass controller's log.
    'CLUSTER_CIDR_NOT_RESOLVED',
    'IAM_API_UNREACHABLE',
    'UNKNOWN',
  ],
  NODEPOOL_NOT_READY: ['NODECLASS_NOT_FOUND', 'NODECLASS_NOT_READY', 'VALIDATION_FAILED', 'UNKNOWN'],
  ORPHANED_INSTANCE: ['CONTROLLER_UNAVAILABLE', 'CLUSTER_GONE', 'NO_NODECLAIM'],
  KARPENTER_IAM_DENIED: [
    'MISSING_PERMISSION',
    // Which policy refused the call, when AWS's text names it (docs/findings.md).
    'DENIED_BY_SCP',
    'DENIED_BY_PERMISSIONS_BOUNDARY',
    'EXPLICIT_DENY',
    'DENIED_BY_OTHER_POLICY',
    'DENIED_UNKNOWN_POLICY',
    'IRSA_TRUST_POLICY_MISMATCH',
  ],
  CRD_CONVERSION_WEBHOOK_BROKEN: ['SERVICE_MISSING', 'PORT_MISMATCH', 'UNKNOWN'],
  AMI_SELECTOR_UNSCOPED: ['NO_OWNER'],
  // The class of missing evidence (src/domain/provenance.ts), in the order it is checked.
  INSTANCE_PROVENANCE_UNPROVEN: [
    'NOT_LAUNCHED_FROM_TEMPLATE',
    'NOT_LAUNCHED_BY_FLEET',
    'KARPENTER_TAGS_MISSING',
    'LAUNCH_TEMPLATE_UNKNOWN',
    'LAUNCH_TEMPLATE_NOT_KARPENTERS',
  ],
  // What blocks a node Karpenter is terminating or wants to replace (docs/findings.md#node_termination_stuck).
  NODE_TERMINATION_STUCK: [
    'CONTROLLER_UNAVAILABLE',
    'PDB_BLOCKS_EVICTION',
    'MULTIPLE_PDBS',
    'DO_NOT_DISRUPT_POD',
    'VOLUME_DETACH_PENDING',
    'UNKNOWN',
  ],
  DISRUPTION_BLOCKED: [
    'BUDGET_BLOCKS',
    'PDB_BLOCKS_EVICTION',
    'MULTIPLE_PDBS',
    'DO_NOT_DISRUPT_POD',
    'DO_NOT_DISRUPT_NODE',
    // The node never initialised: Karpenter disrupts no uninitialized node (`Node isn't initialized`).
    'NODE_NOT_INITIALIZED',
    'UNKNOWN',
  ],
  CONSOLIDATION_CHURN: ['CONSOLIDATE_AFTER_TOO_SHORT', 'NO_DISRUPTION_BUDGET', 'UNKNOWN'],
  // Nodes that join but never become usable, a controller that keeps dying, subnets running dry.
  NODE_NOT_INITIALIZED: ['CNI_NOT_READY', 'STARTUP_TAINT_REMAINS', 'RESOURCE_NOT_REGISTERED', 'NODE_NOT_READY', 'UNKNOWN'],
  KARPENTER_CONTROLLER_UNHEALTHY: [
    'OOM_KILLED',
    'LEADER_ELECTION_LOST',
    // A network timeout to AWS, told apart by its error text (docs/findings.md): a lookup, a private address, a public one.
    'DNS_RESOLUTION_FAILED',
    'VPC_ENDPOINT_BLOCKED',
    'AWS_API_UNREACHABLE',
    // A start-up error the capture explains (docs/findings.md): the cluster name unset, a CRD the version needs absent.
    'CLUSTER_NAME_MISSING',
    'CRD_MISSING',
    'CRASH_LOOP',
    'UNKNOWN',
  ],
  SUBNET_IPS_LOW: ['FEW_FREE_ADDRESSES'],
} as const satisfies Record<FindingCode, readonly string[]>;

export type CauseCodeOf<C extends FindingCode> = (typeof CAUSES_BY_FINDING)[C][number];
export type CauseCode = CauseCodeOf<FindingCode>;

/** Automated actions; `MANUAL` marks a remediation only a human can carry out. */
export const ACTION_KINDS = ['ROLLOUT_RESTART', 'TERMINATE_INSTANCE'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export type RemediationAction = ActionKind | 'MANUAL';

export const REMEDIATION_STATUSES = ['planned', 'applied', 'skipped', 'failed', 'manual'] as const;
export type RemediationStatus = (typeof REMEDIATION_STATUSES)[number];

export const SEVERITY_RANK: Record<Severity, number> = { critical: 3, warning: 2, info: 1 };
