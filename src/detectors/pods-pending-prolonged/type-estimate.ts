import { commandStep } from '../../domain/finding.ts';
import type { InstanceTypeInfo } from '../../domain/instance-types.ts';
import type { LabelSelectorRequirement } from '../../domain/kube.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { InstanceTypeCatalogue, OverheadSetting } from '../instance-types/catalogue.ts';
import { allocatable, type CapacitySettings } from '../instance-types/capacity.ts';
import { evaluateTypes, type TypeFit } from '../instance-types/evaluate.ts';
import { formatQuantity, type ResourceAmounts } from '../scheduling/quantity.ts';
import { formatRequirement } from '../scheduling/scheduling.ts';
import { helmUpgrade, versionNote, type KarpenterRelease } from '../karpenter/helm.ts';

/**
 * NO_INSTANCE_TYPE_FITS in our own words: the instance types a NodePool's requirements allow, the
 * one that comes closest and what Karpenter believes it holds (docs/instance-types.md). Used to
 * explain Karpenter's `no instance type …` message, and in its place when the capture has none.
 */

export interface PoolEstimate {
  /** The NodePool's name, as captured or as Karpenter named it. */
  pool: string;
  fit: TypeFit;
  needed: ResourceAmounts;
  overhead: OverheadSetting;
  settings: CapacitySettings;
}

export interface EstimateWords {
  reasons: string[];
  evidence: string[];
  /** Checks that tell the causes apart: printed first. */
  checks: string[];
  /** Fixes that follow only from the estimate: printed after the NodePool's own. */
  steps: string[];
}

export function estimatePool(
  pool: string,
  requirements: readonly LabelSelectorRequirement[],
  needed: ResourceAmounts,
  catalogue: InstanceTypeCatalogue,
  overhead: OverheadSetting,
  settings: CapacitySettings,
): PoolEstimate {
  return { pool, fit: evaluateTypes(requirements, needed, catalogue.types, settings), needed, overhead, settings };
}

/** The estimate proves no allowed type fits: none fits, and no In-list names a type the table lacks. */
export function conclusive(e: PoolEstimate): boolean {
  return e.fit.fitting.length === 0 && e.fit.unknownNames.length === 0;
}

const GI = 2 ** 30;

function gib(bytes: number): string {
  return `${(bytes / GI).toFixed(2)}Gi`;
}

function typeText(t: InstanceTypeInfo): string {
  return `${t.name} (${t.vcpus} vCPU, ${t.memoryMiB} MiB${t.gpu ? `, ${t.gpu.count} ${t.gpu.manufacturer} ${t.gpu.name}` : ''})`;
}

function amountText(resource: string, amount: number): string {
  return resource === 'memory' ? gib(amount) : formatQuantity(resource, amount);
}

export function estimateWords(
  estimates: readonly PoolEstimate[],
  catalogue: InstanceTypeCatalogue,
  release: KarpenterRelease,
): EstimateWords {
  const words: EstimateWords = { reasons: [], evidence: [`instance types: ${catalogue.describe}`], checks: [], steps: [] };
  for (const e of estimates.slice(0, 3)) {
    const { fit, needed } = e;
    if (fit.allowed.length === 0) {
      const alone = fit.excludesAll.map(formatRequirement);
      words.reasons.push(
        `NodePool ${e.pool}: its requirements allow no instance type at all${alone.length ? ` (${alone.slice(0, 2).join('; ')} matches none)` : ''}`,
      );
      continue;
    }
    const c = fit.closest;
    if (!c) continue;
    const names = fit.allowed.map((t) => t.name);
    const mem = c.allocatable.memory;
    const memoryWords = c.short.includes('memory')
      ? `; memory ${mem.capacityBytes / 2 ** 20} MiB less ${gib(mem.vmOverheadBytes)} VM overhead (${e.overhead.value * 100}%), ${gib(mem.kubeReservedBytes)} kube-reserved${mem.systemReservedBytes ? `, ${gib(mem.systemReservedBytes)} system-reserved` : ''} and a ${gib(mem.evictionBytes)} eviction threshold`
      : '';
    words.reasons.push(
      `NodePool ${e.pool} allows ${names.length} instance type${names.length === 1 ? '' : 's'} (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}); the closest, ${typeText(c.type)}, holds by Karpenter's estimate ${c.short.map((k) => `${k} ${amountText(k, c.allocatable.amounts[k] ?? 0)}`).join(', ')} for pods, short of the ${c.short.map((k) => `${k} ${amountText(k, needed[k] ?? 0)}`).join(', ')} needed${memoryWords}`,
    );
    words.evidence.push(
      `NodePool ${e.pool}: ${names.length} type(s) allowed, none fits; closest ${c.type.name}: ${c.short.map((k) => `${k} ${amountText(k, c.allocatable.amounts[k] ?? 0)} < ${amountText(k, needed[k] ?? 0)}`).join(', ')}`,
    );
    if (c.short.length === 1 && c.short[0] === 'memory') {
      const [check, option] = overheadSteps(e, c.type, release);
      if (check && option) {
        words.checks.push(check);
        words.steps.push(option);
      }
    }
  }
  return words;
}

/**
 * Memory is all that is short and the VM overhead estimate decides it: the type would hold the pods
 * with a smaller estimate. Whether that is true of the real machine is for a running node to say.
 */
function overheadSteps(e: PoolEstimate, type: InstanceTypeInfo, release: KarpenterRelease): string[] {
  const needed = e.needed.memory ?? 0;
  const without = allocatable(type, { ...e.settings, vmMemoryOverheadPercent: 0 }).amounts.memory ?? 0;
  if (without < needed) return [];
  const capacity = allocatable(type, e.settings).memory.capacityBytes;
  const most = Math.floor(((without - needed) / capacity) * 1000) / 1000;
  return [
    commandStep(
      `Karpenter's VM memory overhead estimate decides it (${e.overhead.from}): ${type.name} would hold the pods with a value of at most ${most}. Compare the capacity.memory a running ${type.name} node reports with the ${type.memoryMiB} MiB EC2 lists`,
      `kubectl get nodes -l ${shellQuote(`node.kubernetes.io/instance-type=${type.name}`)} -o jsonpath='{range .items[*]}{.metadata.name}{"\\t"}{.status.capacity.memory}{"\\n"}{end}'`,
    ),
    commandStep(
      `only if the real overhead is that small: lower the top-level settings.vmMemoryOverheadPercent (VM_MEMORY_OVERHEAD_PERCENT; in v0.32 settings.aws.vmMemoryOverheadPercent alone changes nothing). It applies to every instance type${versionNote(release)}`,
      helmUpgrade(release, [`settings.vmMemoryOverheadPercent=${most}`]),
    ),
  ];
}
