/**
 * The live path: the synthetic cluster served by the simulator (fake Kubernetes API server over
 * HTTPS on 127.0.0.1) in one process, scanned by `scanCluster` in another, so that the scan's
 * memory is its own. The two share a directory: the kubeconfig (kubectl uses the same one), the
 * in-memory AWS account's records, and what the scan needs to know of the cluster.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { connectWithKubeconfig } from '../src/adapters/kubernetes/connect.ts';
import type { KubernetesApi } from '../src/adapters/kubernetes/kubernetes-api.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../src/domain/settings.ts';
import { emptySnapshot, SOURCE_NAMES, type ClusterSnapshot } from '../src/domain/snapshot.ts';
import type { KubernetesPort } from '../src/ports/kubernetes.ts';
import { inMemoryAws } from '../src/simulator/in-memory-aws.ts';
import { simulateSnapshot } from '../src/simulator/simulation.ts';
import { hasControllerLabel } from '../src/domain/snapshot-index.ts';
import type { ClusterConnection } from '../src/ports/cluster.ts';
import { scanCluster } from '../src/usecases/scan-cluster.ts';
import { analyze } from '../src/usecases/analyze.ts';
import { DISRUPTED_TAINT_KEY, nodesOfInterest } from '../src/collect/nodes-of-interest.ts';
import { isConditionTrue } from '../src/domain/kube-helpers.ts';
import { CRDS_LABEL, LOG_LABEL, PREVIOUS_LOG_LABEL, listLabel, type KubectlTiming } from './kubectl.ts';
import { countsOf, digest, type ClusterCounts, type ReportDigest } from './measure.ts';
import { startRssSampler } from './rss-sampler.ts';
import { resolveOptions, syntheticCluster } from './synthetic-cluster.ts';
import { takeControllerDown } from './synthetic/controller-down.ts';
import { writeFloorTarget, type FloorRun } from './floor.ts';

export const KUBECONFIG_FILE = 'kubeconfig';
const AWS_FILE = 'aws.json';
const SCAN_FILE = 'scan.json';
/** The snapshot the last scan built (v8.serialize), for the cold analysis that follows it. */
const LIVE_SNAPSHOT_FILE = 'live-snapshot.bin';
/** The kubeconfig context (and cluster and user) name. */
const CONTEXT = 'simulator';

/** Requests the simulated API server received and response body bytes it sent (uncompressed: it does not gzip). */
export interface RequestStats {
  requests: number;
  bytes: number;
}

/** The nodes whose pods a live scan lists one by one (src/collect/nodes-of-interest.ts), by why. */
export interface NodesOfInterest {
  total: number;
  /** Being deleted or tainted `karpenter.sh/disrupted` (the Node or its NodeClaim). */
  terminating: number;
  /** Their NodeClaim `Drifted=True`. */
  drifted: number;
  /** Registered, not initialised. */
  uninitialized: number;
  /** Past their NodePool's `expireAfter`. */
  expired: number;
}

export interface LiveServerInfo {
  counts: ClusterCounts;
  nodesOfInterest: NodesOfInterest;
  /** Where the controller's pods run (`kubectl logs -n` needs it). */
  controllerNamespace: string;
  generateMs: number;
  /** Seeding the simulator's store (every object serialised once) and starting the server. */
  startMs: number;
  /** The server process, holding the store (and the generated snapshot), after GC. */
  rss: number;
}

export interface LiveServer {
  info: LiveServerInfo;
  /** The counts since the last call. */
  takeStats(): RequestStats;
  /** The requests received since the last call (`GET /api/v1/pods?limit=500`), in order: what the floor sends again. */
  takeRequests(): string[];
  close(): Promise<void>;
}

/** One step of the scan's fetch: the calls for the same objects as one kubectl command. */
export interface ScanStep {
  label: string;
  /** First call sent → last answer, ms after the scan started (calls run concurrently). */
  startMs: number;
  endMs: number;
  calls: number;
  items: number;
}

