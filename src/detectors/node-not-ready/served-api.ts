/**
 * What the capture's Karpenter objects prove about the release when the controller's version is
 * not captured (docs/findings.md#node_not_ready, "Node repair"). `kubectl get` prints an object at
 * the version its CRD prefers, and v1 is preferred wherever it is served: Karpenter's CRDs serve
 * `karpenter.sh/v1beta1` and `karpenter.k8s.aws/v1beta1` from v0.32 to v1.0 (pkg/apis/crds at the
 * release tags of aws/karpenter-provider-aws) and v1.1.0 dropped them. Node repair came in v1.1.0,
 * so an object read at v1beta1 proves a release without it.
 */
import type { ClusterSnapshot } from '../../domain/snapshot.ts';

const PRE_V1_1_VERSIONS: ReadonlySet<string> = new Set(['karpenter.sh/v1beta1', 'karpenter.k8s.aws/v1beta1']);

/** The first captured Karpenter object at an API version only releases before v1.1.0 serve, as a sentence; undefined when none. */
export function preRepairApiProof(snapshot: ClusterSnapshot): string | undefined {
  const objects = [
    ...snapshot.nodeClaims.map((o) => ({ kind: 'NodeClaim', o })),
    ...snapshot.nodePools.map((o) => ({ kind: 'NodePool', o })),
    ...snapshot.nodeClasses.map((o) => ({ kind: 'EC2NodeClass', o })),
  ];
  const found = objects.find(({ o }) => PRE_V1_1_VERSIONS.has(o.apiVersion ?? ''));
  if (!found) return undefined;
  return `the capture's ${found.kind} ${found.o.metadata?.name ?? '?'} is ${found.o.apiVersion ?? ''}, an API version Karpenter serves from v0.32 to v1.0 and dropped in v1.1.0`;
}
