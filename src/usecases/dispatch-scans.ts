import type { ClusterInfo } from '../domain/aws.ts';
import { toIsoSeconds } from '../domain/kube-helpers.ts';
import type { OptInTag } from '../domain/settings.ts';
import type { EksPort } from '../ports/aws.ts';
import type { ScanQueue, ScanRequest } from '../ports/notify.ts';
import type { Logger } from '../support/logger.ts';
import { errorFields } from '../support/logger.ts';
import { mapBounded } from '../support/concurrency.ts';

/** DescribeCluster calls in flight at once (EKS throttles bursts per account). */
const DESCRIBE_CONCURRENCY = 5;

/** A cluster in these states has no API server worth scanning (or none any more). */
const NOT_SCANNABLE = new Set(['CREATING', 'DELETING']);

export interface DispatchScansDependencies {
  eks: EksPort;
  queue: ScanQueue;
  logger: Logger;
}

export interface DispatchScansSettings {
  /** Scan exactly these (checked against one ListClusters per tick); undefined: every cluster carrying the opt-in tag. */
  clusters: readonly string[] | undefined;
  optInTag: OptInTag;
  /** Named in the `configured clusters not listed by EKS` line: where ListClusters looked. */
  region: string;
}

/** The use case's settings out of the function's validated configuration. */
export function dispatchSettings(config: DispatchScansSettings): DispatchScansSettings {
  return { clusters: config.clusters, optInTag: config.optInTag, region: config.region };
}

export interface DispatchSummary {
  requestedAt: string;
  /** The clusters a scan request was sent for. */
  dispatched: string[];
  /**
   * Names in CLUSTERS that EKS does not list in this account and region (additive). Still
   * dispatched: their scan reports the cluster not found and looks for instances still tagged for it.
   */
  notFound: string[];
  skipped: {
    /** Listed clusters without the opt-in tag. */
    optedOut: number;
    /** Deleted, being deleted or still being created. */
    notActive: number;
    /** DescribeCluster failed: opted in or not cannot be told, so not scanned this tick. */
    describeFailed: number;
  };
}

/**
 * One schedule tick: which clusters to scan, then one scan request each. `requestedAt` is the
 * tick's time, so whatever sends a tick's requests again (an async retry, a replayed event) sends
 * the same ones, and the scan function's idempotency turns the repeats into no-ops.
 */
export async function dispatchScans(
  deps: DispatchScansDependencies,
  settings: DispatchScansSettings,
  tick: Date,
): Promise<DispatchSummary> {
  const requestedAt = toIsoSeconds(tick);
  const summary: DispatchSummary = {
    requestedAt,
    dispatched: [],
    notFound: [],
    skipped: { optedOut: 0, notActive: 0, describeFailed: 0 },
  };
  summary.dispatched = settings.clusters
    ? await listedClusters(deps, [...new Set(settings.clusters)], settings.region, summary)
    : await optedInClusters(deps, settings.optInTag, summary);
  const requests: ScanRequest[] = summary.dispatched.map((cluster) => ({ cluster, requestedAt }));
  if (requests.length > 0) await deps.queue.send(requests);
  return summary;
}

/**
 * CLUSTERS checked once per tick with one paginated ListClusters (one call for any number of names,
 * and an action the role already has for the opt-in mode: nothing new to grant). Every name is
 * queued all the same: the scan of a name EKS does not know is what reports it (ClustersNotFound,
 * the CLUSTER_NOT_FOUND alert with its reminders and resolution) and finds the orphans of a deleted
 * cluster (docs/service.md). Dispatch only warns, once per tick, and counts nothing (no double count).
 */
async function listedClusters(
  deps: DispatchScansDependencies,
  names: readonly string[],
  region: string,
  summary: DispatchSummary,
): Promise<string[]> {
  let existing: ReadonlySet<string>;
  try {
    existing = new Set(await deps.eks.listClusters());
  } catch (error) {
    deps.logger.warn('CLUSTERS not checked: every name is queued; each scan reports a cluster that does not exist', {
      ...errorFields(error),
    });
    return [...names];
  }
  summary.notFound = names.filter((name) => !existing.has(name));
  if (summary.notFound.length > 0) {
    deps.logger.warn('configured clusters not listed by EKS; queued all the same, their scans report them', {
      clusters: summary.notFound,
      region,
      evidence: `not in eks:ListClusters for this account in ${region}`,
    });
  }
  return [...names];
}

async function optedInClusters(deps: DispatchScansDependencies, tag: OptInTag, summary: DispatchSummary): Promise<string[]> {
  const names = await deps.eks.listClusters();
  const described = await mapBounded(names, DESCRIBE_CONCURRENCY, async (name) => {
    try {
      return await deps.eks.describeCluster(name);
    } catch (error) {
      // Its tags are unknown: logged and skipped rather than scanned against its owner's choice.
      deps.logger.warn('cluster not described; not scanned this time', { cluster: name, ...errorFields(error) });
      summary.skipped.describeFailed += 1;
      return undefined;
    }
  });
  return described.flatMap((cluster): string[] => {
    if (!cluster) return [];
    if (!scannable(cluster)) {
      summary.skipped.notActive += 1;
      return [];
    }
    if (cluster.tags?.[tag.key] !== tag.value) {
      summary.skipped.optedOut += 1;
      return [];
    }
    return [cluster.name];
  });
}

function scannable(cluster: ClusterInfo): boolean {
  return cluster.gone !== true && !NOT_SCANNABLE.has(cluster.status ?? '');
}
