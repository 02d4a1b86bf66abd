import type { SourceName } from '../domain/snapshot.ts';
import { isPodReady } from '../domain/kube-helpers.ts';
import type { EC2NodeClass, KubeObject, Node, NodeClaim, NodePool, Pod, WebhookConfiguration } from '../domain/kube.ts';
import { karpenterWebhookServices } from '../domain/admission-webhooks.ts';
import type { LogLine } from '../domain/aws.ts';
import type { KubeListQuery, KubernetesReader } from '../ports/kubernetes.ts';
import type { CaptureMerger } from '../snapshot/capture-merger.ts';
import { asPreviousLog, readControllerLog } from '../snapshot/controller-logs.ts';
import { classifyKubeObject } from '../snapshot/kube-objects.ts';
import type { Contribution } from '../snapshot/recognise.ts';
import { optString, type JsonRecord } from '../domain/shape.ts';
import { mapBounded, settled, slots, type Settled } from '../support/concurrency.ts';
import {
  ALL_PODS,
  CONTROLLER_PODS,
  KARPENTER_CRD_NAMES,
  KUBE_LISTS,
  LOG_TAIL_LINES,
  PENDING_PODS,
  PREVIOUS_LOG_LIMIT_BYTES,
  podsOnNode,
  endpointSlicesOf,
  MAX_WEBHOOK_SERVICES,
} from './kube-sources.ts';
import { nodesOfInterest } from './nodes-of-interest.ts';

export const KUBE_SOURCES: readonly SourceName[] = [...KUBE_LISTS.map((l) => l.source), 'pods', 'crds', 'logs', 'endpoints'];

type Gap = (source: SourceName, error: unknown) => void;
type ListedSource = (typeof KUBE_LISTS)[number]['source'];

/** Where live objects come from, in notes about those set aside. */
const KUBE_ORIGIN = 'Kubernetes API';

export interface KubeCollectOptions {
  /** When NodeClaims are judged expired. */
  now: Date;
  /** List the EC2NodeClasses even when they are not wanted themselves (the subnets to describe are theirs). */
  needNodeClasses?: boolean;
  /** Kubernetes reads in flight at once; a list holds its slot through all its pages. */
  inFlight: number;
}

export interface KubeCollection {
  /** Settles once every source wanted is merged, or a gap. Never rejects. */
  done: Promise<void>;
  /** The EC2NodeClasses as listed (the ones kept); undefined when they could not be listed or were not asked for. */
  nodeClasses: Promise<EC2NodeClass[] | undefined>;
  /** Settles once each of these sources is merged or a gap (at once for one not read). */
  settled(sources: readonly SourceName[]): Promise<void>;
}

/**
 * The lists the pods task waits on (to pick the nodes whose pods it reads: see nodesOfInterest),
 * asked for first so that they end first.
 */
const BEFORE_THE_PODS_OF_NODES: readonly SourceName[] = ['nodes', 'nodeclaims', 'nodepools'];

/**
 * The long lists the pods of nodes wait on, classified page by page as they come, so that little
 * is left to do when their last page comes. NodePools and EC2NodeClasses come in one page (a
 * last page is classified once read either way); the others are not waited on.
 */
const WAITED_ON: readonly SourceName[] = ['nodes', 'nodeclaims'];

/**
 * The Kubernetes side of a live scan: every read starts at once, at most `inFlight` of them in
 * flight (slots), in this order: the Pending and controller pods, the Nodes, NodeClaims and
 * NodePools, the other lists, the CRDs. A read that waits on others (every pod, the controller's
 * logs, the pods of the nodes of interest) is asked as soon as they have answered, ahead of the
 * reads still waiting for a slot; none holds a slot while it waits.
 */
