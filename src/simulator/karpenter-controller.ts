/**
 * What the cluster does when a NodePool is deleted through the simulated API, so that destroy-time
 * cleanup can be run end to end. Garbage collection marks the pool's NodeClaims deleted
 * (`metadata.deletionTimestamp`; Karpenter's `karpenter.sh/termination` finalizer keeps them). If the
 * Karpenter controller runs (a Running and Ready pod labelled `app.kubernetes.io/name=karpenter`), it
 * drains them: by the next LIST of NodeClaims they are gone with their Nodes, and their instances are
 * shutting down in the simulation's AWS; with `drainDelayMs`, only at a LIST that comes that long after
 * their deletionTimestamp (PodDisruptionBudgets and long terminationGracePeriods make a real drain
 * slow). Without the controller nothing more happens, as on a cluster whose Helm release was destroyed
 * first.
 */
import type { NodeClaim, Pod } from '../domain/kube.ts';
import { instanceIdFromProviderID, isPodReady, toIsoSeconds } from '../domain/kube-helpers.ts';
import { nodePoolOfClaim, TERMINATION_FINALIZER } from '../domain/tags.ts';
import type { Clock } from '../ports/clock.ts';
import { hasControllerLabel } from '../domain/snapshot-index.ts';
import { isRecord, type JsonRecord } from '../domain/shape.ts';
import type { InMemoryAws } from './in-memory-aws.ts';
import type { ApiReactor } from './kube-routes.ts';
import type { KubeStore, SimResourceName, StoredObject } from './kube-store.ts';

export interface SimulatedKarpenterOptions {
  /** How long after its deletionTimestamp a NodeClaim takes to drain. Default 0: gone at the next LIST. */
  drainDelayMs?: number;
}

export interface SimulatedKarpenterDependencies extends SimulatedKarpenterOptions {
  store: KubeStore;
  aws: InMemoryAws;
  clock: Clock;
}

/** The simulated cluster's reaction to NodePool deletion: garbage collection, then Karpenter's drain. */
export function simulatedKarpenter({ store, aws, clock, drainDelayMs = 0 }: SimulatedKarpenterDependencies): ApiReactor {
  /** NodePools deleted through the API: only their NodeClaims drain (a seed's own terminating NodeClaims stay as captured). */
  const deletedPools = new Set<string>();

  const markDeleted = (pool: string) => {
    const deletionTimestamp = toIsoSeconds(clock.now());
    for (const stored of claimsOf(store, pool)) {
      const metadata = metadataOf(stored.object);
      if (metadata.deletionTimestamp !== undefined) continue;
      const finalizers = Array.isArray(metadata.finalizers) ? metadata.finalizers : [];
      store.put('nodeclaims', {
        ...stored.object,
        metadata: {
          ...metadata,
          deletionTimestamp,
          finalizers: finalizers.includes(TERMINATION_FINALIZER) ? finalizers : [...finalizers, TERMINATION_FINALIZER],
        },
      });
    }
  };

  const drained = (claim: StoredObject) => {
    const deletedAt = Date.parse(String(metadataOf(claim.object).deletionTimestamp ?? ''));
    return Number.isFinite(deletedAt) && clock.now().getTime() >= deletedAt + drainDelayMs;
  };

  const drain = () => {
    const draining = [...deletedPools].flatMap((pool) => claimsOf(store, pool).filter(drained));
    if (draining.length === 0 || !controllerAvailable(store)) return;
    const instanceIds: string[] = [];
    for (const stored of draining) {
      const claim = stored.object as NodeClaim;
      const instanceId = instanceIdFromProviderID(claim.status?.providerID);
      if (instanceId) instanceIds.push(instanceId);
      for (const node of nodesOf(store, claim, instanceId)) store.delete('nodes', node.name);
      store.delete('nodeclaims', stored.name);
    }
    aws.terminateOutOfBand(instanceIds);
  };

  return {
    beforeList(resource: SimResourceName) {
      if (resource === 'nodeclaims') drain();
    },
    afterDelete(deleted: StoredObject) {
      if (deleted.resource !== 'nodepools') return;
      deletedPools.add(deleted.name);
      markDeleted(deleted.name);
    },
  };
}

function claimsOf(store: KubeStore, pool: string): StoredObject[] {
  return store.list('nodeclaims').filter((c) => nodePoolOfClaim(c.object as NodeClaim) === pool);
}

/** The claim's Node: by `status.nodeName`, else the Node running the same instance. */
function nodesOf(store: KubeStore, claim: NodeClaim, instanceId: string | undefined): StoredObject[] {
  const byName = claim.status?.nodeName ? store.get('nodes', claim.status.nodeName) : undefined;
  if (byName) return [byName];
  if (!instanceId) return [];
  return store.list('nodes').filter((n) => {
    const spec = isRecord(n.object.spec) ? n.object.spec : {};
    return instanceIdFromProviderID(typeof spec.providerID === 'string' ? spec.providerID : undefined) === instanceId;
  });
}

function controllerAvailable(store: KubeStore): boolean {
  return store.list('pods').some((p) => {
    const pod = p.object as Pod;
    return hasControllerLabel(pod.metadata?.labels) && isPodReady(pod);
  });
}

function metadataOf(object: JsonRecord): JsonRecord {
  return isRecord(object.metadata) ? object.metadata : {};
}
