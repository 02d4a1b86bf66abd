import type { SpotPrice } from '../domain/aws.ts';
import { onDemandListPrice } from '../domain/on-demand-prices.ts';

/**
 * The Spot prices the simulated EC2 answers when the capture holds none (docs/simulator.md): every
 * account has Spot prices. A third or so of the bundled on-demand list price, a little different
 * per zone, as real Spot prices are; none for a type the table does not hold.
 */
const SHARE_OF_LIST_PRICE_BY_ZONE: readonly [suffix: string, share: number][] = [
  ['a', 0.33],
  ['b', 0.35],
  ['c', 0.37],
];

export function simulatedSpotPrices(instanceTypes: readonly string[], region: string): SpotPrice[] {
  return instanceTypes.flatMap((instanceType) => {
    const listPrice = onDemandListPrice(instanceType);
    if (listPrice === undefined) return [];
    return SHARE_OF_LIST_PRICE_BY_ZONE.map(([suffix, share]) => ({
      instanceType,
      availabilityZone: `${region}${suffix}`,
      usd: Math.round(listPrice * share * 10_000) / 10_000,
      productDescription: 'Linux/UNIX',
    }));
  });
}
