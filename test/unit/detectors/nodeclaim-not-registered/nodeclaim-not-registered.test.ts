import { describe, expect, it } from 'vitest';
import { nodeClaimNotRegistered } from '../../../../src/detectors/nodeclaim-not-registered/detector.ts';
import type { AccessEntry } from '../../../../src/domain/aws.ts';
import type { EC2NodeClass } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { ACCOUNT, accessEntry, cluster, instance, instanceProfile, snapshotOf } from '../../../factories/aws.ts';
import {
  autoModeNodeClaim,
  autoModeNodePool,
  ec2NodeClass,
  nodeClaim,
  nodePool,
  unregisteredConditions,
} from '../../../factories/karpenter.ts';
import { T0, awsAuth, condition, minutesAfter, node } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 12);
const NODE_ROLE = `arn:aws:iam::${ACCOUNT}:role/KarpenterNodeRole-demo`;

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return nodeClaimNotRegistered.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

function stuckClaim(name: string, instanceId: string, nodePoolName = 'default', launchedAt = T0) {
  return nodeClaim({ name, nodePool: nodePoolName, instanceId, conditions: unregisteredConditions(launchedAt) });
}

function mapRoles(rolearn: string, groups = ['system:bootstrappers', 'system:nodes']): string {
  return `- rolearn: ${rolearn}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n${groups.map((g) => `    - ${g}\n`).join('')}`;
}

const NODE_GROUP_ONLY = awsAuth(mapRoles(`arn:aws:iam::${ACCOUNT}:role/demo-node-group-role`));
const MAPPED = awsAuth(mapRoles(NODE_ROLE));

/** One stuck NodeClaim of NodePool default whose EC2NodeClass uses KarpenterNodeRole-demo, plus `parts`. */
function scenario(parts: Parameters<typeof snapshotOf>[0] = {}): ClusterSnapshot {
  return snapshotOf({
    nodeClaims: [stuckClaim('default-kb85v', 'i-01d1ff6c07a0e70f9')],
    nodePools: [nodePool({ name: 'default' })],
    nodeClasses: [ec2NodeClass({ name: 'default' })],
    ...parts,
  });
}

describe('NODECLAIM_NOT_REGISTERED: seed 004 #9', () => {
  // aws-auth held only the managed node group role, not the Karpenter node role; no describe-cluster.
  const seedProfile = 'arn:aws:iam::069057294951:instance-profile/aws-2026-eks_1976173924626587633';
  const snapshot = snapshotOf(
    {
      nodeClaims: [stuckClaim('default-kb85v', 'i-01d1ff6c07a0e70f9'), stuckClaim('default-njzpq', 'i-0a2b3c4d5e6f70809')],
      nodePools: [nodePool({ name: 'default' })],
      nodeClasses: [ec2NodeClass({ name: 'default', role: 'aws-2026-eks-karpenter-node' })],
      nodes: [node({ name: 'ip-10-59-127-151.ec2.internal', providerID: 'aws:///us-east-1a/i-0feedfacefeedface' })],
      configMaps: [
        awsAuth(
          '- rolearn: arn:aws:iam::069057294951:role/aws-2026-eks-node-role\n  groups:\n  - system:bootstrappers\n  - system:nodes\n  username: system:node:{{EC2PrivateDNSName}}\n',
        ),
      ],
      instances: ['i-01d1ff6c07a0e70f9', 'i-0a2b3c4d5e6f70809'].map((id) => ({
        ...instance({ id, cluster: 'aws-2026-eks' }),
        iamInstanceProfileArn: seedProfile,
      })),
      instanceProfiles: [instanceProfile({ name: 'aws-2026-eks_1976173924626587633', role: 'aws-2026-eks-karpenter-node' })],
    },
    'aws-2026-eks',
  );

  const findings = detect(snapshot);

  it('reports one critical finding for the NodePool with both NodeClaims and their instances', () => {
    expect(findings).toHaveLength(1);
    const f = findings[0];
    expect(f?.severity).toBe('critical');
    expect(f?.resource).toEqual({ kind: 'NodePool', name: 'default' });
    expect(f?.since).toBe(T0);
    expect(f?.evidence.join('\n')).toContain('NodeClaim default-kb85v: instance i-01d1ff6c07a0e70f9 launched 12m ago');
    expect(f?.evidence.join('\n')).toContain('NodeClaim default-njzpq: instance i-0a2b3c4d5e6f70809');
    expect(f?.evidence.join('\n')).toContain('NodeNotFound: Node not registered with cluster');
  });

  it('blames the unmapped Karpenter node role and says Karpenter keeps relaunching', () => {
    const f = findings[0];
    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect(f?.cause?.detail).toContain('arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node');
    expect(f?.cause?.detail).toContain('keeps launching (and paying for) instances');
    expect(f?.evidence.join('\n')).toContain('it maps only arn:aws:iam::069057294951:role/aws-2026-eks-node-role');
    expect(f?.evidence.join('\n')).toContain('authentication mode not captured');
  });

  it('gives the exact aws-auth entry and eksctl command with the real ARN and cluster', () => {
    const steps = f0Steps(findings);
    expect(steps).toContain(
      '- rolearn: arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:bootstrappers\n    - system:nodes',
    );
    expect(steps).toContain('kubectl edit configmap aws-auth -n kube-system');
    expect(steps).toContain(
      'eksctl create iamidentitymapping --cluster aws-2026-eks --region us-east-1 --arn arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node --username system:node:{{EC2PrivateDNSName}} --group system:bootstrappers --group system:nodes',
    );
    expect(steps).toContain(
      'aws eks create-access-entry --cluster-name aws-2026-eks --principal-arn arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node --type EC2_LINUX',
    );
    expect(findings[0]?.remediation?.status).toBe('manual');
  });

  it('access entries were not captured: the first step looks there before anything is created', () => {
    expect(findings[0]?.remediation?.steps[0]).toBe(
      '# access entries were not captured: look for role aws-2026-eks-karpenter-node there first, and map it only if it is in neither\naws eks list-access-entries --cluster-name aws-2026-eks --region us-east-1',
    );
  });
});

