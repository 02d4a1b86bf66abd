import type { Pod, PodSpec } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';

/**
 * Which resolver the controller asks, and whether the cluster's DNS is up: the two facts that tell
 * a controller whose lookups time out because CoreDNS is not running (Karpenter on Fargate, or on
 * the nodes it has yet to create) from one whose resolver is there but does not answer.
 */
export interface ControllerDns {
  /**
   * `cluster`: the pod asks the cluster DNS Service (dnsPolicy ClusterFirst, Kubernetes' default
   * when unset, and the chart's since v0.34); `vpc`: the node's resolver, the VPC's (dnsPolicy
   * Default, or ClusterFirst on the host network, which Kubernetes turns into Default); `unknown`
   * when no pod spec was captured.
   */
  resolver: 'cluster' | 'vpc' | 'other' | 'unknown';
  /** The pod's dnsPolicy as written, `ClusterFirst (unset)` when it is not. */
  policy: string;
  /** CoreDNS (`k8s-app=kube-dns`) pods in the capture; undefined when none was captured. */
  coreDns: CoreDnsState | undefined;
}

interface CoreDnsState {
  pods: number;
  running: number;
  /** `coredns-54d6f577c6-8xq5w Pending`, for the evidence. */
  states: string[];
}

export function controllerDns(spec: PodSpec | undefined, snapshot: ClusterSnapshot): ControllerDns {
  // No pod spec (only the log was captured): the policy is not known, and not guessed.
  if (!spec) return { resolver: 'unknown', policy: 'not captured', coreDns: coreDnsState(snapshot.pods) };
  const policy = spec?.dnsPolicy ?? 'ClusterFirst';
  const written = spec?.dnsPolicy ?? 'ClusterFirst (unset)';
  const resolver =
    policy === 'ClusterFirstWithHostNet' || (policy === 'ClusterFirst' && spec?.hostNetwork !== true)
      ? 'cluster'
      : policy === 'Default' || policy === 'ClusterFirst'
        ? 'vpc'
        : 'other';
  const hostNet = spec?.hostNetwork === true && policy === 'ClusterFirst' ? ' with hostNetwork' : '';
  return { resolver, policy: `${written}${hostNet}`, coreDns: coreDnsState(snapshot.pods) };
}

function coreDnsState(pods: readonly Pod[]): CoreDnsState | undefined {
  const dns = pods.filter((p) => p.metadata?.namespace === 'kube-system' && p.metadata.labels?.['k8s-app'] === 'kube-dns');
  if (dns.length === 0) return undefined;
  const ready = (p: Pod) =>
    p.status?.phase === 'Running' && p.status.conditions?.find((c) => c.type === 'Ready')?.status !== 'False';
  return {
    pods: dns.length,
    running: dns.filter(ready).length,
    states: dns.map((p) => `${p.metadata?.name ?? '?'} ${ready(p) ? 'Running' : (p.status?.phase ?? 'in no phase')}`),
  };
}
