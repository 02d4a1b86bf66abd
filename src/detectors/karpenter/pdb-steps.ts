/**
 * The steps for a PodDisruptionBudget that keeps Karpenter from evicting a pod, shared by
 * NODE_TERMINATION_STUCK (a node being drained) and DISRUPTION_BLOCKED (a node Karpenter wants to
 * replace), so both print the same advice.
 *
 * A PDB created by an operator (its `metadata.ownerReferences` name a custom resource, such as a
 * CloudNativePG `Cluster` owning `<cluster>-primary`) is reconciled by that operator: a patch or a
 * delete is undone on its next pass. For such a PDB no step patches or deletes it; the steps name
 * the owner, then give the durable fix (the owner's own setting: another replica, its PDB option)
 * and the one-off (delete the pod, which the eviction API's budgets do not govern, so it
 * reschedules), never a change that will not hold. A PDB owned by a built-in workload kind is only
 * tied to it for garbage collection: nothing reconciles it, so the usual steps apply.
 */
import { commandStep } from '../../domain/finding.ts';
import type { Pod, PodDisruptionBudget } from '../../domain/kube.ts';
import { shellJson, shellQuote, shellWords } from '../../domain/shell.ts';
import { selectorArg } from '../../domain/kube-helpers.ts';
import type { MultiplePdbs, PdbBlock } from './eviction-blockers.ts';

const q = shellQuote;

/** API groups of Kubernetes itself: an owner from these does not reconcile PDBs. */
const BUILT_IN_GROUPS = new Set(['', 'apps', 'batch', 'policy']);

/** The custom resource whose operator reconciles a PDB. */
export interface PdbOwner {
  kind: string;
  name: string;
  /** API group (`postgresql.cnpg.io`), from the owner reference's apiVersion. */
  group: string;
}

/** The operator-managed owner of the PDB (the controller reference first), or undefined. */
export function operatorOwner(pdb: PodDisruptionBudget): PdbOwner | undefined {
  const refs = pdb.metadata?.ownerReferences ?? [];
  const ordered = [...refs.filter((r) => r.controller === true), ...refs.filter((r) => r.controller !== true)];
  for (const r of ordered) {
    const apiVersion = r.apiVersion ?? '';
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    if (r.kind && r.name && !BUILT_IN_GROUPS.has(group)) return { kind: r.kind, name: r.name, group };
  }
  return undefined;
}

/** `Cluster notifications-db (postgresql.cnpg.io)`. */
function describeOwner(o: PdbOwner): string {
  return `${o.kind} ${o.name} (${o.group})`;
}

/** The sentence that says a PDB is operator-managed, for a finding's detail; '' when it is not. */
export function ownerNote(pdbs: readonly PodDisruptionBudget[]): string {
  const owned = pdbs.flatMap((p) => {
    const o = operatorOwner(p);
    return o ? [`${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? '?'} is managed by ${describeOwner(o)}`] : [];
  });
  if (owned.length === 0) return '';
  return ` ${owned.join('; ')}: its operator reconciles it, so a patch or delete of the PDB is reverted; change the owner's setting instead.`;
}

/** `kubectl get cluster.postgresql.cnpg.io -n NS NAME`: the owner, by kind and group. */
function ownerResource(o: PdbOwner): string {
  return q(`${o.kind.toLowerCase()}.${o.group}`);
}

/** The look at the owner, by kind and group: its spec holds the setting that shapes the PDB. */
function ownerLookStep(ns: string, o: PdbOwner, why: string): string {
  return commandStep(why, `kubectl get ${ownerResource(o)} -n ${q(ns)} ${q(o.name)} -o yaml`);
}