export function collectKube(
  kube: KubernetesReader,
  wanted: ReadonlySet<SourceName>,
  merger: CaptureMerger,
  gap: Gap,
  options: KubeCollectOptions,
): KubeCollection {
  const bounded = throughSlots(kube, options.inFlight);
  const needed = (source: ListedSource) =>
    wanted.has(source) ||
    (source === 'ec2nodeclasses' && options.needNodeClasses === true) ||
    (source === 'webhookconfigurations' && wanted.has('endpoints'));
  const listed = new Map<SourceName, Settled<KubeObject[] | undefined>>();
  for (const l of KUBE_LISTS) if (needed(l.source)) listed.set(l.source, settled());
  const objectsOf = async <T>(source: ListedSource) => ((await listed.get(source)?.promise) ?? undefined) as T[] | undefined;
  const disrupted = async () => {
    const [nodes, claims, pools] = await Promise.all([
      objectsOf<Node>('nodes'),
      objectsOf<NodeClaim>('nodeclaims'),
      objectsOf<NodePool>('nodepools'),
    ]);
    return nodesOfInterest(nodes ?? [], claims ?? [], pools ?? [], options.now);
  };
  const first = KUBE_LISTS.filter((l) => BEFORE_THE_PODS_OF_NODES.includes(l.source));
  const then = KUBE_LISTS.filter((l) => !BEFORE_THE_PODS_OF_NODES.includes(l.source));
  const readList = async (l: (typeof KUBE_LISTS)[number], result: Settled<KubeObject[] | undefined>) => {
    try {
      const lists = await Promise.all(
        l.queries.map((q) =>
          WAITED_ON.includes(l.source) ? listClassifying(bounded, q, l.source) : bounded.list(q).then((items) => ({ items })),
        ),
      );
      const contributed = classifiedAll(l.source, lists);
      if (wanted.has(l.source)) merger.add(KUBE_ORIGIN, contributed);
      result.resolve(keptObjects(contributed));
    } catch (error) {
      if (wanted.has(l.source)) gap(l.source, error);
    } finally {
      result.resolve(undefined);
    }
  };
  const reads: Promise<void>[] = [];
  // First: with the controller down, the list of every pod is the longest read of the scan.
  if (wanted.has('pods') || wanted.has('logs')) reads.push(collectPodsAndLogs(bounded, wanted, merger, gap, disrupted));
  for (const l of [...first, ...then]) {
    const result = listed.get(l.source);
    if (result) reads.push(readList(l, result));
  }
  if (wanted.has('crds')) reads.push(collectCrds(bounded, merger, gap));
  if (wanted.has('endpoints')) {
    reads.push(collectWebhookEndpoints(bounded.ahead, objectsOf<WebhookConfiguration>('webhookconfigurations'), merger, gap));
  }
  return {
    done: Promise.all(reads).then(() => undefined),
    nodeClasses: objectsOf<EC2NodeClass>('ec2nodeclasses'),
    settled: async (sources) => {
      await Promise.all(sources.map((s) => listed.get(s)?.promise));
    },
  };
}

/** The reads of a collection, each through the slots; `ahead` asks them before those already waiting. */
interface BoundedReader extends KubernetesReader {
  ahead: KubernetesReader;
  /** Reads in flight at once. */
  limit: number;
}

function throughSlots(kube: KubernetesReader, limit: number): BoundedReader {
  const inFlight = slots(limit);
  const reader = (ahead: boolean): KubernetesReader => ({
    list: (query) => inFlight(() => kube.list(query), ahead),
    get: (resource, name, namespace) => inFlight(() => kube.get(resource, name, namespace), ahead),
    podLog: (query) => inFlight(() => kube.podLog(query), ahead),
  });
  return { ...reader(false), ahead: reader(true), limit };
}

/**
 * The EndpointSlices (else Endpoints) of the Services Karpenter's admission webhooks post to, once
 * the configurations are listed: none asked when there are none (Karpenter v1 ships none).
 */