function f0Steps(findings: ReturnType<typeof detect>): string {
  return findings[0]?.remediation?.steps.join('\n') ?? '';
}

describe('NODECLAIM_NOT_REGISTERED: when it fires', () => {
  it('ignores registered NodeClaims', () => {
    const s = scenario({
      nodeClaims: [nodeClaim({ name: 'default-ok', instanceId: 'i-0aaa', nodeName: 'ip-10-0-1-1.ec2.internal' })],
      configMaps: [NODE_GROUP_ONLY],
    });

    expect(detect(s)).toEqual([]);
  });

  it('waits for the registration threshold', () => {
    expect(detect(scenario({ configMaps: [NODE_GROUP_ONLY] }), minutesAfter(T0, 9))).toEqual([]);
  });

  it('fires at exactly the threshold', () => {
    expect(detect(scenario({ configMaps: [NODE_GROUP_ONLY] }), minutesAfter(T0, 10))).toHaveLength(1);
  });

  it('uses the creation time when the Launched condition has no transition time', () => {
    const nc = stuckClaim('default-kb85v', 'i-01d1ff6c07a0e70f9');
    const launched = nc.status?.conditions?.find((c) => c.type === 'Launched');
    if (launched) delete launched.lastTransitionTime;
    nc.metadata = { ...nc.metadata, creationTimestamp: minutesAfter(T0, 5) };

    expect(detect(scenario({ nodeClaims: [nc], configMaps: [NODE_GROUP_ONLY] }))).toEqual([]);
    expect(detect(scenario({ nodeClaims: [nc], configMaps: [NODE_GROUP_ONLY] }), minutesAfter(T0, 15))[0]?.since).toBe(
      minutesAfter(T0, 5),
    );
  });

  it('ignores NodeClaims that have not launched yet', () => {
    const nc = nodeClaim({
      name: 'default-new',
      conditions: [condition('Launched', 'Unknown'), condition('Registered', 'Unknown')],
    });

    expect(detect(scenario({ nodeClaims: [nc], configMaps: [NODE_GROUP_ONLY] }))).toEqual([]);
  });

  it('ignores a NodeClaim whose Node exists', () => {
    const s = scenario({
      configMaps: [NODE_GROUP_ONLY],
      nodes: [node({ name: 'ip-10-0-1-9.ec2.internal', providerID: 'aws:///us-east-1a/i-01d1ff6c07a0e70f9' })],
    });

    expect(detect(s)).toEqual([]);
  });

  it('groups NodeClaims per NodePool', () => {
    const s = scenario({
      nodeClaims: [
        stuckClaim('default-a1b2c', 'i-0a1'),
        stuckClaim('gpu-d3e4f', 'i-0b2', 'gpu'),
        stuckClaim('default-g5h6i', 'i-0c3'),
      ],
      nodePools: [nodePool({ name: 'default' }), nodePool({ name: 'gpu' })],
      configMaps: [NODE_GROUP_ONLY],
    });

    const findings = detect(s);

    expect(findings.map((f) => f.resource)).toEqual([
      { kind: 'NodePool', name: 'default' },
      { kind: 'NodePool', name: 'gpu' },
    ]);
    expect(findings[0]?.title).toBe('2 NodeClaims of NodePool default launched but never registered a Node');
    expect(findings[1]?.evidence.join()).toContain('gpu-d3e4f');
    expect(findings[1]?.evidence.join()).not.toContain('default-a1b2c');
    expect(findings[0]?.id).not.toBe(findings[1]?.id);
  });

  it('reports NodeRegistrationHealthy=False on a NodePool after its NodeClaims are gone', () => {
    const unhealthy = condition('NodeRegistrationHealthy', 'False', {
      reason: 'RegistrationFailed',
      message: 'Failed to register node',
      lastTransitionTime: minutesAfter(T0, 15),
    });
    const s = scenario({
      nodeClaims: [],
      nodePools: [nodePool({ name: 'default', conditions: [unhealthy] })],
      configMaps: [NODE_GROUP_ONLY],
      cluster: cluster(),
    });

    const [f] = detect(s, minutesAfter(T0, 40));

    expect(f?.resource).toEqual({ kind: 'NodePool', name: 'default' });
    expect(f?.since).toBe(minutesAfter(T0, 15));
    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect(f?.evidence).toContain(
      `NodePool default: NodeRegistrationHealthy=False (RegistrationFailed: Failed to register node) since ${minutesAfter(T0, 15)}`,
    );
  });

  it('leaves a NodeRegistrationHealthy=False copied from a launch failure to NODECLAIM_LAUNCH_FAILED', () => {
    const launchFailure = condition('NodeRegistrationHealthy', 'False', {
      reason: 'SpotSLRCreationFailed',
      message: 'User does not hae sufficient permission',
    });

    expect(detect(scenario({ nodeClaims: [], nodePools: [nodePool({ name: 'default', conditions: [launchFailure] })] }))).toEqual(
      [],
    );
  });
});

