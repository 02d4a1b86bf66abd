/**
 * How much a live scan reads of the Kubernetes API before it stops and reports a gap: a
 * misbehaving API server or proxy (a body that never ends, a gzip bomb, endless `continue`
 * tokens) or a cluster of huge objects must not take the scan's memory (the scan function has
 * 1,024 MB) or its time. docs/usage.md (`--kube-read-limits`) and docs/deploy.md
 * (`KUBE_READ_LIMITS`) list them.
 */
import { formatByteSize, parseByteSize } from './byte-size.ts';
import { formatDuration, parseDuration } from './settings.ts';

export interface KubeReadLimits {
  /** Bytes of one response body, as received and as unpacked (gzip). A list page past it is read again in smaller pages. */
  responseBytes: number;
  /** Bytes one list keeps: its items as JSON once unused fields are dropped (dropUnusedFields), summed over its pages. */
  listBytes: number;
  /** Items of one list. */
  listItems: number;
  /** Pages of one list. */
  listPages: number;
  /** Time to read one list, every page of it. */
  listMs: number;
  /** Bytes of one pod log kept; the rest is cut off (the log's first bytes are kept, and the cut is noted). */
  logBytes: number;
}

/**
 * Sized for the scan function's 1,024 MB at 100,000 pods (BENCHMARKS.md, "Hostile API server"):
 * a page of 500 ordinary pods is a few MB, so 32 MiB leaves room for pods of 64 KiB; a list
 * keeps 320 MiB at most, which 100,000 pods without managedFields fit.
 */
export const DEFAULT_KUBE_READ_LIMITS: Readonly<KubeReadLimits> = {
  responseBytes: 32 * 1024 ** 2,
  listBytes: 320 * 1024 ** 2,
  listItems: 250_000,
  listPages: 5_000,
  listMs: 90_000,
  logBytes: 4 * 1024 ** 2,
};

/** The CLI flag and the service's environment variable; both take `NAME=VALUE,...`. */
const KUBE_READ_LIMITS_FLAG = '--kube-read-limits';
export const KUBE_READ_LIMITS_VARIABLE = 'KUBE_READ_LIMITS';

type LimitKind = 'size' | 'count' | 'duration';

/** Each limit's name in `--kube-read-limits` and `KUBE_READ_LIMITS`. */
export const KUBE_READ_LIMIT_NAMES: Readonly<Record<keyof KubeReadLimits, { name: string; kind: LimitKind }>> = {
  responseBytes: { name: 'response-size', kind: 'size' },
  listBytes: { name: 'list-size', kind: 'size' },
  listItems: { name: 'list-items', kind: 'count' },
  listPages: { name: 'list-pages', kind: 'count' },
  listMs: { name: 'list-time', kind: 'duration' },
  logBytes: { name: 'log-size', kind: 'size' },
};

/** `1 GiB`, `250,000`, `1m30s`: a limit's value as the messages show it. */
export function formatReadLimit(limit: keyof KubeReadLimits, value: number): string {
  const { kind } = KUBE_READ_LIMIT_NAMES[limit];
  if (kind === 'size') return formatByteSize(value);
  if (kind === 'duration') return formatDuration(value);
  return value.toLocaleString('en-US');
}

/** The end of a gap's line: which limit, and how to raise it. */
export function raiseHint(limit: keyof KubeReadLimits, value: number): string {
  const { name, kind } = KUBE_READ_LIMIT_NAMES[limit];
  const example =
    kind === 'size' ? formatByteSize(value * 2).replace(' ', '') : kind === 'duration' ? formatDuration(value * 2) : value * 2;
  return `the ${name} limit; raise it with ${KUBE_READ_LIMITS_FLAG} ${name}=${example} or ${KUBE_READ_LIMITS_VARIABLE}`;
}

/**
 * `response-size=64MiB,list-items=500000,list-time=3m` → the limits named; a one-line problem
 * otherwise (an unknown name, a value that is not a size, a whole number or a duration).
 */
export function parseKubeReadLimits(text: string): Partial<KubeReadLimits> | { problem: string } {
  const limits: Partial<KubeReadLimits> = {};
  const byName = new Map(Object.entries(KUBE_READ_LIMIT_NAMES).map(([key, v]) => [v.name, key as keyof KubeReadLimits]));
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const [name = '', value = '', ...extra] = part.split('=').map((s) => s.trim());
    const limit = byName.get(name);
    if (!limit || extra.length > 0) {
      return { problem: `'${part.trim()}' is not NAME=VALUE with NAME one of ${[...byName.keys()].join(', ')}` };
    }
    const { kind } = KUBE_READ_LIMIT_NAMES[limit];
    const parsed =
      kind === 'size'
        ? parseByteSize(value)
        : kind === 'duration'
          ? parseDuration(value)
          : /^\d+$/.test(value)
            ? Number(value)
            : undefined;
    if (parsed === undefined || parsed < 1) {
      const wanted =
        kind === 'size' ? 'a size such as 64MiB' : kind === 'duration' ? 'a duration such as 3m' : 'a whole number, 1 or more';
      return { problem: `${name} must be ${wanted} (got '${value}')` };
    }
    limits[limit] = parsed;
  }
  return limits;
}