export interface LiveScan {
  /** `scanCluster`, dry run: collect (AWS + Kubernetes) → detect → plan → report. */
  scanMs: number;
  /** Process start → measurement entered: Node.js boot and loading the modules (the bench's own included). */
  loadedMs: number;
  /** Process start → scan done: boot, modules, the in-memory AWS account, the scan. */
  processMs: number;
  /** Scan start → the last Kubernetes answer; the rest is merging what came last and the analysis. */
  lastAnswerMs: number;
  steps: ScanStep[];
  /** AWS calls the scan made (answered in memory), by operation: `DescribeSubnets` 1, …. */
  awsCalls: Record<string, number>;
  /** RSS before the scan (modules loaded, the in-memory AWS account built, after GC). */
  rssBefore: number;
  /** Highest RSS sampled (every 1 ms) while the scan ran. */
  peakRss: number;
  /** `process.resourceUsage().maxRSS` after the scan. */
  maxRss: number;
  report: ReportDigest;
}

/** One `analyze` of a scan's snapshot in a fresh process: what a scan pays after its last answer at the least. */
export interface ColdAnalysis {
  /** The first analysis in the process (the scan's process has run some shared helpers while collecting). */
  analysisMs: number;
  report: ReportDigest;
}

export interface LiveResults {
  server: LiveServerInfo;
  kubectlVersion: string;
  warmup: number;
  scans: LiveScan[];
  scanStats: RequestStats[];
  /** Each scan's requests sent again after it by a raw client (bench/floor.ts). */
  floors: FloorRun[];
  floorStats: RequestStats[];
  /** Before or after each floor (floorOrder), the same requests by the keeping floor (every parsed answer held to the end). */
  keepingFloors: FloorRun[];
  keepingFloorStats: RequestStats[];
  /** After both, the scan's snapshot analysed once in a fresh process. */
  coldAnalyses: ColdAnalysis[];
  /** The same cluster with its controller down (every pod listed); undefined until measured. */
  controllerDown: ControllerDownResults | undefined;
  /** Each run with a fresh `--cache-dir` (discovery fetched by its first command). */
  kubectlCold: KubectlTiming[][];
  kubectlColdStats: RequestStats[];
  /** Each run with the cache dir the runs before filled. */
  kubectlWarm: KubectlTiming[][];
  kubectlWarmStats: RequestStats[];
  /** `kubectl get pods -A -o json`, warm cache. */
  allPodsMs: number[];
  allPodsStats: RequestStats[];
}

/** The controller-down scenario: scans and their floors, interleaved, against a server of its own. */
export interface ControllerDownResults {
  server: LiveServerInfo;
  scans: LiveScan[];
  scanStats: RequestStats[];
  floors: FloorRun[];
  floorStats: RequestStats[];
  keepingFloors: FloorRun[];
  keepingFloorStats: RequestStats[];
  coldAnalyses: ColdAnalysis[];
}

const gc = (globalThis as { gc?: () => void }).gc;

interface ScanSetup {
  clusterName: string;
  now: string;
}

/**
 * Server process: generates the cluster (with its controller down if asked: synthetic/controller-down.ts),
 * serves it, and writes what the scan, the floor and kubectl need into `dir`.
 */
export async function startLiveServer(scale: number, dir: string, controllerDown = false): Promise<LiveServer> {
  let started = performance.now();
  const generated = syntheticCluster({ scale });
  const seed = controllerDown ? takeControllerDown(generated) : generated;
  const generateMs = performance.now() - started;
  started = performance.now();
  const simulation = await simulateSnapshot(seed);
  const startMs = performance.now() - started;
  const { kubeApi } = simulation;
  writeFileSync(join(dir, KUBECONFIG_FILE), kubeApi.kubeconfig({ name: CONTEXT }), { mode: 0o600 });
  writeFileSync(join(dir, AWS_FILE), JSON.stringify(awsRecords(seed)));
  writeFileSync(join(dir, SCAN_FILE), JSON.stringify({ clusterName: seed.clusterName, now: resolveOptions({ scale }).now }));
  writeFloorTarget(dir, { url: kubeApi.url, caPem: kubeApi.caPem, token: kubeApi.token });
  const controllerNamespace = seed.pods.find((p) => hasControllerLabel(p.metadata?.labels))?.metadata?.namespace ?? 'karpenter';
  gc?.();
  kubeApi.stats.reset();
  let stopRecording = kubeApi.recordRequests();
  return {
    info: {
      counts: countsOf(seed),
      nodesOfInterest: nodesOfInterestOf(seed, new Date(resolveOptions({ scale }).now)),
      controllerNamespace,
      generateMs,
      startMs,
      rss: process.memoryUsage.rss(),
    },
    takeStats() {
      const stats = { requests: kubeApi.stats.requests, bytes: kubeApi.stats.bytesSent };
      kubeApi.stats.reset();
      return stats;
    },
    takeRequests() {
      const requests = stopRecording();
      stopRecording = kubeApi.recordRequests();
      return requests;
    },
    close: () => simulation.close(),
  };
}

