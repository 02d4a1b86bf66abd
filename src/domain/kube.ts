/**
 * The subset of Kubernetes objects karpenter-sentinel reads, in their wire shape (what
 * `kubectl get -o json` prints and the API returns). Every field is optional because captures
 * come from real clusters, where anything may be missing.
 */

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Status condition as Kubernetes and Karpenter write it. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal' | string;
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
  tolerationSeconds?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface NodeSelectorTerm {
  matchExpressions?: LabelSelectorRequirement[];
  matchFields?: LabelSelectorRequirement[];
}

interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  topologyKey: string;
}

interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
  };
  podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
  podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
}

interface ResourceRequirements {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

export interface Container {
  name?: string;
  image?: string;
  /** valueFrom: set from a Secret, a ConfigMap or a field, so its value is not in the spec. */
  env?: { name: string; value?: string; valueFrom?: Record<string, unknown> }[];
  args?: string[];
  resources?: ResourceRequirements;
}

export interface PodSpec {
  nodeName?: string;
  schedulerName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  containers?: Container[];
  initContainers?: Container[];
  priorityClassName?: string;
  serviceAccountName?: string;
  /** `ClusterFirst` when unset: the resolver the pod asks (the cluster DNS Service, or the node's). */
  dnsPolicy?: 'ClusterFirst' | 'ClusterFirstWithHostNet' | 'Default' | 'None' | string;
  hostNetwork?: boolean;
  /** Kubernetes 1.30+: the pod stays Pending by design until every gate is removed. */
  schedulingGates?: { name: string }[];
  topologySpreadConstraints?: TopologySpreadConstraint[];
  /** Only what names a PersistentVolumeClaim is read. */
  volumes?: { name?: string; persistentVolumeClaim?: { claimName?: string } }[];
}

interface TopologySpreadConstraint {
  maxSkew?: number;
  topologyKey: string;
  /** `DoNotSchedule` (default) or `ScheduleAnyway`. */
  whenUnsatisfiable?: 'DoNotSchedule' | 'ScheduleAnyway' | string;
  minDomains?: number;
  labelSelector?: LabelSelector;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: {
    phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown' | string;
    conditions?: Condition[];
    startTime?: string;
    nominatedNodeName?: string;
    containerStatuses?: ContainerStatus[];
    podIP?: string;
  };
}

/** A container's state: exactly one of the three is set. */
interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { reason?: string; message?: string; exitCode?: number; startedAt?: string; finishedAt?: string };
}

export interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState;
  /** The previous run, when the container restarted: `OOMKilled`, `Error` and when it ended. */
  lastState?: ContainerState;
}

interface PodTemplate {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

export interface Deployment extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelector; template?: PodTemplate; paused?: boolean };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    updatedReplicas?: number;
    unavailableReplicas?: number;
    conditions?: Condition[];
  };
}

export interface ReplicaSet extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelector; template?: PodTemplate };
  status?: { replicas?: number; readyReplicas?: number };
}

export interface Node extends KubeObject {
  spec?: { providerID?: string; taints?: Taint[]; unschedulable?: boolean };
  status?: {
    conditions?: Condition[];
    allocatable?: Record<string, string>;
    capacity?: Record<string, string>;
  };
}

/** core/v1 Event and events.k8s.io/v1 Event, normalised by the loader/collector to one shape. */
export interface KubeEvent {
  regarding: { kind?: string; namespace?: string; name?: string; uid?: string };
  /** Kubernetes event namespace (where the Event object lives). */
  namespace?: string;
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning' | string;
  /** First time seen (ISO-8601), when known. */
  firstTime?: string;
  /** Last time seen (ISO-8601), when known. */
  lastTime?: string;
  count?: number;
  /** Reporting component, e.g. `default-scheduler`, `karpenter`, `fargate-scheduler`. */
  source?: string;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
}

export interface Service extends KubeObject {
  spec?: { ports?: ServicePort[]; selector?: Record<string, string>; type?: string };
}

interface WebhookClientConfig {
  service?: { name?: string; namespace?: string; port?: number; path?: string };
  url?: string;
  caBundle?: string;
}

