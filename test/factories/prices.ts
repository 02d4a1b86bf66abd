import type { PriceBook } from '../../src/domain/cost.ts';

/**
 * A PriceBook of the test's own: these hourly on-demand prices by instance type, Spot at the
 * `spot` ones when given; any other type unpriced. The source names the capacity type priced, so
 * a test can tell which price a finding used.
 */
export function testPrices(onDemand: Record<string, number>, spot: Record<string, number> = {}): PriceBook {
  return {
    hourly(instance) {
      const type = instance.instanceType;
      if (!type) return undefined;
      const spotUsd = instance.capacityType === 'spot' ? spot[type] : undefined;
      if (spotUsd !== undefined) return { usd: spotUsd, source: `spot in ${instance.zone ?? '?'}, test prices` };
      const usd = onDemand[type];
      return usd === undefined ? undefined : { usd, source: 'on-demand, test prices' };
    },
  };
}