/**
 * The nodes a live scan of `s` lists the pods of, by the first reason that applies: terminating,
 * drifted, uninitialised, expired.
 */
export function nodesOfInterestOf(s: ClusterSnapshot, now: Date): NodesOfInterest {
  const names = nodesOfInterest(s.nodes, s.nodeClaims, s.nodePools, now);
  const nodes = new Map(s.nodes.map((n) => [n.metadata?.name, n]));
  const claims = new Map(s.nodeClaims.map((c) => [c.status?.nodeName, c]));
  const counts: NodesOfInterest = { total: names.length, terminating: 0, drifted: 0, uninitialized: 0, expired: 0 };
  for (const name of names) {
    const node = nodes.get(name);
    const claim = claims.get(name);
    const tainted = (node?.spec?.taints ?? []).some((t) => t.key === DISRUPTED_TAINT_KEY || t.key === 'karpenter.sh/disruption');
    if (node?.metadata?.deletionTimestamp || claim?.metadata?.deletionTimestamp || tainted) counts.terminating += 1;
    else if (isConditionTrue(claim, 'Drifted')) counts.drifted += 1;
    else if (isConditionTrue(claim, 'Registered') && !isConditionTrue(claim, 'Initialized')) counts.uninitialized += 1;
    else counts.expired += 1;
  }
  return counts;
}

type AwsRecords = Pick<
  ClusterSnapshot,
  | 'clusterName'
  | 'cluster'
  | 'instances'
  | 'fargateProfiles'
  | 'accessEntries'
  | 'launchTemplates'
  | 'instanceProfiles'
  | 'subnets'
>;

