/** Kubernetes events and Karpenter controller log lines. */
import type { LogLine } from '../../src/domain/aws.ts';
import type { KubeEvent, Pod } from '../../src/domain/kube.ts';
import { iso, type Generation } from './context.ts';
import type { Fleet } from './fleet.ts';
import type { PendingPod, Workloads } from './workloads.ts';

const DAEMONSET_OVERHEAD = '{"cpu":"175m","memory":"256Mi","pods":"3"}';

/**
 * `planted` first (the second wave's, see after-provisioning.ts), then scheduling failures of the
 * pending pods (two per pod while the budget lasts), then routine events.
 */
export function buildEvents(
  gen: Generation,
  fleet: Fleet,
  workloads: Workloads,
  planted: readonly KubeEvent[] = [],
): KubeEvent[] {
  const budget = gen.options.events;
  const events: KubeEvent[] = planted.slice(0, budget);
  let modernWording = gen.options.noInstanceTypeMetPods;
  for (const pending of workloads.pending) {
    if (events.length >= budget) break;
    events.push(schedulerEvent(gen, pending.pod));
    const modern = pending.cause === 'oversized-requests' && modernWording > 0;
    if (modern) modernWording -= 1;
    const karpenter = modern ? noInstanceTypeMet(fleet, pending) : karpenterMessage(pending);
    if (karpenter && events.length < budget) {
      events.push(
        podEvent(gen, pending.pod, { reason: 'FailedScheduling', type: 'Warning', source: 'karpenter', message: karpenter }),
      );
    }
  }
  for (let i = 0; events.length < budget; i += 1) events.push(routineEvent(gen, fleet, workloads, i));
  return events;
}

function schedulerEvent(gen: Generation, pod: Pod): KubeEvent {
  const message = pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? '';
  return podEvent(gen, pod, { reason: 'FailedScheduling', type: 'Warning', source: 'default-scheduler', message });
}

function karpenterMessage(pending: PendingPod): string | undefined {
  switch (pending.cause) {
    case 'nodepool-limit':
      return `Failed to schedule pod, all available instance types exceed limits for nodepool: "${pending.nodePool}"`;
    case 'nodeclass-not-ready':
      return `Failed to schedule pod, incompatible with nodepool "default", daemonset overhead=${DAEMONSET_OVERHEAD}, incompatible requirements, key karpenter.sh/nodepool, karpenter.sh/nodepool In [${pending.nodePool}] not in karpenter.sh/nodepool In [default]`;
    case 'no-nodepool-match':
      return `Failed to schedule pod, incompatible with nodepool "default", daemonset overhead=${DAEMONSET_OVERHEAD}, incompatible requirements, label "workload-class" does not have known values`;
    case 'oversized-requests':
      return `Failed to schedule pod, incompatible with nodepool "default", daemonset overhead=${DAEMONSET_OVERHEAD}, no instance type satisfied resources {"cpu":"48175m","memory":"${pending.pod.spec?.containers?.[0]?.resources?.requests?.memory ?? '1Gi'}","pods":"4"}`;
    case 'recent':
      return undefined;
  }
}

/** Karpenter v1.3+: the requirements and resources it could not meet, no NodePool named. */
function noInstanceTypeMet(fleet: Fleet, pending: PendingPod): string {
  const pool = fleet.pools[0];
  const types = (pool?.types ?? []).map((t) => t.name).join(' ');
  const memory = pending.pod.spec?.containers?.[0]?.resources?.requests?.memory ?? '1Gi';
  return `Failed to schedule pod, no instance type met the scheduling requirements or had enough resources, requirements=karpenter.sh/capacity-type In [${pool?.capacityType ?? 'on-demand'}], karpenter.sh/nodepool In [${pool?.name ?? 'default'}], node.kubernetes.io/instance-type In [${types}], resources={"cpu":"48175m","memory":"${memory}","pods":"4"}`;
}