/** The durable fix through the owner, for the operators whose setting is known; else the look at the owner. */
function ownerFixSteps(ns: string, o: PdbOwner): string[] {
  const look = ownerLookStep(
    ns,
    o,
    `the PDB is managed by ${describeOwner(o)}: a patch or delete of it is reverted. The durable fix is the owner's own setting (more replicas or instances, or its option to turn the PDB off); if Helm or GitOps owns ${o.kind} ${o.name}, set it there`,
  );
  if (o.group !== 'postgresql.cnpg.io' || o.kind !== 'Cluster') return [look];
  // CloudNativePG: its `<cluster>-primary` PDB never allows the primary's eviction; with a second
  // instance the operator switches the primary over when its node drains, and `enablePDB: false`
  // drops the PDBs of a cluster allowed to stop during node maintenance.
  return [
    look,
    commandStep(
      `durable: give ${o.kind} ${o.name} a second instance; on a drain CloudNativePG switches the primary over to it`,
      `kubectl patch ${ownerResource(o)} -n ${q(ns)} ${q(o.name)} --type merge -p ${shellJson({ spec: { instances: 2 } })}`,
    ),
    commandStep(
      `or, if this database may stop during node maintenance, let CloudNativePG drop its PDBs`,
      `kubectl patch ${ownerResource(o)} -n ${q(ns)} ${q(o.name)} --type merge -p ${shellJson({ spec: { enablePDB: false } })}`,
    ),
  ];
}

/** The workload that owns a pod, as `kubectl scale` names it: Deployment (via its ReplicaSet) or StatefulSet. */
function scalable(pod: Pod): { kind: 'deployment' | 'statefulset'; name: string } | undefined {
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller !== false && o.kind && o.name);
  if (!owner?.name) return undefined;
  if (owner.kind === 'StatefulSet') return { kind: 'statefulset', name: owner.name };
  if (owner.kind !== 'ReplicaSet') return undefined;
  const hash = pod.metadata?.labels?.['pod-template-hash'];
  const name =
    hash && owner.name.endsWith(`-${hash}`)
      ? owner.name.slice(0, -(hash.length + 1))
      : owner.name.replace(/-[a-z0-9]{8,10}$/, '');
  return { kind: 'deployment', name };
}

/** A pod something recreates when deleted (a controller owns it): only such a pod is safe to delete to move it. */
function recreated(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.controller === true || o.kind === 'ReplicaSet');
}

function deletePodSteps(pods: readonly Pod[]): string[] {
  return pods
    .filter(recreated)
    .slice(0, 3)
    .map((pod) => {
      const ns = pod.metadata?.namespace ?? 'default';
      const name = pod.metadata?.name ?? '?';
      return commandStep(
        `one-off, only once ${ns}/${name} may be down until it restarts elsewhere: delete it (a delete is not an eviction, the PDB does not hold it) and its owner recreates it on another node`,
        `kubectl delete pod -n ${q(ns)} ${q(name)}`,
      );
    });
}

/** The look at one PDB: `-o yaml` shows its selector, status and ownerReferences. */
export function pdbInspectStep(ns: string, name: string, why: string): string {
  return commandStep(why, `kubectl get pdb -n ${q(ns)} ${q(name)} -o yaml`);
}

/** Steps for PDBs that allow no disruption, each with the pods it holds. */
export function blockingPdbSteps(blocks: readonly PdbBlock[]): string[] {
  return blocks.slice(0, 3).flatMap(({ pdb, pods }) => {
    const ns = pdb.metadata?.namespace ?? 'default';
    const name = pdb.metadata?.name ?? '?';
    const selector = selectorArg(pdb.spec?.selector);
    const look = [
      pdbInspectStep(
        ns,
        name,
        `PDB ${ns}/${name}: disruptionsAllowed 0 refuses every eviction (its owner, if any, under ownerReferences)`,
      ),
      commandStep(
        'the pods it holds on the node',
        `kubectl get pods -n ${q(ns)} ${shellWords(pods.slice(0, 20).map((p) => p.metadata?.name ?? '?'))} -o wide`,
      ),
      ...(selector === undefined
        ? []
        : [
            commandStep(
              'every pod it counts (a pod not Ready counts against it)',
              `kubectl get pods -n ${q(ns)}${selector ? ` -l ${q(selector)}` : ''} -o wide`,
            ),
          ]),
    ];
    const owner = operatorOwner(pdb);
    if (owner) return [...look, ...ownerFixSteps(ns, owner), ...deletePodSteps(pods)];
    const workload = pods.map(scalable).find((w) => w !== undefined);
    const replicas = Math.max(2, (pdb.status?.expectedPods ?? 1) + 1);
    const helm = pdb.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'Helm';
    return [
      ...look,
      ...(workload
        ? [
            commandStep(
              `a way out: run one more replica of ${workload.kind} ${ns}/${workload.name} so the budget allows an eviction (if Helm or GitOps owns it, set it there)`,
              `kubectl scale ${workload.kind} -n ${q(ns)} ${q(workload.name)} --replicas=${replicas}`,
            ),
          ]
        : []),
      commandStep(
        `or let the budget allow one pod at a time (minAvailable equal to the replicas never allows any)${helm ? "; Helm manages this PDB: set it in the chart's values too, or the next upgrade reverts it" : ''}`,
        `kubectl patch pdb -n ${q(ns)} ${q(name)} --type merge -p ${shellJson({ spec: { minAvailable: null, maxUnavailable: 1 } })}`,
      ),
    ];
  });
}

