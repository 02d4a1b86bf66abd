import type { LogLine } from '../../domain/aws.ts';
import { regionOfClusterArn } from '../../domain/aws.ts';
import { newFinding, type Finding } from '../../domain/finding.ts';
import type { Container } from '../../domain/kube.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { knownClusterName } from '../../domain/snapshot.ts';
import { deniedCall, isDeniedLogLine, isLaunchLogLine, logHeadText, trimError } from '../cloud-errors/cloud-errors.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { controllerIdentity } from '../aws-iam/controller-iam.ts';
import { controllerVersion, deploymentNameFromPod, pickControllerContainer } from '../karpenter/controller-deployment.ts';
import { controllerCannotReachAws } from './log-only.ts';
import { listCapped, podRef } from '../scheduling/pending.ts';
import { awsUnreachable, lastErrorLine, leaderElectionLost, type AwsUnreachable } from './crash-logs.ts';
import { diagnoseNetwork, type NetworkDiagnosis } from './network-diagnosis.ts';
import { earliestTermination, failureText, podFailure, type PodFailure } from './restarts.ts';
import { clusterNameMissing, crdMissing } from './start-config.ts';
import { unhealthyRemediation, type UnhealthyEnv, type UnhealthyStepCause } from './unhealthy-steps.ts';
import { karpenterRelease } from '../karpenter/helm.ts';
import { QUEUE_NOT_FOUND } from '../karpenter/queue-not-found.ts';

/**
 * KARPENTER_CONTROLLER_UNHEALTHY: a controller pod that was scheduled but keeps dying
 * (CrashLoopBackOff, OOMKilled, restarting; the rule is in restarts.ts). One finding per controller
 * Deployment; critical when no replica is Ready. Pending pods are KARPENTER_CONTROLLER_PENDING's.
 */
export const controllerUnhealthy: Detector<'KARPENTER_CONTROLLER_UNHEALTHY'> = {
  code: 'KARPENTER_CONTROLLER_UNHEALTHY',
  requires: ['pods'],
  refinedBy: ['deployments', 'logs', 'cluster'],
  // A log-only capture whose calls to AWS keep timing out is evidence enough (log-only.ts).
  evidenceIn: (snapshot) => controllerCannotReachAws(snapshot.logs) !== undefined,
  detect(ctx) {
    if (!ctx.snapshot.captured.has('pods')) {
      const finding = logOnlyFinding(ctx);
      return finding ? [finding] : [];
    }
    return ctx.index.controllers.flatMap((info) => {
      const finding = unhealthyFinding(ctx, info);
      return finding ? [finding] : [];
    });
  },
};

interface Diagnosis {
  cause: UnhealthyStepCause;
  detail: string;
  evidence: string[];
}

function unhealthyFinding(ctx: DetectContext, info: ControllerInfo): Finding<'KARPENTER_CONTROLLER_UNHEALTHY'> | undefined {
  // The latest failure first (then by name): the same order however the pods were listed.
  const failures = info.pods.flatMap((p) => podFailure(p, ctx.now) ?? []).sort(latestFirst);
  const first = failures[0];
  if (!first) return undefined;
  const deploymentName = info.deploymentName ?? deploymentNameFromPod(first.pod);
  // The pod to explain: an OOM-killed one first (that cause comes first), else the first failing.
  const chosen = failures.find((f) => f.oomKilled || f.termination?.reason === 'OOMKilled') ?? first;
  const diagnosis = diagnose(ctx, info, chosen);
  const total = info.deployment?.spec?.replicas ?? info.pods.length;
  const kinds = [
    ...new Set(failures.map((f) => (f.crashLooping ? 'CrashLoopBackOff' : f.oomKilled ? 'OOMKilled' : 'restarting'))),
  ];
  const release = karpenterRelease(info);
  const env: UnhealthyEnv = {
    namespace: info.namespace,
    deploymentName,
    clusterName: knownClusterName(ctx.snapshot),
    release: release.release,
    chartVersion: release.chartVersion,
    controllerVersion: versionOf(info, chosen),
    region: regionOf(ctx, diagnosis),
    clusterEndpoint: ctx.snapshot.cluster?.endpoint,
    failure: chosen,
    container: (chosen.pod.spec?.containers?.length ?? 0) > 1 ? chosen.container : undefined,
  };
  return newFinding({
    code: 'KARPENTER_CONTROLLER_UNHEALTHY',
    severity: info.readyPods === 0 ? 'critical' : 'warning',
    title: `Karpenter controller ${info.namespace}/${deploymentName}: ${failures.length} pod(s) failing (${kinds.join(', ')}), ${info.readyPods} of ${total} ready`,
    resource: { kind: 'Deployment', namespace: info.namespace, name: deploymentName },
    since: earliestTermination(failures),
    cause: { code: diagnosis.cause.cause, detail: diagnosis.detail },
    evidence: [
      ...failures.slice(0, 5).map((f) => `${podRef(f.pod)}: ${failureText(f)}`),
      ...(failures.length > 5
        ? [`and ${failures.length - 5} more failing: ${listCapped(failures.slice(5).map((f) => podRef(f.pod)))}`]
        : []),
      `${info.readyPods} of ${total} replica(s) Ready`,
      ...diagnosis.evidence,
    ],
    remediation: unhealthyRemediation(diagnosis.cause, env),
    counts: { objects: failures.length },
  });
}