async function collectWebhookEndpoints(
  kube: KubernetesReader,
  configurations: Promise<WebhookConfiguration[] | undefined>,
  merger: CaptureMerger,
  gap: Gap,
): Promise<void> {
  const listed = await configurations;
  if (!listed) {
    gap('endpoints', 'not read: the webhook configurations naming the Services could not be listed');
    return;
  }
  try {
    const services = karpenterWebhookServices(listed).slice(0, MAX_WEBHOOK_SERVICES);
    const read = await Promise.all(
      services.map(async ({ namespace, name }) => {
        const slices = await kube.list(endpointSlicesOf(namespace, name));
        if (slices.length > 0) return slices;
        const endpoints = await kube.get('endpoints', name, namespace);
        return endpoints ? [endpoints] : [];
      }),
    );
    merger.add(KUBE_ORIGIN, contributions('endpoints', read.flat()));
  } catch (error) {
    gap('endpoints', error);
  }
}

async function collectCrds(kube: KubernetesReader, merger: CaptureMerger, gap: Gap): Promise<void> {
  try {
    const crds = await Promise.all(KARPENTER_CRD_NAMES.map((name) => kube.get('customresourcedefinitions', name)));
    merger.add(
      KUBE_ORIGIN,
      contributions(
        'crds',
        crds.filter((c) => c !== undefined),
      ),
    );
  } catch (error) {
    gap('crds', error);
  }
}

/**
 * Pending pods and the controller's own pods, in one round, then the pods of each node Karpenter
 * is terminating or wants to disrupt (none on a healthy cluster). Only when the controller is not
 * healthy are all pods read instead: judging where it could run needs every pod on every node,
 * and telling "no controller" from "not captured" needs kube-system's pods.
 *
 * What depends on the controller's pods starts as soon as they are known, not after the Pending
 * list: the list of every pod (its longest read), the per-node lists, the logs (read while the pods
 * are classified). What is merged, and every gap, stays as if the steps ran one after another:
 * a failure of the first round gaps pods and logs with its first error, then one of the pod lists
 * does; logs are merged after the pods, only when the pods were read.
 */
async function collectPodsAndLogs(
  kube: BoundedReader,
  wanted: ReadonlySet<SourceName>,
  merger: CaptureMerger,
  gap: Gap,
  disrupted: () => Promise<string[]>,
) {
  const pendingRead: Promise<Listed> = wanted.has('pods')
    ? listClassifying(kube, PENDING_PODS, 'pods')
    : Promise.resolve({ items: [] });
  const controllersRead = kube.list(CONTROLLER_PODS);
  const firstRound = Promise.all([pendingRead, controllersRead]);
  const afterControllers = controllersRead.then((controllers) => {
    const classified = contributions('pods', controllers);
    const listed: Listed = { items: controllers, classified };
    const controllerPods = keptObjects(classified) as Pod[];
    const healthy = controllerPods.length > 0 && controllerPods.every(isPodReady);
    return {
      controllers: listed,
      healthy,
      others: wanted.has('pods')
        ? healthy
          ? podsOnNodesOf(kube, disrupted)
          : listClassifying(kube.ahead, ALL_PODS, 'pods').then((all) => [all])
        : undefined,
      logs: wanted.has('logs') ? readLogs(kube.ahead, controllerPods) : undefined,
    };
  });
  // Whatever the first round's outcome, nothing started here may reject unobserved.
  void afterControllers.then(
    (started) => Promise.allSettled([started.others, started.logs]),
    () => undefined,
  );
  let started: Awaited<typeof afterControllers>;
  try {
    const [pending] = await firstRound;
    started = await afterControllers;
    if (wanted.has('pods')) {
      const others = (await started.others) ?? [];
      const lists = started.healthy ? [pending, started.controllers, ...others] : others;
      const pods = lists.flatMap((list) => list.items);
      const unique = uniqueByUid(pods);
      // No pod in two lists: the pods to merge are the lists' own, each classified as it came.
      merger.add(KUBE_ORIGIN, unique.length === pods.length ? classifiedAll('pods', lists) : contributions('pods', unique));
    }
  } catch (error) {
    if (wanted.has('pods')) gap('pods', error);
    if (wanted.has('logs')) gap('logs', error);
    return;
  }
  if (started.logs) mergeLogs(await started.logs, merger, gap);
}

/** Objects as listed, with what they contribute when that is known already (listClassifying). */
interface Listed {
  items: JsonRecord[];
  /** The contributions of exactly `items`, in their order. */
  classified?: Contribution[];
}

