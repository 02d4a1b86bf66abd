/**
 * A synthetic AWS account and cluster after a partial `terraform destroy` (the Karpenter release
 * gone, its NodePools, NodeClaims, instances, launch templates and instance profiles left), for
 * the cleanup benchmark. Deterministic: ids are counters, not random, so every run and machine
 * sees the same account.
 */
import type { ClusterInfo, Instance, InstanceProfile, LaunchTemplate } from '../src/domain/aws.ts';
import type { EC2NodeClass, NodeClaim, NodePool, Pod } from '../src/domain/kube.ts';
import { emptySnapshot, type ClusterSnapshot, type SourceName } from '../src/domain/snapshot.ts';
import { FLEET_ID_TAG, LAUNCH_TEMPLATE_ID_TAG } from '../src/domain/provenance.ts';
import { CLUSTER_TAG, legacyClusterTag, NODECLAIM_TAG, NODECLASS_TAG, NODEGROUP_TAG, NODEPOOL_TAG } from '../src/domain/tags.ts';
import { KUBE_SUFFIX_ALPHABET } from './rng.ts';

export const CLEANUP_CLUSTER = 'platform-eks-prod';
export const CLEANUP_REGION = 'eu-central-1';
/** Another cluster's Karpenter in the same account and region: none of its resources may be touched. */
export const OTHER_CLUSTER = 'platform-eks-staging';
export const CLEANUP_NOW = '2026-06-01T12:00:00Z';
const ACCOUNT = '731924518360';
const NODEPOOLS = ['general', 'spot', 'batch', 'gpu'];
const LAUNCHED = '2026-05-20T08:00:00Z';

/** What the cluster's cleanup must remove: exactly these, nothing else in the account. */
export interface CleanupExpectation {
  nodePools: string[];
  instances: string[];
  launchTemplates: string[];
  instanceProfiles: string[];
}

export interface CleanupAccountCounts {
  /** The cluster's Karpenter instances by state (the cleanup's candidates). */
  karpenter: { running: number; stopped: number; pending: number };
  /** Left alone: managed node groups' (half also tagged `karpenter.sh/nodepool`), another cluster's Karpenter, already terminated. */
  others: { nodeGroup: number; otherCluster: number; terminated: number };
  launchTemplates: { karpenter: number; all: number };
  instanceProfiles: { karpenter: number; all: number };
  nodePools: number;
  nodeClaims: number;
}

export interface CleanupAccount {
  snapshot: ClusterSnapshot;
  expected: CleanupExpectation;
  counts: CleanupAccountCounts;
}

/** `i-` and 17 hex digits; `kind` keeps each group's ids apart. */
function instanceId(kind: number, n: number): string {
  return `i-0${kind.toString(16)}${n.toString(16).padStart(15, '0')}`;
}

/** A `generateName` suffix: 5 characters of Kubernetes' alphabet from a counter. */
function suffix(n: number): string {
  let out = '';
  let rest = n;
  for (let i = 0; i < 5; i += 1) {
    out += KUBE_SUFFIX_ALPHABET[rest % KUBE_SUFFIX_ALPHABET.length];
    rest = Math.floor(rest / KUBE_SUFFIX_ALPHABET.length);
  }
  return out;
}

/** Running for 8 of 10, then one stopped (its NodeClaim force-removed earlier) and one still pending. */
export function karpenterInstanceState(n: number): 'running' | 'stopped' | 'pending' {
  return n % 10 === 8 ? 'stopped' : n % 10 === 9 ? 'pending' : 'running';
}

function instance(id: string, state: string, tags: Record<string, string>): Instance {
  return {
    id,
    state,
    launchTime: LAUNCHED,
    instanceType: 'm7i.xlarge',
    availabilityZone: `${CLEANUP_REGION}a`,
    tags,
  };
}

/** The first launch template of a kind (1: the cluster's Karpenter template, 2: another's); see the loop below. */
const FIRST_LT = (kind: number) => `lt-0${kind}${'0'.padStart(15, '0')}`;

/** Karpenter's tags, and EC2's own from its CreateFleet launch from the cluster's first Karpenter launch template. */
function karpenterTags(cluster: string, pool: string, claim: string, launchTemplateId = FIRST_LT(1)): Record<string, string> {
  return {
    [CLUSTER_TAG]: cluster,
    [legacyClusterTag(cluster)]: 'owned',
    [NODEPOOL_TAG]: pool,
    [NODECLASS_TAG]: 'default',
    [NODECLAIM_TAG]: claim,
    [FLEET_ID_TAG]: `fleet-${claim}`,
    [LAUNCH_TEMPLATE_ID_TAG]: launchTemplateId,
    Name: claim,
  };
}

