/** Cluster-level objects: describe-cluster, aws-auth and other ConfigMaps, access entries, Fargate profiles, CRDs. */
import type { AccessEntry, ClusterInfo, FargateProfile } from '../../src/domain/aws.ts';
import type { ConfigMap, CustomResourceDefinition } from '../../src/domain/kube.ts';
import { DAY, iso, roleArn, type Generation } from './context.ts';
import type { Fleet } from './fleet.ts';

export function clusterInfo(gen: Generation): ClusterInfo {
  const { rng, options } = gen;
  return {
    name: options.clusterName,
    arn: `arn:aws:eks:${options.region}:${options.accountId}:cluster/${options.clusterName}`,
    status: 'ACTIVE',
    version: '1.32',
    endpoint: `https://${rng.hex(32).toUpperCase()}.gr7.${options.region}.eks.amazonaws.com`,
    certificateAuthority: `LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSU${rng.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 1400)}=`,
    authenticationMode: 'API_AND_CONFIG_MAP',
    tags: { 'karpenter.sh/discovery': options.clusterName, 'example.com/environment': 'production' },
  };
}

/** aws-auth maps the system node group role and Karpenter's node role, but not the `-v2` role of the unmapped pool. */
export function configMaps(gen: Generation, fleet: Fleet): ConfigMap[] {
  const nodeGroups = ['system:bootstrappers', 'system:nodes'];
  const mapRole = (role: string) =>
    `- groups:\n${nodeGroups.map((g) => `  - ${g}\n`).join('')}  rolearn: ${roleArn(gen, role)}\n  username: system:node:{{EC2PrivateDNSName}}\n`;
  const created = iso(gen.nowMs - 200 * DAY);
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'aws-auth',
        namespace: 'kube-system',
        uid: gen.rng.uuid(),
        resourceVersion: '48213',
        creationTimestamp: created,
      },
      data: {
        mapRoles: mapRole(fleet.systemNodeRole) + mapRole(fleet.nodeRole),
        mapUsers: `- userarn: arn:aws:iam::${gen.options.accountId}:user/platform-admin\n  username: platform-admin\n  groups:\n  - system:masters\n`,
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'coredns',
        namespace: 'kube-system',
        uid: gen.rng.uuid(),
        creationTimestamp: created,
        labels: { 'k8s-app': 'kube-dns' },
      },
      data: {
        Corefile:
          '.:53 {\n    errors\n    health\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n      pods insecure\n      fallthrough in-addr.arpa ip6.arpa\n    }\n    prometheus :9153\n    forward . /etc/resolv.conf\n    cache 30\n    loop\n    reload\n    loadbalance\n}\n',
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-root-ca.crt', namespace: 'karpenter', uid: gen.rng.uuid(), creationTimestamp: created },
      data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIIbenchmarkonly\n-----END CERTIFICATE-----\n' },
    },
  ];
}

export function accessEntries(gen: Generation, fleet: Fleet): AccessEntry[] {
  return [
    {
      principalArn: roleArn(gen, fleet.systemNodeRole),
      type: 'EC2_LINUX',
      kubernetesGroups: ['system:nodes'],
      username: 'system:node:{{EC2PrivateDNSName}}',
      described: true,
    },
    {
      principalArn: roleArn(gen, fleet.nodeRole),
      type: 'EC2_LINUX',
      kubernetesGroups: ['system:nodes'],
      username: 'system:node:{{EC2PrivateDNSName}}',
      described: true,
    },
    {
      principalArn: roleArn(gen, 'PlatformAdmin'),
      type: 'STANDARD',
      kubernetesGroups: [],
      username: `arn:aws:sts::${gen.options.accountId}:assumed-role/PlatformAdmin/{{SessionName}}`,
      described: true,
    },
  ];
}

export function fargateProfiles(gen: Generation): FargateProfile[] {
  return [
    {
      name: 'fp-serverless-jobs',
      status: 'ACTIVE',
      selectors: [{ namespace: 'serverless-jobs' }],
      podExecutionRoleArn: roleArn(gen, `${gen.options.clusterName}-fargate-pod-execution`),
      subnets: [`subnet-0${gen.rng.hex(16)}`, `subnet-0${gen.rng.hex(16)}`],
      described: true,
    },
  ];
}

const OTHER_CRDS: [plural: string, group: string, kind: string][] = [
  ['eniconfigs', 'crd.k8s.amazonaws.com', 'ENIConfig'],
  ['policyendpoints', 'networking.k8s.aws', 'PolicyEndpoint'],
  ['cninodes', 'vpcresources.k8s.aws', 'CNINode'],
  ['securitygrouppolicies', 'vpcresources.k8s.aws', 'SecurityGroupPolicy'],
  ['ingressclassparams', 'elbv2.k8s.aws', 'IngressClassParams'],
  ['targetgroupbindings', 'elbv2.k8s.aws', 'TargetGroupBinding'],
  ['servicemonitors', 'monitoring.coreos.com', 'ServiceMonitor'],
  ['certificates', 'cert-manager.io', 'Certificate'],
];

/** Karpenter's v1 CRDs (no conversion webhook) and a few add-ons' CRDs. */
export function crds(gen: Generation): CustomResourceDefinition[] {
  const all: [string, string, string][] = [
    ['nodepools', 'karpenter.sh', 'NodePool'],
    ['nodeclaims', 'karpenter.sh', 'NodeClaim'],
    ['ec2nodeclasses', 'karpenter.k8s.aws', 'EC2NodeClass'],
    ...OTHER_CRDS,
  ];
  return all.map(([plural, group, kind]) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, uid: gen.rng.uuid(), creationTimestamp: iso(gen.nowMs - 120 * DAY) },
    spec: {
      group,
      names: { kind, plural },
      versions: [{ name: 'v1', served: true, storage: true }],
      conversion: { strategy: 'None' },
    },
  }));
}