export interface CustomResourceDefinition extends KubeObject {
  spec?: {
    group?: string;
    names?: { kind?: string; plural?: string };
    versions?: { name: string; served?: boolean; storage?: boolean }[];
    conversion?: {
      strategy?: 'None' | 'Webhook' | string;
      webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
    };
  };
  /** The versions objects may be stored in (never pruned by the API server itself). */
  status?: { storedVersions?: string[] };
}

/** policy/v1 PodDisruptionBudget (`kubectl get pdb -A -o json`). */
export interface PodDisruptionBudget extends KubeObject {
  spec?: {
    /** An absolute number, or a percentage such as `50%`. */
    minAvailable?: number | string;
    /** An absolute number, or a percentage such as `10%`. */
    maxUnavailable?: number | string;
    selector?: LabelSelector;
    /** `IfHealthyBudget` (default) or `AlwaysAllow`. */
    unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow' | string;
  };
  status?: {
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    expectedPods?: number;
    observedGeneration?: number;
    conditions?: Condition[];
  };
}

/** storage.k8s.io/v1 VolumeAttachment (`kubectl get volumeattachments -o json`): cluster-scoped. */
export interface VolumeAttachment extends KubeObject {
  spec?: {
    /** The CSI driver, e.g. `ebs.csi.aws.com`. */
    attacher?: string;
    nodeName?: string;
    source?: { persistentVolumeName?: string };
  };
  status?: {
    attached?: boolean;
    attachError?: { time?: string; message?: string };
    detachError?: { time?: string; message?: string };
  };
}

/** One rule of an admission webhook: which writes the API server sends it. */
interface WebhookRule {
  apiGroups?: string[];
  apiVersions?: string[];
  /** `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`. */
  operations?: string[];
  /** Plural resources, `nodeclaims/status` for a subresource, `*` for all. */
  resources?: string[];
  scope?: string;
}

/** One webhook of a Validating/MutatingWebhookConfiguration. */
export interface AdmissionWebhook {
  name?: string;
  /**
   * `caBundle` is the CA's public certificate (base64 PEM), kept as captured: it is no secret, a few
   * KiB, bounded by the file-size limit; what is read is whether there is one (docs/capture.md
   * "Admission webhooks"), its contents are not parsed.
   */
  clientConfig?: WebhookClientConfig;
  rules?: WebhookRule[];
  /** `Fail` when absent (admissionregistration.k8s.io/v1's default): a write is refused when the webhook cannot answer. */
  failurePolicy?: 'Fail' | 'Ignore' | string;
  /** `Equivalent` when absent: a rule also matches the same resource written through another served version. */
  matchPolicy?: 'Exact' | 'Equivalent' | string;
  objectSelector?: LabelSelector;
}

/**
 * admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration or MutatingWebhookConfiguration
 * (`kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o json`): cluster-scoped;
 * `kind` tells them apart (mutating webhooks are called first).
 */
export interface WebhookConfiguration extends KubeObject {
  kind?: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration' | string;
  webhooks?: AdmissionWebhook[];
}

/** discovery.k8s.io/v1 EndpointSlice: the API server (1.34+) resolves a webhook's Service through these. */
interface EndpointSlice extends KubeObject {
  kind?: 'EndpointSlice';
  addressType?: string;
  /** A ready condition that is absent counts as ready (the API server's reading). */
  endpoints?: { addresses?: string[]; conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean } }[];
  /** Named like the Service's ports: the API server matches by name, not number. */
  ports?: { name?: string; port?: number; protocol?: string }[];
}

/** core/v1 Endpoints: what API servers up to 1.33 resolve a webhook's Service through. */
interface Endpoints extends KubeObject {
  kind?: 'Endpoints';
  subsets?: {
    addresses?: { ip?: string }[];
    notReadyAddresses?: { ip?: string }[];
    ports?: { name?: string; port?: number; protocol?: string }[];
  }[];
}

/** The endpoints of a Service, in either API: `kind` says which. */
export type ServiceEndpoints = EndpointSlice | Endpoints;

// --- Karpenter custom resources (karpenter.sh/v1, karpenter.k8s.aws/v1) -------------------

