import { regionOfClusterArn, regionOfZone, type SpotPrice } from './aws.ts';
import type { HourlyPrice, PriceBook, PricedInstance } from './cost.ts';
import { ON_DEMAND_TABLE_REGION, ON_DEMAND_TABLE_WORDS, onDemandListPrice } from './on-demand-prices.ts';
import type { ClusterSnapshot } from './snapshot.ts';
import { isZoneName } from './spot-types.ts';

/**
 * The prices a scan of this snapshot uses (docs/cost.md, "Prices"): for Spot capacity the Spot
 * price the snapshot holds for the type in that zone, else the type's cheapest zone; otherwise, and
 * for Spot without a Spot price, the bundled on-demand list price. A type the table does not hold
 * is not priced.
 */
export function priceBookOf(snapshot: ClusterSnapshot): PriceBook {
  const spot = newestSpotPrices(snapshot.spotPrices ?? []);
  const clusterRegion = regionOfClusterArn(snapshot.cluster?.arn);
  return {
    hourly(instance: PricedInstance): HourlyPrice | undefined {
      if (!instance.instanceType) return undefined;
      const capacity = instance.capacityType?.toLowerCase();
      const region = regionOfZone(instance.zone) ?? clusterRegion;
      if (capacity === 'spot') {
        const price = spotPrice(spot.get(instance.instanceType), instance.zone, region);
        if (price) return price;
      }
      const usd = onDemandListPrice(instance.instanceType);
      if (usd === undefined) return undefined;
      return { usd, source: onDemandSource(capacity, instance.instanceType, region) };
    },
  };
}

/** The Linux Spot prices EC2 bills Karpenter's nodes by; Windows, RHEL and SUSE are priced otherwise. */
const LINUX = new Set([undefined, 'Linux/UNIX', 'Linux/UNIX (Amazon VPC)']);

/** Per type, per zone: the newest price (the one in effect now; older ones are history). */
function newestSpotPrices(prices: readonly SpotPrice[]): Map<string, Map<string, SpotPrice>> {
  const byType = new Map<string, Map<string, SpotPrice>>();
  for (const price of prices) {
    if (!LINUX.has(price.productDescription) || !Number.isFinite(price.usd) || price.usd <= 0) continue;
    // The zone goes into the basis (JSON, Markdown, Slack): only a zone of EC2's shape.
    if (!isZoneName(price.availabilityZone)) continue;
    const zones = byType.get(price.instanceType) ?? new Map<string, SpotPrice>();
    byType.set(price.instanceType, zones);
    const known = zones.get(price.availabilityZone);
    if (!known || timeOf(price) > timeOf(known)) zones.set(price.availabilityZone, price);
  }
  return byType;
}

function timeOf(price: SpotPrice): number {
  const time = price.timestamp === undefined ? NaN : Date.parse(price.timestamp);
  return Number.isNaN(time) ? -Infinity : time;
}

/**
 * The zone's price; else the lowest of the type's zones in the instance's region, saying so
 * (Karpenter launches Spot where it is cheap). Another region's zone is never taken.
 */
function spotPrice(
  zones: ReadonlyMap<string, SpotPrice> | undefined,
  zone: string | undefined,
  region: string | undefined,
): HourlyPrice | undefined {
  if (!zones || zones.size === 0) return undefined;
  const own = zone === undefined ? undefined : zones.get(zone);
  if (own) return { usd: own.usd, source: `spot, DescribeSpotPriceHistory ${own.availabilityZone}${asOf(own)}` };
  const candidates = [...zones.values()].filter((p) => region === undefined || inRegion(p.availabilityZone, region));
  if (candidates.length === 0) return undefined;
  const lowest = candidates.reduce((a, b) => (b.usd < a.usd ? b : a));
  const why = zone === undefined ? 'zone unknown' : `none for ${zone}`;
  return {
    usd: lowest.usd,
    source: `spot, DescribeSpotPriceHistory lowest zone ${lowest.availabilityZone}${asOf(lowest)} (${why})`,
  };
}

/** `us-east-1a`, or a Local Zone of the region (`us-west-2-lax-1a`). */
function inRegion(zone: string, region: string): boolean {
  return regionOfZone(zone) === region || zone.startsWith(`${region}-`);
}

function asOf(price: SpotPrice): string {
  return price.timestamp ? ` as of ${price.timestamp}` : '';
}

function onDemandSource(capacity: string | undefined, instanceType: string, region: string | undefined): string {
  const where =
    region !== undefined && region !== ON_DEMAND_TABLE_REGION
      ? `${ON_DEMAND_TABLE_WORDS}; the cluster is in ${region}, whose prices differ`
      : ON_DEMAND_TABLE_WORDS;
  if (capacity === 'spot') return `no Spot price for ${instanceType}: on-demand, ${where}, an upper bound`;
  return `on-demand, ${where}`;
}
