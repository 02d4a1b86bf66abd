/**
 * What a finding costs (docs/cost.md): the instances behind it, priced per hour and counted per
 * day. Additive on the finding (`cost`), optional: absent when nothing could be priced.
 */

export interface FindingCost {
  /** US dollars per day the instances behind the finding cost while it lasts. */
  perDayUsd: number;
  /** How it was counted, in words a reader can check: types, counts, prices and their source. */
  basis: string;
}

/** One instance (or node, or NodeClaim) to price: what EC2 bills by. */
export interface PricedInstance {
  instanceType: string | undefined;
  /** `spot`, `on-demand` (Karpenter's `karpenter.sh/capacity-type`), `reserved`; unknown prices as on-demand. */
  capacityType: string | undefined;
  /** `us-east-1a`: Spot prices are per zone. */
  zone: string | undefined;
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
 * The daily cost of these instances, or undefined when none could be priced. Instances of the same
 * type, capacity type and price are counted together in the basis; unpriced ones are named.
 */
export function costOf(prices: PriceBook, instances: readonly PricedInstance[]): FindingCost | undefined {
  const groups = new Map<string, { count: number; label: string; price: HourlyPrice }>();
  // What could not be priced, by type (`''`: the type is not known), so the basis names it.
  const unpriced = new Map<string, number>();
  let hourly = 0;
  for (const instance of instances) {
    const price = prices.hourly(instance);
    if (!price || !instance.instanceType) {
      const type = instance.instanceType ?? '';
      unpriced.set(type, (unpriced.get(type) ?? 0) + 1);
      continue;
    }
    hourly += price.usd;
    const capacity = instance.capacityType ?? 'on-demand';
    const key = `${instance.instanceType}\n${capacity}\n${price.usd}\n${price.source}`;
    const group = groups.get(key) ?? { count: 0, label: `${instance.instanceType} ${capacity}`, price };
    group.count += 1;
    groups.set(key, group);
  }
  if (groups.size === 0) return undefined;
  const parts = [...groups.values()].map((g) => `${g.count} × ${g.label} at $${g.price.usd.toFixed(4)}/h (${g.price.source})`);
  for (const [type, count] of unpriced)
    parts.push(
      type ? `${count} × ${type} not priced (no price known for the type)` : `${count} not priced (instance type unknown)`,
    );
  return { perDayUsd: Math.round(hourly * HOURS_PER_DAY * 100) / 100, basis: `${parts.join('; ')}; × 24 h` };
}
