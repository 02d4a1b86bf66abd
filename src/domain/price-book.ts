import type { PriceBook } from './cost.ts';
import type { ClusterSnapshot } from './snapshot.ts';

/**
 * The prices a scan of this snapshot uses (docs/cost.md): Spot prices the snapshot holds, else the
 * bundled on-demand table. Placeholder until the table lands: prices nothing.
 */
export function priceBookOf(_snapshot: ClusterSnapshot): PriceBook {
  return { hourly: () => undefined };
}