/** The controller's log says its calls to AWS time out, and its pods were not captured. */
function logOnlyFinding(ctx: DetectContext): Finding<'KARPENTER_CONTROLLER_UNHEALTHY'> | undefined {
  const blocked = controllerCannotReachAws(ctx.snapshot.logs);
  if (!blocked) return undefined;
  const id = controllerIdentity(ctx);
  const name = id.resource.name ?? 'karpenter';
  const diagnosis = networkDiagnosis(blocked.aws, diagnoseNetwork(blocked.aws, undefined, [], ctx.snapshot));
  const env: UnhealthyEnv = {
    namespace: id.namespace,
    deploymentName: name,
    clusterName: knownClusterName(ctx.snapshot),
    release: 'karpenter',
    chartVersion: undefined,
    controllerVersion: undefined,
    region: blocked.aws.region ?? regionOfClusterArn(ctx.snapshot.cluster?.arn),
    clusterEndpoint: ctx.snapshot.cluster?.endpoint,
    failure: undefined,
    container: undefined,
  };
  return newFinding({
    code: 'KARPENTER_CONTROLLER_UNHEALTHY',
    severity: blocked.stopped ? 'critical' : 'warning',
    title: `Karpenter controller ${id.namespace}/${name}: its calls to AWS time out (its pods were not captured)`,
    resource: id.resource,
    since: blocked.since,
    cause: { code: diagnosis.cause.cause, detail: diagnosis.detail },
    evidence: [
      blocked.aws.services.includes('sts')
        ? 'no credentials: every AWS call the controller makes needs them, so it cannot launch or remove nodes'
        : `the controller cannot reach ${blocked.aws.services.join(', ')}`,
      ...diagnosis.evidence,
    ],
    remediation: unhealthyRemediation(diagnosis.cause, env),
  });
}

function latestFirst(a: PodFailure, b: PodFailure): number {
  const time = (f: PodFailure) => Date.parse(f.termination?.finishedAt ?? '') || 0;
  return time(b) - time(a) || podRef(a.pod).localeCompare(podRef(b.pod));
}