describe('NODECLAIM_NOT_REGISTERED: authentication modes', () => {
  const linuxEntry = accessEntry({ principalArn: NODE_ROLE, type: 'EC2_LINUX' });

  it('CONFIG_MAP: an access entry does not count, aws-auth is the fix', () => {
    const [f] = detect(
      scenario({
        cluster: cluster({ authenticationMode: 'CONFIG_MAP' }),
        configMaps: [NODE_GROUP_ONLY],
        accessEntries: [linuxEntry],
      }),
    );

    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect(f?.evidence.join('\n')).toContain('authentication mode CONFIG_MAP ignores access entries');
    expect(f0Steps([f!])).toContain(`- rolearn: ${NODE_ROLE}`);
    expect(f0Steps([f!])).toContain(
      'aws eks update-cluster-config --name demo --access-config authenticationMode=API_AND_CONFIG_MAP --region us-east-1',
    );
    expect(f0Steps([f!])).not.toContain('create-access-entry');
  });

  it('API: aws-auth is ignored, the fix is an EC2_LINUX access entry', () => {
    const [f] = detect(scenario({ cluster: cluster({ authenticationMode: 'API' }), configMaps: [MAPPED], accessEntries: [] }));

    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect(f?.evidence.join('\n')).toContain(
      `aws-auth maps ${NODE_ROLE} with system:bootstrappers and system:nodes, but authentication mode API ignores aws-auth`,
    );
    expect(f?.remediation?.steps).toContain(
      `aws eks create-access-entry --cluster-name demo --principal-arn ${NODE_ROLE} --type EC2_LINUX --region us-east-1`,
    );
    expect(f0Steps([f!])).not.toContain('kubectl edit configmap');
  });

  it('API: says what to capture when access entries are missing', () => {
    const [f] = detect(scenario({ cluster: cluster({ authenticationMode: 'API' }), configMaps: [MAPPED] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.remediation?.steps).toContain('aws eks list-access-entries --cluster-name demo --region us-east-1');
  });

  it('API_AND_CONFIG_MAP: an access entry alone is enough', () => {
    const [f] = detect(
      scenario({
        cluster: cluster({ authenticationMode: 'API_AND_CONFIG_MAP' }),
        configMaps: [NODE_GROUP_ONLY],
        accessEntries: [linuxEntry],
      }),
    );

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('is mapped');
    expect(f?.remediation?.steps).toContain(
      'aws ec2 get-console-output --instance-id i-01d1ff6c07a0e70f9 --latest --region us-east-1   # look for kubelet / nodeadm / bootstrap errors',
    );
  });

  it('API_AND_CONFIG_MAP: aws-auth alone is enough', () => {
    const [f] = detect(
      scenario({ cluster: cluster({ authenticationMode: 'API_AND_CONFIG_MAP' }), configMaps: [MAPPED], accessEntries: [] }),
    );

    expect(f?.cause?.code).toBe('UNKNOWN');
  });

  it('API_AND_CONFIG_MAP: mapped nowhere gives both fixes, access entry first', () => {
    const [f] = detect(
      scenario({
        cluster: cluster({ authenticationMode: 'API_AND_CONFIG_MAP' }),
        configMaps: [NODE_GROUP_ONLY],
        accessEntries: [],
      }),
    );
    const steps = f?.remediation?.steps ?? [];

    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect(steps[0]).toBe(
      `aws eks create-access-entry --cluster-name demo --principal-arn ${NODE_ROLE} --type EC2_LINUX --region us-east-1`,
    );
    expect(steps[1]).toMatch(/^# or, in aws-auth\nkubectl edit configmap aws-auth -n kube-system /);
  });

  it('unknown mode: an access entry counts', () => {
    expect(detect(scenario({ configMaps: [NODE_GROUP_ONLY], accessEntries: [linuxEntry] }))[0]?.cause?.code).toBe('UNKNOWN');
  });

  it('unknown mode: tells how to read the mode and gives both fixes', () => {
    const [f] = detect(scenario({ configMaps: [NODE_GROUP_ONLY], accessEntries: [] }));

    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect(f?.remediation?.steps[0]).toContain(
      'aws eks describe-cluster --name demo --region us-east-1 --query cluster.accessConfig.authenticationMode',
    );
    expect(f0Steps([f!])).toContain('kubectl edit configmap aws-auth');
    expect(f0Steps([f!])).toContain('aws eks create-access-entry');
  });

  it('UNKNOWN with capture steps when neither aws-auth nor access entries were captured', () => {
    const [f] = detect(scenario({}));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.remediation?.steps).toEqual(
      expect.arrayContaining([
        'kubectl get configmap aws-auth -n kube-system -o yaml',
        'aws eks list-access-entries --cluster-name demo --region us-east-1',
      ]),
    );
    expect(f0Steps([f!])).toContain('aws ec2 get-console-output --instance-id i-01d1ff6c07a0e70f9 --latest');
    expect(f0Steps([f!])).toContain(
      "--query 'Reservations[0].Instances[0].[State.Name,IamInstanceProfile.Arn,SecurityGroups[*].GroupId]'",
    );
  });
});

describe('NODECLAIM_NOT_REGISTERED: invalid mappings', () => {
  function invalid(parts: Parameters<typeof snapshotOf>[0]) {
    const [f] = detect(scenario(parts));
    expect(f?.cause?.code).toBe('NODE_ROLE_MAPPING_INVALID');
    return f!;
  }

  it('role ARN with a path in aws-auth', () => {
    const nc = ec2NodeClass({ name: 'default', role: `arn:aws:iam::${ACCOUNT}:role/nodes/KarpenterNodeRole-demo` });
    const f = invalid({
      nodeClasses: [nc],
      configMaps: [awsAuth(mapRoles(`arn:aws:iam::${ACCOUNT}:role/nodes/KarpenterNodeRole-demo`))],
      cluster: cluster(),
    });

    expect(f.cause?.detail).toContain('includes the path /nodes/');
    expect(f0Steps([f])).toContain(`- rolearn: ${NODE_ROLE}\n`);
  });

  it('instance-profile ARN in aws-auth', () => {
    const f = invalid({
      configMaps: [awsAuth(mapRoles(`arn:aws:iam::${ACCOUNT}:instance-profile/demo_1976173924626587633`))],
      instances: [instance({ id: 'i-01d1ff6c07a0e70f9' })],
      cluster: cluster(),
    });

    expect(f.cause?.detail).toContain(
      `rolearn arn:aws:iam::${ACCOUNT}:instance-profile/demo_1976173924626587633 is an instance-profile ARN`,
    );
    expect(f0Steps([f])).toContain(`- rolearn: ${NODE_ROLE}`);
  });

  it('entry without system:bootstrappers', () => {
    const f = invalid({ configMaps: [awsAuth(mapRoles(NODE_ROLE, ['system:nodes']))], cluster: cluster() });

    expect(f.cause?.detail).toContain('lacks group system:bootstrappers');
  });

  it('role name in another letter case', () => {
    const f = invalid({
      configMaps: [awsAuth(mapRoles(`arn:aws:iam::${ACCOUNT}:role/karpenternoderole-demo`))],
      cluster: cluster(),
    });

    expect(f.cause?.detail).toContain('differs in letter case');
  });

  it('STANDARD access entry: delete it and create an EC2_LINUX one', () => {
    const standard: AccessEntry = accessEntry({ principalArn: NODE_ROLE, type: 'STANDARD' });
    const f = invalid({ cluster: cluster({ authenticationMode: 'API' }), accessEntries: [standard] });

    expect(f.cause?.detail).toContain('has type STANDARD; a node role needs type EC2_LINUX');
    expect(f.remediation?.steps.slice(0, 2)).toEqual([
      `aws eks delete-access-entry --cluster-name demo --principal-arn ${NODE_ROLE} --region us-east-1   # an access entry's type and ARN cannot be changed`,
      `aws eks create-access-entry --cluster-name demo --principal-arn ${NODE_ROLE} --type EC2_LINUX --region us-east-1`,
    ]);
  });

  it('access entry without the path of a role that has one', () => {
    const nc = ec2NodeClass({ name: 'default', role: `arn:aws:iam::${ACCOUNT}:role/nodes/KarpenterNodeRole-demo` });
    const f = invalid({
      nodeClasses: [nc],
      cluster: cluster({ authenticationMode: 'API' }),
      accessEntries: [accessEntry({ principalArn: NODE_ROLE })],
    });

    expect(f.cause?.detail).toContain('access entries need the full role ARN');
    expect(f0Steps([f])).toContain(`--principal-arn arn:aws:iam::${ACCOUNT}:role/nodes/KarpenterNodeRole-demo --type EC2_LINUX`);
  });

  it('an access entry with the full path ARN is valid', () => {
    const pathArn = `arn:aws:iam::${ACCOUNT}:role/nodes/KarpenterNodeRole-demo`;
    const nc = ec2NodeClass({ name: 'default', role: pathArn });

    const [f] = detect(
      scenario({
        nodeClasses: [nc],
        cluster: cluster({ authenticationMode: 'API' }),
        accessEntries: [accessEntry({ principalArn: pathArn })],
      }),
    );

    expect(f?.cause?.code).toBe('UNKNOWN');
  });

  it('Windows nodes need an EC2_WINDOWS access entry', () => {
    const base = ec2NodeClass({ name: 'default' });
    const windows: EC2NodeClass = { ...base, spec: { ...base.spec, amiFamily: 'Windows2022' } };
    const f = invalid({
      nodeClasses: [windows],
      cluster: cluster({ authenticationMode: 'API' }),
      accessEntries: [accessEntry({ principalArn: NODE_ROLE })],
    });

    expect(f.cause?.detail).toContain('has type EC2_LINUX; these nodes need type EC2_WINDOWS');
    expect(f0Steps([f])).toContain('--type EC2_WINDOWS');
  });
});

describe('NODECLAIM_NOT_REGISTERED: role sources and instances', () => {
  it('resolves the role through spec.instanceProfile and uses its real ARN', () => {
    const nc = ec2NodeClass({ name: 'default', instanceProfile: 'KarpenterNodeInstanceProfile-demo' });
    const profiles = [instanceProfile({ name: 'KarpenterNodeInstanceProfile-demo', role: 'KarpenterNodeRole-demo' })];

    const [f] = detect(
      scenario({ nodeClasses: [nc], instanceProfiles: profiles, configMaps: [NODE_GROUP_ONLY], cluster: cluster() }),
    );

    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect(f?.evidence.join('\n')).toContain('role of instance profile KarpenterNodeInstanceProfile-demo');
    expect(f0Steps([f!])).toContain(`--arn ${NODE_ROLE}`);
  });

  it('INSTANCE_NOT_RUNNING when the instances are terminated or gone', () => {
    const s = scenario({
      nodeClaims: [stuckClaim('default-kb85v', 'i-01d1ff6c07a0e70f9'), stuckClaim('default-njzpq', 'i-0a2b3c4d5e6f70809')],
      instances: [instance({ id: 'i-01d1ff6c07a0e70f9', state: 'terminated' })],
      configMaps: [NODE_GROUP_ONLY],
    });

    const [f] = detect(s);

    expect(f?.cause?.code).toBe('INSTANCE_NOT_RUNNING');
    expect(f?.cause?.detail).toContain('i-01d1ff6c07a0e70f9 terminated, i-0a2b3c4d5e6f70809 not in describe-instances');
    expect(f?.remediation?.steps[0]).toContain(
      'aws ec2 describe-instances --instance-ids i-01d1ff6c07a0e70f9 i-0a2b3c4d5e6f70809',
    );
  });

  it('looks at the role when the instances run', () => {
    const [f] = detect(scenario({ instances: [instance({ id: 'i-01d1ff6c07a0e70f9' })], configMaps: [NODE_GROUP_ONLY] }));

    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
  });

  it('UNKNOWN naming what is missing when the role cannot be resolved', () => {
    const [f] = detect(scenario({ nodeClasses: [], configMaps: [NODE_GROUP_ONLY] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.evidence.join('\n')).toContain('EC2NodeClass default not in the capture');
    expect(f?.remediation?.steps).toContain('kubectl get ec2nodeclass default -o yaml');
  });
});

describe('NODECLAIM_NOT_REGISTERED: a private-only API endpoint', () => {
  const linuxEntry = accessEntry({ principalArn: NODE_ROLE, type: 'EC2_LINUX' });
  const VPC = 'vpc-0a1b2c3d4e5f60001';
  const CLUSTER_SG = 'sg-0c1d2e3f4a5b60001';
  const DNS_SUPPORT = `aws ec2 describe-vpc-attribute --vpc-id ${VPC} --attribute enableDnsSupport --region us-east-1`;
  const DNS_HOSTNAMES = `aws ec2 describe-vpc-attribute --vpc-id ${VPC} --attribute enableDnsHostnames --region us-east-1`;
  const SG_RULES = `aws ec2 describe-security-groups --group-ids ${CLUSTER_SG} --region us-east-1`;
  /** The role is mapped (an EC2_LINUX access entry), so nothing in the capture explains the failure. */
  const mappedOn = (endpoint: Parameters<typeof cluster>[0]) =>
    scenario({
      cluster: cluster({ authenticationMode: 'API', vpcId: VPC, clusterSecurityGroupId: CLUSTER_SG, ...endpoint }),
      accessEntries: [linuxEntry],
    });

  it('leads with the VPC DNS attributes and the cluster security group, named from describe-cluster', () => {
    // Act
    const [f] = detect(mappedOn({ endpointPublicAccess: false, endpointPrivateAccess: true }));

    // Assess
    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('private only (endpointPublicAccess false)');
    expect(f?.cause?.detail).toContain('enableDnsSupport and enableDnsHostnames');
    expect(f?.cause?.detail).toContain(`the cluster security group ${CLUSTER_SG}, which must allow HTTPS (443)`);
    expect(f?.evidence).toContain(
      `describe-cluster: endpointPublicAccess false, endpointPrivateAccess true, VPC ${VPC}, cluster security group ${CLUSTER_SG}`,
    );
    const steps = f?.remediation?.steps ?? [];
    expect(steps[0]).toContain(DNS_SUPPORT);
    expect(steps[1]).toContain(DNS_HOSTNAMES);
    expect(steps[2]).toContain(SG_RULES);
    // The capture already says how the endpoint is reached: not asked again.
    expect(steps.join('\n')).not.toContain('aws eks describe-cluster');
  });

  it('reads the VPC and the group into variables when describe-cluster did not print them', () => {
    // Act
    const [f] = detect(
      scenario({
        cluster: cluster({ authenticationMode: 'API', endpointPublicAccess: false }),
        accessEntries: [linuxEntry],
      }),
    );

    // Assess
    const steps = f?.remediation?.steps ?? [];
    expect(steps[0]).toBe(
      'VPC_ID=$(aws eks describe-cluster --name demo --region us-east-1 --query cluster.resourcesVpcConfig.vpcId --output text)',
    );
    expect(steps[1]).toContain('CLUSTER_SG=$(aws eks describe-cluster --name demo --region us-east-1');
    expect(steps[2]).toContain('aws ec2 describe-vpc-attribute --vpc-id "$VPC_ID" --attribute enableDnsSupport');
    expect(steps[4]).toContain('aws ec2 describe-security-groups --group-ids "$CLUSTER_SG"');
  });

  it('a public endpoint (private access on too): no private-endpoint reasoning or checks', () => {
    // Act
    const [f] = detect(mappedOn({ endpointPublicAccess: true, endpointPrivateAccess: true }));

    // Assess
    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).not.toContain('private only');
    const text = [...(f?.remediation?.steps ?? []), ...(f?.evidence ?? [])].join('\n');
    expect(text).not.toContain('describe-vpc-attribute');
    expect(text).not.toContain('enableDns');
    expect(text).not.toContain(SG_RULES);
  });

  it('a proven cause stays the lead: an unmapped role on a private-only cluster gets no endpoint checks', () => {
    // Act
    const [f] = detect(
      scenario({
        cluster: cluster({
          authenticationMode: 'API',
          endpointPublicAccess: false,
          vpcId: VPC,
          clusterSecurityGroupId: CLUSTER_SG,
        }),
        accessEntries: [],
      }),
    );

    // Assess
    expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
    expect((f?.remediation?.steps ?? []).join('\n')).not.toContain('describe-vpc-attribute');
  });
});

describe('NODECLAIM_NOT_REGISTERED on real clusters', () => {
  it('ignores a NodeClaim being deleted (drained, consolidated, or timed out by Karpenter)', () => {
    const leaving = stuckClaim('default-kb85v', 'i-01d1ff6c07a0e70f9');
    leaving.metadata = { ...leaving.metadata, deletionTimestamp: minutesAfter(T0, 11) };
    const snapshot = scenario({
      nodeClaims: [leaving],
      configMaps: [NODE_GROUP_ONLY],
      instances: [instance({ id: 'i-01d1ff6c07a0e70f9', state: 'shutting-down' })],
    });
    expect(detect(snapshot)).toEqual([]);
  });

  it('ignores a NodeClaim launched 30 seconds ago', () => {
    const fresh = stuckClaim('default-kb85v', 'i-01d1ff6c07a0e70f9', 'default', minutesAfter(NOW, -0.5));
    expect(detect(scenario({ nodeClaims: [fresh], configMaps: [NODE_GROUP_ONLY] }))).toEqual([]);
  });

  it('ignores a drifted NodeClaim and one Registered but not yet Initialized', () => {
    const drifted = nodeClaim({
      name: 'default-aaaaa',
      instanceId: 'i-0aaaaaaaaaaaaaaa1',
      nodeName: 'ip-10-59-1-1.ec2.internal',
    });
    drifted.status?.conditions?.push(condition('Drifted', 'True', { reason: 'AMIDrift' }));
    const initializing = nodeClaim({
      name: 'default-bbbbb',
      instanceId: 'i-0bbbbbbbbbbbbbbb1',
      nodeName: 'ip-10-59-1-2.ec2.internal',
      conditions: [
        condition('Launched', 'True'),
        condition('Registered', 'True'),
        condition('Initialized', 'False', { reason: 'NotInitialized' }),
        condition('Ready', 'False'),
      ],
    });
    expect(detect(scenario({ nodeClaims: [drifted, initializing], configMaps: [NODE_GROUP_ONLY] }))).toEqual([]);
  });

  it('a NodePool of an older Karpenter without NodeRegistrationHealthy is no finding by itself', () => {
    const older = nodePool({ name: 'default', conditions: [condition('NodeClassReady', 'True'), condition('Ready', 'True')] });
    const healthy = nodeClaim({
      name: 'default-aaaaa',
      instanceId: 'i-0aaaaaaaaaaaaaaa1',
      nodeName: 'ip-10-59-1-1.ec2.internal',
    });
    expect(detect(scenario({ nodePools: [older], nodeClaims: [healthy] }))).toEqual([]);
  });

  describe('EKS Auto Mode nodes', () => {
    const AUTO_ROLE = `arn:aws:iam::${ACCOUNT}:role/AmazonEKSAutoNodeRole`;
    const autoInstance = {
      ...instance({ id: 'i-01d1ff6c07a0e70f9', nodePool: null, tags: { 'eks:kubernetes-node-pool-name': 'general-purpose' } }),
      iamInstanceProfileArn: `arn:aws:iam::${ACCOUNT}:instance-profile/eks-us-east-1-demo-4f2a9c`,
    };
    function autoScenario(entries: AccessEntry[]): ClusterSnapshot {
      return snapshotOf({
        nodeClaims: [
          autoModeNodeClaim({
            name: 'general-purpose-kb85v',
            nodePool: 'general-purpose',
            instanceId: 'i-01d1ff6c07a0e70f9',
            conditions: unregisteredConditions(),
          }),
        ],
        nodePools: [autoModeNodePool({ name: 'general-purpose' })],
        nodeClasses: [ec2NodeClass({ name: 'default', role: 'KarpenterNodeRole-demo' })],
        instances: [autoInstance],
        instanceProfiles: [instanceProfile({ name: 'eks-us-east-1-demo-4f2a9c', role: 'AmazonEKSAutoNodeRole' })],
        accessEntries: entries,
        configMaps: [MAPPED],
        cluster: cluster({ authenticationMode: 'API', autoMode: true }),
      });
    }

    it('an access entry of type EC2 maps the Auto Mode node role (never told to replace it with EC2_LINUX)', () => {
      const [f] = detect(autoScenario([accessEntry({ principalArn: AUTO_ROLE, type: 'EC2' })]));
      expect(f?.cause?.code).toBe('UNKNOWN');
      expect(f?.cause?.detail).toContain(`Node role ${AUTO_ROLE} is mapped by an access entry`);
      expect(f0Steps([f!])).not.toContain('delete-access-entry');
      // The same-named EC2NodeClass of a self-managed Karpenter is not where Auto Mode's role comes from.
      expect(f?.evidence.join('\n')).not.toContain('KarpenterNodeRole-demo');
    });

    it('without one: NODE_ROLE_NOT_MAPPED, fixed by an EC2 access entry with AmazonEKSAutoNodePolicy', () => {
      const [f] = detect(autoScenario([]));
      expect(f?.cause?.code).toBe('NODE_ROLE_NOT_MAPPED');
      expect(f?.remediation?.steps).toEqual([
        `aws eks create-access-entry --cluster-name demo --principal-arn ${AUTO_ROLE} --type EC2 --region us-east-1`,
        `aws eks associate-access-policy --cluster-name demo --principal-arn ${AUTO_ROLE} --policy-arn arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy --access-scope type=cluster --region us-east-1`,
        'kubectl get nodes -w   # the waiting instances register within a minute or two once the role is mapped',
      ]);
    });

    it('an EC2_LINUX entry is the wrong type for Auto Mode nodes', () => {
      const [f] = detect(autoScenario([accessEntry({ principalArn: AUTO_ROLE, type: 'EC2_LINUX' })]));
      expect(f?.cause?.code).toBe('NODE_ROLE_MAPPING_INVALID');
      expect(f?.cause?.detail).toContain('these nodes need type EC2');
    });
  });
});