export interface NodeClassRef {
  group?: string;
  kind?: string;
  name?: string;
  /** v1beta1 shape. */
  apiVersion?: string;
}

export interface NodeSelectorRequirementWithMinValues extends LabelSelectorRequirement {
  minValues?: number;
}

export interface NodeClaim extends KubeObject {
  spec?: {
    nodeClassRef?: NodeClassRef;
    requirements?: NodeSelectorRequirementWithMinValues[];
    taints?: Taint[];
    /** Copied from the NodePool: taints Karpenter waits for someone to remove before it initialises the node. */
    startupTaints?: Taint[];
    resources?: { requests?: Record<string, string> };
    /** Copied from the NodePool at launch: how long a drain may wait before Karpenter deletes the pods anyway. */
    terminationGracePeriod?: string;
  };
  status?: {
    providerID?: string;
    nodeName?: string;
    imageID?: string;
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    conditions?: Condition[];
    /** v1.0+: when a pod was last bound to or removed from its node (restarts the consolidateAfter wait). */
    lastPodEventTime?: string;
  };
}

/**
 * One of a NodePool's `spec.disruption.budgets` (karpenter.sh/v1): at most `nodes` (an integer or
 * a percentage of the NodePool's nodes) disrupted at once for `reasons` (all when absent), while
 * `schedule` (cron, UTC) plus `duration` is active (always when both are absent).
 */
export interface DisruptionBudget {
  nodes?: string;
  reasons?: string[];
  schedule?: string;
  duration?: string;
}

/** A NodePool's `spec.disruption`. Absent fields take Karpenter's v1 defaults (see the detectors). */
export interface NodePoolDisruption {
  consolidationPolicy?: string;
  /** A duration (`30s`, `5m`, `1h30m`) or `Never`; `0s` when absent in v1. */
  consolidateAfter?: string;
  budgets?: DisruptionBudget[];
  /** v1beta1 (before v1.0) kept `expireAfter` here; v1 moved it to `spec.template.spec`. */
  expireAfter?: string;
}

export interface NodePool extends KubeObject {
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: {
        nodeClassRef?: NodeClassRef;
        requirements?: NodeSelectorRequirementWithMinValues[];
        taints?: Taint[];
        startupTaints?: Taint[];
        /** How long a node lives before Karpenter replaces it: a Go duration (`720h`), or `Never`. */
        expireAfter?: string;
        /** How long a drain may wait on PDBs and do-not-disrupt pods before Karpenter deletes them (a Go duration). */
        terminationGracePeriod?: string;
        /** v1beta1: kubelet settings (v1 moved them to the EC2NodeClass). */
        kubelet?: KubeletConfiguration;
      };
    };
    limits?: Record<string, string>;
    weight?: number;
    disruption?: NodePoolDisruption;
  };
  status?: {
    resources?: Record<string, string>;
    conditions?: Condition[];
    nodeClassObservedGeneration?: number;
  };
}

/** The kubelet settings Karpenter reads when it estimates a node's allocatable (unchecked shapes: read defensively). */
export interface KubeletConfiguration {
  maxPods?: unknown;
  podsPerCore?: unknown;
  kubeReserved?: unknown;
  systemReserved?: unknown;
  evictionHard?: unknown;
}

export interface SelectorTerm {
  id?: string;
  name?: string;
  owner?: string;
  alias?: string;
  tags?: Record<string, string>;
  ssmParameter?: string;
}

export interface EC2NodeClass extends KubeObject {
  spec?: {
    amiFamily?: string;
    amiSelectorTerms?: SelectorTerm[];
    subnetSelectorTerms?: SelectorTerm[];
    securityGroupSelectorTerms?: SelectorTerm[];
    role?: string;
    instanceProfile?: string;
    tags?: Record<string, string>;
    kubelet?: KubeletConfiguration;
  };
  status?: {
    amis?: { id?: string; name?: string; requirements?: unknown[] }[];
    subnets?: { id?: string; zone?: string; zoneID?: string }[];
    securityGroups?: { id?: string; name?: string }[];
    instanceProfile?: string;
    conditions?: Condition[];
  };
}
