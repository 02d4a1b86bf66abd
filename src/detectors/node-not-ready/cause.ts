/**
 * Why one initialised node is NotReady, from the Node's own conditions (docs/findings.md#node_not_ready),
 * the first that applies:
 * - KUBELET_UNRESPONSIVE: `Ready=Unknown`. Only the node lifecycle controller writes Unknown, when
 *   the kubelet stops renewing its status and lease: `NodeStatusUnknown`, "Kubelet stopped posting
 *   node status." (it sets the pressure conditions Unknown with it, so they say nothing then);
 * - RESOURCE_PRESSURE: the kubelet reports `MemoryPressure`, `DiskPressure` or `PIDPressure` True;
 * - NETWORK_NOT_READY: `NetworkUnavailable=True`, the EKS node monitoring agent's
 *   `NetworkingReady=False`, or Ready's message is the kubelet's `container runtime network not
 *   ready: NetworkReady=false reason:NetworkPluginNotReady …` (older kubelets: `runtime network not ready`);
 * - UNKNOWN: anything else, its Ready reason and message quoted, with the node monitoring agent's
 *   `ContainerRuntimeReady`/`KernelReady`/`StorageReady`/`AcceleratedHardwareReady` when False.
 * The kubelet's node events (`SystemOOM` "System OOM encountered, victim process: …",
 * `EvictionThresholdMet`, `NodeHasInsufficientMemory`, …) are kept as signs: they tell a starved
 * kubelet from a dead instance.
 */
import type { CauseCodeOf } from '../../domain/codes.ts';
import type { Condition, KubeEvent, Node } from '../../domain/kube.ts';
import { conditionOf, newestFirst } from '../../domain/kube-helpers.ts';
import type { DetectContext } from '../detector.ts';
import { describeCondition } from '../karpenter/readiness.ts';

export type Cause = CauseCodeOf<'NODE_NOT_READY'>;

export interface Diagnosis {
  cause: Cause;
  /** The conditions that decided it, as `Type=Status (Reason: message)`. */
  conditions: string[];
  /** The kubelet's resource events on the node, newest first. */
  signs: KubeEvent[];
  /** Which pressure conditions are True (RESOURCE_PRESSURE). */
  pressure: string[];
  /** The EKS node monitoring agent's conditions that are False, by type (UNKNOWN). */
  monitoring: string[];
}

const PRESSURE = ['MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

/**
 * The EKS node monitoring agent's conditions besides NetworkingReady (NETWORK_NOT_READY): each is a
 * repair condition of Karpenter's AWS provider when False (docs/findings.md#node_not_ready).
 */
const MONITORING_AGENT = ['ContainerRuntimeReady', 'KernelReady', 'StorageReady', 'AcceleratedHardwareReady'] as const;

/** The kubelet's events about memory, disk and PIDs running out (pkg/kubelet: recordNodeStatusEvent, eviction manager, oom watcher). */
const RESOURCE_EVENT_REASONS: readonly string[] = [
  'SystemOOM',
  'EvictionThresholdMet',
  'NodeHasInsufficientMemory',
  'NodeHasDiskPressure',
  'NodeHasInsufficientPID',
  'FreeDiskSpaceFailed',
  'ImageGCFailed',
];

/** The kubelet's network-readiness error (pkg/kubelet: `container runtime network not ready: %v`) and its CRI reason. */
const NETWORK_MESSAGE = /runtime network not ready|NetworkReady=false|NetworkPluginNotReady|cni plugin not initiali[sz]ed/i;

export function diagnose(ctx: DetectContext, node: Node, ready: Condition): Diagnosis {
  const signs = newestFirst(
    ctx.index.eventsFor('Node', undefined, node.metadata?.name).filter((e) => RESOURCE_EVENT_REASONS.includes(e.reason ?? '')),
  );
  const base = { signs, pressure: [] as string[], monitoring: [] as string[] };
  if (ready.status === 'Unknown') return { ...base, cause: 'KUBELET_UNRESPONSIVE', conditions: [describeCondition(ready)] };
  const pressure = PRESSURE.map((t) => conditionOf(node, t)).filter((c): c is Condition => c?.status === 'True');
  if (pressure.length > 0)
    return {
      ...base,
      cause: 'RESOURCE_PRESSURE',
      conditions: [describeCondition(ready), ...pressure.map(describeCondition)],
      pressure: pressure.map((c) => c.type),
    };
  const network = [conditionOf(node, 'NetworkUnavailable'), conditionOf(node, 'NetworkingReady')].filter(
    (c): c is Condition =>
      (c?.type === 'NetworkUnavailable' && c.status === 'True') || (c?.type === 'NetworkingReady' && c.status === 'False'),
  );
  if (network.length > 0 || NETWORK_MESSAGE.test(ready.message ?? ''))
    return { ...base, cause: 'NETWORK_NOT_READY', conditions: [describeCondition(ready), ...network.map(describeCondition)] };
  const agent = MONITORING_AGENT.map((t) => conditionOf(node, t)).filter((c): c is Condition => c?.status === 'False');
  return {
    ...base,
    cause: 'UNKNOWN',
    conditions: [describeCondition(ready), ...agent.map(describeCondition)],
    monitoring: agent.map((c) => c.type),
  };
}
