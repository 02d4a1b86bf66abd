/**
 * What on the blocked NodeClaims' nodes keeps Karpenter from draining them, in the shape the
 * detector words: PodDisruptionBudgets that allow no disruption and the pods they hold, pods
 * selected by several PDBs, pods annotated `karpenter.sh/do-not-disrupt`.
 * TEMPORARY private version until the shared `karpenter/eviction-blockers.ts` is merged.
 */
import type { Pod, PodDisruptionBudget } from '../../domain/kube.ts';
import { parseGoDuration, selectorMatches } from '../../domain/kube-helpers.ts';

export interface PdbHold {
  namespace: string;
  name: string;
  /** `ns/name` of the pods on these nodes it selects. */
  pods: string[];
  pdb: PodDisruptionBudget;
}

export interface PodBlockers {
  /** PDBs whose `status.disruptionsAllowed` is 0, with the pods on these nodes they select. */
  zeroPdbs: PdbHold[];
  /** Pods selected by more than one PDB (the eviction API refuses them), with those PDBs (`ns/name`). */
  multiple: { pod: string; pdbs: string[] }[];
  /** Pods annotated `karpenter.sh/do-not-disrupt` (`"true"`, or a duration not yet run out). */
  doNotDisrupt: { pod: string; value: string; pod_: Pod }[];
}

const key = (o: { metadata?: { namespace?: string; name?: string } }) =>
  `${o.metadata?.namespace ?? 'default'}/${o.metadata?.name ?? '?'}`;

function active(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

function doNotDisruptValue(pod: Pod, now: Date): string | undefined {
  const value = pod.metadata?.annotations?.['karpenter.sh/do-not-disrupt'];
  if (value === undefined) return undefined;
  if (value === 'true') return value;
  const ms = parseGoDuration(value);
  const started = Date.parse(pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? '');
  if (ms === undefined || Number.isNaN(started)) return undefined;
  return started + ms > now.getTime() ? value : undefined;
}

export function podBlockers(pods: readonly Pod[], pdbs: readonly PodDisruptionBudget[], now: Date): PodBlockers {
  const zero = new Map<string, PdbHold>();
  const multiple: PodBlockers['multiple'] = [];
  const doNotDisrupt: PodBlockers['doNotDisrupt'] = [];
  for (const pod of pods.filter(active)) {
    const selecting = pdbs.filter(
      (p) =>
        (p.metadata?.namespace ?? 'default') === (pod.metadata?.namespace ?? 'default') &&
        selectorMatches(p.spec?.selector, pod.metadata?.labels),
    );
    if (selecting.length > 1) multiple.push({ pod: key(pod), pdbs: selecting.map(key).sort() });
    for (const p of selecting) {
      if ((p.status?.disruptionsAllowed ?? 0) > 0) continue;
      let hold = zero.get(key(p));
      if (!hold)
        zero.set(
          key(p),
          (hold = { namespace: p.metadata?.namespace ?? 'default', name: p.metadata?.name ?? '?', pods: [], pdb: p }),
        );
      hold.pods.push(key(pod));
    }
    const value = doNotDisruptValue(pod, now);
    if (value !== undefined) doNotDisrupt.push({ pod: key(pod), value, pod_: pod });
  }
  return { zeroPdbs: [...zero.values()], multiple, doNotDisrupt };
}
