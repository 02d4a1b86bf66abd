/**
 * The floor of a live scan: the same HTTP requests the scan sent (as the simulated API server
 * recorded them), sent again by a client that does nothing but GET each one and JSON.parse the
 * answer. Whatever the scan takes beyond this is its own work: choosing what to read, classifying
 * and merging what came, waiting on one answer before asking the next, detecting and reporting.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { mapBounded } from '../src/support/concurrency.ts';

const TARGET_FILE = 'floor-target.json';
const REQUESTS_FILE = 'floor-requests.json';

/**
 * Lists in flight at once: the collector's own limit (src/collect/collect.ts CONCURRENCY); the
 * pages of one list follow each other (each `continue` token comes with the page before).
 */
const LISTS_IN_FLIGHT = 8;

/** Where the floor sends its requests: the simulated API server. */
interface FloorTarget {
  url: string;
  caPem: string;
  token: string;
}

export interface FloorRun {
  /** First request sent → last answer parsed. */
  fetchMs: number;
  /** CPU time of the process (user + system) over the same span: close to fetchMs when the client itself is the bottleneck. */
  cpuMs: number;
  requests: number;
  /** Lists (chains of pages) and logs, each one chain. */
  chains: number;
}

/** The floor, and the keeping floor: every parsed answer held until the last one came (as a scan holds what it read). */
type FloorMode = 'floor' | 'keeping-floor';

/**
 * The order the floor and the keeping floor run in after the scan of run `runIndex` (0-based):
 * swapped on every other run, so neither always runs first, right after the scan, on a server
 * and machine in the state the scan left them.
 */
export function floorOrder(runIndex: number): readonly FloorMode[] {
  return runIndex % 2 === 0 ? ['floor', 'keeping-floor'] : ['keeping-floor', 'floor'];
}

export function writeFloorTarget(dir: string, target: FloorTarget): void {
  writeFileSync(join(dir, TARGET_FILE), JSON.stringify(target), { mode: 0o600 });
}

/** The requests of the scan just measured, for the floor run that follows it. */
export function writeFloorRequests(dir: string, requests: readonly string[]): void {
  writeFileSync(join(dir, REQUESTS_FILE), JSON.stringify(requests));
}

/**
 * Floor process: sends the requests in `dir` (GET only, as a dry-run scan sends). With `keep`, the
 * keeping floor: each parsed answer (a log's text) is held until the last one came, as any scan
 * holds what it read until it analyses it, so the heap grows as the scan's does and the collector
 * copies and marks what is held; without, each answer is garbage as soon as it is parsed.
 */
export async function measureFloor(dir: string, keep = false): Promise<FloorRun> {
  const target = JSON.parse(readFileSync(join(dir, TARGET_FILE), 'utf8')) as FloorTarget;
  const requests = JSON.parse(readFileSync(join(dir, REQUESTS_FILE), 'utf8')) as string[];
  const chains = chainsOf(requests);
  const server = new URL(target.url);
  const agent = new https.Agent({ keepAlive: true, ca: target.caPem });
  const kept: unknown[] = [];
  const get = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const request = https.request(
        {
          agent,
          hostname: server.hostname,
          port: server.port,
          method: 'GET',
          path,
          headers: { Authorization: `Bearer ${target.token}`, Accept: 'application/json', 'Accept-Encoding': 'gzip' },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              const answer: unknown = String(response.headers['content-type']).startsWith('application/json')
                ? JSON.parse(text)
                : text;
              if (keep) kept.push(answer);
              resolve();
            } catch (error) {
              reject(error as Error);
            }
          });
        },
      );
      request.on('error', reject);
      request.end();
    });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await mapBounded(chains, LISTS_IN_FLIGHT, async (chain) => {
    for (const path of chain) await get(path);
  });
  const fetchMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  if (keep && kept.length !== requests.length) throw new Error(`floor: kept ${kept.length} answers of ${requests.length}`);
  return { fetchMs, cpuMs: (cpu.user + cpu.system) / 1000, requests: requests.length, chains: chains.length };
}

/**
 * `GET PATH?QUERY` lines → chains in the order first sent: a request with a `continue` token
 * follows the last one sent to the same path with the same query otherwise; any other starts one.
 */
function chainsOf(requests: readonly string[]): string[][] {
  const chains: string[][] = [];
  const open = new Map<string, string[]>();
  for (const line of requests) {
    const [method, path = ''] = line.split(' ', 2);
    if (method !== 'GET') throw new Error(`floor: only GET is replayed, the scan sent ${line}`);
    const url = new URL(path, 'https://127.0.0.1');
    const token = url.searchParams.get('continue');
    url.searchParams.delete('continue');
    const key = `${url.pathname}?${url.searchParams.toString()}`;
    const chain = token === null ? undefined : open.get(key);
    if (chain) chain.push(path);
    else {
      const started = [path];
      chains.push(started);
      open.set(key, started);
    }
  }
  return chains;
}
