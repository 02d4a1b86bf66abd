import type { Condition, KubeEvent, LabelSelector, Node, Pod } from './kube.ts';

/**
 * The condition of that type, first one wins. Called tens of thousands of times per analysis (every
 * NodeClaim's and Node's conditions, by several detectors), mostly on a cold process: a plain loop
 * runs without the closure `find` would allocate and call for every condition.
 */
export function conditionOf(obj: { status?: { conditions?: Condition[] } } | undefined, type: string): Condition | undefined {
  const conditions = obj?.status?.conditions;
  if (conditions === undefined) return undefined;
  for (let i = 0; i < conditions.length; i++) {
    const c = conditions[i] as Condition;
    if (c.type === type) return c;
  }
  return undefined;
}

/**
 * The Node's Ready is False or Unknown: what the node lifecycle controller and Karpenter's repair
 * both read (NODE_NOT_READY's nodes, which CONSOLIDATION_BLOCKED therefore leaves out). No Ready
 * condition, or no Node, is not NotReady.
 */
export function isNodeNotReady(node: Node | undefined): boolean {
  const ready = conditionOf(node, 'Ready');
  return ready !== undefined && ready.status !== 'True';
}

export function isConditionTrue(obj: { status?: { conditions?: Condition[] } } | undefined, type: string): boolean {
  return conditionOf(obj, type)?.status === 'True';
}

/** `aws:///us-east-1a/i-0123` → `i-0123`. */
export function instanceIdFromProviderID(providerID: string | undefined): string | undefined {
  if (!providerID) return undefined;
  const match = /(i-[0-9a-f]+)\s*$/.exec(providerID);
  return match?.[1];
}

export function isPodReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isConditionTrue(pod, 'Ready');
}

/** Kubernetes label selector semantics (matchLabels AND matchExpressions). */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, e.key);
    const value = l[e.key];
    switch (e.operator) {
      case 'In':
        if (!has || !(e.values ?? []).includes(value as string)) return false;
        break;
      case 'NotIn':
        if (has && (e.values ?? []).includes(value as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Milliseconds between an ISO timestamp and now; undefined when the timestamp is absent or bad. */
export function ageMs(iso: string | undefined, now: Date): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : now.getTime() - t;
}

const GO_DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration as Kubernetes objects write them (`720h`, `1h30m0s`, `90m`, `0`) → milliseconds;
 * `Never` → Infinity; undefined for anything else. Karpenter's `expireAfter` and the like.
 */
export function parseGoDuration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = text.trim();
  if (s === 'Never') return Number.POSITIVE_INFINITY;
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * (GO_DURATION_UNITS[m[2] ?? ''] ?? Number.NaN);
    consumed = re.lastIndex;
  }
  return consumed === s.length && s.length > 0 && Number.isFinite(total) ? total : undefined;
}

/** Normalises any parseable timestamp to second-precision ISO-8601 (`2026-01-01T00:00:00Z`). */
export function isoSeconds(iso: string | undefined): string | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : toIsoSeconds(new Date(t));
}

/** A valid Date as second-precision ISO-8601 (`2026-01-01T00:00:00Z`). */
export function toIsoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** An ISO-8601 time with its zone (`2026-11-21T07:00:00Z`), or undefined: Date.parse alone accepts too much. */
export function parseIsoTime(text: string): Date | undefined {
  if (!ISO_8601.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** What a NodePool (most Kubernetes objects) may be called: a DNS-1123 subdomain of at most 253 characters. */
export function isKubeObjectName(name: string): boolean {
  return name.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name);
}

/** Pending and not bound (pending detectors and scan metrics alike) to a node; terminating pods and scheduling-gated pods are not waiting for capacity. */
export function isUnboundPending(pod: Pod): boolean {
  if (pod.spec?.nodeName || pod.metadata?.deletionTimestamp) return false;
  const phase = pod.status?.phase;
  if (phase !== undefined && phase !== 'Pending') return false;
  if (hasSchedulingGates(pod)) return false;
  return conditionOf(pod, 'PodScheduled')?.reason !== 'SchedulingGated';
}

/** `spec.schedulingGates` (Kubernetes 1.30+): Pending by design until whoever owns the gate removes it. */
function hasSchedulingGates(pod: Pod): boolean {
  const gates = pod.spec?.schedulingGates;
  return Array.isArray(gates) && gates.length > 0;
}

/** When an event was last seen (else first), in ms; 0 when it says neither. */
export function eventLastSeenMs(event: KubeEvent): number {
  const t = Date.parse(event.lastTime ?? event.firstTime ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/** A copy, newest first by last (else first) time. */
export function newestFirst(events: readonly KubeEvent[]): KubeEvent[] {
  return [...events].sort((a, b) => eventLastSeenMs(b) - eventLastSeenMs(a));
}

/**
 * The selector as kubectl's `-l` value (`app=web,tier in (a,b),!legacy`); `''` for the empty
 * selector (every pod of the namespace); undefined for a missing selector or an operator kubectl
 * cannot write.
 */
export function selectorArg(selector: LabelSelector | undefined): string | undefined {
  if (!selector) return undefined;
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
    else return undefined;
  }
  return parts.join(',');
}
