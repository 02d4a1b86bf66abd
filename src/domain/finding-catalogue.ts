/**
 * One row per finding code: the causes it may carry, the severities it may have, the thresholds
 * it is judged by, the metric that counts its findings. The detection settings and their defaults
 * (settings.ts), the scan function's environment (config.ts), the `scan` flags and their usage
 * lines, the per-finding metrics (notify/scan-metrics.ts) and the generated tables of docs/ are
 * all read from here, so a new finding is one row here plus its folder
 * (docs/adding-a-finding.md). Each row's section in docs/findings.md is headed by its code
 * (`findingDocAnchor`).
 */
import type { MetricUnit } from './metric.ts';

/** What every threshold has: the setting detectors read and its three spellings outside the code. */
interface ThresholdBase {
  /** The field of DetectionSettings the detectors read. */
  setting: string;
  /** The scan function's environment variable (serverless.yml). */
  env: string;
  /** The osls param that sets `env` (serverless.yml `params.default`, docs/deploy.md). */
  param: string;
  /** The `scan` flag, without its dashes. */
  flag: string;
  /** What reaches the threshold, for `scan --help` and the docs tables. */
  help: string;
}

/** A duration in milliseconds: `90s`, `5m`, `1h30m` on the command line and in the environment. */
interface DurationThreshold extends ThresholdBase {
  unit: 'duration';
  default: number;
  /** The shortest value accepted, and why (said in the error). */
  min?: { ms: number; why: string };
}

/** A whole number. */
interface CountThreshold extends ThresholdBase {
  unit: 'count';
  default: number;
  /** The range the environment variable accepts (the flag takes any whole number). */
  envRange: { min: number; max: number };
}

/**
 * An amount of US dollars (`50`, `12.5`): what a finding's `cost.perDayUsd` is compared with
 * (src/domain/cost.ts). Up to two decimals, never negative.
 */
interface UsdThreshold extends ThresholdBase {
  unit: 'usd';
  default: number;
  /** The range the flag and the environment variable accept. */
  range: { min: number; max: number };
}

export type Threshold = DurationThreshold | CountThreshold | UsdThreshold;

/** The CloudWatch metric counting one code's findings: per cluster and per cluster and NodePool (docs/service.md, "Metrics"). */
interface FindingMetric {
  name: string;
  unit: MetricUnit;
}

interface FindingRow {
  /**
   * The severities its findings may have (docs/findings.md, each section's "Severity:"): one, or
   * both when the detector decides from the evidence (no replica ready, the age, a subnet empty).
   */
  severities: readonly ('critical' | 'warning' | 'info')[];
  /** The cause codes the detector may give, in the order docs/findings.md lists them. Detectors stay within their row. */
  causes: readonly string[];
  thresholds?: readonly Threshold[];
  /**
   * What its findings' `counts.objects` counts (Finding.counts, set by its detector): "NodeClaims"
   * of the code, in docs/report-json.md and, when it has a metric, docs/service.md "Metrics".
   */
  objects?: string;
  /** Sums `objects` per cluster and NodePool; only a row with `objects` has one. */
  metric?: FindingMetric;
}

/**
 * The shortest orphan grace accepted. Karpenter writes an instance's id on its NodeClaim moments
 * after launching it, but a capture or a scan lists NodeClaims and instances at different moments:
 * an instance launched in between has no NodeClaim naming it yet. Younger than this, an instance is
 * never an orphan (docs/guardrails.md).
 */
const MIN_ORPHAN_GRACE_MS = 5 * 60_000;

const MINUTE = 60_000;