/** The first cause that applies, in the order of the table in docs/findings.md#karpenter_controller_unhealthy. */
function diagnose(ctx: DetectContext, info: ControllerInfo, f: PodFailure): Diagnosis {
  const logs = ctx.snapshot.logs;
  const pod = podRef(f.pod);
  const exit = f.termination?.exitCode !== undefined ? ` (exit code ${f.termination.exitCode})` : '';
  if (f.termination?.reason === 'OOMKilled') {
    const { limit, request, memoryLimitEnv } = memoryOf(f, info);
    const set = limit
      ? `its memory limit is ${limit}${request ? ` (request ${request})` : ''}: the controller needs more`
      : "no memory limit is set (the Helm chart's default is `controller.resources: {}`): the kernel killed it when its node ran short of memory, and nothing reserves memory for it";
    const env = memoryLimitEnv ? `; MEMORY_LIMIT=${memoryLimitEnv}` : '';
    return {
      cause: { cause: 'OOM_KILLED', memoryLimit: limit },
      detail: `${pod} was OOMKilled${exit} after ${f.restarts} restart(s); ${set}${env}`,
      evidence: [
        `memory limit: ${limit ?? 'none'}, request: ${request ?? 'none'}${memoryLimitEnv ? `, MEMORY_LIMIT=${memoryLimitEnv}` : ''}`,
      ],
    };
  }
  const leader = leaderElectionLost(logs);
  if (leader) {
    return {
      cause: { cause: 'LEADER_ELECTION_LOST' },
      detail: `the controller lost its leader-election lease and exited ("${quoted(leader.line)}"): the API server answered too slowly or not at all, or throttled Karpenter's requests`,
      evidence: [logEvidence(leader.line)],
    };
  }
  const aws = awsUnreachable(logs);
  if (aws) {
    const spec = f.pod.spec ?? info.deployment?.spec?.template?.spec;
    const podIps = info.pods.flatMap((p) => (p.status?.podIP ? [p.status.podIP] : []));
    return networkDiagnosis(aws, diagnoseNetwork(aws, spec, podIps, ctx.snapshot));
  }
  const error = lastErrorLine(logs);
  const message = f.termination?.message?.trim();
  const startConfig = startConfigDiagnosis(ctx, info, f, error);
  if (startConfig) return startConfig;
  if (error && isDeniedLogLine(error) && !isLaunchLogLine(error)) {
    // The same line is a KARPENTER_IAM_DENIED finding, whose steps tell a missing grant from a deny.
    const action = deniedCall(error).action;
    const what = action ?? 'a call';
    return {
      cause: { cause: 'CRASH_LOOP', deniedAction: what },
      detail: `the controller keeps exiting${exit} because AWS denied ${what} to its role: the last error ${error.previous ? 'before the restart' : 'in its log'} is "${quoted(error)}"; the KARPENTER_IAM_DENIED finding for ${what} gives the checks and the fix`,
      evidence: [logEvidence(error)],
    };
  }
  if (error || message) {
    const which = error?.previous ? 'the last error before the restart' : 'the last error in its log';
    return {
      cause: { cause: 'CRASH_LOOP' },
      detail: error
        ? `the controller keeps exiting${exit}; ${which}: "${quoted(error)}"${queueNote(error)}`
        : `the controller keeps exiting${exit} with the termination message "${trimError(message ?? '')}"`,
      evidence: error ? [logEvidence(error)] : [`termination message: ${trimError(message ?? '')}`],
    };
  }
  const captured = ctx.snapshot.captured.has('logs');
  const why = f.termination?.reason ? `, the last time ${f.termination.reason}${exit}` : '';
  return {
    cause: { cause: 'UNKNOWN', logsCaptured: captured },
    detail: captured
      ? `the controller restarted ${f.restarts} time(s)${why}, and its captured log holds no error that explains it`
      : `the controller restarted ${f.restarts} time(s)${why}; no controller log was captured to say why (kubectl logs --previous)`,
    evidence: [captured ? 'no error in the captured controller log' : 'no controller log was captured'],
  };
}

/**
 * A start-up error the capture explains (start-config.ts): the cluster name the env leaves unset,
 * a group/version none of the captured CRDs serves.
 */
function startConfigDiagnosis(
  ctx: DetectContext,
  info: ControllerInfo,
  f: PodFailure,
  error: LogLine | undefined,
): Diagnosis | undefined {
  const container = controllerContainer(f, info);
  const exit = f.termination?.exitCode !== undefined ? ` (exit code ${f.termination.exitCode})` : '';
  const unset = clusterNameMissing(error, container);
  if (error && unset) {
    const how = unset.clusterName === '' ? 'set to ""' : 'not set';
    const endpoint = unset.endpointEmpty ? ' (CLUSTER_ENDPOINT is empty too)' : '';
    return {
      cause: { cause: 'CLUSTER_NAME_MISSING', ...unset },
      detail: `the controller refuses to start${exit} without a cluster name: CLUSTER_NAME is ${how} in its container${endpoint}, and its log says "${quoted(error)}"; the Helm values that set it are missing or under a key the chart does not read`,
      evidence: [logEvidence(error), `${podRef(f.pod)} container ${container?.name ?? 'controller'}: ${envText(container)}`],
    };
  }
  const crds = ctx.snapshot.captured.has('crds') ? ctx.snapshot.crds : undefined;
  const version = versionOf(info, f);
  const missing = crdMissing(error, crds, version);
  if (error && missing) {
    const needs = version ? `, which Karpenter ${version} needs,` : '';
    const what =
      missing.crds.length > 0
        ? `${missing.crds.join(', ')} (${missing.groupVersion})${needs} ${missing.crds.length > 1 ? 'are' : 'is'} not among the captured CRDs`
        : `no captured CRD serves ${missing.groupVersion}`;
    return {
      cause: { cause: 'CRD_MISSING', ...missing },
      detail: `the controller cannot start${exit}: ${what}, and its log says "${quoted(error)}"`,
      evidence: [
        logEvidence(error),
        `captured CRDs: ${listCapped(ctx.snapshot.crds.map((c) => c.metadata?.name ?? '?').sort())}; none serves ${missing.groupVersion}`,
        ...(version ? [`controller version: ${version}`] : []),
      ],
    };
  }
  return undefined;
}

