import type { FargateProfile, FargateSelector } from '../../domain/aws.ts';
import type { Node, Pod } from '../../domain/kube.ts';

/**
 * How EKS decides that a Fargate profile takes a pod (EKS user guide, "Define which Pods use AWS
 * Fargate"): a selector matches when its namespace equals the pod's namespace and every selector
 * label is on the pod with the same value; `*` and `?` are wildcards in namespaces, label keys and
 * values. A pod labelled `eks.amazonaws.com/fargate-profile` may only use that profile. The EKS
 * mutating webhook sets `schedulerName: fargate-scheduler` when the pod is created, and only if an
 * ACTIVE profile matches at that moment.
 */

const FARGATE_SCHEDULER = 'fargate-scheduler';
const FARGATE_PROFILE_LABEL = 'eks.amazonaws.com/fargate-profile';
const COMPUTE_TYPE_LABEL = 'eks.amazonaws.com/compute-type';

function glob(pattern: string, value: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === value;
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(value);
}

function namespaceMatches(selector: FargateSelector, namespace: string): boolean {
  return selector.namespace !== undefined && glob(selector.namespace, namespace);
}

/** Selector labels no pod label matches. */
function missingLabels(selector: FargateSelector, labels: Record<string, string>): [string, string][] {
  const podLabels = Object.entries(labels);
  return Object.entries(selector.labels ?? {}).filter(
    ([key, value]) => !podLabels.some(([k, v]) => glob(key, k) && glob(value, v)),
  );
}

export function selectorMatchesPod(selector: FargateSelector, namespace: string, labels: Record<string, string>): boolean {
  return namespaceMatches(selector, namespace) && missingLabels(selector, labels).length === 0;
}

/** Profiles (any status) with a selector that takes this pod. Profiles only listed, not described, have no known selectors. */
export function profilesSelecting(pod: Pod, profiles: readonly FargateProfile[]): FargateProfile[] {
  const namespace = pod.metadata?.namespace ?? 'default';
  const labels = pod.metadata?.labels ?? {};
  const pinned = labels[FARGATE_PROFILE_LABEL];
  return profiles.filter(
    (p) => (pinned === undefined || p.name === pinned) && p.selectors.some((s) => selectorMatchesPod(s, namespace, labels)),
  );
}

export function isActive(profile: FargateProfile): boolean {
  return profile.status === 'ACTIVE';
}

export function usesFargateScheduler(pod: Pod): boolean {
  return pod.spec?.schedulerName === FARGATE_SCHEDULER;
}

export function isFargateNode(node: Node): boolean {
  return node.metadata?.labels?.[COMPUTE_TYPE_LABEL] === 'fargate' || (node.metadata?.name ?? '').startsWith('fargate-');
}

/** `namespace=kube-system, labels={app.kubernetes.io/name=karpenter}` for evidence. */
export function describeSelector(selector: FargateSelector): string {
  const labels = Object.entries(selector.labels ?? {});
  const ns = `namespace=${selector.namespace ?? '(none)'}`;
  return labels.length ? `${ns}, labels={${labels.map(([k, v]) => `${k}=${v}`).join(', ')}}` : ns;
}

/** Why a profile does not take the pod, selector by selector. */
export function whyNotSelected(profile: FargateProfile, namespace: string, labels: Record<string, string>): string {
  if (!profile.described)
    return `profile ${profile.name} was only listed, its selectors are unknown (run aws eks describe-fargate-profile)`;
  const pinned = labels[FARGATE_PROFILE_LABEL];
  if (pinned !== undefined && pinned !== profile.name)
    return `the pod is pinned to profile ${pinned} by label ${FARGATE_PROFILE_LABEL}`;
  if (profile.selectors.length === 0) return `profile ${profile.name} has no selectors`;
  return profile.selectors
    .map((s) => {
      if (!namespaceMatches(s, namespace)) return `[${describeSelector(s)}]: namespace is not ${namespace}`;
      const missing = missingLabels(s, labels);
      return `[${describeSelector(s)}]: pod lacks ${missing.map(([k, v]) => `${k}=${v}`).join(', ')}`;
    })
    .join('; ');
}
