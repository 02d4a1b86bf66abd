import type { LogLine } from '../../domain/aws.ts';
import type { EC2NodeClass, LabelSelectorRequirement, NodePool, Pod } from '../../domain/kube.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';
import { describeCondition } from '../karpenter/readiness.ts';
import { parseQuantity } from '../scheduling/quantity.ts';
import { formatRequirement, formatTaint, requirementMatches, untoleratedTaints } from '../scheduling/scheduling.ts';
import { NODEPOOL_LABEL } from '../../domain/tags.ts';
import { unattributedError, type UnattributedError } from './unattributed-log.ts';
import { isAutoModeRef, isEc2NodeClassRef } from '../../domain/auto-mode.ts';

/**
 * Could a NodePool launch a node for this pod, and is anything stopping it? A simplified model of
 * Karpenter's own checks (scheduling.Requirements.Compatible, Taints.ToleratesPod, limits, and the
 * provisioner ignoring NodePools that are not Ready).
 */

/** Labels whose values Karpenter knows from instance types and offerings without a NodePool defining them. */
const WELL_KNOWN_LABELS = new Set([
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'kubernetes.io/hostname',
  'node.kubernetes.io/instance-type',
  'node.kubernetes.io/windows-build',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.k8s.aws/zone-id',
  'karpenter.sh/capacity-type',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
]);
const WELL_KNOWN_PREFIXES = ['karpenter.k8s.aws/'];
/** EKS Auto Mode's Karpenter labels its nodes `eks.amazonaws.com/compute-type`, `eks.amazonaws.com/instance-category`, ... */
const AUTO_MODE_PREFIXES = ['eks.amazonaws.com/'];

function isWellKnown(key: string, autoMode: boolean): boolean {
  const prefixes = autoMode ? [...WELL_KNOWN_PREFIXES, ...AUTO_MODE_PREFIXES] : WELL_KNOWN_PREFIXES;
  return WELL_KNOWN_LABELS.has(key) || prefixes.some((p) => key.startsWith(p));
}

/** The NodePool's requirements with its template labels and its own name folded in, by key. */
function poolRequirements(pool: NodePool): Map<string, LabelSelectorRequirement[]> {
  const byKey = new Map<string, LabelSelectorRequirement[]>();
  const add = (r: LabelSelectorRequirement) => byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  for (const r of pool.spec?.template?.spec?.requirements ?? []) add(r);
  for (const [key, value] of Object.entries(pool.spec?.template?.metadata?.labels ?? {}))
    add({ key, operator: 'In', values: [value] });
  add({ key: NODEPOOL_LABEL, operator: 'In', values: [pool.metadata?.name ?? ''] });
  return byKey;
}

/** Why one pod requirement cannot be met by a NodePool, in Karpenter's words where it has them. */
function requirementConflict(
  req: LabelSelectorRequirement,
  pool: Map<string, LabelSelectorRequirement[]>,
  autoMode: boolean,
): string | undefined {
  const defined = pool.get(req.key);
  if (!defined) {
    if (req.operator === 'NotIn' || req.operator === 'DoesNotExist' || isWellKnown(req.key, autoMode)) return undefined;
    return `label "${req.key}" does not have known values`;
  }
  const conflicting = defined.find((p) => !compatible(req, p));
  return conflicting
    ? `incompatible requirements, key ${req.key}, ${formatRequirement(req)} not in ${formatRequirement(conflicting)}`
    : undefined;
}

/** Is there a label value (or its absence) both requirements accept? */
function compatible(pod: LabelSelectorRequirement, pool: LabelSelectorRequirement): boolean {
  const absentOk = (r: LabelSelectorRequirement) => r.operator === 'NotIn' || r.operator === 'DoesNotExist';
  if (pod.operator === 'DoesNotExist' || pool.operator === 'DoesNotExist') return absentOk(pod) && absentOk(pool);
  if (pod.operator === 'In') return (pod.values ?? []).some((v) => requirementMatches(pool, v));
  if (pool.operator === 'In') return (pool.values ?? []).some((v) => requirementMatches(pod, v));
  return true;
}

/** Undefined when the NodePool could launch a node for the pod; otherwise why not. */
export function nodePoolIncompatibility(pod: Pod, pool: NodePool): string | undefined {
  const untolerated = untoleratedTaints(pod.spec?.tolerations, pool.spec?.template?.spec?.taints);
  if (untolerated[0]) return `did not tolerate ${formatTaint(untolerated[0])}`;
  const requirements = poolRequirements(pool);
  const autoMode = isAutoModeRef(pool.spec?.template?.spec?.nodeClassRef);
  const selector: LabelSelectorRequirement[] = Object.entries(pod.spec?.nodeSelector ?? {}).map(([key, v]) => ({
    key,
    operator: 'In',
    values: [v],
  }));
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const alternatives = terms.length ? terms.map((t) => [...selector, ...(t.matchExpressions ?? [])]) : [selector];
  let firstConflict: string | undefined;
  for (const reqs of alternatives) {
    const conflict = reqs.map((r) => requirementConflict(r, requirements, autoMode)).find((c) => c !== undefined);
    if (conflict === undefined) return undefined;
    firstConflict ??= conflict;
  }
  return firstConflict;
}

