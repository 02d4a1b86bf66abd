import type { Instance } from './aws.ts';
import type { Deployment, KubeEvent, Node, NodeClaim, Pod } from './kube.ts';
import { conditionOf, instanceIdFromProviderID, isPodReady, selectorMatches } from './kube-helpers.ts';
import type { ClusterSnapshot } from './snapshot.ts';
import { nodePoolOfClaim } from './tags.ts';

/** What eventsFor answers for an object no event is about; never written to. */
const NO_EVENTS: readonly KubeEvent[] = [];

export const CONTROLLER_LABEL = 'app.kubernetes.io/name';
export const CONTROLLER_LABEL_VALUE = 'karpenter';
/** The label selector of the controller's pods: what collect lists and cleanup checks for a Ready one. */
export const CONTROLLER_SELECTOR = `${CONTROLLER_LABEL}=${CONTROLLER_LABEL_VALUE}`;

/** The Karpenter controller as found in the snapshot: by labels, in whatever namespace it runs. */
export interface ControllerInfo {
  namespace: string;
  /** Deployment name when known (from the Deployment, or the pods' ReplicaSet owner). */
  deploymentName: string | undefined;
  deployment: Deployment | undefined;
  pods: Pod[];
  readyPods: number;
}

/**
 * Lookup tables over one snapshot, built lazily and at most once, so every detector stays
 * linear in the number of objects. Detectors share one index per analysis.
 */
export class SnapshotIndex {
  readonly snapshot: ClusterSnapshot;
  readonly #memo = new Map<string, unknown>();

  constructor(snapshot: ClusterSnapshot) {
    this.snapshot = snapshot;
  }