/**
 * A list whose pages are classified as they arrive, each once the next page has been asked for
 * (setImmediate runs after the request is sent), so the work of a long list overlaps its fetch
 * and little is left when its last page comes.
 *
 * Nothing thrown while classifying escapes from the timer (an uncaught exception ends the
 * process): the first error is kept and thrown once the list has answered, so that the source is
 * a gap, as when the last page throws.
 */
async function listClassifying(kube: KubernetesReader, query: KubeListQuery, source: SourceName): Promise<Listed> {
  const pages: (readonly JsonRecord[])[] = [];
  const seen: JsonRecord[] = [];
  const classified: Contribution[] = [{ type: 'captured', source }];
  let scheduled = false;
  let failed: { error: unknown } | undefined;
  const drain = () => {
    scheduled = false;
    for (const page of pages.splice(0)) {
      for (const item of page) seen.push(item);
      contributeTo(classified, page);
    }
  };
  const drainLater = () => {
    try {
      drain();
    } catch (error) {
      failed ??= { error };
    }
  };
  const items = await kube.list({
    ...query,
    onPage: (page) => {
      if (failed) return;
      pages.push(page);
      if (!scheduled) setImmediate(drainLater);
      scheduled = true;
    },
  });
  if (failed) throw failed.error;
  drain();
  // Only when the pages told are exactly the list (a reader that told none, or a list started over, is not).
  const told = seen.length === items.length && seen.every((item, i) => item === items[i]);
  return told ? { items, classified } : { items };
}

/**
 * What the lists of one source contribute, one after the other: each as classified when listed,
 * else classified now. The same as classifying them joined, item by item.
 */
function classifiedAll(source: SourceName, lists: readonly Listed[]): Contribution[] {
  const [only] = lists;
  if (lists.length === 1 && only?.classified) return only.classified;
  const out: Contribution[] = [{ type: 'captured', source }];
  for (const list of lists) {
    if (!list.classified) contributeTo(out, list.items);
    else for (let i = 1; i < list.classified.length; i++) out.push(list.classified[i] as Contribution);
  }
  return out;
}

/** The per-node lists, once the nodes of interest are known (their lists have started by then). */
async function podsOnNodesOf(kube: BoundedReader, disrupted: () => Promise<string[]>): Promise<Listed[]> {
  return podsOnNodes(kube, await disrupted());
}

/**
 * Past this many nodes of interest (a zone outage leaves hundreds NotReady), one paged list of every
 * pod costs fewer requests than a list per node: the live scan's requests stay bounded whatever fails.
 */
const MAX_NODE_POD_LISTS = 100;

/**
 * One paged list per node (`spec.nodeName=NODE`), each classified as it comes; past
 * MAX_NODE_POD_LISTS nodes, every pod once, kept for those nodes only, so the snapshot holds the
 * same pods either way.
 */
async function podsOnNodes(kube: BoundedReader, nodeNames: readonly string[]): Promise<Listed[]> {
  if (nodeNames.length > MAX_NODE_POD_LISTS) {
    const wanted = new Set(nodeNames);
    const all = await kube.ahead.list(ALL_PODS);
    const items = all.filter((pod) => {
      const name = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
      return typeof name === 'string' && wanted.has(name);
    });
    return [{ items }];
  }
  // No more asked at once than there are slots: after a failure, no other list is started.
  return mapBounded(nodeNames, kube.limit, async (name) => {
    const items = await kube.ahead.list(podsOnNode(name));
    return { items, classified: contributions('pods', items) };
  });
}

/** A pod read by several lists (Pending and on a node being drained) once: by uid, else by namespace and name. */
function uniqueByUid(pods: readonly JsonRecord[]): JsonRecord[] {
  const byKey = new Map<string, JsonRecord>();
  for (const pod of pods) {
    const metadata = (pod.metadata ?? {}) as { uid?: unknown; namespace?: unknown; name?: unknown };
    const key =
      typeof metadata.uid === 'string' && metadata.uid !== ''
        ? metadata.uid
        : `${String(metadata.namespace)}/${String(metadata.name)}`;
    byKey.set(key, pod);
  }
  return [...byKey.values()];
}

