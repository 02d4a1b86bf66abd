/**
 * `karpenter-sentinel sandbox`: a capture served as a cluster for kubectl, until stopped. The
 * simulation `scan --simulate` runs against (simulateSnapshot: the API server on 127.0.0.1, the
 * simulated Karpenter reacting to deletes, the in-memory AWS), with a kubeconfig of its own in a
 * private temporary folder (the user's ~/.kube/config is never touched), and a clock that starts at
 * the capture's time and runs on, so ages read as they did when captured.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import { clockStartingAt, SYSTEM_CLOCK } from '../ports/clock.ts';
import type { SimulatedKubeApi } from './kube-api-server.ts';
import { simulateSnapshot } from './simulation.ts';

export interface SandboxOptions {
  /** The capture's time: the cluster's clock starts there. Default: the wall clock. */
  capturedAt?: Date;
  /** Where the kubeconfig's private folder is made; the system's temporary folder by default. */
  parentDir?: string;
}

export interface Sandbox {
  readonly kubeApi: SimulatedKubeApi;
  /** The kubeconfig file kubectl is pointed at (mode 0600, in a folder only the user can read). */
  readonly kubeconfigPath: string;
  /** Its only context (also its cluster and user name). */
  readonly context: string;
  readonly clusterName: string;
  /** Stops the server (ending open watches) and removes the kubeconfig and its folder. */
  close(): Promise<void>;
}

export async function startSandbox(seed: ClusterSnapshot, options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.capturedAt ? clockStartingAt(options.capturedAt) : SYSTEM_CLOCK;
  const simulation = await simulateSnapshot(seed, { clock });
  const { kubeApi } = simulation;
  const context = contextNameFor(seed.clusterName);
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'karpenter-sentinel-sandbox-'));
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeApi.kubeconfig({ name: context }), { mode: 0o600 });
    await chmod(kubeconfigPath, 0o600);
    const folder = dir;
    let closed: Promise<void> | undefined;
    return {
      kubeApi,
      kubeconfigPath,
      context,
      clusterName: seed.clusterName,
      close: () => (closed ??= simulation.close().finally(() => rm(folder, { recursive: true, force: true }))),
    };
  } catch (error) {
    await simulation.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** `sandbox-<cluster>`, with what a kubeconfig name or a shell would trip on replaced. */
function contextNameFor(clusterName: string): string {
  const safe = clusterName.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 60);
  return `sandbox-${safe || 'cluster'}`;
}
