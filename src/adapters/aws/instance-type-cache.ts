import type { InstanceTypeListing } from '../../ports/aws.ts';
import { noteAnsweredWithoutRequest } from '../calls/call-retries.ts';

/**
 * How long a region's instance types are reused. EC2 adds instance types a few times a year and
 * never changes one's vCPUs or memory; a type new since the listing is absent from it until the
 * next one. Six hours keeps a warm Lambda, invoked for every
 * scan, at four full DescribeInstanceTypes listings (about 13 pages each) a day per region, far
 * from EC2's request-rate limits Karpenter shares, and bounds how stale a listing can be.
 */
export const INSTANCE_TYPES_TTL_MS = 6 * 60 * 60 * 1000;

/** Regions kept at once: a scan service watches clusters in a few regions; past this the oldest entry goes. */
const INSTANCE_TYPES_MAX_REGIONS = 8;

interface Entry {
  at: number;
  listing: Promise<InstanceTypeListing>;
}

/**
 * A region's instance types, listed at most once per TTL: concurrent asks share the call in flight,
 * and a failed listing is forgotten (the next scan asks again, and reports its own gap).
 */
export class InstanceTypeCache {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #maxRegions: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; maxRegions?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? INSTANCE_TYPES_TTL_MS;
    this.#maxRegions = options.maxRegions ?? INSTANCE_TYPES_MAX_REGIONS;
    this.#now = options.now ?? Date.now;
  }

  get(region: string, list: () => Promise<InstanceTypeListing>): Promise<InstanceTypeListing> {
    const now = this.#now();
    const cached = this.#entries.get(region);
    // A copy of the list: what one scan does with it is no other's business.
    if (cached && now - cached.at < this.#ttlMs) {
      // The listing of an earlier call, or of one in flight: this call asks EC2 nothing (no ApiCalls datum).
      noteAnsweredWithoutRequest();
      return cached.listing.then(copy);
    }
    this.#entries.delete(region);
    while (this.#entries.size >= this.#maxRegions) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    const entry: Entry = { at: now, listing: list() };
    this.#entries.set(region, entry);
    entry.listing.catch(() => {
      if (this.#entries.get(region) === entry) this.#entries.delete(region);
    });
    return entry.listing.then(copy);
  }
}

function copy(listing: InstanceTypeListing): InstanceTypeListing {
  return { instanceTypes: [...listing.instanceTypes], rejected: [...listing.rejected] };
}

/**
 * The process's cache: module scope, so a warm Lambda (one process, many invocations) lists a
 * region's instance types at most once per TTL, whichever adapter instance asks.
 */
export const INSTANCE_TYPES_BY_REGION = new InstanceTypeCache();
