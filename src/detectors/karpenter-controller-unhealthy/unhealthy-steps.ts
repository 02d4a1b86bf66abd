import { commandStep, manualRemediation, type Remediation } from '../../domain/finding.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { AwsService } from './crash-logs.ts';
import {
  blockedEndpointSteps,
  clusterArg,
  clusterNote,
  dnsSteps,
  type BlockedEndpoint,
  type DnsFailure,
  type NetworkEnv,
} from './network-steps.ts';
import type { PodFailure } from './restarts.ts';
import { clusterNameSteps, crdSteps, type StartConfigEnv } from './start-config-steps.ts';
import type { ClusterNameMissing, CrdMissing } from './start-config.ts';
import { helmUpgrade, versionNote } from '../karpenter/helm.ts';

/**
 * The fix for each cause of a crashing Karpenter controller, as commands filled with the cluster's
 * own names. All of it changes Helm values or the VPC: nothing is automated.
 */

export interface UnhealthyEnv {
  namespace: string;
  deploymentName: string;
  /** Undefined when the capture does not name the cluster: the steps then read `$CLUSTER_NAME`. */
  clusterName: string | undefined;
  /** The Helm release (`app.kubernetes.io/instance`), `karpenter` when unlabelled. */
  release: string;
  /** The installed chart version (`helm.sh/chart: karpenter-1.8.1`, `app.kubernetes.io/version`), when labelled. */
  chartVersion: string | undefined;
  /** The controller's version (chart label, else image tag), which names its Helm values and CRDs. */
  controllerVersion: string | undefined;
  region: string | undefined;
  /** The cluster's API endpoint, for `settings.clusterEndpoint`. */
  clusterEndpoint: string | undefined;
  /** The pod to read and describe; undefined when only the controller's log was captured. */
  failure: PodFailure | undefined;
  /** The pod has more than one container: name the one to read. */
  container: string | undefined;
}

export type UnhealthyStepCause =
  | { cause: 'OOM_KILLED'; memoryLimit: string | undefined }
  | { cause: 'LEADER_ELECTION_LOST' }
  | ({ cause: 'DNS_RESOLUTION_FAILED' } & DnsFailure)
  | ({ cause: 'VPC_ENDPOINT_BLOCKED' } & BlockedEndpoint)
  | { cause: 'AWS_API_UNREACHABLE'; services: readonly AwsService[] }
  | ({ cause: 'CLUSTER_NAME_MISSING' } & ClusterNameMissing)
  | ({ cause: 'CRD_MISSING' } & CrdMissing)
  /** deniedAction: the last error is AWS denying that call (`eks:DescribeCluster`), a KARPENTER_IAM_DENIED finding. */
  | { cause: 'CRASH_LOOP'; deniedAction?: string }
  | { cause: 'UNKNOWN'; logsCaptured: boolean };

