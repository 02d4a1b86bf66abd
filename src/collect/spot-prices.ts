import type { SpotPrice } from '../domain/aws.ts';
import type { SourceName } from '../domain/snapshot.ts';
import type { AwsPorts } from '../ports/aws.ts';
import type { CaptureMerger } from '../snapshot/capture-merger.ts';

/** The answer of DescribeSpotPriceHistory, or why there is none. */
export type SpotPricesRead = { prices: SpotPrice[] } | { error: unknown };

/**
 * The current Spot prices of the Spot types in play (docs/cost.md): one DescribeSpotPriceHistory,
 * asked once the Nodes, NodeClaims and instances are read. Never rejects.
 */
export async function readSpotPrices(aws: AwsPorts, spotTypes: readonly string[]): Promise<SpotPricesRead> {
  try {
    // Nothing on Spot: no call at all (not even one the meter would count).
    return { prices: spotTypes.length > 0 ? await aws.ec2.describeSpotPrices(spotTypes) : [] };
  } catch (error) {
    return { error };
  }
}

/** What was read, into the snapshot: the prices (none to ask about is captured as none), or a gap. */
export function mergeSpotPrices(
  read: SpotPricesRead,
  merger: CaptureMerger,
  gap: (source: SourceName, error: unknown) => void,
): void {
  if ('error' in read) gap('spotprices', read.error);
  else merger.add('AWS API', [{ type: 'aws', output: { source: 'spotprices', prices: read.prices } }]);
}