export interface LimitHit {
  resource: string;
  limit: string;
  usage: string;
}

/** Limits the NodePool's provisioned resources have reached (status.resources >= spec.limits). */
export function limitsReached(pool: NodePool): LimitHit[] {
  const hits: LimitHit[] = [];
  for (const [resource, limit] of Object.entries(pool.spec?.limits ?? {})) {
    const usage = pool.status?.resources?.[resource];
    const l = parseQuantity(limit);
    const u = parseQuantity(usage);
    if (l !== undefined && u !== undefined && u >= l) hits.push({ resource, limit, usage: usage ?? '' });
  }
  return hits;
}

/**
 * Why the NodePool's EC2NodeClass keeps it from provisioning, or undefined when it does not. From the
 * NodePool's NodeClassReady condition, else the EC2NodeClass itself (when captured). An EKS Auto
 * Mode NodeClass is not an EC2NodeClass: only the condition speaks for it.
 */
export function nodeClassProblem(pool: NodePool, nodeClasses: ReadonlyMap<string, EC2NodeClass> | undefined): string | undefined {
  const nodeClassRef = pool.spec?.template?.spec?.nodeClassRef;
  const ref = nodeClassRef?.name;
  const onPool = conditionOf(pool, 'NodeClassReady');
  if (onPool && onPool.status !== 'True') return `NodePool ${pool.metadata?.name}: ${describeCondition(onPool)}`;
  if (!nodeClasses || !ref || !isEc2NodeClassRef(nodeClassRef)) return undefined;
  const nodeClass = nodeClasses.get(ref);
  if (!nodeClass) return `EC2NodeClass ${ref} (used by NodePool ${pool.metadata?.name}) does not exist`;
  const ready = conditionOf(nodeClass, 'Ready');
  if (ready?.status === 'True') return undefined;
  return `EC2NodeClass ${ref}: ${ready ? describeCondition(ready) : 'no Ready condition'}`;
}

/** A NodePool Karpenter would skip: not Ready (its Ready condition is False or Unknown). */
export function isNodePoolReady(pool: NodePool): boolean {
  const ready = conditionOf(pool, 'Ready');
  return ready === undefined || ready.status === 'True';
}

// --- Karpenter controller logs ------------------------------------------------------------------

export interface KarpenterLogFacts {
  /** Latest `could not schedule pod` error per `namespace/name`. */
  errorsByPod: Map<string, { error: string; origin: string }>;
  /** NodePools named in `ignoring nodepool, not ready`. */
  notReadyPools: Set<string>;
  /** `no nodepools found` was logged. */
  noNodePools: boolean;
  /** `could not schedule pod` errors that name no pod (a cut or reformatted line), the latest last; at most 20. */
  unattributed: UnattributedError[];
}

function refOf(value: unknown): { namespace?: string; name?: string } | undefined {
  if (typeof value === 'string') {
    const [a, b] = value.split('/');
    return b === undefined ? { name: a } : { namespace: a, name: b };
  }
  if (value && typeof value === 'object') return value as { namespace?: string; name?: string };
  return undefined;
}

/** One pass over the logs (v1 JSON lines: `Pod`/`NodePool` fields; v0.x: `pod` field and the error in the message). */
export function karpenterLogFacts(logs: readonly LogLine[]): KarpenterLogFacts {
  const facts: KarpenterLogFacts = { errorsByPod: new Map(), notReadyPools: new Set(), noNodePools: false, unattributed: [] };
  for (const line of logs) {
    const message = line.message;
    const lower = message.toLowerCase();
    if (lower.startsWith('could not schedule pod')) {
      const pod = refOf(line.fields.Pod ?? line.fields.pod);
      const error = line.error ?? message.replace(/^could not schedule pod,?\s*/i, '');
      if (pod?.name && error) facts.errorsByPod.set(`${pod.namespace ?? 'default'}/${pod.name}`, { error, origin: line.origin });
      else if (!pod?.name && error) {
        facts.unattributed.push(unattributedError(error, line.origin));
        if (facts.unattributed.length > 20) facts.unattributed.shift();
      }
    } else if (lower.startsWith('ignoring nodepool, not ready')) {
      const pool = refOf(line.fields.NodePool ?? line.fields.nodepool);
      if (pool?.name) facts.notReadyPools.add(pool.name);
    } else if (lower.startsWith('no nodepools found')) {
      facts.noNodePools = true;
    }
  }
  return facts;
}