export function unhealthyRemediation(c: UnhealthyStepCause, env: UnhealthyEnv): Remediation {
  const ns = shellQuote(env.namespace);
  const podName = env.failure?.pod.metadata?.name;
  const pod = podName ? shellQuote(podName) : `deployment/${shellQuote(env.deploymentName)}`;
  const container = env.container ? ` -c ${shellQuote(env.container)}` : '';
  // Without a failing pod (a log-only capture) the running controller's log is the one to read.
  const previousLog = `kubectl logs -n ${ns} ${pod}${container}${podName ? ' --previous' : ''} --tail=200`;
  const describe = `kubectl describe pod -n ${ns} ${pod}`;
  const network: NetworkEnv = {
    namespace: env.namespace,
    clusterName: env.clusterName,
    region: env.region,
    helmUpgrade: (sets) => helmUpgrade(env, sets),
    versionNote: versionNote(env),
    previousLog,
    pod: podName,
  };
  switch (c.cause) {
    case 'OOM_KILLED':
      return manualRemediation([
        commandStep(
          'the last state and the memory the container had (Last State: Terminated, Reason: OOMKilled, Exit Code: 137)',
          describe,
        ),
        ...oomSteps(env, c.memoryLimit),
      ]);
    case 'LEADER_ELECTION_LOST':
      return manualRemediation([
        commandStep('what the controller printed before it lost the lease', previousLog),
        commandStep(
          'who holds the lease and when it was last renewed',
          `kubectl get lease -n ${ns} karpenter-leader-election -o yaml`,
        ),
        commandStep(
          'the API server health: a slow or failing kube-apiserver (or etcd) makes lease renewals time out',
          "kubectl get --raw='/readyz?verbose'",
        ),
        commandStep(
          'requests the API Priority and Fairness rejected (apiserver_flowcontrol_rejected_requests_total): give Karpenter its own FlowSchema if they grow',
          'kubectl get --raw /metrics | grep apiserver_flowcontrol_rejected_requests_total',
        ),
        commandStep(
          "if Karpenter's own client is throttled (client-side throttling in its log), raise KUBE_CLIENT_QPS and KUBE_CLIENT_BURST (the chart's defaults are 200 and 300; Helm resets a kubectl edit at the next upgrade, so put them in the values' controller.env too)",
          `kubectl set env deployment -n ${ns} ${shellQuote(env.deploymentName)} -c controller KUBE_CLIENT_QPS=400 KUBE_CLIENT_BURST=600`,
        ),
      ]);
    case 'DNS_RESOLUTION_FAILED':
      return manualRemediation(dnsSteps(network, c));
    case 'VPC_ENDPOINT_BLOCKED':
      return manualRemediation(blockedEndpointSteps(network, c));
    case 'AWS_API_UNREACHABLE':
      return manualRemediation([commandStep('the calls that timed out', previousLog), ...endpointSteps(env, c.services)]);
    case 'CLUSTER_NAME_MISSING':
      return manualRemediation(clusterNameSteps(c, startConfigEnv(env)));
    case 'CRD_MISSING':
      return manualRemediation(crdSteps(c, startConfigEnv(env)));
    case 'CRASH_LOOP':
      if (c.deniedAction !== undefined) {
        return manualRemediation([
          `Allow ${c.deniedAction} to the controller's role as the KARPENTER_IAM_DENIED finding for it says (its first steps tell a missing grant from an SCP, a permissions boundary or a Deny); the controller starts once the call succeeds.`,
          commandStep(
            'the controller is Ready again once the call is allowed',
            `kubectl rollout status -n ${ns} deployment/${shellQuote(env.deploymentName)}`,
          ),
        ]);
      }
      return manualRemediation([
        commandStep('the last lines before the container exited (the finding quotes the last error)', previousLog),
        commandStep('the exit code, the termination message and the events of the pod', describe),
      ]);
    case 'UNKNOWN':
      return manualRemediation([
        commandStep(
          c.logsCaptured
            ? 'the log of the container before its last restart (the captured logs hold no error that explains it)'
            : 'the log of the container before its last restart: no controller log was captured; save it next to the capture as karpenter-previous.log and scan again',
          c.logsCaptured ? previousLog : `${previousLog} > karpenter-previous.log`,
        ),
        commandStep('the exit code, the termination message and the events of the pod', describe),
      ]);
  }
}

function startConfigEnv(env: UnhealthyEnv): StartConfigEnv {
  return {
    namespace: env.namespace,
    deploymentName: env.deploymentName,
    release: env.release,
    version: env.controllerVersion,
    clusterName: env.clusterName,
    clusterEndpoint: env.clusterEndpoint,
    region: env.region,
  };
}

/** Twice the current limit, at least 1Gi: the chart's default requests nothing and limits nothing. */
function nextMemory(limit: string | undefined): string {
  const mi = mebibytes(limit);
  if (mi === undefined || mi * 2 <= 1024) return '1Gi';
  const next = Math.ceil((mi * 2) / 256) * 256;
  return next % 1024 === 0 ? `${next / 1024}Gi` : `${next}Mi`;
}

function mebibytes(quantity: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(quantity ?? '');
  if (!m) return undefined;
  const factor: Record<string, number> = {
    Ki: 1 / 1024,
    Mi: 1,
    Gi: 1024,
    Ti: 1024 * 1024,
    K: 1e3 / 1048576,
    M: 1e6 / 1048576,
    G: 1e9 / 1048576,
    T: 1e12 / 1048576,
  };
  return Number(m[1]) * (m[2] ? (factor[m[2]] ?? 1) : 1 / 1048576);
}

