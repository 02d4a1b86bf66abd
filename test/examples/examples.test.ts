/**
 * The bundled example captures (`examples/<case>/`) are what the demo and the README show users:
 * each must load as captured and yield exactly the diagnosis its README promises.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  SEVERITY_RANK,
  type CauseCode,
  type FindingCode,
  type RemediationAction,
  type RemediationStatus,
  type Severity,
} from '../../src/domain/codes.ts';
import type { Finding, ResourceRef } from '../../src/domain/finding.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../src/domain/settings.ts';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { analyze } from '../../src/usecases/analyze.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const NOW = new Date(EXAMPLES_NOW);
const ACCOUNT = '069057294951';

interface ExpectedFinding {
  code: FindingCode;
  cause: CauseCode;
  severity: Severity;
  action: RemediationAction;
  status: RemediationStatus;
  /** Fields the finding's resource must have (when the case pins which object it is about). */
  resource?: ResourceRef;
  /** Substring of one remediation step, e.g. the real ARN or command. */
  step?: string;
  /** Substring of `cause.detail`. */
  detail?: string;
  /** Names the finding must mention somewhere in its title, cause or evidence. */
  mentions?: string[];
}

interface ExampleCase {
  name: string;
  cluster: string;
  complete: boolean;
  /** Every finding at warning or above; nothing else at warning or above may appear. */
  findings: ExpectedFinding[];
  /** One finding per entry, no more (entries then name their resource). */
  exact?: boolean;
}

