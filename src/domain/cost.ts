/**
 * What a finding costs (docs/cost.md): the instances behind it, priced per hour and counted per
 * day. Additive on the finding (`cost`), optional: absent when nothing could be priced.
 */

export interface FindingCost {
  /** US dollars per day the instances behind the finding cost while it lasts. */
  perDayUsd: number;
  /** How it was counted, in words a reader can check: types, counts, prices and their source. */
  basis: string;
  /**
   * Each priced instance whose identity is known, and its share of `perDayUsd`: so the report's
   * total counts an instance two findings name once (docs/cost.md). Internal: not enumerable, so
   * not in the report's JSON.
   */
  readonly instances?: InstanceCost[];
}

interface InstanceCost {
  /** The EC2 instance id, else `NodeClaim/<name>` or `Node/<name>`. */
  id: string;
  perDayUsd: number;
}

/** One instance (or node, or NodeClaim) to price: what EC2 bills by. */
export interface PricedInstance {
  instanceType: string | undefined;
  /** `spot`, `on-demand` (Karpenter's `karpenter.sh/capacity-type`), `reserved`; unknown prices as on-demand. */
  capacityType: string | undefined;
  /** `us-east-1a`: Spot prices are per zone. */
  zone: string | undefined;
  /** Who it is (`i-0abc…`, else `NodeClaim/<name>`), so the report counts it once; absent when unknown. */
  id?: string;
}

export interface HourlyPrice {
  usd: number;
  /** Where the price came from, for the basis: `on-demand, us-east-1 list price from Karpenter's table of 2026-07-20` (docs/cost.md). */
  source: string;
}

/** Prices one instance per hour, or says it cannot (an unknown type). */
export interface PriceBook {
  hourly(instance: PricedInstance): HourlyPrice | undefined;
}

const HOURS_PER_DAY = 24;

/**
 * Capacity billed whether a node uses it or not: Karpenter's `reserved` (an On-Demand Capacity
 * Reservation) and EC2's `capacity-block` lifecycle (a Capacity Block, paid up front). Removing the
 * node saves nothing, so it is not priced as waste (docs/cost.md).
 */
const PREPAID_CAPACITY: ReadonlySet<string> = new Set(['reserved', 'capacity-block']);
const PREPAID_WHY = 'reserved capacity bills whether used or not: removing the node saves nothing';

/**
 * The daily cost of these instances, or undefined when none could be priced. Instances of the same
 * type, capacity type and price are counted together in the basis; unpriced ones are named.
 */
export function costOf(prices: PriceBook, instances: readonly PricedInstance[]): FindingCost | undefined {
  const groups = new Map<string, { count: number; label: string; price: HourlyPrice }>();
  // What could not be priced, by what the basis says of it, so it names each once with a count.
  const unpriced = new Map<string, number>();
  let hourly = 0;
  const identified = new Map<string, number>();
  for (const instance of instances) {
    const capacity = instance.capacityType?.toLowerCase();
    const price = capacity && PREPAID_CAPACITY.has(capacity) ? undefined : prices.hourly(instance);
    if (!price || !instance.instanceType) {
      const why = unpricedWhy(instance.instanceType, capacity);
      unpriced.set(why, (unpriced.get(why) ?? 0) + 1);
      continue;
    }
    hourly += price.usd;
    if (instance.id) identified.set(instance.id, perDay(price.usd));
    const label = `${instance.instanceType} ${instance.capacityType ?? 'on-demand'}`;
    const key = `${label}\n${price.usd}\n${price.source}`;
    const group = groups.get(key) ?? { count: 0, label, price };
    group.count += 1;
    groups.set(key, group);
  }
  if (groups.size === 0) return prepaidOnly(unpriced);
  const parts = [...groups.values()].map((g) => `${g.count} × ${g.label} at $${g.price.usd.toFixed(4)}/h (${g.price.source})`);
  for (const [why, count] of unpriced) parts.push(`${count}${why}`);
  const cost: FindingCost = { perDayUsd: perDay(hourly), basis: `${parts.join('; ')}; × 24 h` };
  const value = [...identified].map(([id, perDayUsd]) => ({ id, perDayUsd }));
  if (value.length > 0) Object.defineProperty(cost, 'instances', { value, enumerable: false });
  return cost;
}

function perDay(hourlyUsd: number): number {
  return Math.round(hourlyUsd * HOURS_PER_DAY * 100) / 100;
}

/** Nothing priced: $0 when reserved capacity is why, so the basis says so; else no cost. */
function prepaidOnly(unpriced: ReadonlyMap<string, number>): FindingCost | undefined {
  const prepaid = [...unpriced].filter(([why]) => why.includes(PREPAID_WHY));
  if (prepaid.length === 0) return undefined;
  return { perDayUsd: 0, basis: [...unpriced].map(([why, count]) => `${count}${why}`).join('; ') };
}

/** What the basis says after the count of instances that were not priced. */
function unpricedWhy(instanceType: string | undefined, capacity: string | undefined): string {
  if (capacity && PREPAID_CAPACITY.has(capacity))
    return ` × ${instanceType ?? 'instance'} ${capacity} not priced (${PREPAID_WHY})`;
  return instanceType ? ` × ${instanceType} not priced (no price known for the type)` : ' not priced (instance type unknown)';
}
