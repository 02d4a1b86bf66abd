import type { SourceName } from '../domain/snapshot.ts';
import { isPodReady } from '../domain/kube-helpers.ts';
import type { KubeObject, Pod } from '../domain/kube.ts';
import type { KubernetesReader } from '../ports/kubernetes.ts';
import type { CaptureMerger } from '../snapshot/capture-merger.ts';
import { readControllerLog } from '../snapshot/controller-logs.ts';
import { classifyKubeObject } from '../snapshot/kube-objects.ts';
import type { Contribution } from '../snapshot/recognise.ts';
import type { JsonRecord } from '../domain/shape.ts';
import { ALL_PODS, CONTROLLER_PODS, KARPENTER_CRD_NAMES, KUBE_LISTS, LOG_TAIL_LINES, PENDING_PODS } from './kube-sources.ts';

export const KUBE_SOURCES: readonly SourceName[] = [...KUBE_LISTS.map((l) => l.source), 'pods', 'crds', 'logs'];

type Gap = (source: SourceName, error: unknown) => void;

/** Where live objects come from, in notes about those set aside. */
const KUBE_ORIGIN = 'Kubernetes API';

/** One task per Kubernetes source wanted; pods and logs share one (logs need the controller's pods). */
export function collectKube(
  kube: KubernetesReader,
  wanted: ReadonlySet<SourceName>,
  merger: CaptureMerger,
  gap: Gap,
): (() => Promise<void>)[] {
  const tasks = KUBE_LISTS.filter((l) => wanted.has(l.source)).map((l) => async () => {
    try {
      const items = (await Promise.all(l.queries.map((q) => kube.list(q)))).flat();
      merger.add(KUBE_ORIGIN, contributions(l.source, items));
    } catch (error) {
      gap(l.source, error);
    }
  });
  if (wanted.has('crds')) tasks.push(() => collectCrds(kube, merger, gap));
  if (wanted.has('pods') || wanted.has('logs')) tasks.push(() => collectPodsAndLogs(kube, wanted, merger, gap));
  return tasks;
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
 * Pending pods and the controller's own pods, in one round. Only when the controller is not
 * healthy are all pods read: judging where it could run needs every pod on every node, and
 * telling "no controller" from "not captured" needs kube-system's pods.
 */
async function collectPodsAndLogs(kube: KubernetesReader, wanted: ReadonlySet<SourceName>, merger: CaptureMerger, gap: Gap) {
  let controllerPods: Pod[];
  try {
    const [pending, controllers] = await Promise.all([
      wanted.has('pods') ? kube.list(PENDING_PODS) : Promise.resolve([]),
      kube.list(CONTROLLER_PODS),
    ]);
    controllerPods = keptObjects(contributions('pods', controllers)) as Pod[];
    if (wanted.has('pods')) {
      const healthy = controllerPods.length > 0 && controllerPods.every(isPodReady);
      merger.add(KUBE_ORIGIN, contributions('pods', healthy ? [...pending, ...controllers] : await kube.list(ALL_PODS)));
    }
  } catch (error) {
    if (wanted.has('pods')) gap('pods', error);
    if (wanted.has('logs')) gap('logs', error);
    return;
  }
  if (wanted.has('logs')) await collectLogs(kube, controllerPods, merger, gap);
}

/** Logs of the running controller pods (the leader is one of them); of all of them if none runs. */
async function collectLogs(kube: KubernetesReader, pods: readonly Pod[], merger: CaptureMerger, gap: Gap) {
  const running = pods.filter((p) => p.status?.phase === 'Running');
  const from = running.length > 0 ? running : pods;
  const results = await Promise.allSettled(
    from.map(async (pod) => {
      const namespace = pod.metadata?.namespace ?? '';
      const name = pod.metadata?.name ?? '';
      const container = pod.spec?.containers?.find((c) => c.name === 'controller')?.name;
      const text = await kube.podLog({ namespace, pod: name, tailLines: LOG_TAIL_LINES, ...(container ? { container } : {}) });
      return readControllerLog(text, `${namespace}/${name}`);
    }),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed && !results.some((r) => r.status === 'fulfilled')) {
    gap('logs', failed.reason);
    return;
  }
  merger.addLogs(results.flatMap((r) => (r.status === 'fulfilled' ? r.value : [])));
}

/** API items → what a capture file of them would contribute (checked by the same code). */
function contributions(source: SourceName, items: readonly JsonRecord[]): Contribution[] {
  const out: Contribution[] = [{ type: 'captured', source }];
  for (const item of items) {
    const verdict = classifyKubeObject(item, String(item.apiVersion ?? ''), String(item.kind ?? ''), 'from the API');
    if (verdict.type === 'kept') out.push({ type: 'object', source: verdict.source, object: verdict.object, key: verdict.key });
    else if (verdict.type === 'event') out.push({ type: 'event', event: verdict.event, key: verdict.key });
    else if (verdict.type === 'malformed') out.push(verdict);
  }
  return out;
}

function keptObjects(contributed: readonly Contribution[]): KubeObject[] {
  return contributed.flatMap((c) => (c.type === 'object' ? [c.object] : []));
}