function podEvent(gen: Generation, pod: Pod, what: { reason: string; type: string; source: string; message: string }): KubeEvent {
  const createdMs = Date.parse(pod.metadata?.creationTimestamp ?? '') || gen.nowMs;
  return {
    regarding: { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid },
    namespace: pod.metadata?.namespace,
    ...what,
    firstTime: iso(createdMs + 1_000),
    lastTime: iso(Math.max(createdMs + 1_000, gen.nowMs - gen.rng.int(0, 60_000))),
    count: gen.rng.int(1, 40),
  };
}

function routineEvent(gen: Generation, fleet: Fleet, workloads: Workloads, i: number): KubeEvent {
  const { rng } = gen;
  const at = iso(gen.nowMs - rng.int(60_000, 3_600_000));
  const claim = fleet.nodeClaims[i % Math.max(fleet.nodeClaims.length, 1)];
  const nodeName = claim?.status?.nodeName;
  const pod = workloads.running[i % Math.max(workloads.running.length, 1)];
  const kind = i % 4;
  if (kind === 0 && pod) {
    const image = pod.spec?.containers?.[0]?.image ?? '';
    return {
      regarding: { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid },
      namespace: pod.metadata?.namespace,
      reason: 'Pulled',
      message: `Successfully pulled image "${image}" in 1.${rng.int(100, 999)}s (1.${rng.int(100, 999)}s including waiting). Image size: ${rng.int(20, 400)}123456 bytes.`,
      type: 'Normal',
      source: 'kubelet',
      firstTime: at,
      lastTime: at,
      count: 1,
    };
  }
  if (kind === 1 && nodeName) {
    return clusterScopedEvent(
      'Node',
      nodeName,
      'RegisteredNode',
      `Node ${nodeName} event: Registered Node ${nodeName} in Controller`,
      'node-controller',
      at,
    );
  }
  if (kind === 2 && claim) {
    return clusterScopedEvent(
      'NodeClaim',
      claim.metadata?.name ?? '',
      'DisruptionBlocked',
      'Node is nominated for a pending pod',
      'karpenter',
      at,
    );
  }
  const name = nodeName ?? fleet.systemNodes[0] ?? 'node';
  return clusterScopedEvent(
    'Node',
    name,
    'Unconsolidatable',
    "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    'karpenter',
    at,
  );
}

function clusterScopedEvent(kind: string, name: string, reason: string, message: string, source: string, at: string): KubeEvent {
  return {
    regarding: { kind, name },
    namespace: 'default',
    reason,
    message,
    type: 'Normal',
    source,
    firstTime: at,
    lastTime: at,
    count: 1,
  };
}

const COMMIT = '1ad0d78';

/** Routine provisioning / disruption lines with `accessDeniedLogLines` AccessDenied errors spread evenly. */
export function buildLogs(gen: Generation, fleet: Fleet): LogLine[] {
  const { rng, options } = gen;
  const total = options.logLines;
  const denied = new Set<number>();
  for (let j = 0; j < options.accessDeniedLogLines; j += 1)
    denied.add(Math.floor(((j + 0.5) * total) / options.accessDeniedLogLines));
  const lines: LogLine[] = [];
  for (let i = 0; i < total; i += 1) {
    const time = new Date(gen.nowMs - (total - i) * 3_000 + rng.int(0, 999)).toISOString();
    const fields = denied.has(i) ? accessDeniedFields(gen, time) : routineFields(gen, fleet, i, time);
    lines.push({
      time,
      level: String(fields.level),
      message: String(fields.message),
      ...(typeof fields.error === 'string' ? { error: fields.error } : {}),
      fields,
      origin: `karpenter.log:${i + 1}`,
    });
  }
  return lines;
}