/** Steps for pods that more than one PDB selects: keep one budget per pod, never deleting an operator's. */
export function multiplePdbSteps(items: readonly MultiplePdbs[]): string[] {
  return items.slice(0, 3).flatMap(({ pod, pdbs }) => {
    const ns = pod.metadata?.namespace ?? 'default';
    const podName = pod.metadata?.name ?? '?';
    const names = pdbs.map((p) => p.metadata?.name ?? '?');
    const owned = pdbs.filter((p) => operatorOwner(p) !== undefined);
    const free = pdbs.filter((p) => operatorOwner(p) === undefined);
    const keep = owned[0] ?? free[0];
    const deletable = free.filter((p) => p !== keep).map((p) => p.metadata?.name ?? '?');
    const look = [
      commandStep(
        `the PDBs selecting pod ${ns}/${podName}: the eviction API refuses a pod more than one PDB selects (their selectors and owners)`,
        `kubectl get pdb -n ${q(ns)} ${shellWords(names)} -o yaml`,
      ),
      commandStep(`the pod's labels`, `kubectl get pod -n ${q(ns)} ${q(podName)} --show-labels`),
    ];
    const ownerLooks = owned.flatMap((p) => {
      const o = operatorOwner(p);
      if (!o) return [];
      const why =
        owned.length > 1
          ? `PDB ${p.metadata?.name ?? '?'} is managed by ${describeOwner(o)} (a delete is reverted): change the owners' settings so that one PDB selects the pod`
          : `keep PDB ${p.metadata?.name ?? '?'}: it is managed by ${describeOwner(o)}, a delete is reverted`;
      return [ownerLookStep(ns, o, why)];
    });
    return [
      ...look,
      ...ownerLooks,
      ...(owned.length <= 1 && deletable.length
        ? [
            commandStep(
              `keep one budget per pod: ${owned.length ? `keep the operator's ${keep?.metadata?.name ?? '?'} and narrow the others' selectors off this pod, or` : `merge them into ${keep?.metadata?.name ?? 'one'} (or narrow their selectors), then`} delete the others`,
              `kubectl delete pdb -n ${q(ns)} ${shellWords(deletable)}`,
            ),
          ]
        : []),
    ];
  });
}

/** A PDB Karpenter's event names while the PDBs were not captured: its owner decides the fix, so look first. */
export function namedPdbSteps(ref: string): string[] {
  const slash = ref.indexOf('/');
  const [namespace, name] = slash < 0 ? ['default', ref] : [ref.slice(0, slash), ref.slice(slash + 1)];
  return [
    pdbInspectStep(
      namespace,
      name,
      `PodDisruptionBudget ${namespace}/${name}: the pods it selects, how many must stay available, and its ownerReferences (an operator's PDB is reverted if patched: change the owner's setting instead)`,
    ),
    commandStep(
      `only if it has no ownerReferences: let it allow one pod down at a time (or scale its workload up)`,
      `kubectl patch pdb -n ${q(namespace)} ${q(name)} --type merge -p ${shellJson({ spec: { minAvailable: null, maxUnavailable: 1 } })}`,
    ),
  ];
}

/** Every PDB allowing no disruption now, when the one to blame is not known. */
export function allPdbsStep(): string {
  return commandStep('The PodDisruptionBudgets that allow no disruption now (ALLOWED DISRUPTIONS 0)', 'kubectl get pdb -A');
}
