/**
 * EC2 instance types, as much of `DescribeInstanceTypes` as Karpenter's instance-type labels and its
 * capacity estimate use (docs/instance-types.md). One shape for the three sources a scan may have:
 * the live API, a captured `aws ec2 describe-instance-types`, and the bundled table.
 */

interface InstanceTypeGpu {
  /** `A10G`, `T4`, `Radeon Pro V520`, as EC2 names it. */
  name: string;
  /** `NVIDIA`, `AMD`, `Habana`. */
  manufacturer: string;
  count: number;
  memoryMiB: number;
}

interface InstanceTypeNeuron {
  /** `Inferentia2`, `Trainium`. */
  name: string;
  count: number;
  /** Neuron cores per device. */
  coresPerDevice: number;
}

export interface InstanceTypeInfo {
  /** `m6a.2xlarge`. */
  name: string;
  vcpus: number;
  memoryMiB: number;
  /** As EC2 says: `x86_64`, `arm64`, `i386`, `x86_64_mac`. */
  architectures: string[];
  /** `on-demand`, `spot` (EC2's SupportedUsageClasses; `capacity-block` kept as given). */
  usageClasses: string[];
  /** `nitro`, `xen`, or empty (bare metal). */
  hypervisor: string;
  /** `Intel`, `AMD`, `AWS`, as EC2 names it. */
  cpuManufacturer?: string;
  gpu?: InstanceTypeGpu;
  neuron?: InstanceTypeNeuron;
  /** Instance-store NVMe, total GB, when the type has it. */
  localNvmeGB?: number;
  /** Network interfaces of the default network card and IPv4 addresses per interface: Karpenter's ENI-limited pods. */
  maxNetworkInterfaces: number;
  ipv4PerInterface: number;
  bareMetal: boolean;
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}
function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

const NAME = /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/;

/**
 * One `InstanceTypes[]` item of `DescribeInstanceTypes` (the CLI's JSON and the SDK's output have the
 * same PascalCase shape); undefined when it lacks what a capacity estimate needs.
 */
export function instanceTypeFromApi(raw: unknown): InstanceTypeInfo | undefined {
  const item = obj(raw);
  const name = str(item?.InstanceType);
  const vcpus = num(obj(item?.VCpuInfo)?.DefaultVCpus);
  const memoryMiB = num(obj(item?.MemoryInfo)?.SizeInMiB);
  if (!item || !name || !NAME.test(name) || name.length > 64 || vcpus === undefined || memoryMiB === undefined) return undefined;
  const processor = obj(item.ProcessorInfo);
  const network = obj(item.NetworkInfo);
  const cards = Array.isArray(network?.NetworkCards) ? network.NetworkCards : [];
  const defaultCard = obj(cards[num(network?.DefaultNetworkCardIndex) ?? 0]);
  const gpus = Array.isArray(obj(item.GpuInfo)?.Gpus) ? (obj(item.GpuInfo)?.Gpus as unknown[]) : [];
  const neuronDevices = Array.isArray(obj(item.NeuronInfo)?.NeuronDevices)
    ? (obj(item.NeuronInfo)?.NeuronDevices as unknown[])
    : [];
  const storage = obj(item.InstanceStorageInfo);
  const info: InstanceTypeInfo = {
    name,
    vcpus,
    memoryMiB,
    architectures: strings(processor?.SupportedArchitectures),
    usageClasses: strings(item.SupportedUsageClasses),
    hypervisor: str(item.Hypervisor) ?? '',
    maxNetworkInterfaces: num(defaultCard?.MaximumNetworkInterfaces) ?? num(network?.MaximumNetworkInterfaces) ?? 0,
    ipv4PerInterface: num(network?.Ipv4AddressesPerInterface) ?? 0,
    bareMetal: item.BareMetal === true,
  };
  const manufacturer = str(processor?.Manufacturer);
  if (manufacturer) info.cpuManufacturer = manufacturer;
  // Karpenter labels GPUs only when the type has one kind of GPU (types.go computeRequirements).
  const gpu = gpus.length === 1 ? obj(gpus[0]) : undefined;
  if (gpu)
    info.gpu = {
      name: str(gpu.Name) ?? '',
      manufacturer: str(gpu.Manufacturer) ?? '',
      count: num(gpu.Count) ?? 0,
      memoryMiB: num(obj(gpu.MemoryInfo)?.SizeInMiB) ?? 0,
    };
  const neuron = neuronDevices.length === 1 ? obj(neuronDevices[0]) : undefined;
  if (neuron)
    info.neuron = {
      name: str(neuron.Name) ?? '',
      count: num(neuron.Count) ?? 0,
      coresPerDevice: num(obj(neuron.CoreInfo)?.Count) ?? 0,
    };
  const nvmeGB = num(storage?.TotalSizeInGB);
  if (storage && storage.NvmeSupport !== 'unsupported' && nvmeGB !== undefined) info.localNvmeGB = nvmeGB;
  return info;
}
