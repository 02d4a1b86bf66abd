/**
 * The two ways the product reaches a cluster's API: a kubeconfig context (CLI) or an EKS cluster
 * described by AWS plus a token signed with the ambient AWS credentials (Lambda; import
 * connect-eks.ts there: this module loads client-node for the kubeconfig).
 */
import { loadKubeConfig } from './kubeconfig-file.ts';
import type { KubeconfigSelection } from './kubeconfig-file.ts';
import { KubernetesApi } from './kubernetes-api.ts';
import type { KubernetesApiOptions } from './kubernetes-api.ts';

export { connectToEks, type EksConnection } from './connect-eks.ts';

/** The API through a kubeconfig context, read from its file now (a kubeconfig already loaded goes to `new KubernetesApi`). */
export function connectWithKubeconfig(selection: KubeconfigSelection, options: KubernetesApiOptions = {}): KubernetesApi {
  return new KubernetesApi(loadKubeConfig(selection), options);
}
