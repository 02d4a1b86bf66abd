import type { InstanceTypeInfo } from '../../domain/instance-types.ts';
import { parseQuantity, type ResourceAmounts } from '../scheduling/quantity.ts';

/**
 * What Karpenter believes a node of an instance type can hold before it launches one: the type's
 * capacity less kube-reserved, system-reserved and the eviction threshold, with memory first cut by
 * its VM overhead estimate (`VM_MEMORY_OVERHEAD_PERCENT`, 7.5% by default). A model of
 * karpenter-provider-aws `pkg/providers/instancetype/types.go` (computeCapacity, kubeReservedResources,
 * evictionThreshold, ENILimitedPods); docs/instance-types.md. Karpenter v1.1+ replaces the memory
 * estimate with the capacity a registered node of the same type and EC2NodeClass reported.
 */

/** The kubelet settings that change allocatable, from the EC2NodeClass (v1) or the NodePool (v1beta1). */
export interface KubeletSettings {
  maxPods?: number;
  podsPerCore?: number;
  kubeReserved?: Record<string, string>;
  systemReserved?: Record<string, string>;
  evictionHard?: Record<string, string>;
}

export interface CapacitySettings {
  /** A fraction: 0.075 is 7.5%. */
  vmMemoryOverheadPercent: number;
  kubelet?: KubeletSettings;
  /** Windows AMIs do not limit pods by ENI; everything else Karpenter ships does. */
  windows?: boolean;
}

export const DEFAULT_VM_MEMORY_OVERHEAD = 0.075;

const MI = 2 ** 20;

export interface Allocatable {
  /** Resources in the units `parseQuantity` gives: cpu in cores, memory in bytes. */
  amounts: ResourceAmounts;
  /** How memory was reduced, for the finding's words. */
  memory: {
    capacityBytes: number;
    vmOverheadBytes: number;
    kubeReservedBytes: number;
    systemReservedBytes: number;
    evictionBytes: number;
  };
}

function pods(info: InstanceTypeInfo, settings: CapacitySettings): number {
  const kubelet = settings.kubelet ?? {};
  let count =
    kubelet.maxPods ??
    (settings.windows ? 110 : Math.max(info.maxNetworkInterfaces, 0) * Math.max(info.ipv4PerInterface - 1, 0) + 2);
  if (kubelet.podsPerCore && kubelet.podsPerCore > 0) count = Math.min(count, kubelet.podsPerCore * info.vcpus);
  return count;
}

/** kube-reserved CPU: 6% of the first core, 1% of the second, 0.5% of the next two, 0.25% of the rest (in cores). */
function kubeReservedCpu(vcpus: number): number {
  const milli = vcpus * 1000;
  let reserved = 0;
  for (const [start, end, share] of [
    [0, 1000, 0.06],
    [1000, 2000, 0.01],
    [2000, 4000, 0.005],
    [4000, 2 ** 31, 0.0025],
  ] as const) {
    if (milli >= start) reserved += Math.trunc((Math.min(milli, end) - start) * share);
  }
  return reserved / 1000;
}

function quantity(map: Record<string, string> | undefined, key: string): number | undefined {
  const value = map?.[key];
  return value === undefined ? undefined : parseQuantity(value);
}

function evictionMemory(capacityBytes: number, evictionHard: Record<string, string> | undefined): number {
  const signal = evictionHard?.['memory.available'];
  if (signal === undefined) return 100 * MI;
  if (signal.endsWith('%')) {
    const percent = Number.parseFloat(signal);
    return Number.isFinite(percent) ? Math.ceil((capacityBytes / 100) * percent) : 100 * MI;
  }
  return parseQuantity(signal) ?? 100 * MI;
}

export function allocatable(info: InstanceTypeInfo, settings: CapacitySettings): Allocatable {
  // Gravitons keep 64 MiB of CMA memory nobody can use.
  const sizeMiB = info.memoryMiB - (info.architectures[0] === 'arm64' ? 64 : 0);
  const capacityBytes = sizeMiB * MI;
  const vmOverheadBytes = Math.ceil((capacityBytes * settings.vmMemoryOverheadPercent) / MI) * MI;
  const memoryCapacity = capacityBytes - vmOverheadBytes;
  const podCount = pods(info, settings);
  const kubelet = settings.kubelet ?? {};
  const kubeReservedBytes = quantity(kubelet.kubeReserved, 'memory') ?? (11 * podCount + 255) * MI;
  const systemReservedBytes = quantity(kubelet.systemReserved, 'memory') ?? 0;
  const evictionBytes = evictionMemory(memoryCapacity, kubelet.evictionHard);
  const cpu =
    info.vcpus -
    (quantity(kubelet.kubeReserved, 'cpu') ?? kubeReservedCpu(info.vcpus)) -
    (quantity(kubelet.systemReserved, 'cpu') ?? 0);
  const amounts: ResourceAmounts = {
    cpu,
    memory: memoryCapacity - kubeReservedBytes - systemReservedBytes - evictionBytes,
    pods: podCount,
  };
  const gpu = info.gpu;
  if (gpu?.manufacturer === 'NVIDIA') amounts['nvidia.com/gpu'] = gpu.count;
  if (gpu?.manufacturer === 'AMD') amounts['amd.com/gpu'] = gpu.count;
  if (info.neuron) {
    amounts['aws.amazon.com/neuron'] = info.neuron.count;
    amounts['aws.amazon.com/neuroncore'] = info.neuron.count * info.neuron.coresPerDevice;
  }
  return {
    amounts,
    memory: { capacityBytes, vmOverheadBytes, kubeReservedBytes, systemReservedBytes, evictionBytes },
  };
}

/** Resources the model knows for every type: a request for anything else is not judged here. */
const MODELLED_RESOURCES = new Set([
  'cpu',
  'memory',
  'pods',
  'nvidia.com/gpu',
  'amd.com/gpu',
  'aws.amazon.com/neuron',
  'aws.amazon.com/neuroncore',
]);

/** The requested resources (of those modelled) the allocatable does not cover. */
export function shortOf(requests: ResourceAmounts, amounts: ResourceAmounts): string[] {
  return Object.entries(requests)
    .filter(([k, v]) => MODELLED_RESOURCES.has(k) && v > 0 && v > (amounts[k] ?? 0))
    .map(([k]) => k);
}
