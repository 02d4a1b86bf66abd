/**
 * The JSON types of the fields detectors, planners and renderers read, per kind (mirrors
 * src/domain/kube.ts and aws.ts). Captured and live objects are checked against these when the
 * snapshot is built: an object failing its check is set aside, so code past the snapshot can
 * trust every field it reads to be of its declared type when present.
 */
import type { SourceName } from './snapshot.ts';
import { anything, arr, bool, type Check, num, obj, record, str, strOrNum, time } from './json-checks.ts';

const strings = record(str);
const quantities = record(strOrNum);

const objectMeta = obj({
  name: str,
  namespace: str,
  uid: str,
  resourceVersion: str,
  creationTimestamp: time,
  deletionTimestamp: time,
  labels: strings,
  annotations: strings,
  ownerReferences: arr(obj({ apiVersion: str, kind: str, name: str, uid: str, controller: bool })),
  finalizers: arr(str),
});

const conditions = arr(obj({ type: str, status: str, reason: str, message: str, lastTransitionTime: time }, ['type']));

// A toleration's key may be empty (with Exists it tolerates every taint); a taint and a selector
// requirement need theirs, as the API server's validation and the domain types (kube.ts) say.
const toleration = obj({ key: str, operator: str, value: str, effect: str });
const taint = obj({ key: str, value: str, effect: str }, ['key', 'effect']);

const requirement = obj({ key: str, operator: str, values: arr(str) }, ['key', 'operator']);
const labelSelector = obj({ matchLabels: strings, matchExpressions: arr(requirement) });
const nodeSelectorTerm = obj({ matchExpressions: arr(requirement), matchFields: arr(requirement) });
const podAffinityTerm = obj({ labelSelector, namespaces: arr(str), topologyKey: str });
const affinity = obj({
  nodeAffinity: obj({ requiredDuringSchedulingIgnoredDuringExecution: obj({ nodeSelectorTerms: arr(nodeSelectorTerm) }) }),
  podAntiAffinity: obj({ requiredDuringSchedulingIgnoredDuringExecution: arr(podAffinityTerm) }),
});

const container = obj({
  name: str,
  env: arr(obj({ name: str, value: str })),
  resources: obj({ requests: quantities, limits: quantities }),
});

const podSpec = obj({
  nodeName: str,
  schedulerName: str,
  nodeSelector: strings,
  affinity,
  tolerations: arr(toleration),
  containers: arr(container),
  initContainers: arr(container),
  serviceAccountName: str,
  dnsPolicy: str,
  hostNetwork: bool,
  schedulingGates: arr(obj({ name: str })),
  volumes: arr(obj({ name: str, persistentVolumeClaim: obj({ claimName: str }) })),
});
const podTemplate = obj({ metadata: objectMeta, spec: podSpec });

/** What every kept Kubernetes object has: metadata, and spec/status objects if any. */
function kubeObject(spec: Check, status: Check, more: Record<string, Check> = {}): Check {
  return obj({ metadata: objectMeta, spec, status, ...more });
}

const containerState = obj({
  waiting: obj({ reason: str, message: str }),
  running: obj({ startedAt: time }),
  terminated: obj({ reason: str, message: str, exitCode: num, startedAt: time, finishedAt: time }),
});
const containerStatus = obj({ name: str, ready: bool, restartCount: num, state: containerState, lastState: containerState });

const pod = kubeObject(
  podSpec,
  obj({
    phase: str,
    conditions,
    startTime: time,
    nominatedNodeName: str,
    containerStatuses: arr(containerStatus),
    podIP: str,
  }),
);

const deployment = kubeObject(
  obj({ replicas: num, selector: labelSelector, template: podTemplate, paused: bool }),
  obj({ replicas: num, readyReplicas: num, conditions }),
);

const replicaSet = kubeObject(
  obj({ replicas: num, selector: labelSelector, template: podTemplate }),
  obj({ replicas: num, readyReplicas: num, conditions }),
);

const node = kubeObject(
  obj({ providerID: str, taints: arr(taint), unschedulable: bool }),
  obj({ conditions, allocatable: quantities, capacity: quantities }),
);