  #once<T>(key: string, build: () => T): T {
    // Every value built is an object (a Map, a list): undefined means not built yet.
    let value = this.#memo.get(key) as T | undefined;
    if (value === undefined) {
      value = build();
      this.#memo.set(key, value);
    }
    return value;
  }

  get nodesByName(): Map<string, Node> {
    return this.#once('nodesByName', () => new Map(this.snapshot.nodes.map((n) => [n.metadata?.name ?? '', n])));
  }

  /** Nodes by the EC2 instance ID in their providerID. */
  get nodesByInstanceId(): Map<string, Node> {
    return this.#once('nodesByInstanceId', () => {
      const m = new Map<string, Node>();
      for (const n of this.snapshot.nodes) {
        const id = instanceIdFromProviderID(n.spec?.providerID);
        if (id) m.set(id, n);
      }
      return m;
    });
  }

  get nodeClaimsByInstanceId(): Map<string, NodeClaim> {
    return this.#once('nodeClaimsByInstanceId', () => {
      const m = new Map<string, NodeClaim>();
      for (const nc of this.snapshot.nodeClaims) {
        const id = instanceIdFromProviderID(nc.status?.providerID);
        if (id) m.set(id, nc);
      }
      return m;
    });
  }

  /** NodeClaims by name. */
  get nodeClaimsByName(): Map<string, NodeClaim> {
    return this.#once('nodeClaimsByName', () => {
      const m = new Map<string, NodeClaim>();
      for (const nc of this.snapshot.nodeClaims) if (nc.metadata?.name) m.set(nc.metadata.name, nc);
      return m;
    });
  }

  /** NodeClaims by their Node's name (`status.nodeName`). */
  get nodeClaimsByNodeName(): Map<string, NodeClaim> {
    return this.#once('nodeClaimsByNodeName', () => {
      const m = new Map<string, NodeClaim>();
      for (const nc of this.snapshot.nodeClaims) if (nc.status?.nodeName) m.set(nc.status.nodeName, nc);
      return m;
    });
  }

  /**
   * Initialized NodeClaims (`Initialized=True`) by the NodePool that owns them (their
   * `karpenter.sh/nodepool` label): the nodes a NodePool's disruption budgets count.
   */
  get initializedClaimsByNodePool(): Map<string, NodeClaim[]> {
    return this.#once('initializedClaimsByNodePool', () => {
      const m = new Map<string, NodeClaim[]>();
      for (const nc of this.snapshot.nodeClaims) {
        const pool = nodePoolOfClaim(nc);
        if (pool === undefined || conditionOf(nc, 'Initialized')?.status !== 'True') continue;
        const list = m.get(pool);
        if (list) list.push(nc);
        else m.set(pool, [nc]);
      }
      return m;
    });
  }

  get nodePoolsByName() {
    return this.#once('nodePoolsByName', () => new Map(this.snapshot.nodePools.map((p) => [p.metadata?.name ?? '', p])));
  }

  get nodeClassesByName() {
    return this.#once('nodeClassesByName', () => new Map(this.snapshot.nodeClasses.map((c) => [c.metadata?.name ?? '', c])));
  }

  get instancesById(): Map<string, Instance> {
    return this.#once('instancesById', () => new Map(this.snapshot.instances.map((i) => [i.id, i])));
  }

  /**
   * Events by the kind, namespace and name of the object they are about, one map per level: a
   * lookup (thousands per analysis) reads the three strings as they are instead of joining them.
   */
  get #eventsByObject(): Map<string, Map<string, Map<string, KubeEvent[]>>> {
    return this.#once('eventsByObject', () => {
      const byKind = new Map<string, Map<string, Map<string, KubeEvent[]>>>();
      for (const e of this.snapshot.events) {
        const kind = e.regarding.kind ?? '';
        const namespace = e.regarding.namespace ?? '';
        const name = e.regarding.name ?? '';
        let byNamespace = byKind.get(kind);
        if (!byNamespace) byKind.set(kind, (byNamespace = new Map()));
        let byName = byNamespace.get(namespace);
        if (!byName) byNamespace.set(namespace, (byName = new Map()));
        const list = byName.get(name);
        if (list) list.push(e);
        else byName.set(name, [e]);
      }
      return byKind;
    });
  }

  eventsFor(kind: string, namespace: string | undefined, name: string | undefined): readonly KubeEvent[] {
    return (
      this.#eventsByObject
        .get(kind)
        ?.get(namespace ?? '')
        ?.get(name ?? '') ?? NO_EVENTS
    );
  }

  /** One walk over the pods (50,000 in a large cluster) for the questions detectors ask of all of them. */
  #podsWalk(): PodsWalk {
    return this.#once('podsWalk', () => walkPods(this.snapshot.pods));
  }

  /** Pods bound to each node name. */
  get podsByNode(): Map<string, Pod[]> {
    return this.#podsWalk().byNode;
  }

  /** Pods bound to no node (no `spec.nodeName`), in the snapshot's order: the only ones that can be Pending unbound. */
  get unboundPods(): readonly Pod[] {
    return this.#podsWalk().unbound;
  }

  /** Pods in namespace kube-system (the VPC CNI's aws-node, CoreDNS, kube-proxy), in the snapshot's order. */
  get kubeSystemPods(): readonly Pod[] {
    return this.#podsWalk().kubeSystem;
  }

  /** Karpenter controller(s): pods and Deployments labelled `app.kubernetes.io/name=karpenter`. */
  get controllers(): ControllerInfo[] {
    return this.#once('controllers', () => findControllers(this.snapshot, this.#podsWalk().controller));
  }

  isControllerPod(pod: Pod): boolean {
    return hasControllerLabel(pod.metadata?.labels);
  }
}

/**
 * The Karpenter controller(s), as `SnapshotIndex.controllers` finds them, for a caller that needs
 * nothing else of an index (the merger, the scan metrics, controller-status, the simulator's seed):
 * a filter of the pods for the label, without the index's walk that lists every pod by node.
 */
export function controllersOf(snapshot: ClusterSnapshot): ControllerInfo[] {
  return findControllers(
    snapshot,
    snapshot.pods.filter((p) => hasControllerLabel(p.metadata?.labels)),
  );
}

export function hasControllerLabel(labels: Record<string, string> | undefined): boolean {
  return labels?.[CONTROLLER_LABEL] === CONTROLLER_LABEL_VALUE;
}

