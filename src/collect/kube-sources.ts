import type { SourceName } from '../domain/snapshot.ts';
import type { KubeListQuery } from '../ports/kubernetes.ts';
import { CONTROLLER_SELECTOR } from '../domain/snapshot-index.ts';

/** Karpenter's CRDs, read one by one: a cluster's CRD list runs to megabytes of schemas. */
export const KARPENTER_CRD_NAMES = ['nodeclaims.karpenter.sh', 'nodepools.karpenter.sh', 'ec2nodeclasses.karpenter.k8s.aws'];

/**
 * What the detectors need of each Kubernetes source, and no more: a healthy 50,000-pod cluster
 * costs a list of its Pending pods, not of every pod. Pods are collected separately (two phases,
 * plus the pods of the nodes Karpenter is disrupting).
 */
export const KUBE_LISTS: readonly {
  source: Exclude<SourceName, 'pods' | 'crds' | 'logs' | 'endpoints'>;
  queries: KubeListQuery[];
}[] = [
  { source: 'deployments', queries: [{ resource: 'deployments' }] },
  { source: 'replicasets', queries: [{ resource: 'replicasets', labelSelector: CONTROLLER_SELECTOR }] },
  { source: 'nodes', queries: [{ resource: 'nodes' }] },
  { source: 'events', queries: [{ resource: 'events' }] },
  {
    source: 'configmaps',
    queries: [{ resource: 'configmaps', namespace: 'kube-system', fieldSelector: 'metadata.name=aws-auth' }],
  },
  { source: 'services', queries: [{ resource: 'services' }] },
  { source: 'nodeclaims', queries: [{ resource: 'nodeclaims' }] },
  { source: 'nodepools', queries: [{ resource: 'nodepools' }] },
  { source: 'ec2nodeclasses', queries: [{ resource: 'ec2nodeclasses' }] },
  { source: 'pdbs', queries: [{ resource: 'poddisruptionbudgets' }] },
  { source: 'volumeattachments', queries: [{ resource: 'volumeattachments' }] },
  // Both kinds, cluster-scoped and few: one list each (the endpoints of their Services follow them).
  {
    source: 'webhookconfigurations',
    queries: [{ resource: 'validatingwebhookconfigurations' }, { resource: 'mutatingwebhookconfigurations' }],
  },
];

/**
 * The EndpointSlices of one Service (the API server resolves a webhook's Service through these from
 * Kubernetes 1.34; they exist on every cluster since 1.21); its Endpoints are read only when it has none.
 */
export function endpointSlicesOf(namespace: string, service: string): KubeListQuery {
  return { resource: 'endpointslices', namespace, labelSelector: `kubernetes.io/service-name=${service}` };
}

/** At most this many webhook Services have their endpoints read: Karpenter's configurations name one. */
export const MAX_WEBHOOK_SERVICES = 4;

export const PENDING_PODS: KubeListQuery = { resource: 'pods', fieldSelector: 'status.phase=Pending' };
export const CONTROLLER_PODS: KubeListQuery = { resource: 'pods', labelSelector: CONTROLLER_SELECTOR };
export const ALL_PODS: KubeListQuery = { resource: 'pods' };

/** The pods of one node (see nodesOfInterest): one paged list per node Karpenter is disrupting. */
export function podsOnNode(nodeName: string): KubeListQuery {
  return { resource: 'pods', fieldSelector: `spec.nodeName=${nodeName}` };
}

/** Lines of the controller's log to read per pod: enough for the last denials, bounded for Lambda. */
export const LOG_TAIL_LINES = 500;

/**
 * Bytes of a previous container's log to read per pod (`limitBytes`): the same LOG_TAIL_LINES,
 * and no more than this, since a controller dying in a loop may have written a huge last line.
 */
export const PREVIOUS_LOG_LIMIT_BYTES = 1024 * 1024;
