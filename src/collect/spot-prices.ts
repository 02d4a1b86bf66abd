import type { SourceName } from '../domain/snapshot.ts';
import type { AwsPorts } from '../ports/aws.ts';
import type { CaptureMerger } from '../snapshot/capture-merger.ts';

/**
 * The current Spot prices of the Spot types in play (docs/cost.md): one DescribeSpotPriceHistory,
 * asked once the Nodes, NodeClaims and instances are read. None to ask about is captured as none.
 */
export async function collectSpotPrices(
  aws: AwsPorts,
  spotTypes: readonly string[],
  merger: CaptureMerger,
  gap: (source: SourceName, error: unknown) => void,
): Promise<void> {
  try {
    // Nothing on Spot: no call at all (not even one the meter would count).
    const prices = spotTypes.length > 0 ? await aws.ec2.describeSpotPrices(spotTypes) : [];
    merger.add('AWS API', [{ type: 'aws', output: { source: 'spotprices', prices } }]);
  } catch (error) {
    gap('spotprices', error);
  }
}
