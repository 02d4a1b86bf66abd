/**
 * Every remediation step is something a person can select and paste into a shell at 3 a.m.: a
 * step that runs a command starts with the command, or with a `# why` comment line and the command
 * on the next line. Prose followed by a command on one line ("or patch it now: kubectl patch ...")
 * breaks the paste. Checked over the bundled examples, the cause-code scenarios and variants that
 * reach the other branches of the step builders (authentication modes, explicit denies, ...).
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../src/cli/commands/demo.ts';
import type { Finding } from '../../../src/domain/finding.ts';
import type { PodSpec } from '../../../src/domain/kube.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import {
  ACCOUNT,
  accessEntry,
  cluster,
  fargateProfile,
  instance,
  instanceProfile,
  logLine,
  snapshotOf,
} from '../../factories/aws.ts';
import {
  autoModeNodeClaim,
  autoModeNodePool,
  ec2NodeClass,
  nodeClaim,
  nodePool,
  unregisteredConditions,
} from '../../factories/karpenter.ts';
import {
  T0,
  awsAuth,
  condition,
  crd,
  event,
  karpenterDeployment,
  karpenterPod,
  node,
  pod,
  service,
} from '../../factories/kube.ts';
import { NOW, SCENARIOS, type Scenario } from './cause-scenarios.ts';
import {
  apiServerService,
  chartWebhook,
  controllerAt,
  foreignWebhook,
  karpenterService,
  slice,
} from './admission-webhook-broken/fixtures.ts';

const COMMAND_WORDS = ['kubectl', 'aws', 'eksctl', 'helm'];
const COMMAND_WORD = new RegExp(`(^|[\\s(:;|&\`'"])(${COMMAND_WORDS.join('|')}) `);

/** Why a step cannot be pasted as it is, or undefined when it can. */
function pasteProblem(step: string): string | undefined {
  const [first = '', second] = step.split('\n');
  if (first.startsWith('# ')) {
    return second === undefined || second.trim() === '' || second.startsWith('#')
      ? 'a # comment line with no command after it'
      : undefined;
  }
  const afterFirstToken = first.trimStart().replace(/^\S+/, '');
  return COMMAND_WORD.test(afterFirstToken) ? 'prose and a command on one line' : undefined;
}

/** `problem: step` for every step of these findings that cannot be pasted. */
function unpasteable(findings: readonly Finding[]): string[] {
  return findings.flatMap((f) =>
    (f.remediation?.steps ?? []).flatMap((step) => {
      const problem = pasteProblem(step);
      return problem ? [`${f.code}/${f.cause?.code ?? 'null'}: ${problem}: ${step}`] : [];
    }),
  );
}

function run(snapshot: ClusterSnapshot, now = NOW): Finding[] {
  return analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now }).findings;
}

const pairsOf = (findings: readonly Finding[]) => findings.map((f) => `${f.code}/${f.cause?.code ?? 'null'}`);

const SYSTEM_NODE = 'ip-10-59-127-151.ec2.internal';
const NODE_ROLE = `arn:aws:iam::${ACCOUNT}:role/KarpenterNodeRole-demo`;
const runningController = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: SYSTEM_NODE });
const pendingController = (message: string, spec: Partial<PodSpec> = {}) =>
  karpenterPod({ name: 'karpenter-5697769d6c-7lglp', unschedulableMessage: message, spec });
const ANTI_AFFINITY: Partial<PodSpec> = {
  affinity: {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          topologyKey: 'kubernetes.io/hostname',
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' } },
        },
      ],
    },
  },
};
const stuck = () => nodeClaim({ name: 'default-kb85v', instanceId: 'i-01d1ff6c07a0e70f9', conditions: unregisteredConditions() });
const unmapped = (parts: Parameters<typeof snapshotOf>[0]) =>
  snapshotOf({
    nodeClaims: [stuck()],
    nodePools: [nodePool({ name: 'default' })],
    nodeClasses: [ec2NodeClass({ name: 'default' })],
    configMaps: [awsAuth('')],
    ...parts,
  });