const configMap = kubeObject(anything, anything, { data: strings });

const service = kubeObject(
  obj({ ports: arr(obj({ name: str, port: num, targetPort: strOrNum, protocol: str })), selector: strings, type: str }),
  anything,
);

const crd = kubeObject(
  obj({
    group: str,
    names: obj({ kind: str }),
    versions: arr(obj({ name: str, served: bool, storage: bool })),
    conversion: obj({
      strategy: str,
      webhook: obj({
        clientConfig: obj({ service: obj({ name: str, namespace: str, port: num, path: str }), url: str }),
      }),
    }),
  }),
  obj({ conditions, storedVersions: arr(str) }),
);

const nodeClassRef = obj({ group: str, kind: str, name: str, apiVersion: str });

const nodeClaim = kubeObject(
  obj({
    nodeClassRef,
    requirements: arr(requirement),
    taints: arr(taint),
    resources: obj({ requests: quantities }),
    terminationGracePeriod: str,
  }),
  obj({ providerID: str, nodeName: str, capacity: quantities, allocatable: quantities, conditions }),
);

const nodePool = kubeObject(
  obj({
    template: obj({
      metadata: obj({ labels: strings, annotations: strings }),
      spec: obj({
        nodeClassRef,
        requirements: arr(requirement),
        taints: arr(taint),
        expireAfter: str,
        terminationGracePeriod: str,
      }),
    }),
    limits: quantities,
    disruption: obj({
      consolidationPolicy: str,
      consolidateAfter: str,
      budgets: arr(obj({ nodes: str, reasons: arr(str), schedule: str, duration: str })),
      // v1beta1's place for it (kube.ts NodePoolDisruption): expiry reads it when the template has none.
      expireAfter: str,
    }),
  }),
  obj({ resources: quantities, conditions }),
);

const selectorTerm = obj({ id: str, name: str, owner: str, alias: str, tags: strings, ssmParameter: str });

const ec2NodeClass = kubeObject(
  obj({
    amiFamily: str,
    amiSelectorTerms: arr(selectorTerm),
    subnetSelectorTerms: arr(selectorTerm),
    securityGroupSelectorTerms: arr(selectorTerm),
    role: str,
    instanceProfile: str,
    tags: strings,
  }),
  obj({
    amis: arr(obj({ id: str, name: str, requirements: arr(anything) })),
    subnets: arr(obj({ id: str, zone: str })),
    instanceProfile: str,
    conditions,
  }),
);

const pdb = kubeObject(
  obj({ minAvailable: strOrNum, maxUnavailable: strOrNum, selector: labelSelector, unhealthyPodEvictionPolicy: str }),
  obj({ disruptionsAllowed: num, currentHealthy: num, desiredHealthy: num, expectedPods: num, conditions }),
);

const volumeError = obj({ time: time, message: str });

const volumeAttachment = kubeObject(
  obj({ attacher: str, nodeName: str, source: obj({ persistentVolumeName: str }) }),
  obj({ attached: bool, attachError: volumeError, detachError: volumeError }),
);

const webhookClientConfig = obj({
  service: obj({ name: str, namespace: str, port: num, path: str }),
  url: str,
  caBundle: str,
});

const webhookConfiguration = kubeObject(anything, anything, {
  webhooks: arr(
    obj({
      name: str,
      clientConfig: webhookClientConfig,
      rules: arr(obj({ apiGroups: arr(str), apiVersions: arr(str), operations: arr(str), resources: arr(str), scope: str })),
      failurePolicy: str,
      matchPolicy: str,
      objectSelector: labelSelector,
    }),
  ),
});

const endpointPorts = arr(obj({ name: str, port: num, protocol: str }));

// One source holds both kinds (kube.ts ServiceEndpoints): EndpointSlice's fields, then Endpoints'.
const serviceEndpoints = kubeObject(anything, anything, {
  addressType: str,
  endpoints: arr(obj({ addresses: arr(str), conditions: obj({ ready: bool, serving: bool, terminating: bool }) })),
  ports: endpointPorts,
  subsets: arr(obj({ addresses: arr(obj({ ip: str })), notReadyAddresses: arr(obj({ ip: str })), ports: endpointPorts })),
});

