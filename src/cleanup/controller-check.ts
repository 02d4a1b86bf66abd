/**
 * Whether waiting for the NodeClaims of deleted NodePools can pay off. A partial `terraform destroy`
 * often removes the Karpenter Helm release first: nothing then drains the NodeClaims, and waiting
 * out the bound only costs the run its time (a Lambda's, at 3 a.m.). The instances step terminates
 * their instances either way.
 */
import type { ClusterInfo } from '../domain/aws.ts';
import type { Pod } from '../domain/kube.ts';
import { isPodReady } from '../domain/kube-helpers.ts';
import type { KubernetesReader } from '../ports/kubernetes.ts';
import { CONTROLLER_SELECTOR, hasControllerLabel } from '../domain/snapshot-index.ts';
import { listPods } from './kube-objects.ts';

/**
 * Why nothing will drain the NodeClaims, or undefined when something may (or that cannot be told).
 * EKS Auto Mode runs Karpenter outside the cluster, so no pod shows it; a pod list that fails (the
 * RBAC lacks `pods` list) tells nothing, and the caller waits as it would have.
 */
export async function whyNothingDrains(kube: KubernetesReader, cluster: ClusterInfo): Promise<string | undefined> {
  if (cluster.autoMode) return undefined;
  let pods: Pod[];
  try {
    // A pod set aside as unreadable is not counted Ready: only the pods that read tell.
    pods = (await listPods(kube, { labelSelector: CONTROLLER_SELECTOR })).objects;
  } catch {
    return undefined;
  }
  const ready = pods.some((pod) => hasControllerLabel(pod.metadata?.labels) && isPodReady(pod));
  return ready ? undefined : `no Karpenter controller is running (no Ready pod labelled ${CONTROLLER_SELECTOR})`;
}
