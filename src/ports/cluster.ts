import type { ClusterInfo } from '../domain/aws.ts';
import type { AwsPorts } from './aws.ts';
import type { KubernetesPort } from './kubernetes.ts';

/** A cluster as the live use cases reach it: real adapters, or the simulator's. */
export interface ClusterConnection {
  aws: AwsPorts;
  /** Connects once; later calls return the same client. */
  connectKube(cluster: ClusterInfo | undefined): Promise<KubernetesPort>;
}