/** `CLUSTER_NAME="", CLUSTER_ENDPOINT=""`: the two settings as the container has them. */
function envText(container: Container | undefined): string {
  return ['CLUSTER_NAME', 'CLUSTER_ENDPOINT']
    .map((name) => {
      const e = container?.env?.find((v) => v.name === name);
      return e ? `${name}=${JSON.stringify(e.value ?? '')}` : `${name} not set`;
    })
    .join(', ');
}

function networkDiagnosis(aws: AwsUnreachable, network: NetworkDiagnosis): Diagnosis {
  return {
    cause: network.cause,
    detail: `Karpenter cannot reach the AWS API of ${aws.services.join(', ')} ("${quoted(aws.line)}"): ${network.why}`,
    evidence: [logEvidence(aws.line), ...network.evidence],
  };
}

/**
 * A log line for the detail and evidence. Go wraps errors outermost first (`ec2 api connectivity
 * check failed: … : Post "https://sts…": dial tcp …: i/o timeout`), so a long one keeps its start
 * and its end, where the root cause is.
 */
function quoted(line: LogLine): string {
  const text = trimError(logHeadText(line), Number.MAX_SAFE_INTEGER);
  if (text.length <= 300) return text;
  const head = text.slice(0, 90).replace(/\s+\S*$/, '');
  const tail = text.slice(-200).replace(/^\S*\s+/, '');
  return `${head} … ${tail}`;
}

/** `karpenter-previous.log:12: panic: …`: the line's origin first, as every detector quotes logs. */
function logEvidence(line: LogLine): string {
  return `${line.origin}: ${quoted(line)}`;
}

/** The failing container of the pod, else the Deployment's template container of that name. */
function controllerContainer(f: PodFailure, info: ControllerInfo): Container | undefined {
  return (
    pickControllerContainer(f.pod.spec?.containers, f.container) ??
    pickControllerContainer(info.deployment?.spec?.template?.spec?.containers, f.container)
  );
}

/** The controller's version: its chart label, else the failing container's image tag (`controller:v0.32.3@sha256:…`). */
function versionOf(info: ControllerInfo, f: PodFailure): string | undefined {
  return controllerVersion(info, controllerContainer(f, info));
}

function memoryOf(f: PodFailure, info: ControllerInfo) {
  const container = controllerContainer(f, info);
  const value = (q: string | number | undefined) => (q === undefined ? undefined : String(q));
  return {
    limit: value(container?.resources?.limits?.memory),
    request: value(container?.resources?.requests?.memory),
    memoryLimitEnv: container?.env?.find((e) => e.name === 'MEMORY_LIMIT')?.value,
  };
}

function regionOf(ctx: DetectContext, d: Diagnosis): string | undefined {
  const network = ['AWS_API_UNREACHABLE', 'DNS_RESOLUTION_FAILED', 'VPC_ENDPOINT_BLOCKED'].includes(d.cause.cause);
  const fromLogs = network ? awsUnreachable(ctx.snapshot.logs)?.region : undefined;
  return fromLogs ?? regionOfClusterArn(ctx.snapshot.cluster?.arn);
}

/** A crash on a missing interruption queue has its own finding, with the fix: say where to look. */
function queueNote(error: LogLine): string {
  return QUEUE_NOT_FOUND.test(logHeadText(error))
    ? '; the interruption queue it is set to does not exist: see INTERRUPTION_HANDLING_OFF'
    : '';
}