function accessDeniedFields(gen: Generation, time: string): Record<string, unknown> {
  const { accountId, clusterName } = gen.options;
  return {
    level: 'ERROR',
    time,
    logger: 'controller',
    message: 'Reconciler error',
    commit: COMMIT,
    controller: 'instanceprofile.garbagecollection',
    reconcileID: gen.rng.uuid(),
    'aws-error-code': 'AccessDenied',
    error:
      `listing instance profiles, operation error IAM: ListInstanceProfiles, https response error StatusCode: 403, RequestID: ${gen.rng.uuid()}, ` +
      `api error AccessDenied: User: arn:aws:sts::${accountId}:assumed-role/KarpenterController-${clusterName}/${gen.rng.int(1_000_000_000, 9_999_999_999)} ` +
      `is not authorized to perform: iam:ListInstanceProfiles on resource: arn:aws:iam::${accountId}:instance-profile/ because no identity-based policy allows the iam:ListInstanceProfiles action`,
  };
}

function routineFields(gen: Generation, fleet: Fleet, i: number, time: string): Record<string, unknown> {
  const { rng } = gen;
  const claim = fleet.nodeClaims[rng.int(0, Math.max(fleet.nodeClaims.length - 1, 0))];
  const claimName = claim?.metadata?.name ?? '';
  const pool = claim?.metadata?.labels?.['karpenter.sh/nodepool'] ?? 'default';
  const base = { level: 'INFO', time, logger: 'controller', commit: COMMIT, reconcileID: rng.uuid() };
  const lifecycle = {
    controller: 'nodeclaim.lifecycle',
    controllerGroup: 'karpenter.sh',
    controllerKind: 'NodeClaim',
    NodeClaim: { name: claimName },
    namespace: '',
    name: claimName,
  };
  switch (i % 7) {
    case 0:
      return {
        ...base,
        message: 'found provisionable pod(s)',
        controller: 'provisioner',
        namespace: '',
        name: '',
        Pods: `default/pending-${rng.hex(5)}`,
        duration: `${rng.int(20, 300)}.${rng.int(0, 9)}ms`,
      };
    case 1:
      return {
        ...base,
        message: 'computed new nodeclaim(s) to fit pod(s)',
        controller: 'provisioner',
        namespace: '',
        name: '',
        nodeclaims: 1,
        pods: rng.int(1, 12),
      };
    case 2:
      return {
        ...base,
        message: 'created nodeclaim',
        controller: 'provisioner',
        namespace: '',
        name: '',
        NodePool: { name: pool },
        NodeClaim: { name: claimName },
      };
    case 3:
      return {
        ...base,
        ...lifecycle,
        message: 'launched nodeclaim',
        'provider-id': claim?.status?.providerID ?? '',
        'instance-type': claim?.metadata?.labels?.['node.kubernetes.io/instance-type'] ?? '',
        zone: claim?.metadata?.labels?.['topology.kubernetes.io/zone'] ?? '',
        'capacity-type': claim?.metadata?.labels?.['karpenter.sh/capacity-type'] ?? '',
        allocatable: claim?.status?.allocatable ?? {},
      };
    case 4:
      return {
        ...base,
        ...lifecycle,
        message: 'registered nodeclaim',
        'provider-id': claim?.status?.providerID ?? '',
        Node: { name: claim?.status?.nodeName ?? '' },
      };
    case 5:
      return {
        ...base,
        ...lifecycle,
        message: 'initialized nodeclaim',
        'provider-id': claim?.status?.providerID ?? '',
        Node: { name: claim?.status?.nodeName ?? '' },
      };
    default:
      return {
        ...base,
        message: 'disrupting node(s)',
        controller: 'disruption',
        namespace: '',
        name: '',
        command: `Underutilized/Delete, terminating 1 nodes (${rng.int(0, 9)} pods) ${claim?.status?.nodeName ?? ''}/${claim?.metadata?.labels?.['node.kubernetes.io/instance-type'] ?? ''}/${claim?.metadata?.labels?.['karpenter.sh/capacity-type'] ?? ''}`,
        decision: 'delete',
        'disrupted-node-count': 1,
        'replacement-node-count': 0,
        'pod-count': rng.int(0, 9),
      };
  }
}