/** The rows, in the order of the public code list (docs/findings.md). */
export const FINDING_CATALOGUE = {
  KARPENTER_CONTROLLER_PENDING: {
    severities: ['critical', 'warning'],
    causes: [
      'FARGATE_SCHEDULER_RACE',
      'STALE_SCHEDULING',
      'NO_FARGATE_PROFILE_MATCH',
      'FARGATE_PROFILE_NOT_ACTIVE',
      'ANTI_AFFINITY_TOO_FEW_NODES',
      'UNTOLERATED_TAINT',
      'NODE_SELECTOR_MISMATCH',
      'UNKNOWN',
    ],
    thresholds: [
      {
        setting: 'controllerPendingMs',
        env: 'CONTROLLER_PENDING_AFTER',
        param: 'controllerPendingAfter',
        flag: 'controller-pending',
        unit: 'duration',
        default: 5 * MINUTE,
        help: 'Karpenter controller pods Pending at least this long',
      },
    ],
  },
  PODS_PENDING_PROLONGED: {
    severities: ['warning'],
    causes: [
      'CONTROLLER_UNAVAILABLE',
      'NO_NODEPOOL_MATCH',
      'NODEPOOL_LIMIT_REACHED',
      'NODECLASS_NOT_READY',
      'NO_INSTANCE_TYPE_FITS',
      'TOPOLOGY_UNSATISFIABLE',
      'UNKNOWN',
    ],
    thresholds: [
      {
        setting: 'workloadPendingMs',
        env: 'WORKLOAD_PENDING_AFTER',
        param: 'workloadPendingAfter',
        flag: 'workload-pending',
        unit: 'duration',
        default: 10 * MINUTE,
        help: 'workload pods Pending at least this long',
      },
    ],
  },
  NODECLAIM_NOT_REGISTERED: {
    severities: ['critical'],
    causes: ['NODE_ROLE_NOT_MAPPED', 'NODE_ROLE_MAPPING_INVALID', 'INSTANCE_NOT_RUNNING', 'UNKNOWN'],
    thresholds: [
      {
        setting: 'registrationMs',
        env: 'REGISTRATION_TIMEOUT',
        param: 'registrationTimeout',
        flag: 'registration',
        unit: 'duration',
        default: 10 * MINUTE,
        help: 'NodeClaim launched but not registered at least this long',
      },
    ],
    objects: 'NodeClaims',
    metric: { name: 'UnregisteredNodeClaims', unit: 'Count' },
  },
  NODECLAIM_LAUNCH_FAILED: {
    severities: ['warning'],
    causes: [
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
    objects: 'NodeClaims',
    metric: { name: 'LaunchFailedNodeClaims', unit: 'Count' },
  },
  NODECLASS_NOT_READY: {
    severities: ['critical'],
    causes: [
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
  },
  NODEPOOL_NOT_READY: {
    severities: ['warning'],
    causes: ['NODECLASS_NOT_FOUND', 'NODECLASS_NOT_READY', 'VALIDATION_FAILED', 'UNKNOWN'],
  },
  ORPHANED_INSTANCE: {
    severities: ['warning'],
    causes: ['CONTROLLER_UNAVAILABLE', 'CLUSTER_GONE', 'NO_NODECLAIM'],
    thresholds: [
      {
        setting: 'orphanGraceMs',
        env: 'ORPHAN_GRACE',
        param: 'orphanGrace',
        flag: 'orphan-grace',
        unit: 'duration',
        default: 10 * MINUTE,
        min: { ms: MIN_ORPHAN_GRACE_MS, why: 'a younger instance may be one Karpenter is still launching' },
        help: 'an unmatched instance launched at least this long ago',
      },
    ],
    objects: 'instances',
    metric: { name: 'OrphanedInstances', unit: 'Count' },
  },
  KARPENTER_IAM_DENIED: {
    severities: ['critical'],
    causes: [
      'MISSING_PERMISSION',
      // Which policy refused the call, when AWS's text names it (docs/findings.md).
      'DENIED_BY_SCP',
      'DENIED_BY_PERMISSIONS_BOUNDARY',
      'EXPLICIT_DENY',
      'DENIED_BY_OTHER_POLICY',
      'DENIED_UNKNOWN_POLICY',
      'IRSA_TRUST_POLICY_MISMATCH',
    ],
  },
  CRD_CONVERSION_WEBHOOK_BROKEN: {
    severities: ['critical'],
    causes: ['SERVICE_MISSING', 'PORT_MISMATCH', 'UNKNOWN'],
  },
  // Third wave: admission webhooks left behind (docs/findings.md#admission_webhook_broken).
  ADMISSION_WEBHOOK_BROKEN: {
    // critical when it refuses NodeClaim, NodePool or EC2NodeClass writes; warning when it cannot (failurePolicy Ignore, no rule matches).
    severities: ['critical', 'warning'],
    // The leftover first: whatever else is wrong with it, deleting it is the fix (docs/findings.md#admission_webhook_broken).
    causes: ['STALE_AFTER_V1_UPGRADE', 'SERVICE_MISSING', 'NO_ENDPOINTS', 'CERTIFICATE_INVALID', 'UNKNOWN'],
    objects: 'webhook configurations that cannot answer',
    metric: { name: 'BrokenAdmissionWebhooks', unit: 'Count' },
  },
  AMI_SELECTOR_UNSCOPED: {
    severities: ['warning'],
    causes: ['NO_OWNER'],
  },
  INSTANCE_PROVENANCE_UNPROVEN: {
    severities: ['warning'],
    // The class of missing evidence (src/domain/provenance.ts), in the order it is checked.
    causes: [
      'NOT_LAUNCHED_FROM_TEMPLATE',
      'NOT_LAUNCHED_BY_FLEET',
      'KARPENTER_TAGS_MISSING',
      'LAUNCH_TEMPLATE_UNKNOWN',
      'LAUNCH_TEMPLATE_NOT_KARPENTERS',
    ],
  },
  NODE_TERMINATION_STUCK: {
    severities: ['critical', 'warning'],
    // What blocks a node Karpenter is terminating or wants to replace (docs/findings.md#node_termination_stuck).
    causes: [
      'CONTROLLER_UNAVAILABLE',
      'PDB_BLOCKS_EVICTION',
      'MULTIPLE_PDBS',
      'DO_NOT_DISRUPT_POD',
      'VOLUME_DETACH_PENDING',
      'UNKNOWN',
    ],
    thresholds: [
      {
        setting: 'terminationStuckMs',
        env: 'TERMINATION_STUCK_AFTER',
        param: 'terminationStuckAfter',
        flag: 'termination-stuck',
        unit: 'duration',
        default: 15 * MINUTE,
        help: 'a Node or NodeClaim Karpenter is terminating at least this long',
      },
    ],
    objects: 'nodes',
    metric: { name: 'StuckTerminations', unit: 'Count' },
  },
  DISRUPTION_BLOCKED: {
    severities: ['warning'],
    causes: [
      'BUDGET_BLOCKS',
      'PDB_BLOCKS_EVICTION',
      'MULTIPLE_PDBS',
      'DO_NOT_DISRUPT_POD',
      'DO_NOT_DISRUPT_NODE',
      // The node never initialised: Karpenter disrupts no uninitialized node (`Node isn't initialized`).
      'NODE_NOT_INITIALIZED',
      'UNKNOWN',
    ],
    thresholds: [
      {
        setting: 'disruptionBlockedMs',
        env: 'DISRUPTION_BLOCKED_AFTER',
        param: 'disruptionBlockedAfter',
        flag: 'disruption-blocked',
        unit: 'duration',
        default: 120 * MINUTE,
        help: 'a drifted or expired NodeClaim still running this long after',
      },
    ],
    objects: 'drifted or expired NodeClaims',
    metric: { name: 'DisruptionBlockedNodeClaims', unit: 'Count' },
  },
  CONSOLIDATION_CHURN: {
    severities: ['warning'],
    causes: ['CONSOLIDATE_AFTER_TOO_SHORT', 'NO_DISRUPTION_BUDGET', 'UNKNOWN'],
    thresholds: [
      {
        setting: 'churnPerHour',
        env: 'CHURN_PER_HOUR',
        param: 'churnPerHour',
        flag: 'churn-per-hour',
        unit: 'count',
        default: 10,
        envRange: { min: 1, max: 10_000 },
        help: "consolidation disruptions of one NodePool's nodes in the last hour",
      },
    ],
    objects: 'consolidation disruptions in the last hour of the NodePools',
    metric: { name: 'ConsolidationDisruptions', unit: 'Count' },
  },
  // Third wave: capacity that costs money (docs/findings.md#consolidation_blocked).
  CONSOLIDATION_BLOCKED: {
    // info; warning once the idle nodes' cost.perDayUsd reaches wastePerDay.
    severities: ['warning', 'info'],
    // A NodePool-wide setting first, then what holds each node (docs/findings.md#consolidation_blocked says why this order).
    causes: [
      'CONSOLIDATION_DISABLED',
      'BUDGET_BLOCKS',
      'PDB_BLOCKS_EVICTION',
      'MULTIPLE_PDBS',
      'DO_NOT_DISRUPT_POD',
      'DO_NOT_DISRUPT_NODE',
      // What Karpenter's own Unconsolidatable events say; nothing in the objects shows them.
      'SPOT_TO_SPOT_DISABLED',
      'TOO_FEW_CHEAPER_TYPES',
      'NO_CHEAPER_REPLACEMENT',
      'PODS_WOULD_NOT_SCHEDULE',
      'UNKNOWN',
    ],
    thresholds: [
      {
        setting: 'consolidationBlockedMs',
        env: 'CONSOLIDATION_BLOCKED_AFTER',
        param: 'consolidationBlockedAfter',
        flag: 'consolidation-blocked',
        unit: 'duration',
        default: 6 * 60 * MINUTE,
        help: 'a node Karpenter could consolidate (Consolidatable=True, or idle) still running this long',
      },
      {
        setting: 'wastePerDay',
        env: 'WASTE_PER_DAY',
        param: 'wastePerDay',
        flag: 'waste-per-day',
        unit: 'usd',
        default: 50,
        range: { min: 0, max: 1_000_000 },
        help: "a NodePool's unconsolidated nodes costing at least this many USD a day make the finding a warning",
      },
    ],
    objects: 'unconsolidated nodes',
    metric: { name: 'UnconsolidatedNodes', unit: 'Count' },
  },
  // Nodes that join but never become usable, a controller that keeps dying, subnets running dry.
  NODE_NOT_INITIALIZED: {
    severities: ['warning'],
    causes: ['CNI_NOT_READY', 'STARTUP_TAINT_REMAINS', 'RESOURCE_NOT_REGISTERED', 'NODE_NOT_READY', 'UNKNOWN'],
    thresholds: [
      {
        setting: 'initializationMs',
        env: 'INITIALIZATION_TIMEOUT',
        param: 'initializationTimeout',
        flag: 'initialization',
        unit: 'duration',
        default: 10 * MINUTE,
        help: 'a NodeClaim registered but not initialised at least this long',
      },
    ],
    objects: 'NodeClaims',
    metric: { name: 'UninitializedNodeClaims', unit: 'Count' },
  },
  // Nodes that were working and fell over: NotReady after they initialised (docs/findings.md#node_not_ready).
  NODE_NOT_READY: {
    // Critical when Karpenter's 20% rule blocks its own repair of the pool (docs/findings.md#node_not_ready).
    severities: ['critical', 'warning'],
    causes: ['KUBELET_UNRESPONSIVE', 'RESOURCE_PRESSURE', 'NETWORK_NOT_READY', 'UNKNOWN'],
    thresholds: [
      {
        setting: 'notReadyMs',
        env: 'NOT_READY_AFTER',
        param: 'notReadyAfter',
        flag: 'not-ready',
        unit: 'duration',
        default: 10 * MINUTE,
        help: 'an initialised Karpenter node NotReady at least this long',
      },
    ],
    objects: 'NotReady nodes',
    metric: { name: 'NotReadyNodes', unit: 'Count' },
  },
  // Pipelines that are silently off: Karpenter's interruption queue (docs/findings.md#interruption_handling_off).
  INTERRUPTION_HANDLING_OFF: {
    severities: ['warning'],
    // The setting first (nothing else can be looked up without it), then the queue, what feeds it, what reads it.
    causes: [
      'QUEUE_NOT_CONFIGURED',
      'QUEUE_NAME_INVALID',
      'QUEUE_MISSING',
      'RULES_MISSING',
      'QUEUE_POLICY_DENIES_EVENTS',
      'KMS_KEY_UNUSABLE',
      'NOT_CONSUMED',
      'UNKNOWN',
    ],
    // One per controller: a dashboard shows which clusters have it off, an alarm fires on it.
    objects: 'Karpenter controllers',
    metric: { name: 'InterruptionHandlingOff', unit: 'Count' },
  },
  KARPENTER_CONTROLLER_UNHEALTHY: {
    severities: ['critical', 'warning'],
    causes: [
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
    objects: 'failing controller pods',
  },
  SUBNET_IPS_LOW: {
    severities: ['critical', 'warning'],
    causes: ['FEW_FREE_ADDRESSES'],
    objects: 'subnets running low',
  },
} as const satisfies Record<string, FindingRow>;

export type FindingCode = keyof typeof FINDING_CATALOGUE;

type Rows = typeof FINDING_CATALOGUE;
type ThresholdsOf<R> = R extends { thresholds: readonly (infer T)[] } ? T : never;

/** Every threshold's setting: the fields of DetectionSettings. */
export type ThresholdSetting = ThresholdsOf<Rows[FindingCode]>['setting'];

/** The row of `code`, as the shape every row has (optional parts may be absent). */
function findingRow(code: FindingCode): FindingRow {
  return FINDING_CATALOGUE[code];
}

/** Every finding code, in catalogue order: the public code list (src/domain/codes.ts). */
export const FINDING_CODES = Object.keys(FINDING_CATALOGUE) as readonly FindingCode[];

/** Every threshold, in catalogue order (the order of `scan --help` and the docs tables), with its code. */
export const THRESHOLDS: readonly (Threshold & { code: FindingCode })[] = FINDING_CODES.flatMap((code) =>
  (findingRow(code).thresholds ?? []).map((t) => ({ ...t, code })),
);

/**
 * The dimension sets every finding metric is put with: the cluster's total, and one series per
 * NodePool of the cluster (notify/scan-metrics.ts puts them, docs/service.md "Metrics" lists them).
 */
export const FINDING_METRIC_DIMENSIONS = [['Cluster'], ['Cluster', 'NodePool']] as const;

/** Every finding metric, in catalogue order, with its code and what it counts. */
export const FINDING_METRICS: readonly (FindingMetric & { code: FindingCode; counts: string })[] = FINDING_CODES.flatMap(
  (code) => {
    const { metric, objects } = findingRow(code);
    return metric ? [{ ...metric, code, counts: objects ?? '' }] : [];
  },
);

/** Every code whose findings carry `counts`, with what `counts.objects` counts (docs/report-json.md). */
export const COUNTED_FINDINGS: readonly { code: FindingCode; objects: string }[] = FINDING_CODES.flatMap((code) => {
  const { objects } = findingRow(code);
  return objects ? [{ code, objects }] : [];
});

/** The heading anchor of `code`'s section in docs/findings.md (`## \`NODE_NOT_INITIALIZED\`` → `node_not_initialized`). */
export function findingDocAnchor(code: FindingCode): string {
  return code.toLowerCase();
}