function oomSteps(env: UnhealthyEnv, limit: string | undefined): string[] {
  const memory = nextMemory(limit);
  return [
    commandStep(
      `give the controller ${memory} of memory, requested and limited alike (the chart sets MEMORY_LIMIT from the limit, so Go's garbage collector keeps the heap under it)${versionNote(env)}`,
      helmUpgrade(env, [`controller.resources.requests.memory=${memory}`, `controller.resources.limits.memory=${memory}`]),
    ),
    commandStep(
      'or, for an install Helm does not manage (Helm resets this at its next upgrade)',
      `kubectl set resources deployment -n ${shellQuote(env.namespace)} ${shellQuote(env.deploymentName)} -c controller --requests=memory=${memory} --limits=memory=${memory}`,
    ),
  ];
}

/** Interface endpoints a Karpenter in a VPC without NAT needs (Karpenter's private-cluster docs). */
const PRIVATE_CLUSTER_ENDPOINTS = ['ec2', 'sts', 'ssm', 'sqs', 'ecr.api', 'ecr.dkr'] as const;

function endpointSteps(env: UnhealthyEnv, services: readonly AwsService[]): string[] {
  const region = env.region ? shellQuote(env.region) : '"$AWS_REGION"';
  const cluster = clusterArg(env);
  const describeCluster = (query: string) =>
    `aws eks describe-cluster --region ${region} --name ${cluster} --query ${query} --output text`;
  const steps = [
    commandStep(
      `the cluster's VPC, its subnets and its security group, where the endpoints go${clusterNote(env)}`,
      `vpc=$(${describeCluster('cluster.resourcesVpcConfig.vpcId')}); subnets=$(${describeCluster("'cluster.resourcesVpcConfig.subnetIds'")}); sg=$(${describeCluster('cluster.resourcesVpcConfig.clusterSecurityGroupId')})`,
    ),
    commandStep(
      'the endpoints the VPC has already',
      `aws ec2 describe-vpc-endpoints --region ${region} --filters Name=vpc-id,Values="$vpc" --query 'VpcEndpoints[].[ServiceName,State]' --output text`,
    ),
  ];
  const interfaces = services.flatMap((s): string[] =>
    s === 'pricing' || s === 'iam' ? [] : s === 'ecr' ? ['ecr.api', 'ecr.dkr'] : [s],
  );
  const rest = PRIVATE_CLUSTER_ENDPOINTS.filter((s) => !interfaces.includes(s));
  for (const service of interfaces) {
    steps.push(
      commandStep(
        `an interface endpoint for ${service}, which Karpenter could not reach (or a NAT gateway route for the controller's subnets)`,
        createEndpoint(region, service),
      ),
    );
  }
  steps.push(
    commandStep(
      `without NAT Karpenter also needs ${rest.map((s) => `com.amazonaws.REGION.${s}`).join(', ')} (and an S3 gateway endpoint for image layers); create those the list above lacks`,
      rest.map((s) => createEndpoint(region, s)).join('\n'),
    ),
  );
  if (services.includes('pricing')) {
    steps.push(
      commandStep(
        `the Pricing API has no endpoint in most regions: tell Karpenter it runs isolated, so it uses its built-in prices instead of timing out${versionNote(env)}`,
        helmUpgrade(env, ['settings.isolatedVPC=true']),
      ),
    );
  }
  if (services.includes('eks')) {
    steps.push(
      commandStep(
        `give Karpenter the cluster endpoint, so it need not call eks:DescribeCluster at start${versionNote(env)}`,
        env.clusterEndpoint
          ? helmUpgrade(env, [`settings.clusterEndpoint=${env.clusterEndpoint}`])
          : `${helmUpgrade(env, [])} --set settings.clusterEndpoint="$(${describeCluster('cluster.endpoint')})"`,
      ),
    );
  }
  if (services.includes('iam')) {
    steps.push(
      commandStep(
        'IAM has no endpoint in the VPC: give the EC2NodeClasses an existing instance profile (spec.instanceProfile) instead of a role Karpenter must turn into one',
        'kubectl get ec2nodeclasses.karpenter.k8s.aws -o custom-columns=NAME:.metadata.name,ROLE:.spec.role,PROFILE:.spec.instanceProfile',
      ),
    );
  }
  return steps;
}

function createEndpoint(region: string, service: string): string {
  return `aws ec2 create-vpc-endpoint --region ${region} --vpc-id "$vpc" --vpc-endpoint-type Interface --service-name com.amazonaws.${region}.${service} --subnet-ids $subnets --security-group-ids "$sg" --private-dns-enabled`;
}