interface LogsRead {
  results: PromiseSettledResult<LogLine[]>[];
  previous: PromiseSettledResult<LogLine[]>[];
  cuts: string[];
}

/**
 * Logs of the running controller pods (the leader is one of them); of all of them if none runs.
 * And, of every controller pod that restarted, the previous container's log (`--previous`): why
 * it stopped (an OOM kill, a lost lease, an unreachable AWS API). One more request per restarted
 * pod, none on a healthy cluster. A previous log that cannot be read (the kubelet already removed
 * the container) costs nothing but its lines. Never rejects: each read's outcome is kept.
 */
async function readLogs(kube: KubernetesReader, pods: readonly Pod[]): Promise<LogsRead> {
  const running = pods.filter((p) => p.status?.phase === 'Running');
  const from = running.length > 0 ? running : pods;
  // A log cut at its byte limit is still evidence: its lines are kept, and the cut is noted.
  const cuts: string[] = [];
  const read = async (pod: Pod, previous: boolean) => {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const container = controllerContainer(pod);
    const text = await kube.podLog({
      namespace,
      pod: name,
      tailLines: LOG_TAIL_LINES,
      ...(container ? { container } : {}),
      ...(previous ? { previous: true, limitBytes: PREVIOUS_LOG_LIMIT_BYTES } : {}),
      onTruncated: (note) => cuts.push(note),
    });
    return previous
      ? asPreviousLog(readControllerLog(text, `${namespace}/${name} (previous)`))
      : readControllerLog(text, `${namespace}/${name}`);
  };
  const restarted = pods.filter((p) => restartsOf(p, controllerContainer(p)) > 0);
  const [results, previous] = await Promise.all([
    Promise.allSettled(from.map((pod) => read(pod, false))),
    Promise.allSettled(restarted.map((pod) => read(pod, true))),
  ]);
  return { results, previous, cuts };
}

/** The logs read, or a gap when not one current log could be read. */
function mergeLogs({ results, previous, cuts }: LogsRead, merger: CaptureMerger, gap: Gap): void {
  const failed = results.find((r) => r.status === 'rejected');
  if (failed && !results.some((r) => r.status === 'fulfilled')) {
    gap('logs', failed.reason);
    return;
  }
  merger.addLogs(
    [...previous, ...results].flatMap((r) => (r.status === 'fulfilled' ? r.value : [])),
    cuts.length > 0 ? cuts.join('; ') : undefined,
  );
}

/** The container the logs are read from: `controller` (the chart's name) when the pod has one. */
function controllerContainer(pod: Pod): string | undefined {
  return pod.spec?.containers?.find((c) => c.name === 'controller')?.name;
}

/** Restarts of that container, else of every container of the pod. */
function restartsOf(pod: Pod, container: string | undefined): number {
  const statuses = pod.status?.containerStatuses ?? [];
  const chosen = container === undefined ? statuses : statuses.filter((c) => c.name === container);
  return chosen.reduce((n, c) => n + (typeof c.restartCount === 'number' ? c.restartCount : 0), 0);
}

/** API items → what a capture file of them would contribute (checked by the same code). */
function contributions(source: SourceName, items: readonly JsonRecord[]): Contribution[] {
  return contributeTo([{ type: 'captured', source }], items);
}

/** What `items` contribute, appended to `out` (a long list's pages, one after another). */
function contributeTo(out: Contribution[], items: readonly JsonRecord[]): Contribution[] {
  for (const item of items) {
    const verdict = classifyKubeObject(item, optString(item.apiVersion) ?? '', optString(item.kind) ?? '', 'from the API');
    if (verdict.type === 'object' || verdict.type === 'event' || verdict.type === 'malformed') out.push(verdict);
  }
  return out;
}

function keptObjects(contributed: readonly Contribution[]): KubeObject[] {
  return contributed.flatMap((c) => (c.type === 'object' ? [c.object] : []));
}