const manual = { action: 'MANUAL', status: 'manual' } as const;
/** Karpenter's four admission webhook configurations (chart v0.28–v0.37). */
const webhookConfigurations = ['validation.webhook.karpenter.sh', 'validation.webhook.karpenter.k8s.aws', 'defaulting.webhook.karpenter.k8s.aws', 'validation.webhook.config.karpenter.sh'];
const controller: ResourceRef = { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' };
const terminatingNode: ResourceRef = { kind: 'Node', name: 'ip-10-59-51-73.ec2.internal' };


/** The production database someone tagged like a Karpenter node (issue 11): reported, never terminated. */
const forged: ExpectedFinding = {
  code: 'INSTANCE_PROVENANCE_UNPROVEN',
  cause: 'NOT_LAUNCHED_FROM_TEMPLATE',
  severity: 'warning',
  ...manual,
  resource: { kind: 'Instance', id: 'i-0f00d5ba5e0b1e7a2' },
  step: 'aws cloudtrail lookup-events --region eu-central-1 --lookup-attributes AttributeKey=ResourceName,AttributeValue=i-0f00d5ba5e0b1e7a2',
};

const CASES: ExampleCase[] = [
  {
    name: 'fargate-bootstrap-deadlock',
    cluster: 'pattern-infra-eks-dev',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_PENDING',
        cause: 'FARGATE_SCHEDULER_RACE',
        severity: 'critical',
        action: 'ROLLOUT_RESTART',
        status: 'planned',
        resource: controller,
        step: 'kubectl rollout restart deployment -n karpenter karpenter',
      },
    ],
  },
  {
    name: 'nodes-not-registering-aws-auth',
    cluster: 'aws-2026-eks',
    complete: true,
    findings: [
      {
        code: 'NODECLAIM_NOT_REGISTERED',
        cause: 'NODE_ROLE_NOT_MAPPED',
        severity: 'critical',
        ...manual,
        step: `arn:aws:iam::${ACCOUNT}:role/aws-2026-eks-karpenter-node`,
        mentions: ['default-kb85v', 'default-njzpq'],
      },
    ],
  },
  {
    name: 'node-not-initialized-cilium-taint',
    cluster: 'shop-eks-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_NOT_INITIALIZED',
        cause: 'STARTUP_TAINT_REMAINS',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
        step: `kubectl patch nodepool default --type json -p '[{"op":"remove","path":"/spec/template/spec/startupTaints/0"}]'`,
        detail: 'no cilium pod runs on node ip-10-42-88-204.eu-west-1.compute.internal: its DaemonSet must tolerate',
        mentions: ['default-8wz6m', 'default-qd4tn', 'cilium-operator', "Node isn't initialized"],
      },
    ],
  },
  {
    name: 'node-not-initialized-gpu-plugin',
    cluster: 'ml-eks-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_NOT_INITIALIZED',
        cause: 'RESOURCE_NOT_REGISTERED',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'gpu' },
        step: 'kubectl get ds -A | grep -i nvidia',
        detail: 'NVIDIA device plugin',
        mentions: ['gpu-5rj2x', 'ip-10-7-34-118.us-west-2.compute.internal', 'nvidia.com/gpu'],
      },
    ],
  },
  {
    name: 'orphans-after-destroy',
    cluster: 'platform-eks-dev',
    complete: true,
    exact: true,
    findings: [
      // The second one's launch template is gone (Karpenter deletes unused ones): its pre-1.7 profile proves it.
      ...[
        { id: 'i-0a3f1c9e8b7d6a501', mentions: ['provenance (launch-template)'] },
        {
          id: 'i-0b7e2d4f6a8c9e102',
          mentions: ['provenance (instance-profile)', 'instance-profile/platform-eks-dev_8351943279432019856'],
        },
      ].map(({ id, mentions }) => ({
        code: 'ORPHANED_INSTANCE' as const,
        cause: 'CONTROLLER_UNAVAILABLE' as const,
        severity: 'warning' as const,
        action: 'TERMINATE_INSTANCE' as const,
        status: 'planned' as const,
        resource: { kind: 'Instance', id },
        mentions,
      })),
      forged,
    ],
  },
  {
    // Issue 19: the look-alike launched from the node group's launch template, with Karpenter's tags and profile.
    name: 'orphan-lookalike-launch-template',
    cluster: 'platform-eks-dev',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'ORPHANED_INSTANCE',
        cause: 'CONTROLLER_UNAVAILABLE',
        severity: 'warning',
        action: 'TERMINATE_INSTANCE',
        status: 'planned',
        resource: { kind: 'Instance', id: 'i-0a3f1c9e8b7d6a501' },
        mentions: ['provenance (launch-template)'],
      },
      {
        code: 'INSTANCE_PROVENANCE_UNPROVEN',
        cause: 'LAUNCH_TEMPLATE_NOT_KARPENTERS',
        severity: 'warning',
        ...manual,
        resource: { kind: 'Instance', id: 'i-06c4e8a2f0b1d3957' },
        detail: 'launch template lt-0b4e9a2d7c1f63805 is not Karpenter',
      },
    ],
  },
  {
    name: 'cleanup-partial-destroy',
    cluster: 'platform-eks-dev',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'ORPHANED_INSTANCE',
        cause: 'CONTROLLER_UNAVAILABLE',
        severity: 'warning',
        action: 'TERMINATE_INSTANCE',
        status: 'planned',
        resource: { kind: 'Instance', id: 'i-07e3b9d1c5a2f8406' },
        step: 'aws ec2 terminate-instances --instance-ids i-07e3b9d1c5a2f8406 --region eu-central-1',
        // its launch template is gone: its profile under Karpenter's path for the cluster and region proves it
        mentions: ['provenance (instance-profile)', "under Karpenter's path /karpenter/eu-central-1/platform-eks-dev/"],
      },
      forged,
    ],
  },
  {
    name: 'ami-selector-no-match',
    cluster: 'aws-2026-eks',
    complete: true,
    findings: [
      {
        code: 'NODECLASS_NOT_READY',
        cause: 'AMI_NOT_FOUND',
        severity: 'critical',
        ...manual,
        resource: { kind: 'EC2NodeClass', name: 'default' },
      },
      {
        code: 'NODEPOOL_NOT_READY',
        cause: 'NODECLASS_NOT_READY',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
      },
      { code: 'PODS_PENDING_PROLONGED', cause: 'NODECLASS_NOT_READY', severity: 'warning', ...manual },
    ],
  },
  {
    name: 'ami-selector-unscoped',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'AMI_SELECTOR_UNSCOPED',
        cause: 'NO_OWNER',
        severity: 'warning',
        ...manual,
        resource: { kind: 'EC2NodeClass', name: 'default' },
        step: '602401143452',
      },
    ],
  },
  {
    name: 'spot-service-linked-role-missing',
    cluster: 'aws-2026-eks',
    complete: true,
    findings: [
      {
        code: 'NODECLAIM_LAUNCH_FAILED',
        cause: 'SPOT_SERVICE_LINKED_ROLE_MISSING',
        severity: 'warning',
        ...manual,
        step: 'aws iam create-service-linked-role --aws-service-name spot.amazonaws.com',
      },
    ],
  },
  {
    name: 'iam-list-instance-profiles-denied',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_IAM_DENIED',
        cause: 'MISSING_PERMISSION',
        severity: 'critical',
        ...manual,
        detail: 'iam:ListInstanceProfiles',
      },
    ],
  },
  {
    name: 'crd-conversion-webhook-broken',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: ['nodeclaims.karpenter.sh', 'nodepools.karpenter.sh', 'ec2nodeclasses.karpenter.k8s.aws'].map((name) => ({
      code: 'CRD_CONVERSION_WEBHOOK_BROKEN',
      cause: 'SERVICE_MISSING',
      severity: 'critical',
      ...manual,
      resource: { kind: 'CustomResourceDefinition', name },
      step: `kubectl patch crd ${name}`,
    })),
  },
  ...(['stale-after-v1-upgrade', 'no-endpoints', 'certificate-invalid'] as const).map(
    (kind): ExampleCase => ({
      name: `admission-webhook-broken-${kind}`,
      cluster: 'aws-2026-eks',
      complete: true,
      exact: true,
      findings: webhookConfigurations.map((name) => ({
        code: 'ADMISSION_WEBHOOK_BROKEN',
        cause: ({ 'stale-after-v1-upgrade': 'STALE_AFTER_V1_UPGRADE', 'no-endpoints': 'NO_ENDPOINTS', 'certificate-invalid': 'CERTIFICATE_INVALID' } as const)[kind],
        // validation.webhook.config.karpenter.sh has no rules: it refuses no write.
        severity: name === 'validation.webhook.config.karpenter.sh' ? 'warning' : 'critical',
        ...manual,
        resource: { kind: name.startsWith('defaulting.') ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration', name },
        step: {
          'stale-after-v1-upgrade': `webhookconfiguration ${name}`,
          'no-endpoints': 'kubectl get endpointslices -n karpenter -l kubernetes.io/service-name=karpenter',
          'certificate-invalid': 'kubectl rollout restart deployment -n karpenter karpenter',
        }[kind],
      })),
    }),
  ),
  {
    name: 'admission-webhook-broken-service-missing',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'ADMISSION_WEBHOOK_BROKEN',
        cause: 'SERVICE_MISSING',
        severity: 'critical',
        ...manual,
        resource: { kind: 'ValidatingWebhookConfiguration', name: 'validation.webhook.karpenter.sh' },
        step: 'kubectl delete validatingwebhookconfiguration validation.webhook.karpenter.sh',
        mentions: ['karpenter-controller', 'v0.33.0 runs with its webhook off'],
      },
    ],
  },
  {
    name: 'admission-webhook-broken-unknown',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'ADMISSION_WEBHOOK_BROKEN',
        cause: 'UNKNOWN',
        severity: 'critical',
        ...manual,
        resource: { kind: 'ValidatingWebhookConfiguration', name: 'validation.webhook.karpenter.sh' },
        step: "kubectl get deployment -n karpenter karpenter -o jsonpath='{.spec.template.spec.containers[*].image}'",
        detail: 'the server rejected our request for an unknown reason',
      },
    ],
  },
  {
    name: 'controller-anti-affinity-one-node',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_PENDING',
        cause: 'ANTI_AFFINITY_TOO_FEW_NODES',
        severity: 'warning',
        ...manual,
        resource: controller,
        mentions: ['karpenter-5697769d6c-7lglp'],
      },
    ],
  },
  {
    name: 'controller-untolerated-taint',
    cluster: 'platform-eks-dev',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_PENDING',
        cause: 'UNTOLERATED_TAINT',
        severity: 'critical',
        ...manual,
        resource: controller,
        mentions: ['workload-type'],
      },
    ],
  },
  {
    name: 'fargate-profile-wrong-namespace',
    cluster: 'qovery-z3b9e7d21',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_PENDING',
        cause: 'NO_FARGATE_PROFILE_MATCH',
        severity: 'critical',
        ...manual,
        resource: controller,
      },
    ],
  },
  {
    name: 'subnet-ip-exhausted',
    cluster: 'retail-prod-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'SUBNET_IPS_LOW',
        cause: 'FEW_FREE_ADDRESSES',
        severity: 'critical',
        ...manual,
        resource: { kind: 'EC2NodeClass', name: 'default' },
        detail: 'subnet-0c4e1f7a9b2d38e51 (us-east-1a, 10.42.0.0/24): 0 of 256 addresses free',
        step: 'aws ec2 create-tags --resources <new-subnet-id> --tags Key=karpenter.sh/discovery,Value=retail-prod-eks --region us-east-1',
      },
      {
        code: 'NODECLAIM_LAUNCH_FAILED',
        cause: 'SUBNET_IP_EXHAUSTED',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'orders' },
        detail: 'Other zones of EC2NodeClass default still have room: subnet-07a3d9e2f5c1b8604 in us-east-1b (7,911 free)',
        step: 'aws ec2 create-subnet --vpc-id vpc-0b8e3d6a1f4c92757 --availability-zone us-east-1a --cidr-block <unused-cidr> --region us-east-1',
        mentions: ['subnet-0c4e1f7a9b2d38e51', 'NodePool orders allows only us-east-1a'],
      },
    ],
  },
  {
    name: 'ec2-api-throttled',
    cluster: 'media-prod-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODECLAIM_LAUNCH_FAILED',
        cause: 'API_THROTTLED',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'batch' },
        detail: "EC2 throttled Karpenter's CreateFleet, DescribeLaunchTemplates calls",
        step: 'aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventSource,AttributeValue=ec2.amazonaws.com',
        mentions: ['batch-r7k2m', 'batch-v3n8q'],
      },
    ],
  },
  {
    name: 'no-instance-type-fits',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'PODS_PENDING_PROLONGED',
        cause: 'NO_INSTANCE_TYPE_FITS',
        severity: 'warning',
        ...manual,
        detail: 'karpenter.k8s.aws/instance-cpu Lt [33] allows at most 32 vCPUs; the pods request 96',
        step: 'kubectl edit nodepool default',
        mentions: ['ml/trainer-7d9f6c8b54-k4x7p', 'cpu 96, memory 180Gi'],
      },
    ],
  },
  {
    name: 'zone-unsatisfiable',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'PODS_PENDING_PROLONGED',
        cause: 'TOPOLOGY_UNSATISFIABLE',
        severity: 'warning',
        ...manual,
        detail:
          'These pods need zone us-east-1c (their volume is there), and no NodePool can launch a node there: NodePool default → EC2NodeClass default → us-east-1a/use1-az4 (subnet-0e4b7a2c9d1f38a65), us-east-1b/use1-az6 (subnet-07d2f9c4a1e6b3058)',
        step: 'aws ec2 create-tags --resources "$SUBNET_ID" --tags Key=karpenter.sh/discovery,Value=aws-2026-eks',
        mentions: ['db/postgres-0'],
      },
    ],
  },
  {
    name: 'controller-oomkilled',
    cluster: 'shop-prod-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_UNHEALTHY',
        cause: 'OOM_KILLED',
        severity: 'critical',
        ...manual,
        resource: controller,
        detail: 'no memory limit is set',
        step: '--version 1.8.1 --reuse-values --set controller.resources.requests.memory=1Gi --set controller.resources.limits.memory=1Gi',
        mentions: ['karpenter-6f8c9d7b54-x7kq2', 'OOMKilled (exit code 137)', '14 restarts'],
      },
    ],
  },
  {
    name: 'controller-private-vpc-no-endpoints',
    cluster: 'fin-core-private',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_UNHEALTHY',
        cause: 'AWS_API_UNREACHABLE',
        severity: 'critical',
        ...manual,
        resource: controller,
        detail: 'cannot reach the AWS API of sts',
        step: '--vpc-endpoint-type Interface --service-name com.amazonaws.eu-west-1.sts',
        mentions: ['karpenter-previous.log:3', 'https://sts.eu-west-1.amazonaws.com/'],
      },
    ],
  },
  {
    name: 'node-not-initialized-cni',
    cluster: 'logistics-eks-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_NOT_INITIALIZED',
        cause: 'CNI_NOT_READY',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'general' },
        detail: 'Network plugin returns error: cni plugin not initialized',
        step: 'aws eks describe-addon --cluster-name logistics-eks-prod --addon-name vpc-cni',
        mentions: ['general-x4k9p', 'general-tz7qm', 'ip-10-60-21-143.eu-central-1.compute.internal', 'kube-system/aws-node'],
      },
    ],
  },
  {
    name: 'node-not-initialized-not-ready',
    cluster: 'media-render-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_NOT_INITIALIZED',
        cause: 'NODE_NOT_READY',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'render' },
        detail: 'is NotReady: "Kubelet stopped posting node status."',
        step: 'aws ec2 get-console-output --instance-id i-0f6b3d8a1c5e27940 --latest',
        mentions: ['render-q8w2d', 'render-7fzkc', 'NodeNotReady: Node status is NotReady'],
      },
    ],
  },
  {
    name: 'controller-leader-election-lost',
    cluster: 'adtech-bidder-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_UNHEALTHY',
        cause: 'LEADER_ELECTION_LOST',
        severity: 'warning',
        ...manual,
        resource: controller,
        detail: 'panic: Unable to start manager, leader election lost',
        step: 'kubectl get lease -n karpenter karpenter-leader-election -o yaml',
        mentions: ['karpenter-previous.log:17', 'karpenter-7d4b8f9c6d-hk2vq', '1 of 2 replica(s) Ready'],
      },
    ],
  },
  {
    name: 'controller-crash-loop',
    cluster: 'ledger-eks-staging',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'KARPENTER_CONTROLLER_UNHEALTHY',
        cause: 'CRASH_LOOP',
        severity: 'warning',
        ...manual,
        resource: controller,
        detail: 'panic: parsing feature gates, invalid value of StaticCapacity',
        step: 'kubectl logs -n karpenter karpenter-64d8c7b9f5-qz4mn --previous',
        mentions: ['karpenter-previous.log:1', 'CrashLoopBackOff, 7 restarts', '(exit code 2)'],
      },
    ],
  },
  {
    name: 'consolidation-churn-short-consolidate-after',
    cluster: 'shop-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'CONSOLIDATION_CHURN',
        cause: 'CONSOLIDATE_AFTER_TOO_SHORT',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
        step: `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"consolidateAfter":"10m"}}}'`,
        detail: 'consolidateAfter 0s',
        mentions: [
          '12 consolidation disruptions in the last hour (Underutilized ×10, Empty ×2)',
          'c6a.large replaced by c6a.large ×2',
        ],
      },
    ],
  },
  {
    name: 'consolidation-churn-no-budget',
    cluster: 'analytics-dev',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'CONSOLIDATION_CHURN',
        cause: 'NO_DISRUPTION_BUDGET',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'general-purpose' },
        step:
          `kubectl patch nodepool general-purpose --type=merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"20%"},` +
          `{"duration":"8h0m0s","nodes":"0","reasons":["Drifted"],"schedule":"0 9 * * mon-fri"},{"nodes":"1","reasons":["Underutilized","Empty"]}]}}}'`,
        mentions: ['11 consolidation disruptions in the last hour', 'Disrupting NodeClaim: Underutilized/Replace'],
      },
    ],
  },
  {
    name: 'drift-blocked-by-budget',
    cluster: 'shop-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'DISRUPTION_BLOCKED',
        cause: 'BUDGET_BLOCKS',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
        detail: 'budgets[1] nodes: "0" reasons [Drifted] schedule "0 0 15 12 *" for 456h allows 0 nodes to be disrupted for Drifted now; its window next opens at 2026-01-03T00:00:00Z',
        step: `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"10%"},{"nodes":"1","reasons":["Drifted"]}]}}}'`,
        mentions: ['AMIDrift ×5', 'No allowed disruptions for disruption reason Drifted due to blocking budget'],
      },
    ],
  },
  {
    name: 'drift-blocked-by-pdb',
    cluster: 'shop-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'DISRUPTION_BLOCKED',
        cause: 'PDB_BLOCKS_EVICTION',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
        detail: 'PodDisruptionBudget payments/ledger-api (holding payments/ledger-api-6c9f8d7b5-2kx8q, payments/ledger-api-6c9f8d7b5-9tz4w)',
        step: 'kubectl get pdb -n payments ledger-api -o yaml',
        // v1.7.4's exact text: the blocking PDB in a `(PodDisruptionBudget=[ns/name])` suffix (since v1.5).
        mentions: ['AMIDrift ×2', 'Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger-api])', 'default-7xq2m', 'default-p4k9d'],
      },
    ],
  },
  {
    name: 'termination-stuck-pdb',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_TERMINATION_STUCK',
        cause: 'PDB_BLOCKS_EVICTION',
        severity: 'critical',
        ...manual,
        resource: terminatingNode,
        detail: 'PDB shop/checkout (minAvailable 1; disruptionsAllowed 0, currentHealthy 1, desiredHealthy 1, expectedPods 1) selects shop/checkout-6f8d9c7b5d-q4m2x',
        step: 'kubectl scale deployment -n shop checkout --replicas=2',
        mentions: ['FailedDraining ×533', 'no terminationGracePeriod on NodePool default'],
      },
    ],
  },
  {
    name: 'termination-stuck-do-not-disrupt',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_TERMINATION_STUCK',
        cause: 'DO_NOT_DISRUPT_POD',
        severity: 'warning',
        ...manual,
        resource: terminatingNode,
        detail: 'Pod batch/nightly-report-29455200-7xk2p is annotated karpenter.sh/do-not-disrupt: "true"',
        step: 'kubectl annotate pod -n batch nightly-report-29455200-7xk2p karpenter.sh/do-not-disrupt-',
        mentions: ['FailedDraining ×71', 'DisruptionBlocked ×4'],
      },
    ],
  },
  {
    name: 'termination-stuck-volume-detach',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_TERMINATION_STUCK',
        cause: 'VOLUME_DETACH_PENDING',
        severity: 'warning',
        ...manual,
        resource: terminatingNode,
        detail: 'PV pvc-3c1b7e52-9d4a-4f0e-8b6a-2e7d9c1f5a08, ebs.csi.aws.com, attached true, detachError',
        step: 'kubectl get pv pvc-3c1b7e52-9d4a-4f0e-8b6a-2e7d9c1f5a08 -o wide',
        mentions: ['AwaitingVolumeDetachment ×37'],
      },
    ],
  },
  {
    name: 'termination-stuck-controller-gone',
    cluster: 'aws-2026-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_TERMINATION_STUCK',
        cause: 'CONTROLLER_UNAVAILABLE',
        severity: 'warning',
        ...manual,
        resource: terminatingNode,
        detail: 'Deployment karpenter/karpenter is scaled to 0 replicas',
        step: "aws ec2 describe-instances --instance-ids i-01d1ff6c07a0e70f9 --query 'Reservations[].Instances[].State.Name' --output text --region us-east-1",
        mentions: ['default-kb85v'],
      },
    ],
  },
  {
    name: 'termination-stuck-multiple-pdbs',
    cluster: 'storefront-eks-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'NODE_TERMINATION_STUCK',
        cause: 'MULTIPLE_PDBS',
        severity: 'critical',
        ...manual,
        resource: { kind: 'Node', name: 'ip-10-48-51-73.eu-west-1.compute.internal' },
        detail: 'Pod storefront/web-7d4b9c8f6d-x2kqp is selected by storefront/web and storefront/web-pdb',
        step: 'kubectl delete pdb -n storefront web-pdb',
        mentions: ['FailedDraining ×529', 'eviction does not support multiple PDBs', 'no terminationGracePeriod on NodePool default'],
      },
    ],
  },
  {
    name: 'drift-blocked-multiple-pdbs',
    cluster: 'billing-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'DISRUPTION_BLOCKED',
        cause: 'MULTIPLE_PDBS',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
        detail: 'pod billing/invoice-api-6c9f8d7b5-2kx8q is selected by billing/invoice-api and billing/invoice-api-default-pdb',
        step: 'kubectl get pdb -n billing invoice-api invoice-api-default-pdb -o yaml',
        mentions: ['AMIDrift ×2', 'Eviction does not support multiple PDBs', 'default-7xq2m', 'default-p4k9d'],
      },
    ],
  },
  {
    name: 'drift-blocked-do-not-disrupt-pod',
    cluster: 'ml-research-eks',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'DISRUPTION_BLOCKED',
        cause: 'DO_NOT_DISRUPT_POD',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
        detail: 'pod ml/train-ranker-v14-6kxq2 (karpenter.sh/do-not-disrupt: "true"), pod ml/embed-backfill-2025q4-p9d7c',
        step: 'kubectl annotate pod -n ml train-ranker-v14-6kxq2 karpenter.sh/do-not-disrupt-',
        mentions: ['AMIDrift ×2', 'Pod has \\"karpenter.sh/do-not-disrupt\\" annotation', 'default-7xq2m', 'default-p4k9d'],
      },
    ],
  },
  {
    name: 'drift-blocked-do-not-disrupt-node',
    cluster: 'payments-eks-prod',
    complete: true,
    exact: true,
    findings: [
      {
        code: 'DISRUPTION_BLOCKED',
        cause: 'DO_NOT_DISRUPT_NODE',
        severity: 'warning',
        ...manual,
        resource: { kind: 'NodePool', name: 'default' },
        detail: 'Node ip-10-24-44-91.eu-central-1.compute.internal, Node ip-10-24-78-162.eu-central-1.compute.internal are annotated karpenter.sh/do-not-disrupt: "true"',
        step: 'kubectl annotate node ip-10-24-78-162.eu-central-1.compute.internal karpenter.sh/do-not-disrupt-',
        mentions: ['AMIDrift ×2', 'Disruption is blocked through the \\"karpenter.sh/do-not-disrupt\\" annotation', 'default-7xq2m'],
      },
    ],
  },
  ...(
    [
      {
        name: 'node-not-ready-kubelet-unresponsive',
        cause: 'KUBELET_UNRESPONSIVE',
        detail: 'System OOM encountered, victim process: redis-server, pid: 4182',
        step: 'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n karpenter --version 1.7.4 --reuse-values --set settings.featureGates.nodeRepair=true',
        mentions: ['Kubelet stopped posting node status.', 'shop/redis-0'],
      },
      {
        name: 'node-not-ready-resource-pressure',
        cause: 'RESOURCE_PRESSURE',
        detail: 'request nothing (BestEffort): shop/redis-0',
        step: 'kubectl get pods -A -o wide --field-selector spec.nodeName=ip-10-59-42-222.ec2.internal',
        mentions: ['MemoryPressure=True (KubeletHasInsufficientMemory: kubelet has insufficient memory available)'],
      },
      {
        name: 'node-not-ready-network-not-ready',
        cause: 'NETWORK_NOT_READY',
        detail: 'NetworkReady=false reason:NetworkPluginNotReady',
        step: 'kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=ip-10-59-42-222.ec2.internal',
        mentions: ['shop/redis-0'],
      },
      {
        name: 'node-not-ready-unknown',
        cause: 'UNKNOWN',
        detail: 'PLEG is not healthy',
        step: 'aws ec2 get-console-output --instance-id i-0c4e8b2a9f7d13e56 --latest --output text --region us-east-1',
        mentions: ['NodeRepair=false'],
      },
      {
        name: 'node-not-ready-repair-blocked',
        cause: 'KUBELET_UNRESPONSIVE',
        detail: 'blocked by Karpenter\'s 20% rule: 2 of 2 nodes match a repair condition, more than the 1 it allows',
        step: 'kubectl delete nodeclaim default-kb85v --wait=false',
        mentions: ['NodeRepairBlocked: more than 20% nodes are unhealthy in the nodepool', 'shop/redis-1'],
      },
      {
        name: 'node-not-ready-repair-waiting',
        cause: 'KUBELET_UNRESPONSIVE',
        detail: 'Karpenter replaces the first of them at 2026-01-01T01:12:00.000Z',
        step: 'kubectl delete nodeclaim default-njzpq --wait=false',
        mentions: ['NodeRepair=true'],
      },
    ] as const
  ).map(
    ({ name, cause, detail, step, mentions }): ExampleCase => ({
      name,
      cluster: 'aws-2026-eks',
      complete: true,
      exact: true,
      findings: [
        {
          code: 'NODE_NOT_READY',
          cause,
          // One of the pool's two nodes, or both: at least 20% of the NodePool.
          severity: 'critical',
          ...manual,
          resource: { kind: 'NodePool', name: 'default' },
          detail,
          step,
          mentions: [...mentions],
        },
      ],
    }),
  ),
  // CONSOLIDATION_BLOCKED: the same two underused nodes of shop-prod (Karpenter v1.7.4), held by one cause each.
  ...(
    [
      {
        name: 'consolidation-blocked-when-empty',
        cause: 'CONSOLIDATION_DISABLED',
        detail: "NodePool default's consolidationPolicy is WhenEmpty",
        step: `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized"}}}'`,
        mentions: ['NodePool \\"default\\" has non-empty consolidation disabled'],
      },
      {
        name: 'consolidation-blocked-budget',
        cause: 'BUDGET_BLOCKS',
        detail: 'budgets[1] nodes: "0" reasons [Underutilized] schedule "0 0 22 12 *" for 288h allows 0 nodes to be disrupted for Underutilized now',
        step: `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"10%"},{"nodes":"1","reasons":["Underutilized"]}]}}}'`,
        mentions: ['No allowed disruptions for disruption reason Underutilized due to blocking budget'],
      },
      {
        name: 'consolidation-blocked-pdb',
        cause: 'PDB_BLOCKS_EVICTION',
        detail: 'PodDisruptionBudget payments/ledger-api (holding payments/ledger-api-6c9f8d7b5-2kx8q, payments/ledger-api-6c9f8d7b5-9tz4w)',
        step: 'kubectl scale deployment -n payments ledger-api --replicas=3',
        mentions: ['Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger-api])'],
      },
      {
        name: 'consolidation-blocked-multiple-pdbs',
        cause: 'MULTIPLE_PDBS',
        detail: 'pod payments/ledger-api-6c9f8d7b5-2kx8q is selected by payments/ledger-api and payments/ledger-api-pdb',
        step: 'kubectl get pdb -n payments ledger-api ledger-api-pdb -o yaml',
        mentions: ['Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[payments/ledger-api payments/ledger-api-pdb])'],
      },
      {
        name: 'consolidation-blocked-do-not-disrupt-pod',
        cause: 'DO_NOT_DISRUPT_POD',
        detail: 'pod payments/ledger-api-6c9f8d7b5-2kx8q (karpenter.sh/do-not-disrupt: "true")',
        step: 'kubectl annotate pod -n payments ledger-api-6c9f8d7b5-9tz4w karpenter.sh/do-not-disrupt-',
        mentions: ['Pod has \\"karpenter.sh/do-not-disrupt\\" annotation (Pod=payments/ledger-api-6c9f8d7b5-2kx8q)'],
      },
      {
        name: 'consolidation-blocked-do-not-disrupt-node',
        cause: 'DO_NOT_DISRUPT_NODE',
        detail: 'Node ip-10-59-44-91.ec2.internal, Node ip-10-59-78-162.ec2.internal are annotated karpenter.sh/do-not-disrupt: "true"',
        step: 'kubectl annotate node ip-10-59-78-162.ec2.internal karpenter.sh/do-not-disrupt-',
        mentions: ['Disruption is blocked through the \\"karpenter.sh/do-not-disrupt\\" annotation'],
      },
      {
        name: 'consolidation-blocked-spot-to-spot-disabled',
        cause: 'SPOT_TO_SPOT_DISABLED',
        detail: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
        step: '--version 1.7.4 --reuse-values --set settings.featureGates.spotToSpotConsolidation=true',
        mentions: ['m6a.xlarge spot'],
      },
      {
        name: 'consolidation-blocked-too-few-cheaper-types',
        cause: 'TOO_FEW_CHEAPER_TYPES',
        detail: 'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 2',
        step: "kubectl get nodepool default -o jsonpath='{.spec.template.spec.requirements}'",
        mentions: ['got 3'],
      },
      {
        name: 'consolidation-blocked-no-cheaper-replacement',
        cause: 'NO_CHEAPER_REPLACEMENT',
        detail: "Karpenter says \"Can't replace with a cheaper node\"",
        step: "kubectl describe node ip-10-59-78-162.ec2.internal | grep -A 12 'Allocated resources'",
        mentions: ['m6a.xlarge on-demand'],
      },
      {
        name: 'consolidation-blocked-pods-would-not-schedule',
        cause: 'PODS_WOULD_NOT_SCHEDULE',
        detail: "Karpenter says \"Can't remove without creating 2 candidates\"",
        step: "kubectl describe node ip-10-59-44-91.ec2.internal | grep -A 12 'Allocated resources'",
        mentions: ['3 pods besides DaemonSets'],
      },
    ] as const
  ).map(
    ({ name, cause, detail, step, mentions }): ExampleCase => ({
      name,
      cluster: 'shop-prod',
      complete: true,
      findings: [
        {
          code: 'CONSOLIDATION_BLOCKED',
          cause,
          // Two m6a/m7i.xlarge nodes cost well under the 50 USD a day --waste-per-day default.
          severity: 'info',
          ...manual,
          resource: { kind: 'NodePool', name: 'default' },
          detail,
          step,
          mentions: ['default-7xq2m', 'default-p4k9d', 'Consolidatable since 2025-12-31T07:19:31Z', ...mentions],
        },
      ],
    }),
  ),
  // INTERRUPTION_HANDLING_OFF, one example per cause (docs/findings.md#interruption_handling_off).
  ...(
    [
      {
        name: 'interruption-handling-off-queue-not-configured',
        cause: 'QUEUE_NOT_CONFIGURED',
        detail: 'No interruption queue is set',
        step: 'aws sqs create-queue --queue-name aws-2026-eks --attributes MessageRetentionPeriod=300,SqsManagedSseEnabled=true',
        mentions: ['queue setting: unset'],
      },
      {
        name: 'interruption-handling-off-queue-name-invalid',
        cause: 'QUEUE_NAME_INVALID',
        detail: 'a queue named aws-2026-eks exists',
        step: '--set settings.interruptionQueue=aws-2026-eks',
        mentions: ['arn:aws:sqs:us-east-1:069057294951:aws-2026-eks'],
      },
      {
        // The acceptance: a typo'd name, said in one line with the fix.
        name: 'interruption-handling-off-queue-missing',
        cause: 'QUEUE_MISSING',
        detail: 'No SQS queue named aws2026-eks exists',
        step: '--set settings.interruptionQueue=aws-2026-eks',
        mentions: ['aws2026-eks does not exist: did you mean aws-2026-eks (it exists)? point the setting at it'],
      },
      {
        name: 'interruption-handling-off-rules-missing',
        cause: 'RULES_MISSING',
        detail: 'Spot interruption',
        step: 'aws events put-targets --rule aws-2026-eks-SpotInterruption --targets Id=KarpenterInterruptionQueueTarget,Arn=arn:aws:sqs:us-east-1:069057294951:aws-2026-eks',
      },
      {
        name: 'interruption-handling-off-queue-policy-denies-events',
        cause: 'QUEUE_POLICY_DENIES_EVENTS',
        detail: 'events.amazonaws.com',
        step: 'aws sqs set-queue-attributes --queue-url https://sqs.us-east-1.amazonaws.com/069057294951/aws-2026-eks --attributes file://queue-attributes.json',
      },
      {
        name: 'interruption-handling-off-kms-key-unusable',
        cause: 'KMS_KEY_UNUSABLE',
        detail: 'alias/aws/sqs',
        step: '\'{"KmsMasterKeyId":"","SqsManagedSseEnabled":"true"}\'',
      },
      {
        // The queue exists as the scan sees it, the controller's log says it does not: checks, no fix.
        name: 'interruption-handling-off-unknown',
        cause: 'UNKNOWN',
        detail: 'The queue exists in the account and region scanned',
        step: "grep -E -A1 'AWS_REGION|AWS_ROLE_ARN|INTERRUPTION_QUEUE'",
        mentions: ['AWS.SimpleQueueService.NonExistentQueue'],
      },
      {
        name: 'interruption-handling-off-not-consumed',
        cause: 'NOT_CONSUMED',
        detail: '3540 s',
        step: 'ApproximateNumberOfMessages ApproximateNumberOfMessagesNotVisible',
      },
    ] as const
  ).map(
    (c): ExampleCase => ({
      name: c.name,
      cluster: 'aws-2026-eks',
      complete: true,
      exact: true,
      findings: [
        {
          code: 'INTERRUPTION_HANDLING_OFF',
          cause: c.cause,
          severity: 'warning',
          ...manual,
          resource: controller,
          detail: c.detail,
          step: c.step,
          ...('mentions' in c ? { mentions: [...c.mentions] } : {}),
        },
      ],
    }),
  ),
  { name: 'healthy', cluster: 'aws-2026-eks', complete: true, exact: true, findings: [] },
];