const failingClass = (name: string, failing: ReturnType<typeof condition>, spec: Record<string, unknown> = {}) => {
  const nc = ec2NodeClass({ name, conditions: [failing, condition('Ready', 'False')] });
  return { ...nc, spec: { ...nc.spec, ...spec } };
};
const failedLaunch = (name: string, reason: string, message: string, pool = 'default') =>
  nodeClaim({ name, nodePool: pool, conditions: [condition('Launched', 'False', { reason, message })] });
const deniedLine = (error: string) => logLine({ level: 'ERROR', time: T0, controller: 'nodeclass', error });

/** Snapshots that reach the step builders' branches the cause-code scenarios leave out. */
const VARIANTS: Scenario[] = [
  {
    name: 'a v1.0.1 controller logs a refusal by validation.webhook.karpenter.sh, no configurations captured',
    snapshot: snapshotOf({
      pods: [controllerAt('1.0.1')],
      logs: [
        logLine({
          level: 'ERROR',
          message: 'Reconciler error',
          error:
            'Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: the server rejected our request for an unknown reason',
        }),
      ],
    }),
    produces: ['ADMISSION_WEBHOOK_BROKEN/STALE_AFTER_V1_UPGRADE'],
  },
  {
    name: 'webhook Service without its port while the controller runs with DISABLE_WEBHOOK=true',
    snapshot: snapshotOf({
      webhookConfigurations: [chartWebhook('validation.webhook.karpenter.sh')],
      services: [apiServerService, karpenterService({ webhookPort: false })],
      pods: [controllerAt('0.33.0', { disableWebhook: true })],
    }),
    produces: ['ADMISSION_WEBHOOK_BROKEN/SERVICE_MISSING'],
  },
  {
    name: "ready controller pods serve no https-webhook port, another tool's webhook over karpenter.sh has no Service",
    snapshot: snapshotOf({
      webhookConfigurations: [
        chartWebhook('validation.webhook.karpenter.sh'),
        foreignWebhook({ service: 'policy-webhook', namespace: 'policy', groups: ['karpenter.sh'] }),
      ],
      services: [apiServerService, karpenterService()],
      endpoints: [slice({ ready: true, ports: ['http-metrics'] })],
      pods: [controllerAt('0.34.1')],
    }),
    produces: ['ADMISSION_WEBHOOK_BROKEN/NO_ENDPOINTS', 'ADMISSION_WEBHOOK_BROKEN/SERVICE_MISSING'],
  },
  {
    name: 'controller selected by a CREATE_FAILED Fargate profile',
    snapshot: snapshotOf({
      pods: [pendingController('no nodes available to schedule pods')],
      fargateProfiles: [fargateProfile({ name: 'karpenter', status: 'CREATE_FAILED', selectors: [{ namespace: 'karpenter' }] })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/FARGATE_PROFILE_NOT_ACTIVE'],
  },
  {
    name: 'controller on fargate-scheduler, the only profile selects another namespace',
    snapshot: snapshotOf({
      pods: [pendingController('', { schedulerName: 'fargate-scheduler' })],
      fargateProfiles: [
        fargateProfile({
          name: 'karpenter',
          selectors: [{ namespace: 'kube-system', labels: { 'app.kubernetes.io/name': 'karpenter' } }],
        }),
      ],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/NO_FARGATE_PROFILE_MATCH'],
  },
  {
    name: 'controller on fargate-scheduler under an ACTIVE profile, no Fargate node came',
    snapshot: snapshotOf({
      pods: [pendingController('', { schedulerName: 'fargate-scheduler' })],
      fargateProfiles: [fargateProfile({ name: 'karpenter', selectors: [{ namespace: 'karpenter' }] })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/UNKNOWN'],
  },
  {
    name: 'two replicas with hostname anti-affinity on a one-node managed node group',
    snapshot: snapshotOf({
      pods: [
        karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: SYSTEM_NODE, spec: ANTI_AFFINITY }),
        pendingController("0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.", ANTI_AFFINITY),
      ],
      deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 1 })],
      nodes: [node({ name: SYSTEM_NODE, labels: { 'eks.amazonaws.com/nodegroup': 'system' } })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/ANTI_AFFINITY_TOO_FEW_NODES'],
  },
  {
    name: 'controller nodeSelector role=system, the node lacks the label',
    snapshot: snapshotOf({
      pods: [
        pendingController("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.", {
          nodeSelector: { role: 'system' },
        }),
      ],
      nodes: [node({ name: SYSTEM_NODE })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/NODE_SELECTOR_MISMATCH'],
  },
  {
    name: 'controller requests more cpu than the node has free',
    snapshot: snapshotOf({
      pods: [
        pod({
          name: 'hog',
          namespace: 'apps',
          nodeName: SYSTEM_NODE,
          spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1800m' } } }] },
        }),
        pendingController('0/1 nodes are available: 1 Insufficient cpu.', {
          containers: [{ name: 'controller', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
        }),
      ],
      nodes: [node({ name: SYSTEM_NODE })],
    }),
    produces: ['KARPENTER_CONTROLLER_PENDING/UNKNOWN'],
  },
  ...(['CONFIG_MAP', 'API', 'API_AND_CONFIG_MAP'] as const).map((mode) => ({
    name: `node role mapped nowhere, authentication mode ${mode}`,
    snapshot: unmapped({ cluster: cluster({ authenticationMode: mode }), accessEntries: [] }),
    produces: ['NODECLAIM_NOT_REGISTERED/NODE_ROLE_NOT_MAPPED' as const],
  })),
  {
    name: 'node role has a valid access entry that CONFIG_MAP ignores',
    snapshot: unmapped({
      cluster: cluster({ authenticationMode: 'CONFIG_MAP' }),
      accessEntries: [accessEntry({ principalArn: NODE_ROLE })],
    }),
    produces: ['NODECLAIM_NOT_REGISTERED/NODE_ROLE_NOT_MAPPED'],
  },
  {
    name: 'EKS Auto Mode nodes on a CONFIG_MAP cluster',
    snapshot: snapshotOf({
      nodeClaims: [
        autoModeNodeClaim({
          name: 'general-purpose-kb85v',
          nodePool: 'general-purpose',
          instanceId: 'i-01d1ff6c07a0e70f9',
          conditions: unregisteredConditions(),
        }),
      ],
      nodePools: [autoModeNodePool({ name: 'general-purpose' })],
      instances: [
        {
          ...instance({
            id: 'i-01d1ff6c07a0e70f9',
            nodePool: null,
            tags: { 'eks:kubernetes-node-pool-name': 'general-purpose' },
          }),
          iamInstanceProfileArn: `arn:aws:iam::${ACCOUNT}:instance-profile/eks-us-east-1-demo-4f2a9c`,
        },
      ],
      instanceProfiles: [instanceProfile({ name: 'eks-us-east-1-demo-4f2a9c', role: 'AmazonEKSAutoNodeRole' })],
      cluster: cluster({ autoMode: true, authenticationMode: 'CONFIG_MAP' }),
      accessEntries: [],
    }),
    produces: ['NODECLAIM_NOT_REGISTERED/NODE_ROLE_NOT_MAPPED'],
  },
  {
    name: 'controller role denied explicitly, the role named by the message',
    snapshot: snapshotOf({
      logs: [
        deniedLine(
          `api error UnauthorizedOperation: User: arn:aws:sts::${ACCOUNT}:assumed-role/KarpenterController-demo/1756500455 is not authorized to perform: ec2:CreateFleet on resource: arn:aws:ec2:us-east-1:${ACCOUNT}:fleet/* with an explicit deny in an identity-based policy.`,
        ),
      ],
    }),
    produces: ['KARPENTER_IAM_DENIED/EXPLICIT_DENY'],
  },
  {
    name: 'controller denied a call the message does not name',
    snapshot: snapshotOf({
      logs: [
        deniedLine(
          'describing subnets, UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: QmFzZTY0YmxvYg',
        ),
      ],
    }),
    produces: ['KARPENTER_IAM_DENIED/DENIED_UNKNOWN_POLICY'],
  },
  {
    name: 'launches denied, with and without the action, and out of subnet addresses',
    snapshot: snapshotOf({
      nodeClaims: [
        failedLaunch(
          'default-aaaaa',
          'LaunchFailed',
          `UnauthorizedOperation: You are not authorized to perform: ec2:RunInstances on resource: arn:aws:ec2:us-east-1:${ACCOUNT}:instance/*`,
        ),
        failedLaunch(
          'other-bbbbb',
          'LaunchFailed',
          'UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: QmFzZTY0',
          'other',
        ),
        failedLaunch('third-ccccc', 'LaunchFailed', 'InsufficientFreeAddressesInSubnet: no free addresses', 'third'),
        failedLaunch('fourth-ddddd', 'LaunchFailed', 'InsufficientInstanceCapacity: no m5.large capacity', 'fourth'),
      ],
    }),
    produces: [
      'NODECLAIM_LAUNCH_FAILED/UNAUTHORIZED',
      'NODECLAIM_LAUNCH_FAILED/SUBNET_IP_EXHAUSTED',
      'NODECLAIM_LAUNCH_FAILED/INSUFFICIENT_CAPACITY',
    ],
  },
  {
    name: 'EC2NodeClasses: AL2 on EKS 1.33, instance profile, denied dry-run, reserved tags',
    snapshot: snapshotOf({
      cluster: cluster({ version: '1.33' }),
      nodeClasses: [
        failingClass('al2', condition('AMIsReady', 'False', { reason: 'AMINotFound' }), {
          amiFamily: 'AL2',
          amiSelectorTerms: [{ owner: '602401143452', name: 'amazon-eks-node-1.33-*' }],
        }),
        failingClass('alias', condition('AMIsReady', 'False', { reason: 'AMINotFound' }), {
          amiSelectorTerms: [{ alias: 'al2@latest' }],
        }),
        failingClass('custom', condition('AMIsReady', 'False', { reason: 'AMINotFound' }), {
          amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }],
        }),
        failingClass('passrole', condition('InstanceProfileReady', 'False', { reason: 'NodeRoleAuthFailure' })),
        {
          ...failingClass('profile', condition('InstanceProfileReady', 'False', { reason: 'InstanceProfileNotFound' })),
          spec: { ...ec2NodeClass({ name: 'profile', instanceProfile: 'KarpenterNodeInstanceProfile' }).spec },
        },
        failingClass('dryrun', condition('ValidationSucceeded', 'False', { reason: 'CreateFleetAuthCheckFailed' })),
        failingClass('tags', condition('ValidationSucceeded', 'False', { reason: 'TagValidationFailed' }), {
          tags: { 'eks:eks-cluster-name': 'demo' },
        }),
      ],
      fargateProfiles: [fargateProfile({ name: 'karpenter', selectors: [{ namespace: 'karpenter' }] })],
    }),
    produces: [
      'NODECLASS_NOT_READY/AMI_NOT_FOUND',
      'NODECLASS_NOT_READY/INSTANCE_PROFILE_NOT_READY',
      'NODECLASS_NOT_READY/VALIDATION_FAILED',
    ],
  },
  {
    name: 'NodePools: node class being deleted, v1beta1 nodeClassRef, missing EKS Auto Mode NodeClass',
    snapshot: snapshotOf({
      nodePools: [
        nodePool({
          name: 'deleting',
          nodeClass: 'old',
          conditions: [
            condition('NodeClassReady', 'False', { reason: 'NodeClassTerminating' }),
            condition('Ready', 'False', { reason: 'UnhealthyDependents' }),
          ],
        }),
        (() => {
          const np = nodePool({
            name: 'legacy',
            conditions: [
              condition('ValidationSucceeded', 'False', {
                reason: 'ValidationFailed',
                message: 'nodeClassRef.group is required',
              }),
              condition('Ready', 'False'),
            ],
          });
          const ref = { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' };
          return { ...np, spec: { ...np.spec, template: { spec: { ...np.spec?.template?.spec, nodeClassRef: ref } } } };
        })(),
        (() => {
          const np = autoModeNodePool({ name: 'gpu' });
          const ref = { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'gpu' };
          return {
            ...np,
            spec: { ...np.spec, template: { spec: { ...np.spec?.template?.spec, nodeClassRef: ref } } },
            status: {
              conditions: [condition('NodeClassReady', 'False', { reason: 'NodeClassNotFound' }), condition('Ready', 'False')],
            },
          };
        })(),
      ],
    }),
    produces: [
      'NODEPOOL_NOT_READY/NODECLASS_NOT_READY',
      'NODEPOOL_NOT_READY/VALIDATION_FAILED',
      'NODEPOOL_NOT_READY/NODECLASS_NOT_FOUND',
    ],
  },
  {
    name: 'workload selects a label no NodePool offers',
    snapshot: (() => {
      const api = pod({
        name: 'api-1',
        namespace: 'shop',
        unschedulableMessage: '0/1 nodes are available: 1 Insufficient cpu.',
        spec: { nodeSelector: { role: 'system' } },
      });
      return snapshotOf({
        pods: [runningController, api],
        nodePools: [nodePool({ name: 'default' })],
        events: [
          event({
            kind: 'Pod',
            namespace: 'shop',
            name: 'api-1',
            reason: 'FailedScheduling',
            source: 'karpenter',
            message:
              'Failed to schedule pod, incompatible with nodepool "default", incompatible requirements, label "role" does not have known values',
          }),
        ],
      });
    })(),
    produces: ['PODS_PENDING_PROLONGED/NO_NODEPOOL_MATCH'],
  },
  {
    name: 'conversion webhook port missing while a Karpenter Service exposes a webhook port',
    snapshot: snapshotOf({
      crds: [
        crd({
          plural: 'nodeclaims',
          group: 'karpenter.sh',
          kind: 'NodeClaim',
          webhook: { name: 'karpenter', namespace: 'karpenter', port: 8443 },
        }),
      ],
      services: [
        {
          ...service({ name: 'karpenter', namespace: 'karpenter', ports: [] }),
          spec: { ports: [{ name: 'https-webhook', port: 9443, protocol: 'TCP' }] },
        },
      ],
    }),
    produces: ['CRD_CONVERSION_WEBHOOK_BROKEN/PORT_MISMATCH'],
  },
];

describe('remediation steps can be pasted into a shell', () => {
  it('flags prose before a command on one line, and a # comment with no command under it', () => {
    const before = [
      "Switch EC2NodeClass default to AL2023 (nodes bootstrap with nodeadm instead of /etc/eks/bootstrap.sh): kubectl patch ec2nodeclass default --type=merge -p '{}'",
      'or patch the Deployment now (Helm will revert it on the next upgrade): kubectl patch deployment -n karpenter karpenter',
      `controller role: arn:aws:iam::${ACCOUNT}:role/x (confirm: kubectl get sa -n karpenter karpenter -o jsonpath='{}')`,
      'or: eksctl create iamidentitymapping --cluster demo',
      'See what the selector matches in this region: aws ec2 describe-images --owners amazon',
      'install or restore the controller: helm upgrade --install karpenter',
      '# see what the selector matches',
    ];
    const after = [
      "# Switch EC2NodeClass default to AL2023\nkubectl patch ec2nodeclass default --type=merge -p '{}'",
      'kubectl rollout restart deployment -n karpenter karpenter',
      "kubectl patch crd ec2nodeclasses.karpenter.k8s.aws --type='json' -p='[]'",
      'kubectl edit configmap aws-auth -n kube-system   # add this entry:\n- rolearn: x',
      'Fix EC2NodeClass default (see its NODECLASS_NOT_READY finding); NodePool default turns Ready by itself once it is.',
    ];

    expect(before.filter((s) => pasteProblem(s) === undefined)).toEqual([]);
    expect(after.flatMap((s) => pasteProblem(s) ?? [])).toEqual([]);
  });

  it('in every bundled example', async () => {
    const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));
    const dirs = readdirSync(examples, { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(dirs.length).toBeGreaterThan(0);
    let steps = 0;
    for (const dir of dirs) {
      // Act
      const { snapshot } = await loadSnapshot([`${examples}${dir.name}`]);
      const findings = run(snapshot, new Date(EXAMPLES_NOW));
      steps += findings.reduce((n, f) => n + (f.remediation?.steps.length ?? 0), 0);

      // Assess
      expect(unpasteable(findings), dir.name).toEqual([]);
    }
    expect(steps).toBeGreaterThan(0);
  });

  it.each([...SCENARIOS, ...VARIANTS].filter((s) => s.produces.length > 0).map((s) => [s.name, s] as const))(
    '%s',
    (_name, scenario) => {
      // Act
      const findings = run(scenario.snapshot);

      // Assess: the scenario still reaches the branches it is here for, and their steps paste.
      expect(pairsOf(findings)).toEqual(expect.arrayContaining(scenario.produces));
      expect(unpasteable(findings)).toEqual([]);
    },
  );
});