function nodePool(name: string): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name, creationTimestamp: '2026-01-10T09:00:00Z' },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: [name === 'spot' ? 'spot' : 'on-demand'] }],
        },
      },
      limits: { cpu: '4000' },
    },
  };
}

function nodeClaim(name: string, pool: string, id: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      creationTimestamp: LAUNCHED,
      finalizers: ['karpenter.sh/termination'],
      labels: { [NODEPOOL_TAG]: pool, [NODECLASS_TAG]: 'default' },
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: pool, uid: `uid-${pool}` }],
    },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
    status: { providerID: `aws:///${CLEANUP_REGION}a/${id}` },
  };
}

function nodeClass(role: string): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'default', uid: 'uid-default', creationTimestamp: '2025-01-06T09:00:00Z' },
    spec: { role, amiSelectorTerms: [{ alias: 'al2023@latest' }] },
  };
}

function systemPod(name: string): Pod {
  return {
    metadata: { name, namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } },
    spec: { containers: [{ name: 'coredns', image: 'coredns:v1.11.4' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as Pod;
}

function launchTemplate(id: string, name: string, tags: Record<string, string>): LaunchTemplate {
  return { id, name, createTime: '2026-01-10T09:00:00Z', tags };
}

function instanceProfile(name: string, path: string, role: string, tags: Record<string, string>): InstanceProfile {
  return {
    name,
    path,
    arn: `arn:aws:iam::${ACCOUNT}:instance-profile${path}${name}`,
    roles: [{ name: role, arn: `arn:aws:iam::${ACCOUNT}:role/${role}` }],
    tags,
  };
}

/** Twenty decimal digits, as Karpenter's hash-derived names have. */
const digits = (kind: number, n: number) => `${kind}${String(n).padStart(19, '0')}`;

/**
 * `karpenterInstances` of the cluster's Karpenter instances over 4 NodePools (8 in 10 running with a
 * NodeClaim, 1 stopped without, 1 pending with); then, left alone, a tenth as many managed node
 * group instances, a tenth as many of another cluster's Karpenter and a twentieth as many already
 * terminated; per 100 instances 2 launch templates and 2 instance profiles, half of each Karpenter's
 * for this cluster (alternately of Karpenter ≥ 1.3 / ≥ 1.1 and of the older kinds).
 */
export function cleanupAccount(karpenterInstances: number): CleanupAccount {
  const cluster = CLEANUP_CLUSTER;
  const s = emptySnapshot(cluster);
  const captured: SourceName[] = [
    'cluster',
    'instances',
    'launchtemplates',
    'instanceprofiles',
    'nodepools',
    'nodeclaims',
    'ec2nodeclasses',
    'pods',
  ];
  for (const source of captured) s.captured.add(source);
  const info: ClusterInfo = {
    name: cluster,
    arn: `arn:aws:eks:${CLEANUP_REGION}:${ACCOUNT}:cluster/${cluster}`,
    status: 'ACTIVE',
    version: '1.33',
    endpoint: 'https://0F3C9A7E5B1D2468.gr7.eu-central-1.eks.amazonaws.com',
    authenticationMode: 'API',
  };
  s.cluster = info;
  s.nodePools = NODEPOOLS.map(nodePool);
  // The EC2NodeClass every NodePool names: its role is the one Karpenter's profiles hold, which the
  // cleanup requires before deleting one (docs/cleanup.md, step 4).
  s.nodeClasses = [nodeClass(`KarpenterNodeRole-${cluster}`)];
  s.pods = [systemPod('coredns-6d4b8c7f9-bx2kq'), systemPod('coredns-6d4b8c7f9-m7vzt')];
  const expected: CleanupExpectation = { nodePools: [...NODEPOOLS], instances: [], launchTemplates: [], instanceProfiles: [] };
  const counts: CleanupAccountCounts = {
    karpenter: { running: 0, stopped: 0, pending: 0 },
    others: { nodeGroup: 0, otherCluster: 0, terminated: 0 },
    launchTemplates: { karpenter: 0, all: 0 },
    instanceProfiles: { karpenter: 0, all: 0 },
    nodePools: NODEPOOLS.length,
    nodeClaims: 0,
  };

  for (let n = 0; n < karpenterInstances; n += 1) {
    const pool = NODEPOOLS[n % NODEPOOLS.length] as string;
    const claim = `${pool}-${suffix(n)}`;
    const id = instanceId(10, n);
    const state = karpenterInstanceState(n);
    s.instances.push(instance(id, state, karpenterTags(cluster, pool, claim)));
    if (state !== 'stopped') s.nodeClaims.push(nodeClaim(claim, pool, id));
    expected.instances.push(id);
    counts.karpenter[state] += 1;
  }
  for (let n = 0; n < Math.ceil(karpenterInstances / 10); n += 1) {
    // Node groups' launch templates may carry `karpenter.sh/nodepool` too (seed 003): never Karpenter's.
    const nodeGroup = { [CLUSTER_TAG]: cluster, [NODEGROUP_TAG]: 'system', ...(n % 2 === 0 ? { [NODEPOOL_TAG]: 'system' } : {}) };
    s.instances.push(instance(instanceId(11, n), 'running', nodeGroup));
    const otherClaim = `general-${suffix(n)}`;
    s.instances.push(
      instance(
        instanceId(12, n),
        n % 3 === 0 ? 'stopped' : 'running',
        karpenterTags(OTHER_CLUSTER, 'general', otherClaim, FIRST_LT(2)),
      ),
    );
  }
  counts.others.nodeGroup = counts.others.otherCluster = Math.ceil(karpenterInstances / 10);
  for (let n = 0; n < Math.ceil(karpenterInstances / 20); n += 1) {
    const pool = NODEPOOLS[n % NODEPOOLS.length] as string;
    s.instances.push(instance(instanceId(13, n), 'terminated', karpenterTags(cluster, pool, `${pool}-t${suffix(n)}`)));
  }
  counts.others.terminated = Math.ceil(karpenterInstances / 20);

  const perHundred = Math.max(1, Math.round(karpenterInstances / 100));
  for (let n = 0; n < perHundred; n += 1) {
    const ltId = (kind: number) => `lt-0${kind}${n.toString(16).padStart(15, '0')}`;
    // Karpenter ≥ 1.1 tags its templates eks:eks-cluster-name; 1.0 only karpenter.k8s.aws/cluster.
    const ours = launchTemplate(ltId(1), `karpenter.k8s.aws/${digits(1, n)}`, {
      [n % 2 === 0 ? CLUSTER_TAG : 'karpenter.k8s.aws/cluster']: cluster,
      [NODECLASS_TAG]: 'default',
    });
    const theirs =
      n % 2 === 0
        ? launchTemplate(ltId(2), `karpenter.k8s.aws/${digits(2, n)}`, {
            [CLUSTER_TAG]: OTHER_CLUSTER,
            [NODECLASS_TAG]: 'default',
          })
        : launchTemplate(ltId(2), `system-${digits(2, n)}`, { [CLUSTER_TAG]: cluster, [NODEGROUP_TAG]: 'system' });
    s.launchTemplates.push(ours, theirs);
    expected.launchTemplates.push(ours.id);

    const role = `KarpenterNodeRole-${cluster}`;
    // Karpenter ≥ 1.3 keeps profiles under /karpenter/<region>/<cluster>/; before, at / known by their tags.
    const profile =
      n % 2 === 0
        ? instanceProfile(`${cluster}_${digits(3, n)}`, `/karpenter/${CLEANUP_REGION}/${cluster}/nodeclass-${n}/`, role, {})
        : instanceProfile(`${cluster}_${digits(4, n)}`, '/', role, {
            [CLUSTER_TAG]: cluster,
            [legacyClusterTag(cluster)]: 'owned',
            'topology.kubernetes.io/region': CLEANUP_REGION,
            [NODECLASS_TAG]: 'default',
          });
    const otherProfile =
      n % 2 === 0
        ? instanceProfile(
            `${OTHER_CLUSTER}_${digits(5, n)}`,
            `/karpenter/${CLEANUP_REGION}/${OTHER_CLUSTER}/nodeclass-${n}/`,
            `KarpenterNodeRole-${OTHER_CLUSTER}`,
            {},
          )
        : instanceProfile(`KarpenterNodeInstanceProfile-${cluster}-${n}`, '/', role, {});
    s.instanceProfiles.push(profile, otherProfile);
    expected.instanceProfiles.push(profile.name);
  }
  counts.launchTemplates = { karpenter: perHundred, all: 2 * perHundred };
  counts.instanceProfiles = { karpenter: perHundred, all: 2 * perHundred };
  counts.nodeClaims = s.nodeClaims.length;
  for (const list of Object.values(expected) as string[][]) list.sort();
  return { snapshot: s, expected, counts };
}
