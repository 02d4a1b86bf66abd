/**
 * kubectl fetching what a live scan fetches: the collector's own queries (src/collect/kube-sources.ts),
 * one `kubectl get ... -o json` each, run one after another as a person or a script would, output
 * to /dev/null.
 */
import { execFile, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import {
  ALL_PODS,
  CONTROLLER_PODS,
  KARPENTER_CRD_NAMES,
  KUBE_LISTS,
  LOG_TAIL_LINES,
  PENDING_PODS,
} from '../src/collect/kube-sources.ts';
import { CONTROLLER_SELECTOR } from '../src/domain/snapshot-index.ts';
import { KUBE_RESOURCES, type KubeListQuery, type KubeResourceName } from '../src/ports/kubernetes.ts';

export const KUBECTL = '/usr/bin/kubectl';

/** One command, named as the scan's call for the same objects is named (see live.ts). */
export interface FetchStep {
  label: string;
  args: string[];
}

/** Where kubectl runs: its kubeconfig, its discovery cache, and a HOME of its own (nothing of the user's is read). */
export interface KubectlEnvironment {
  kubectl: string;
  kubeconfig: string;
  cacheDir: string;
  home: string;
}

export interface KubectlTiming {
  label: string;
  ms: number;
}

export const CRDS_LABEL = `customresourcedefinitions (${KARPENTER_CRD_NAMES.length} by name)`;
export const LOG_LABEL = `controller log --tail ${LOG_TAIL_LINES}`;

/** `pods status.phase=Pending`, `configmaps kube-system metadata.name=aws-auth`. */
export function queryLabel(query: KubeListQuery): string {
  return [query.resource, query.namespace, query.labelSelector, query.fieldSelector].filter((p) => p !== undefined).join(' ');
}

/** The step of the lists of one node's pods (one per node of interest), named once for all of them. */
export const NODE_PODS_LABEL = 'pods spec.nodeName=… (one list per node of interest)';
/** The step of the previous containers' logs (one per restarted controller pod). */
export const PREVIOUS_LOG_LABEL = `controller log --previous --tail ${LOG_TAIL_LINES}`;

/** A list's step: its query, except the per-node pod lists, which share one step. */
export function listLabel(query: KubeListQuery): string {
  return query.resource === 'pods' && query.fieldSelector?.startsWith('spec.nodeName=') ? NODE_PODS_LABEL : queryLabel(query);
}

/**
 * `plural.version.group` outside the core group: exactly the API the collector reads (`events` alone
 * would be core/v1's), and resolved from the discovery cache at once. kubectl reads `plural.group`
 * as `plural.version.group` first, so `nodeclaims.karpenter.sh` would miss and refetch all of
 * discovery on every command.
 */
function kubectlResource(resource: KubeResourceName): string {
  const { group, version } = KUBE_RESOURCES[resource];
  return group === '' ? resource : `${resource}.${version}.${group}`;
}

export function kubectlGetArgs(query: KubeListQuery): string[] {
  const scope = KUBE_RESOURCES[query.resource].namespaced ? (query.namespace ? ['-n', query.namespace] : ['-A']) : [];
  return [
    'get',
    kubectlResource(query.resource),
    ...scope,
    ...(query.labelSelector ? ['-l', query.labelSelector] : []),
    ...(query.fieldSelector ? ['--field-selector', query.fieldSelector] : []),
    '-o',
    'json',
  ];
}

/**
 * What the collector reads from a cluster whose controller is healthy (so Pending pods, not all
 * pods): its lists, the three CRDs (one command), and the controller's log by label (kubectl
 * needs the namespace for that; the collector finds the pods across namespaces).
 */
export function kubectlFetchPlan(controllerNamespace: string): FetchStep[] {
  const lists = [PENDING_PODS, CONTROLLER_PODS, ...KUBE_LISTS.flatMap((l) => l.queries)];
  return [
    ...lists.map((query) => ({ label: queryLabel(query), args: kubectlGetArgs(query) })),
    { label: CRDS_LABEL, args: ['get', kubectlResource('customresourcedefinitions'), ...KARPENTER_CRD_NAMES, '-o', 'json'] },
    {
      label: LOG_LABEL,
      args: ['logs', '-n', controllerNamespace, '-l', CONTROLLER_SELECTOR, '-c', 'controller', `--tail=${LOG_TAIL_LINES}`],
    },
  ];
}

/** `kubectl get pods -A -o json`: every pod, for context (the collector does not read them on a healthy cluster). */
export const ALL_PODS_STEP: FetchStep = { label: 'pods (all)', args: kubectlGetArgs(ALL_PODS) };

/** Wall time of one kubectl process, spawn to exit; rejects with its last stderr line when it fails. */
export function runKubectl(env: KubectlEnvironment, step: FetchStep): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(env.kubectl, ['--kubeconfig', env.kubeconfig, '--cache-dir', env.cacheDir, ...step.args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, HOME: env.home, KUBECONFIG: env.kubeconfig },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`kubectl ${step.args.join(' ')}: exit ${signal ?? code}: ${stderr.trim().split('\n').at(-1) ?? ''}`));
    });
  });
}

export async function runKubectlSequence(env: KubectlEnvironment, steps: readonly FetchStep[]): Promise<KubectlTiming[]> {
  const timings: KubectlTiming[] = [];
  for (const step of steps) timings.push({ label: step.label, ms: await runKubectl(env, step) });
  return timings;
}

export async function kubectlVersion(kubectl: string): Promise<string> {
  const { stdout } = await promisify(execFile)(kubectl, ['version', '--client', '-o', 'json'], { timeout: 30_000 });
  const parsed = JSON.parse(stdout) as { clientVersion?: { gitVersion?: string } };
  return parsed.clientVersion?.gitVersion ?? 'unknown';
}
