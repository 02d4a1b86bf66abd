/**
 * The Kubernetes port measured (measured-ports.ts): a call named by its RBAC verb and resource
 * (`k8s:list nodeclaims`, `k8s:get pods/log`), its failures sorted by the Kubernetes classifier.
 */
import type { KubernetesPort } from '../../ports/kubernetes.ts';
import { kubeCallOutcome } from './kube-errors.ts';
import type { ApiCallMeter } from '../calls/api-call-metrics.ts';
import { measured, type ApiNames } from '../calls/measured-ports.ts';

const KUBERNETES_APIS: ApiNames<KubernetesPort> = {
  list: (query) => `k8s:list ${query.resource}`,
  get: (resource) => `k8s:get ${resource}`,
  podLog: () => 'k8s:get pods/log',
  patchDeploymentAnnotations: () => 'k8s:patch deployments',
  deleteNodePool: () => 'k8s:delete nodepools',
};

/** A Kubernetes port (a connection's `close` included), each call measured. */
export function measuredKubernetes<P extends KubernetesPort>(port: P, meter: ApiCallMeter): P {
  return measured(port, KUBERNETES_APIS as ApiNames<P>, kubeCallOutcome, meter);
}