/** Kubernetes objects by the source they belong to (Events are normalised field by field instead). */
export const KUBE_SHAPES: Readonly<Partial<Record<SourceName, Check>>> = {
  pods: pod,
  deployments: deployment,
  replicasets: replicaSet,
  nodes: node,
  configmaps: configMap,
  services: service,
  crds: crd,
  nodeclaims: nodeClaim,
  nodepools: nodePool,
  ec2nodeclasses: ec2NodeClass,
  pdbs: pdb,
  volumeattachments: volumeAttachment,
  webhookconfigurations: webhookConfiguration,
  endpoints: serviceEndpoints,
};

// --- AWS records, as the loader and the AWS adapters build them -----------------------------

const tags = strings;

export const AWS_SHAPES = {
  instances: obj(
    {
      id: str,
      state: str,
      launchTime: time,
      instanceType: str,
      availabilityZone: str,
      privateDnsName: str,
      iamInstanceProfileArn: str,
      lifecycle: str,
      tags,
    },
    ['id', 'state', 'tags'],
  ),
  cluster: obj(
    {
      name: str,
      arn: str,
      status: str,
      version: str,
      endpoint: str,
      certificateAuthority: str,
      authenticationMode: str,
      tags,
      autoMode: bool,
      endpointPublicAccess: bool,
      endpointPrivateAccess: bool,
      vpcId: str,
      clusterSecurityGroupId: str,
      gone: bool,
    },
    ['name'],
  ),
  fargateprofiles: obj(
    {
      name: str,
      status: str,
      selectors: arr(obj({ namespace: str, labels: strings })),
      podExecutionRoleArn: str,
      subnets: arr(str),
      described: bool,
    },
    ['name', 'selectors'],
  ),
  accessentries: obj({ principalArn: str, type: str, kubernetesGroups: arr(str), username: str, described: bool }, [
    'principalArn',
  ]),
  launchtemplates: obj({ id: str, name: str, createTime: time, tags }, ['id', 'name', 'tags']),
  instanceprofiles: obj(
    {
      name: str,
      arn: str,
      path: str,
      id: str,
      createDate: time,
      roles: arr(obj({ name: str, arn: str }, ['name'])),
      tags,
    },
    ['name', 'roles', 'tags'],
  ),
  subnets: obj(
    {
      id: str,
      vpcId: str,
      availabilityZone: str,
      availabilityZoneId: str,
      cidrBlock: str,
      availableIpAddressCount: num,
      ipv6CidrBlocks: arr(str),
      ipv6Native: bool,
      mapPublicIpOnLaunch: bool,
      state: str,
      tags,
    },
    ['id', 'tags'],
  ),
  instancetypes: obj(
    {
      name: str,
      vcpus: num,
      memoryMiB: num,
      architectures: arr(str),
      usageClasses: arr(str),
      hypervisor: str,
      cpuManufacturer: str,
      gpu: obj({ name: str, manufacturer: str, count: num, memoryMiB: num }, ['name', 'manufacturer', 'count', 'memoryMiB']),
      neuron: obj({ name: str, count: num, coresPerDevice: num }, ['name', 'count', 'coresPerDevice']),
      localNvmeGB: num,
      maxNetworkInterfaces: num,
      ipv4PerInterface: num,
      bareMetal: bool,
    },
    [
      'name',
      'vcpus',
      'memoryMiB',
      'architectures',
      'usageClasses',
      'hypervisor',
      'maxNetworkInterfaces',
      'ipv4PerInterface',
      'bareMetal',
    ],
  ),
  spotprices: obj({ instanceType: str, availabilityZone: str, usd: num, timestamp: time, productDescription: str }, [
    'instanceType',
    'availabilityZone',
    'usd',
  ]),
  interruptionqueue: obj({ name: str, exists: bool, url: str, attributes: strings }, ['name', 'exists']),
  queuerules: obj({ name: str, state: str, eventPattern: str }, ['name']),
  queueage: obj({ ageSeconds: num }),
} as const satisfies Record<string, Check>;