interface PodsWalk {
  byNode: Map<string, Pod[]>;
  unbound: Pod[];
  /** Labelled as the controller's. */
  controller: Pod[];
  kubeSystem: Pod[];
}

function walkPods(pods: readonly Pod[]): PodsWalk {
  const byNode = new Map<string, Pod[]>();
  const unbound: Pod[] = [];
  const controller: Pod[] = [];
  const kubeSystem: Pod[] = [];
  for (const p of pods) {
    if (hasControllerLabel(p.metadata?.labels)) controller.push(p);
    if (p.metadata?.namespace === 'kube-system') kubeSystem.push(p);
    const node = p.spec?.nodeName;
    if (!node) {
      unbound.push(p);
      continue;
    }
    const list = byNode.get(node);
    if (list) list.push(p);
    else byNode.set(node, [p]);
  }
  return { byNode, unbound, controller, kubeSystem };
}

/** `pods`: the snapshot's pods labelled as the controller's. */
function findControllers(s: ClusterSnapshot, pods: readonly Pod[]): ControllerInfo[] {
  const byKey = new Map<string, ControllerInfo>();
  // Only the ReplicaSets the controller's pods name: a large cluster has thousands of others.
  const named = new Set(pods.map(replicaSetKeyOf));
  const rsOwner = new Map<string, string>();
  for (const rs of pods.length ? s.replicaSets : []) {
    const key = `${rs.metadata?.namespace}/${rs.metadata?.name}`;
    if (!named.has(key)) continue;
    const owner = rs.metadata?.ownerReferences?.find((o) => o.kind === 'Deployment');
    if (owner?.name) rsOwner.set(key, owner.name);
  }
  for (const d of s.deployments) {
    if (!hasControllerLabel(d.metadata?.labels) && !hasControllerLabel(d.spec?.template?.metadata?.labels)) continue;
    const ns = d.metadata?.namespace ?? 'default';
    byKey.set(`${ns}/${d.metadata?.name}`, {
      namespace: ns,
      deploymentName: d.metadata?.name,
      deployment: d,
      pods: [],
      readyPods: 0,
    });
  }
  for (const p of pods) {
    const ns = p.metadata?.namespace ?? 'default';
    const deploymentName = deploymentOf(p, rsOwner) ?? matchingDeployment(p, byKey.values());
    const key = `${ns}/${deploymentName ?? ''}`;
    let info = byKey.get(key);
    if (!info) {
      info = { namespace: ns, deploymentName, deployment: undefined, pods: [], readyPods: 0 };
      byKey.set(key, info);
    }
    info.pods.push(p);
    if (isPodReady(p)) info.readyPods += 1;
  }
  return [...byKey.values()];
}

function replicaSetOf(pod: Pod): string | undefined {
  return pod.metadata?.ownerReferences?.find((o) => o.kind === 'ReplicaSet')?.name;
}

/** `namespace/name` of the pod's ReplicaSet, as rsOwner keys it. */
function replicaSetKeyOf(pod: Pod): string {
  return `${pod.metadata?.namespace}/${replicaSetOf(pod)}`;
}

/** Pod → ReplicaSet → Deployment; without ReplicaSets, strip the pod-template-hash suffix. */
function deploymentOf(pod: Pod, rsOwner: Map<string, string>): string | undefined {
  const rs = replicaSetOf(pod);
  if (!rs) return undefined;
  const owner = rsOwner.get(replicaSetKeyOf(pod));
  if (owner) return owner;
  const hash = pod.metadata?.labels?.['pod-template-hash'];
  if (hash && rs.endsWith(`-${hash}`)) return rs.slice(0, -(hash.length + 1));
  return rs.replace(/-[a-z0-9]{8,10}$/, '');
}

function matchingDeployment(pod: Pod, infos: Iterable<ControllerInfo>): string | undefined {
  for (const info of infos) {
    if (info.namespace === pod.metadata?.namespace && selectorMatches(info.deployment?.spec?.selector, pod.metadata?.labels)) {
      return info.deploymentName;
    }
  }
  return undefined;
}
