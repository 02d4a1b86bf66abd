/**
 * Hostile API server: bounded live reads (docs/usage.md, `--kube-read-limits`). The simulator, in
 * this process, serves an oversize body, an endless body, a gzip bomb, 2,000 Pending pods of ~400 KB
 * and 100,000 pods; each live collection runs in a fresh child process with the default read
 * limits, so its peak RSS is its own: `VmHWM` of /proc/self/status, not `maxRSS`, which Linux carries
 * over from the parent across fork and exec (a child of a 1 GB parent reports 1 GB however little
 * it used). A watchdog kills a child past 4 GiB or 5 minutes.
 * `npm run bench:hostile-api [-- "(e)"]` (all cases, or those whose name starts so) prints the rows as Markdown
 * for BENCHMARKS.md; not yet a section of `npm run bench`.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { emptySnapshot, SOURCE_NAMES, type ClusterSnapshot } from '../src/domain/snapshot.ts';
import type { Pod } from '../src/domain/kube.ts';
import type { HostileBody } from '../src/simulator/faults.ts';
import { startKubeApiServer } from '../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../src/simulator/seed.ts';
import { watchChild } from './rss-sampler.ts';

const SELF = fileURLToPath(import.meta.url);
const GiB = 1024 ** 3;
const WATCHDOG_MS = 300_000;
const WATCHDOG_RSS = 4 * GiB;

interface Case {
  name: string;
  pods: number;
  podBytes: number;
  pending: boolean;
  body?: HostileBody;
}

const CASES: Case[] = [
  {
    name: '(a) oversize: a 3 GiB body on the nodes list',
    pods: 10,
    podBytes: 0,
    pending: true,
    body: { kind: 'oversize', bytes: 3 * GiB },
  },
  {
    name: '(b) endless: a body that never ends on the nodes list',
    pods: 10,
    podBytes: 0,
    pending: true,
    body: { kind: 'endless', maxBytes: 64 * GiB },
  },
  {
    name: '(c) gzip bomb: unpacking to 3 GiB on the nodes list',
    pods: 10,
    podBytes: 0,
    pending: true,
    body: { kind: 'gzip-bomb', unpackedBytes: 3 * GiB },
  },
  { name: '(d) 2,000 Pending pods of ~400 KB each (a kept annotation)', pods: 2_000, podBytes: 400 * 1024, pending: true },
  { name: '(e) 100,000 pods, controller not running: every pod listed', pods: 100_000, podBytes: 0, pending: false },
];

export interface HostileApiRow {
  name: string;
  maxRssBytes: number | undefined;
  ms: number;
  result: string;
}

/** A pod as the API serves it, managedFields included (dropped on read), `extraBytes` of annotation kept. */
function podOf(i: number, pending: boolean, extraBytes: number): Pod {
  const name = `app-${i}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `ns-${i % 50}`,
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: `app-${i % 500}`, 'pod-template-hash': '5cf78d58f6' },
      ...(extraBytes > 0 ? { annotations: { 'example.com/blob': 'x'.repeat(extraBytes) } } : {}),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `app-${i % 500}-5cf78d58f6`, uid: 'r', controller: true },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': {} },
            'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:resources': {} } } },
          },
        },
      ],
    },
    spec: {
      ...(pending ? {} : { nodeName: `node-${i % 2000}` }),
      containers: [
        {
          name: 'app',
          image: 'public.ecr.aws/docker/library/nginx:1.27',
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '256Mi' } },
          env: [{ name: 'MODE', value: 'production' }],
        },
      ],
      nodeSelector: { 'karpenter.sh/nodepool': 'default' },
    },
    status: {
      phase: pending ? 'Pending' : 'Running',
      conditions: [{ type: 'PodScheduled', status: pending ? 'False' : 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    },
  } as Pod;
}

function seedOf(c: Case): ClusterSnapshot {
  const seed = emptySnapshot('bench');
  seed.pods = Array.from({ length: c.pods }, (_, i) => podOf(i, c.pending, c.podBytes));
  for (const source of SOURCE_NAMES) seed.captured.add(source);
  return seed;
}

/** `only`: the cases whose name starts with it, e.g. `(e)`. */
export async function measureHostileApi(only?: string): Promise<HostileApiRow[]> {
  const dir = mkdtempSync(join(os.tmpdir(), 'karpenter-sentinel-hostile-api-'));
  const rows: HostileApiRow[] = [];
  try {
    for (const c of CASES.filter((x) => only === undefined || x.name.startsWith(only))) {
      process.stderr.write(`bench: hostile API server: ${c.name}…\n`);
      const api = await startKubeApiServer(storeFromSnapshot(seedOf(c)));
      try {
        if (c.body) api.faults.add({ method: 'GET', path: '/api/v1/nodes', body: c.body });
        const kubeconfig = join(dir, 'kubeconfig');
        writeFileSync(kubeconfig, api.kubeconfig());
        rows.push({ name: c.name, ...(await collectInChild(kubeconfig)) });
      } finally {
        await api.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

type ChildOutcome = { gaps: string[]; pods: number; maxRssKib: number } | { error: string };

function collectInChild(kubeconfig: string): Promise<Omit<HostileApiRow, 'name'>> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = fork(SELF, ['--child', kubeconfig], {
      execPath: process.execPath,
      execArgv: ['--disable-warning=ExperimentalWarning'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let outcome: ChildOutcome | undefined;
    child.on('message', (m: ChildOutcome) => (outcome = m));
    const watchdog = watchChild(child, { ms: WATCHDOG_MS, rssBytes: WATCHDOG_RSS });
    child.on('exit', (code, signal) => {
      watchdog.stop();
      const ms = performance.now() - started;
      if (!outcome || 'error' in outcome) {
        resolve({
          ms,
          maxRssBytes: undefined,
          result: watchdog.killed ?? (outcome && 'error' in outcome ? outcome.error : `exited with ${signal ?? code}`),
        });
        return;
      }
      const result =
        outcome.gaps.length === 0 ? `complete (${outcome.pods.toLocaleString('en-US')} pods)` : `gap: ${outcome.gaps.join('; ')}`;
      resolve({ ms, maxRssBytes: outcome.maxRssKib * 1024, result });
    });
  });
}

/** In the child: a live collection of every Kubernetes source through the real adapter, default limits. */
async function child(kubeconfig: string): Promise<void> {
  let outcome: ChildOutcome;
  try {
    const { collectSnapshot } = await import('../src/collect/collect.ts');
    const { connectWithKubeconfig } = await import('../src/adapters/kubernetes/connect.ts');
    const { KUBE_SOURCES } = await import('../src/collect/kube-collector.ts');
    const kube = connectWithKubeconfig({ kubeconfigPath: kubeconfig });
    const connection = { aws: undefined as never, connectKube: async () => kube };
    const { snapshot } = await collectSnapshot(connection, { clusterName: 'bench', sources: new Set(KUBE_SOURCES) });
    kube.close();
    outcome = {
      gaps: snapshot.gaps.map((g) => `${g.source}: ${g.error}`),
      pods: snapshot.pods.length,
      maxRssKib: ownPeakRssKib(),
    };
  } catch (error) {
    outcome = { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  process.send?.(outcome, () => process.disconnect());
}

/** The process's own peak RSS in KiB (Linux `VmHWM`, reset at exec); `maxRSS` elsewhere. */
function ownPeakRssKib(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match?.[1]) return Number(match[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}

export function renderHostileApi(rows: readonly HostileApiRow[]): string {
  const lines = ['| server serves | peak RSS | time | result |', '|---|---|---|---|'];
  for (const r of rows) {
    const rss = r.maxRssBytes === undefined ? '—' : `${(r.maxRssBytes / 1e6).toFixed(1)} MB`;
    lines.push(`| ${r.name} | ${rss} | ${(r.ms / 1000).toFixed(1)} s | ${r.result.replaceAll('|', '\\|')} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === SELF) {
  const at = process.argv.indexOf('--child');
  if (at >= 0) await child(process.argv[at + 1] ?? '');
  else process.stdout.write(`${renderHostileApi(await measureHostileApi(process.argv[2]))}\n`);
}
