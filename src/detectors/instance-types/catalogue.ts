import type { InstanceTypeInfo } from '../../domain/instance-types.ts';
import type { ConfigMap, Deployment, EC2NodeClass, KubeletConfiguration, NodePool } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import { BUNDLED_TABLE_DATE, BUNDLED_TABLE_SOURCE } from '../../domain/bundled-instance-types.ts';
import { bundledInstanceTypes } from '../../domain/instance-type-rows.ts';
import { DEFAULT_VM_MEMORY_OVERHEAD, type CapacitySettings, type KubeletSettings } from './capacity.ts';

/**
 * The instance types a scan evaluates and the settings Karpenter would estimate them with. The
 * account's own `DescribeInstanceTypes` (live, or captured as `instance-types.json`) comes first; the
 * bundled table, with its date, only when the scan has neither (docs/instance-types.md).
 */

export interface InstanceTypeCatalogue {
  types: readonly InstanceTypeInfo[];
  source: 'account' | 'bundled';
  /** For evidence: where the types came from. */
  describe: string;
}

export function instanceTypeCatalogue(snapshot: ClusterSnapshot): InstanceTypeCatalogue {
  if (snapshot.captured.has('instancetypes') && snapshot.instanceTypes.length > 0)
    return {
      types: snapshot.instanceTypes,
      source: 'account',
      describe: `the ${snapshot.instanceTypes.length} instance types of the account's DescribeInstanceTypes`,
    };
  const types = bundledInstanceTypes();
  return {
    types,
    source: 'bundled',
    describe: `the bundled table of ${types.length} instance types (${BUNDLED_TABLE_DATE}, from ${BUNDLED_TABLE_SOURCE.split(',')[0]}): capture \`aws ec2 describe-instance-types\` for the account's own`,
  };
}

// --- settings ------------------------------------------------------------------------------------

function finiteNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length ? Object.fromEntries(entries) : undefined;
}

function kubeletSettings(kubelet: KubeletConfiguration | undefined): KubeletSettings | undefined {
  if (!kubelet || typeof kubelet !== 'object') return undefined;
  const out: KubeletSettings = {};
  const maxPods = finiteNumber(kubelet.maxPods);
  const podsPerCore = finiteNumber(kubelet.podsPerCore);
  const kubeReserved = stringMap(kubelet.kubeReserved);
  const systemReserved = stringMap(kubelet.systemReserved);
  const evictionHard = stringMap(kubelet.evictionHard);
  if (maxPods !== undefined) out.maxPods = maxPods;
  if (podsPerCore !== undefined) out.podsPerCore = podsPerCore;
  if (kubeReserved) out.kubeReserved = kubeReserved;
  if (systemReserved) out.systemReserved = systemReserved;
  if (evictionHard) out.evictionHard = evictionHard;
  return Object.keys(out).length ? out : undefined;
}

export interface OverheadSetting {
  value: number;
  /** Where it was read: `VM_MEMORY_OVERHEAD_PERCENT=0.075 on deployment karpenter/karpenter`, or the default. */
  from: string;
}

/**
 * Karpenter's VM memory overhead: the controller's `VM_MEMORY_OVERHEAD_PERCENT` env or
 * `--vm-memory-overhead-percent` flag (v0.32+), else `aws.vmMemoryOverheadPercent` in the
 * `karpenter-global-settings` ConfigMap (before v0.32), else the default 0.075.
 */
export function vmMemoryOverhead(deployment: Deployment | undefined, configMaps: readonly ConfigMap[]): OverheadSetting {
  const where = deployment ? `${deployment.metadata?.namespace}/${deployment.metadata?.name}` : '';
  for (const c of deployment?.spec?.template?.spec?.containers ?? []) {
    const env = finiteNumber(c.env?.find((e) => e.name === 'VM_MEMORY_OVERHEAD_PERCENT')?.value);
    if (env !== undefined) return { value: env, from: `VM_MEMORY_OVERHEAD_PERCENT=${env} on deployment ${where}` };
    const args = (c as { args?: unknown }).args;
    if (Array.isArray(args)) {
      for (const [i, a] of args.entries()) {
        if (typeof a !== 'string' || !a.startsWith('--vm-memory-overhead-percent')) continue;
        const v = finiteNumber(a.includes('=') ? a.split('=')[1] : args[i + 1]);
        if (v !== undefined) return { value: v, from: `--vm-memory-overhead-percent=${v} on deployment ${where}` };
      }
    }
  }
  for (const cm of configMaps) {
    if (cm.metadata?.name !== 'karpenter-global-settings') continue;
    const v = finiteNumber(cm.data?.['aws.vmMemoryOverheadPercent']);
    if (v !== undefined)
      return {
        value: v,
        from: `aws.vmMemoryOverheadPercent=${v} in ConfigMap ${cm.metadata?.namespace}/karpenter-global-settings`,
      };
  }
  return {
    value: DEFAULT_VM_MEMORY_OVERHEAD,
    from: `Karpenter's default VM_MEMORY_OVERHEAD_PERCENT ${DEFAULT_VM_MEMORY_OVERHEAD}`,
  };
}

/** The capacity settings for a NodePool: the kubelet of its EC2NodeClass (v1) or its own (v1beta1). */
export function capacitySettings(
  overhead: OverheadSetting,
  pool: NodePool | undefined,
  nodeClass: EC2NodeClass | undefined,
): CapacitySettings {
  const kubelet = kubeletSettings(nodeClass?.spec?.kubelet) ?? kubeletSettings(pool?.spec?.template?.spec?.kubelet);
  const windows =
    /^windows/i.test(nodeClass?.spec?.amiFamily ?? '') ||
    (nodeClass?.spec?.amiSelectorTerms ?? []).some((t) => /^windows/i.test(t.alias ?? ''));
  return {
    vmMemoryOverheadPercent: overhead.value,
    ...(kubelet ? { kubelet } : {}),
    ...(windows ? { windows } : {}),
  };
}
