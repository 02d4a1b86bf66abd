/**
 * The Kubernetes objects the cleanup reads, typed by checking them rather than by a cast: each is
 * held to its kind's shape (src/domain/object-shapes.ts, the check every captured and collected
 * object passes), and NodePools and NodeClaims must be named. An object that fails is set aside
 * with a line saying what is wrong with it, never read as if it were right; on this path a
 * misread object could mean deleting the wrong thing.
 */
import type { EC2NodeClass, NodeClaim, NodePool, Pod } from '../domain/kube.ts';
import type { KubeListQuery, KubernetesReader } from '../ports/kubernetes.ts';
import { describeProblem, typeOf, type ShapeProblem } from '../domain/json-checks.ts';
import { KUBE_SHAPES } from '../domain/object-shapes.ts';

export interface CheckedList<T> {
  /** The objects that passed their check, in list order. */
  objects: T[];
  /** One line per object set aside: `NodePool spot (items[2]): spec.limits is a list, expected an object`. */
  setAside: string[];
  /** Names of the objects set aside, where they have one that reads. */
  setAsideNames: string[];
}

export function listNodePools(kube: KubernetesReader): Promise<CheckedList<NodePool>> {
  return listChecked<NodePool>(kube, { resource: 'nodepools' }, 'NodePool', true);
}

export function listNodeClaims(kube: KubernetesReader): Promise<CheckedList<NodeClaim>> {
  return listChecked<NodeClaim>(kube, { resource: 'nodeclaims' }, 'NodeClaim', true);
}

/** The EC2NodeClasses: the roles and instance profiles Karpenter's profiles must match (docs/cleanup.md, step 4). */
export function listNodeClasses(kube: KubernetesReader): Promise<CheckedList<EC2NodeClass>> {
  return listChecked<EC2NodeClass>(kube, { resource: 'ec2nodeclasses' }, 'EC2NodeClass', true);
}

/** Pods of `query` (its namespace and selectors; the resource is always pods). */
export function listPods(kube: KubernetesReader, query: Omit<KubeListQuery, 'resource'>): Promise<CheckedList<Pod>> {
  return listChecked<Pod>(kube, { ...query, resource: 'pods' }, 'Pod', false);
}

async function listChecked<T>(
  kube: KubernetesReader,
  query: KubeListQuery & { resource: 'nodepools' | 'nodeclaims' | 'ec2nodeclasses' | 'pods' },
  kind: string,
  nameRequired: boolean,
): Promise<CheckedList<T>> {
  const items: unknown[] = await kube.list(query);
  const check = KUBE_SHAPES[query.resource];
  const list: CheckedList<T> = { objects: [], setAside: [], setAsideNames: [] };
  items.forEach((item, i) => {
    const problem = problemOf(item, check, nameRequired);
    if (!problem) {
      list.objects.push(item as T);
      return;
    }
    const name = nameOf(item);
    if (name !== undefined) list.setAsideNames.push(name);
    const which = name === undefined ? `items[${i}]` : `${JSON.stringify(name).slice(1, -1).slice(0, 80)} (items[${i}])`;
    list.setAside.push(`${kind} ${which} set aside: ${describeProblem(problem)}`);
  });
  return list;
}

function problemOf(
  item: unknown,
  check: ((value: unknown) => ShapeProblem | undefined) | undefined,
  nameRequired: boolean,
): ShapeProblem | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return { path: [], got: typeOf(item), expected: 'an object' };
  }
  const problem = check?.(item);
  if (problem) return problem;
  if (nameRequired && !nameOf(item)) return { path: ['metadata', 'name'], got: 'missing', expected: 'a name' };
  return undefined;
}

function nameOf(item: unknown): string | undefined {
  const metadata = (item as { metadata?: unknown } | null)?.metadata;
  const name = typeof metadata === 'object' && metadata !== null ? (metadata as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}
