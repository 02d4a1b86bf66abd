import type { Pod } from '../../domain/kube.ts';
import { parseResources, type ResourceAmounts } from '../scheduling/quantity.ts';
import { podRequests } from '../scheduling/scheduling.ts';

/**
 * A `could not schedule pod` line that names no pod (cut when pasted, or a format without the field)
 * still belongs to a pod when its numbers say so: Karpenter prints what had to fit (the pod's requests
 * plus `daemonset overhead`) beside that overhead, so the difference is the pod's own requests. Only
 * an exact match of every resource the line gives ties it to the pod; the first NodePool clause is
 * read (each clause carries the same pod).
 */

const OVERHEAD = /daemonset overhead=(\{[^}]*\})/;
const RESOURCES = /(?:no instance type satisfied resources |resources=(?:max=)?)(\{[^}]*\})/;

function json(text: string | undefined): ResourceAmounts | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    return parseResources(Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)])));
  } catch {
    return undefined;
  }
}

function close(a: number, b: number, resource: string): boolean {
  // cpu is printed in millicores; memory in bytes.
  return Math.abs(a - b) <= (resource === 'cpu' ? 0.0005 : 1);
}

/** What a line says one pod requested: its resources less its daemonset overhead (cpu, memory, pods). */
export interface UnattributedError {
  error: string;
  origin: string;
  /** Undefined when the line prints no resources and overhead to compare. */
  podShare: { cpu?: number; memory?: number; pods?: number } | undefined;
}

/** Read once per line, so matching it against thousands of pending pods is a few comparisons each. */
export function unattributedError(error: string, origin: string): UnattributedError {
  const overhead = json(OVERHEAD.exec(error)?.[1]);
  const total = json(RESOURCES.exec(error)?.[1]);
  if (!overhead || !total) return { error, origin, podShare: undefined };
  const share: NonNullable<UnattributedError['podShare']> = {};
  for (const k of ['cpu', 'memory'] as const) if (total[k] !== undefined) share[k] = (total[k] ?? 0) - (overhead[k] ?? 0);
  if (total.pods !== undefined) share.pods = total.pods - (overhead.pods ?? 0);
  return { error, origin, podShare: share };
}

/** Whether the line's share is exactly these requests (every resource it gives; itself one pod). */
function isFor(share: UnattributedError['podShare'], requests: ResourceAmounts): boolean {
  if (!share) return false;
  const compared = (['cpu', 'memory'] as const).filter((k) => share[k] !== undefined);
  if (compared.length === 0 || !compared.some((k) => (requests[k] ?? 0) > 0)) return false;
  if (!compared.every((k) => close(share[k] ?? 0, requests[k] ?? 0, k))) return false;
  return share.pods === undefined || share.pods === 1;
}

/** The latest unattributed error whose numbers are this pod's (replicas of one workload share it). */
export function unattributedErrorFor(pod: Pod, unattributed: readonly UnattributedError[]): UnattributedError | undefined {
  if (unattributed.length === 0) return undefined;
  const requests = podRequests(pod);
  for (let i = unattributed.length - 1; i >= 0; i--) {
    const e = unattributed[i];
    if (e && isFor(e.podShare, requests)) return e;
  }
  return undefined;
}
