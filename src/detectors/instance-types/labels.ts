import type { InstanceTypeInfo } from '../../domain/instance-types.ts';

/**
 * The labels Karpenter gives an instance type, as far as our copy of `DescribeInstanceTypes` holds
 * them (karpenter-provider-aws `computeRequirements`). A key in MODELLED_LABELS with no value here is
 * one Karpenter leaves undefined for the type (DoesNotExist); a key outside it (zones, bandwidths,
 * custom labels) is not judged, so a requirement on it never excludes a type in our evaluation.
 */

export const MODELLED_LABELS = new Set([
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/instance-type',
  'kubernetes.io/arch',
  'beta.kubernetes.io/arch',
  'kubernetes.io/os',
  'karpenter.sh/capacity-type',
  'karpenter.k8s.aws/instance-category',
  'karpenter.k8s.aws/instance-family',
  'karpenter.k8s.aws/instance-generation',
  'karpenter.k8s.aws/instance-size',
  'karpenter.k8s.aws/instance-cpu',
  'karpenter.k8s.aws/instance-cpu-manufacturer',
  'karpenter.k8s.aws/instance-memory',
  'karpenter.k8s.aws/instance-hypervisor',
  'karpenter.k8s.aws/instance-local-nvme',
  'karpenter.k8s.aws/instance-gpu-name',
  'karpenter.k8s.aws/instance-gpu-manufacturer',
  'karpenter.k8s.aws/instance-gpu-count',
  'karpenter.k8s.aws/instance-gpu-memory',
]);

/** `(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`: category and generation from the type name, as Karpenter parses it. */
const SCHEME = /^([a-z]+)(-[0-9]+tb)?([0-9]+).*\./;

const ARCH: Record<string, string> = { x86_64: 'amd64', arm64: 'arm64' };

function kebab(text: string): string {
  return text.toLowerCase().replaceAll(' ', '-');
}

/** Label → value for one type; values are what Karpenter would put on its node. */
export function instanceTypeLabels(t: InstanceTypeInfo): Map<string, string> {
  const labels = new Map<string, string>();
  labels.set('node.kubernetes.io/instance-type', t.name);
  labels.set('beta.kubernetes.io/instance-type', t.name);
  const arch = t.architectures.map((a) => ARCH[a]).find(Boolean);
  if (arch) {
    labels.set('kubernetes.io/arch', arch);
    labels.set('beta.kubernetes.io/arch', arch);
  }
  labels.set('kubernetes.io/os', 'linux');
  labels.set('karpenter.k8s.aws/instance-cpu', String(t.vcpus));
  labels.set('karpenter.k8s.aws/instance-memory', String(t.memoryMiB));
  labels.set('karpenter.k8s.aws/instance-hypervisor', t.hypervisor);
  const parts = SCHEME.exec(t.name);
  if (parts?.[1] && parts[3]) {
    labels.set('karpenter.k8s.aws/instance-category', parts[1]);
    labels.set('karpenter.k8s.aws/instance-generation', parts[3]);
  }
  const [family, size] = t.name.split('.');
  if (family && size) {
    labels.set('karpenter.k8s.aws/instance-family', family);
    labels.set('karpenter.k8s.aws/instance-size', size);
  }
  if (t.cpuManufacturer) labels.set('karpenter.k8s.aws/instance-cpu-manufacturer', kebab(t.cpuManufacturer));
  if (t.localNvmeGB !== undefined) labels.set('karpenter.k8s.aws/instance-local-nvme', String(t.localNvmeGB));
  if (t.gpu) {
    labels.set('karpenter.k8s.aws/instance-gpu-name', kebab(t.gpu.name));
    labels.set('karpenter.k8s.aws/instance-gpu-manufacturer', kebab(t.gpu.manufacturer));
    labels.set('karpenter.k8s.aws/instance-gpu-count', String(t.gpu.count));
    labels.set('karpenter.k8s.aws/instance-gpu-memory', String(t.gpu.memoryMiB));
  }
  return labels;
}

/** Capacity types a type offers: `karpenter.sh/capacity-type` takes any of them. */
export function capacityTypes(t: InstanceTypeInfo): string[] {
  return t.usageClasses.filter((u) => u === 'on-demand' || u === 'spot');
}
