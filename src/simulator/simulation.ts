/**
 * Composition root of `scan --simulate` and the demo: a captured cluster served as a live one.
 * The real Kubernetes adapter reaches the simulated API server over HTTPS exactly as it reaches
 * EKS (endpoint, cluster CA, bearer token); AWS is the in-memory account seeded from the capture.
 */
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import { KubernetesApi, type KubernetesApiOptions } from '../adapters/kubernetes/kubernetes-api.ts';
import { kubeConfigForEks } from '../adapters/kubernetes/kubeconfig.ts';
import { SYSTEM_CLOCK, type Clock } from '../ports/clock.ts';
import type { KubernetesPort } from '../ports/kubernetes.ts';
import { loadSnapshot, type LoadOptions } from '../snapshot/load.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import { inMemoryAws, type InMemoryAws, type InMemoryAwsOptions } from './in-memory-aws.ts';
import { simulatedKarpenter, type SimulatedKarpenterOptions } from './karpenter-controller.ts';
import { startKubeApiServer, type SimulatedKubeApi } from './kube-api-server.ts';
import { storeFromSnapshot } from './seed.ts';

export { simulatedSources } from './simulated-sources.ts';

export interface Simulation {
  connection: ClusterConnection;
  /** The snapshot the simulation was seeded from. */
  seed: ClusterSnapshot;
  kubeApi: SimulatedKubeApi;
  aws: InMemoryAws;
  close(): Promise<void>;
}

/** Captured files served as a cluster. */
export async function startSimulation(
  paths: readonly string[],
  options: LoadOptions & SimulationOptions = {},
): Promise<Simulation> {
  const { snapshot } = await loadSnapshot(paths, options);
  return simulateSnapshot(snapshot, options);
}

export interface SimulationOptions {
  /** For the real Kubernetes client (tests pass a clock whose sleep does not wait). */
  kube?: KubernetesApiOptions;
  /**
   * The simulated cluster's time: of its own writes (a NodeClaim's deletionTimestamp) and of the
   * ages kubectl's tables show (the sandbox). Default: the system clock.
   */
  clock?: Clock;
  /** For the in-memory AWS (e.g. instances that stay shutting-down until `aws.advance()`). */
  aws?: InMemoryAwsOptions;
  /** For the simulated Karpenter controller, when the seed has one running (e.g. a slow drain). */
  karpenter?: SimulatedKarpenterOptions;
}

export async function simulateSnapshot(seed: ClusterSnapshot, options: SimulationOptions = {}): Promise<Simulation> {
  const store = storeFromSnapshot(seed);
  const aws = inMemoryAws(seed, options.aws);
  const clock = options.clock ?? SYSTEM_CLOCK;
  const reactor = simulatedKarpenter({ store, aws, clock, ...options.karpenter });
  const kubeApi = await startKubeApiServer(store, { reactor, now: () => clock.now() });
  let kube: KubernetesApi | undefined;
  const connectKube = async (): Promise<KubernetesPort> => {
    kube ??= new KubernetesApi(
      kubeConfigForEks(
        { name: seed.clusterName, endpoint: kubeApi.url, certificateAuthority: Buffer.from(kubeApi.caPem).toString('base64') },
        { token: async () => kubeApi.token },
      ),
      options.kube,
    );
    return kube;
  };
  return {
    connection: { aws, connectKube },
    seed,
    kubeApi,
    aws,
    close: async () => {
      kube?.close();
      await kubeApi.close();
    },
  };
}
