/**
 * Kubernetes resource quantities (`100m`, `1.5`, `128Mi`, `3388304Ki`, `1e3`) as plain numbers in
 * base units: cores for cpu, bytes for memory, a count for pods.
 */

const SUFFIX_FACTOR: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/** Undefined when the text is not a Kubernetes quantity. */
export function parseQuantity(text: string | number | undefined): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  if (text === undefined) return undefined;
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, digits, exponent, suffix] = match;
  const base = Number(digits);
  if (exponent) return base * 10 ** Number(exponent.slice(1));
  return base * (SUFFIX_FACTOR[suffix ?? ''] ?? 1);
}

/** Resource name → amount, summed over lists; unparseable entries are skipped. */
export type ResourceAmounts = Record<string, number>;

export function parseResources(list: Record<string, string> | undefined): ResourceAmounts {
  const out: ResourceAmounts = {};
  for (const [name, value] of Object.entries(list ?? {})) {
    const n = parseQuantity(value);
    if (n !== undefined) out[name] = n;
  }
  return out;
}

/** For messages: `0.25` cpu → `250m`, `1073741824` memory → `1Gi`. */
export function formatQuantity(resource: string, amount: number): string {
  if (resource === 'cpu') {
    const milli = Math.round(amount * 1000);
    return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
  }
  if (resource === 'memory' || resource.endsWith('storage')) {
    const units = [
      ['Ti', 2 ** 40],
      ['Gi', 2 ** 30],
      ['Mi', 2 ** 20],
      ['Ki', 2 ** 10],
    ] as const;
    const exact = units.find(([, factor]) => amount >= factor && Number.isInteger(amount / factor));
    if (exact) return `${amount / exact[1]}${exact[0]}`;
    const nearest = units.find(([, factor]) => amount >= factor);
    if (nearest) return `${Math.round((amount / nearest[1]) * 10) / 10}${nearest[0]}`;
  }
  return String(Math.round(amount * 1000) / 1000);
}
