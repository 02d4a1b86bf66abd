import type { ClusterSnapshot, SourceName } from '../domain/snapshot.ts';

/**
 * What a live scan of a simulation reads: what the capture held, and what it recorded as unreadable
 * (that fails again, so the gap reappears). Nothing else: the simulation knows nothing else, and
 * inventing "none exist" for the rest would change what the detectors conclude.
 * Apart from simulation.ts so the CLI can name it without loading the simulator and client-node.
 */
export function simulatedSources(seed: ClusterSnapshot): ReadonlySet<SourceName> {
  return new Set([...seed.captured, ...seed.gaps.map((g) => g.source)]);
}