async function load(name: string) {
  const { snapshot, notices } = await loadSnapshot([join(EXAMPLES, name)]);
  const report = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW });
  return { snapshot, notices, report };
}

// Loading and analysis are pure: each example is diagnosed once and shared by its tests.
const diagnoses = new Map<string, ReturnType<typeof load>>();
function diagnose(name: string): ReturnType<typeof load> {
  let diagnosis = diagnoses.get(name);
  if (!diagnosis) {
    diagnosis = load(name);
    diagnoses.set(name, diagnosis);
  }
  return diagnosis;
}

function atLeastWarning(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK.warning);
}

function matches(f: Finding, e: ExpectedFinding): boolean {
  if (f.code !== e.code || f.cause?.code !== e.cause) return false;
  if (!e.resource) return true;
  return Object.entries(e.resource).every(([key, value]) => f.resource[key as keyof ResourceRef] === value);
}

function describeFinding(f: Finding): string {
  return `${f.severity} ${f.code}/${f.cause?.code ?? '-'} ${JSON.stringify(f.resource)}`;
}

describe('bundled examples', () => {
  it('every example folder has a case in this table', () => {
    // Prepare
    const folders = readdirSync(EXAMPLES, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();

    // Assess
    expect(folders).toEqual(CASES.map((c) => c.name).sort());
  });

  describe.each(CASES)('$name', (example) => {
    it('starts its README with the one-sentence description the demo prints', () => {
      // Act
      const firstLine = readFileSync(join(EXAMPLES, example.name, 'README.md'), 'utf8').split('\n')[0] ?? '';

      // Assess
      expect(firstLine).toMatch(/^[A-Za-z`].{20,200}\.$/);
    });

    it('loads as captured: no skipped or unrecognised content, the right cluster', async () => {
      // Act
      const { snapshot, notices } = await diagnose(example.name);

      // Assess
      expect(notices).toEqual([]);
      expect(snapshot.clusterName).toBe(example.cluster);
    });

    it(`is ${example.complete ? 'complete' : 'incomplete'}`, async () => {
      // Act
      const { report } = await diagnose(example.name);

      // Assess
      expect(report.gaps).toEqual(example.complete ? [] : expect.arrayContaining([expect.anything()]));
      expect(report.complete).toBe(example.complete);
    });

    it.each(example.findings.map((e) => ({ ...e, label: `${e.code}/${e.cause} ${e.resource?.id ?? e.resource?.name ?? ''}` })))(
      'finds $label',
      async (expected) => {
        // Act
        const { report } = await diagnose(example.name);

        // Assess
        const found = report.findings.filter((f) => matches(f, expected));
        expect(found.map(describeFinding), `findings: ${report.findings.map(describeFinding).join('; ')}`).not.toEqual([]);
        for (const f of found) {
          expect(f.severity).toBe(expected.severity);
          expect(f.remediation?.action).toBe(expected.action);
          expect(f.remediation?.status).toBe(expected.status);
          if (expected.step) expect(f.remediation?.steps.join('\n')).toContain(expected.step);
          if (expected.detail) expect(f.cause?.detail).toContain(expected.detail);
          const text = JSON.stringify([f.title, f.cause, f.evidence]);
          for (const name of expected.mentions ?? []) expect(text).toContain(name);
        }
      },
    );

    it('reports nothing else at warning or above', async () => {
      // Act
      const { report } = await diagnose(example.name);

      // Assess
      const serious = atLeastWarning(report.findings);
      const unexpected = serious.filter((f) => !example.findings.some((e) => matches(f, e)));
      expect(unexpected.map(describeFinding)).toEqual([]);
      if (example.exact) expect(serious.map(describeFinding)).toHaveLength(example.findings.length);
    });
  });

  it('the exhausted subnet is never reported as insufficient capacity', async () => {
    // Act
    const { report } = await diagnose('subnet-ip-exhausted');

    // Assess
    expect(report.findings.filter((f) => f.cause?.code === 'INSUFFICIENT_CAPACITY').map(describeFinding)).toEqual([]);
  });

  // Each consolidation example's evidence contradicts every other cause: its report must not print their fixes.
  it.each([
    ['featureGates.spotToSpotConsolidation=true', ['consolidation-blocked-spot-to-spot-disabled']],
    ['karpenter.sh/do-not-disrupt-', ['consolidation-blocked-do-not-disrupt-pod', 'consolidation-blocked-do-not-disrupt-node']],
    ['"consolidationPolicy":"WhenEmptyOrUnderutilized"', ['consolidation-blocked-when-empty']],
    ['"budgets":[', ['consolidation-blocked-budget']],
    ['kubectl patch pdb', ['consolidation-blocked-pdb']],
    ['kubectl delete pdb', ['consolidation-blocked-multiple-pdbs']],
  ])('only the examples whose cause needs it print %s', async (fix, owners) => {
    // Prepare
    const names = CASES.map((c) => c.name).filter((n) => n.startsWith('consolidation-blocked-'));

    // Act
    const printing: string[] = [];
    for (const name of names) {
      const { report } = await diagnose(name);
      if (report.findings.some((f) => f.remediation?.steps.join('\n').includes(fix))) printing.push(name);
    }

    // Assess
    expect(printing.sort()).toEqual([...owners].sort());
  });

  it('the healthy cluster has no finding at warning or above', async () => {
    // Act
    const { report } = await diagnose('healthy');

    // Assess
    expect(atLeastWarning(report.findings).map(describeFinding)).toEqual([]);
    expect(report.summary.critical + report.summary.warning).toBe(0);
  });
});
