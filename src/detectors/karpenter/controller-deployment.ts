import type { Container, Pod } from '../../domain/kube.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { karpenterRelease } from './helm.ts';
import { imageVersion } from '../../domain/controller-image.ts';

/**
 * The controller Deployment's name from one of its pods when the Deployment itself is unknown:
 * `karpenter-5697769d6c-7lglp` → `karpenter` (ReplicaSet hash and pod suffix), else the pod's own name.
 */
export function deploymentNameFromPod(pod: Pod | undefined): string {
  const name = pod?.metadata?.name ?? 'karpenter';
  const hash = pod?.metadata?.labels?.['pod-template-hash'];
  if (hash) {
    const at = name.lastIndexOf(`-${hash}-`);
    if (at > 0) return name.slice(0, at);
  }
  const match = /^(.+)-[a-z0-9]{8,10}-[a-z0-9]{5}$/.exec(name);
  return match?.[1] ?? name;
}

// Declared in src/domain (the simulator reads them too); named here for the detectors.
export { pickControllerContainer } from '../../domain/controller-image.ts';

/** The controller's version: its chart label, else this container's image tag (`controller:v1.2.3@sha256:…`), without the `v`. */
export function controllerVersion(info: ControllerInfo, container: Container | undefined): string | undefined {
  return karpenterRelease(info).chartVersion?.replace(/^v/, '') ?? imageVersion(container?.image);
}