function awsRecords(s: ClusterSnapshot): AwsRecords {
  const { clusterName, cluster, instances, fargateProfiles, accessEntries, launchTemplates, instanceProfiles, subnets } = s;
  return { clusterName, cluster, instances, fargateProfiles, accessEntries, launchTemplates, instanceProfiles, subnets };
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/**
 * Scan process: one `scanCluster` as `scan --context simulator` runs it (the kubeconfig kubectl
 * uses), AWS answered in memory (the simulator's account: there is no AWS endpoint to fetch from).
 */
export async function measureLiveScan(dir: string): Promise<LiveScan> {
  const loadedMs = performance.now();
  const setup = readJson<ScanSetup>(join(dir, SCAN_FILE));
  const aws = inMemoryAws({
    ...emptySnapshot(setup.clusterName),
    captured: new Set(SOURCE_NAMES),
    ...readJson<AwsRecords>(join(dir, AWS_FILE)),
  });
  const calls: PortCall[] = [];
  let kube: KubernetesApi | undefined;
  let timedKube: KubernetesPort | undefined;
  let origin = 0;
  const connection: ClusterConnection = {
    aws,
    async connectKube() {
      kube ??= connectWithKubeconfig({ kubeconfigPath: join(dir, KUBECONFIG_FILE), context: CONTEXT });
      timedKube ??= timed(kube, calls, () => performance.now() - origin);
      return timedKube;
    },
  };
  gc?.();
  gc?.();
  const rssBefore = process.memoryUsage.rss();
  const sampler = await startRssSampler();
  origin = performance.now();
  const { report, snapshot } = await scanCluster(connection, {
    clusterName: setup.clusterName,
    detection: DEFAULT_DETECTION,
    actions: CLI_ACTIONS,
    now: new Date(setup.now),
  });
  const scanMs = performance.now() - origin;
  const processMs = performance.now();
  const peakRss = await sampler.stop();
  kube?.close();
  writeScanSnapshot(dir, snapshot, setup.now);
  return {
    scanMs,
    loadedMs,
    processMs,
    lastAnswerMs: Math.max(0, ...calls.map((c) => c.endMs)),
    steps: stepsOf(calls),
    awsCalls: countBy(aws.calls.map((c) => c.operation)),
    rssBefore,
    peakRss,
    maxRss: process.resourceUsage().maxRSS * 1024,
    report: digest(report),
  };
}

/** The snapshot a scan built and the time it scanned at, for the cold analysis of it (v8.serialize keeps its Sets). */
export function writeScanSnapshot(dir: string, snapshot: ClusterSnapshot, now: string): void {
  writeFileSync(join(dir, LIVE_SNAPSHOT_FILE), serialize({ snapshot, now }));
}

/**
 * Cold-analysis process: the snapshot the last scan built, read back (not timed), then one `analyze`
 * as the scan ran it, timed: the first analysis in the process.
 */
export function measureColdAnalysis(dir: string): ColdAnalysis {
  const { snapshot, now } = deserialize(readFileSync(join(dir, LIVE_SNAPSHOT_FILE))) as {
    snapshot: ClusterSnapshot;
    now: string;
  };
  gc?.();
  gc?.();
  const started = performance.now();
  const report = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(now) });
  return { analysisMs: performance.now() - started, report: digest(report) };
}

/**
 * The cold analysis is a lower bound of the scan only if it analysed what the scan analysed: the
 * same findings, codes and summary, or the snapshot written back was not the scan's.
 */
export function checkColdAnalysedTheScan(scan: LiveScan, cold: ColdAnalysis): void {
  if (!isDeepStrictEqual(cold.report, scan.report)) {
    throw new Error(`cold analysis: its report ${JSON.stringify(cold.report)} is not the scan's ${JSON.stringify(scan.report)}`);
  }
}

export interface PortCall {
  label: string;
  startMs: number;
  endMs: number;
  items: number;
}

function countBy(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}

/** The port, with each read's label, start, end and item count recorded. */
function timed(port: KubernetesPort, calls: PortCall[], clock: () => number): KubernetesPort {
  const record = async <T>(label: string, read: () => Promise<T>, items: (value: T) => number): Promise<T> => {
    const startMs = clock();
    const value = await read();
    calls.push({ label, startMs, endMs: clock(), items: items(value) });
    return value;
  };
  return {
    list: (query) =>
      record(
        listLabel(query),
        () => port.list(query),
        (items) => items.length,
      ),
    get: (resource, name, namespace) =>
      record(
        resource === 'customresourcedefinitions' ? CRDS_LABEL : `${resource} ${name}`,
        () => port.get(resource, name, namespace),
        (object) => (object ? 1 : 0),
      ),
    podLog: (query) =>
      record(
        query.previous === true ? PREVIOUS_LOG_LABEL : LOG_LABEL,
        () => port.podLog(query),
        (text) => text.split('\n').filter((l) => l !== '').length,
      ),
    patchDeploymentAnnotations: (patch) => port.patchDeploymentAnnotations(patch),
    deleteNodePool: (name) => port.deleteNodePool(name),
  };
}

/** Calls grouped by label, in the order they were first sent. */
export function stepsOf(calls: readonly PortCall[]): ScanStep[] {
  const steps = new Map<string, ScanStep>();
  for (const call of [...calls].sort((a, b) => a.startMs - b.startMs)) {
    const step = steps.get(call.label);
    if (!step) {
      steps.set(call.label, { label: call.label, startMs: call.startMs, endMs: call.endMs, calls: 1, items: call.items });
      continue;
    }
    step.endMs = Math.max(step.endMs, call.endMs);
    step.calls += 1;
    step.items += call.items;
  }
  return [...steps.values()];
}
