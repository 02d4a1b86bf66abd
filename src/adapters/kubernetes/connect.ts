/**
 * The two ways the product reaches a cluster's API: a kubeconfig context (CLI) or an EKS cluster
 * described by AWS plus a token signed with the ambient AWS credentials (Lambda; import
 * connect-eks.ts there: this module loads client-node for the kubeconfig).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from './kubeconfig-file.ts';
import type { KubeconfigSelection } from './kubeconfig-file.ts';
import { KubernetesApi } from './kubernetes-api.ts';
import type { KubernetesApiOptions } from './kubernetes-api.ts';

export { connectToEks, type EksConnection } from './connect-eks.ts';

/** The API through a kubeconfig context; `read`, the kubeconfig already read for it (readKubeContext), is not read again. */
export function connectWithKubeconfig(
  selection: KubeconfigSelection,
  options: KubernetesApiOptions = {},
  read?: KubeConfig,
): KubernetesApi {
  return new KubernetesApi(read ?? loadKubeConfig(selection), options);
}
