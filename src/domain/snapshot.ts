import type { FindingCode } from './codes.ts';
import type {
  AccessEntry,
  ClusterInfo,
  FargateProfile,
  Instance,
  InstanceProfile,
  LaunchTemplate,
  LogLine,
  SpotPrice,
  Subnet,
} from './aws.ts';
import type { InstanceTypeInfo } from './instance-types.ts';
import type {
  ConfigMap,
  CustomResourceDefinition,
  Deployment,
  EC2NodeClass,
  KubeEvent,
  Node,
  NodeClaim,
  NodePool,
  Pod,
  PodDisruptionBudget,
  ReplicaSet,
  Service,
  ServiceEndpoints,
  VolumeAttachment,
  WebhookConfiguration,
} from './kube.ts';

/**
 * Every source a snapshot can hold. A source is "captured" when it was read (even if it held
 * nothing); detectors declare which sources they need (see Detector).
 */
export const SOURCE_NAMES = [
  'pods',
  'deployments',
  'replicasets',
  'nodes',
  'events',
  'configmaps',
  'services',
  'crds',
  'nodeclaims',
  'nodepools',
  'ec2nodeclasses',
  'pdbs',
  'volumeattachments',
  'cluster',
  'instances',
  'fargateprofiles',
  'accessentries',
  'launchtemplates',
  'instanceprofiles',
  'subnets',
  'instancetypes',
  'spotprices',
  'logs',
  'webhookconfigurations',
  'endpoints',
] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/**
 * Gaps in the order of SOURCE_NAMES, the cluster's first (every other live read follows from its
 * description); a source's own gaps keep their order. Live reads end in whatever order the network
 * allows and capture files are read by name: one order makes the same cluster's report the same.
 */
export function inSourceOrder(gaps: readonly Gap[]): Gap[] {
  const place = (source: SourceName) => (source === 'cluster' ? -1 : SOURCE_NAMES.indexOf(source));
  return [...gaps].sort((a, b) => place(a.source) - place(b.source));
}

export interface Gap {
  source: SourceName;
  error: string;
  /**
   * Set when a check failed on the data rather than a source being unreadable: the finding code
   * whose detector could not finish (`source` is then the first source it requires).
   */
  detector?: FindingCode;
}

const SET_ASIDE = ' set aside as malformed (see notes)';

/** The gap of a source some of whose objects were set aside because a field had the wrong type. */
export function setAsideGap(source: SourceName, count: number): Gap {
  return { source, error: `${count} object${count === 1 ? '' : 's'}${SET_ASIDE}` };
}

/** Whether the source was read but objects of it were set aside (not denied, not missing). */
export function isSetAsideGap(gap: Gap): boolean {
  return gap.detector === undefined && gap.error.endsWith(SET_ASIDE);
}

export interface ClusterSnapshot {
  clusterName: string;
  /** Sources that were read successfully (possibly empty). */
  captured: Set<SourceName>;
  /** Sources that were asked for and failed (live) or are known to be incomplete. */
  gaps: Gap[];
  pods: Pod[];
  deployments: Deployment[];
  replicaSets: ReplicaSet[];
  nodes: Node[];
  events: KubeEvent[];
  configMaps: ConfigMap[];
  services: Service[];
  crds: CustomResourceDefinition[];
  nodeClaims: NodeClaim[];
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  /** PodDisruptionBudgets, all namespaces. */
  pdbs: PodDisruptionBudget[];
  volumeAttachments: VolumeAttachment[];
  cluster?: ClusterInfo;
  instances: Instance[];
  fargateProfiles: FargateProfile[];
  accessEntries: AccessEntry[];
  launchTemplates: LaunchTemplate[];
  instanceProfiles: InstanceProfile[];
  /** The subnets of the EC2NodeClasses (live), or whatever `aws ec2 describe-subnets` listed (capture). */
  subnets: Subnet[];
  /**
   * EC2 instance types: the region's `DescribeInstanceTypes` (live) or a captured
   * `aws ec2 describe-instance-types`; empty when neither (detectors then use the bundled table).
   */
  instanceTypes: InstanceTypeInfo[];
  /**
   * Spot prices of the Spot types in play: `DescribeSpotPriceHistory` from now (live) or a captured
   * `aws ec2 describe-spot-price-history`; absent or empty when neither (Spot is then priced
   * on-demand, docs/cost.md).
   */
  spotPrices?: SpotPrice[];
  logs: LogLine[];
  /**
   * Validating and Mutating webhook configurations (admissionregistration.k8s.io/v1), `kind` kept.
   * Absent counts as none, as for spotPrices: snapshots built before issue 24 leave it out.
   */
  webhookConfigurations?: WebhookConfiguration[];
  /**
   * EndpointSlices (discovery.k8s.io/v1) and/or Endpoints (core/v1) of the Services admission
   * webhooks point at (live: EndpointSlices of the Karpenter webhooks' Services only; a capture may
   * hold either kind, docs/capture.md). Absent counts as none.
   */
  endpoints?: ServiceEndpoints[];
  /**
   * Lines of a saved client error (a refused `kubectl apply`, Flux, Argo CD or Terraform output)
   * naming an admission webhook the API server could not call: a capture file holding one is read
   * as this evidence, not as an error instead of an output (docs/capture.md "Admission webhooks").
   * Captures only: a live scan cannot see what a client was told.
   */
  refusedWrites?: RefusedWrite[];
  /**
   * Capture files left out whose name does not say which source they held (`out3.json` too
   * large, `dump.yaml` holding an error): `file: problem`, one line each. Data may be missing.
   */
  unreadFiles?: string[];
}

/** One line of a saved client error (ClusterSnapshot.refusedWrites): its text (one line, bounded) and `file:line`. */
export interface RefusedWrite {
  text: string;
  origin: string;
}

/** The name a snapshot carries when no --cluster, describe-cluster, controller or tag named its cluster. */
export const UNKNOWN_CLUSTER = 'unknown';

/** The cluster's name, unless the capture did not say it (steps then read `$CLUSTER_NAME`). */
export function knownClusterName(snapshot: ClusterSnapshot): string | undefined {
  const name = snapshot.cluster?.name ?? snapshot.clusterName;
  return snapshot.cluster || name !== UNKNOWN_CLUSTER ? name : undefined;
}

export function emptySnapshot(clusterName: string): ClusterSnapshot {
  return {
    clusterName,
    captured: new Set(),
    gaps: [],
    pods: [],
    deployments: [],
    replicaSets: [],
    nodes: [],
    events: [],
    configMaps: [],
    services: [],
    crds: [],
    nodeClaims: [],
    nodePools: [],
    nodeClasses: [],
    pdbs: [],
    volumeAttachments: [],
    instances: [],
    fargateProfiles: [],
    accessEntries: [],
    launchTemplates: [],
    instanceProfiles: [],
    subnets: [],
    instanceTypes: [],
    spotPrices: [],
    logs: [],
    webhookConfigurations: [],
    endpoints: [],
  };
}
