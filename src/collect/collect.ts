import type { ClusterInfo } from '../domain/aws.ts';
import { SOURCE_NAMES, type ClusterSnapshot, type SourceName } from '../domain/snapshot.ts';
import type { AwsPorts } from '../ports/aws.ts';
import type { KubernetesReader } from '../ports/kubernetes.ts';
import { CaptureMerger } from '../snapshot/capture-merger.ts';
import { collectAws, collectSubnets, SUBNETS_UNKNOWN } from './aws-sources.ts';
import { mapBounded, settled } from '../support/concurrency.ts';
import { failureText } from '../ports/failure-text.ts';
import { collectKube, KUBE_SOURCES } from './kube-collector.ts';
import { collectInterruptionQueue, QUEUE_SETTING_UNKNOWN } from './interruption-queue.ts';
import { mergeSpotPrices, readSpotPrices } from './spot-prices.ts';

const CLUSTER_SCOPED: readonly SourceName[] = ['fargateprofiles', 'accessentries'];

/** The Kubernetes sources whose objects name Spot instance types (with the instances: spotTypesInPlay). */
const SPOT_KUBE_SOURCES: readonly SourceName[] = ['nodes', 'nodeclaims'];

/**
 * Calls in flight at once: AWS sources at most this many, and Kubernetes reads at most this many
 * of their own (the subnets and the Spot prices, one call each, wait outside both).
 */
const CONCURRENCY = 8;

export interface CollectPorts {
  aws: AwsPorts;
  /**
   * Connects to the cluster's Kubernetes API once its EKS description is known (Lambda needs the
   * endpoint and CA from it; the CLI's kubeconfig does not). Rejecting means no Kubernetes source.
   */
  connectKube(cluster: ClusterInfo | undefined): Promise<KubernetesReader>;
}

export interface CollectOptions {
  clusterName: string;
  /** Collect only these sources: a simulation knows only what its capture held. Default: all. */
  sources?: ReadonlySet<SourceName>;
  /** When NodeClaims are judged expired (which nodes' pods are read). Default: the time of the call. */
  now?: Date;
}

export interface CollectResult {
  snapshot: ClusterSnapshot;
  notices: string[];
  /** The notes (among `notices`) about objects set aside as malformed, for `snapshot --out` to record. */
  setAside: string[];
  /**
   * Set when the snapshot says nothing about the cluster: nothing could be read, or none of its
   * Kubernetes API. A report of it would be empty, not healthy; callers treat it as a failure.
   */
  unreadable?: string;
}

/**
 * Live ports → ClusterSnapshot, through the same merger that reads capture files, so a live scan
 * and a scan of its `snapshot --out` see the same cluster. Never rejects: every failed call is a
 * gap, and a snapshot with gaps is incomplete (nothing destructive is planned on it).
 */
export async function collectSnapshot(ports: CollectPorts, options: CollectOptions): Promise<CollectResult> {
  const wanted = options.sources ?? new Set(SOURCE_NAMES);
  const merger = new CaptureMerger();
  const gap = (source: SourceName, error: unknown) => merger.add('live', [{ type: 'gap', source, error: failureText(error) }]);

  const cluster = wanted.has('cluster') ? await describeCluster(ports, options.clusterName, merger, gap) : undefined;
  // A deleted cluster has no Fargate profiles or access entries to list: nothing is missing there.
  const awsWanted = cluster?.gone ? new Set([...wanted].filter((s) => !CLUSTER_SCOPED.includes(s))) : wanted;
  const kubeWanted = KUBE_SOURCES.filter((s) => wanted.has(s));
  // The API server went with a deleted cluster: the merger records its Kubernetes objects as none,
  // and no EC2NodeClass is left to name a subnet.
  if (cluster?.gone && wanted.has('subnets'))
    merger.add('AWS API', [{ type: 'aws', output: { source: 'subnets', subnets: [] } }]);
  // The Spot types in play are those of the instances, Nodes and NodeClaims: their prices are asked as soon as these are in.
  const instancesIn = settled<void>();
  const kubeSpotSourcesIn = settled<void>();
  const awsTasks = collectAws(ports.aws, options.clusterName, awsWanted, merger, gap).map(({ source, task }) =>
    source === 'instances' ? () => task().finally(() => instancesIn.resolve()) : task,
  );
  if (!awsWanted.has('instances')) instancesIn.resolve();
  const awsRead = mapBounded(awsTasks, CONCURRENCY, (task) => task());
  const kubeRead =
    !cluster?.gone && (kubeWanted.length > 0 || wanted.has('subnets') || wanted.has('interruptionqueue'))
      ? readKube(ports, cluster, { ...options, wanted, kubeWanted }, merger, gap, () => kubeSpotSourcesIn.resolve())
      : Promise.resolve();
  // Also when nothing of Kubernetes is read, or it could not be connected to.
  const kubeEnded = () => kubeSpotSourcesIn.resolve();
  void kubeRead.then(kubeEnded, kubeEnded);
  const spotRead = wanted.has('spotprices')
    ? Promise.all([instancesIn.promise, kubeSpotSourcesIn.promise]).then(() => readSpotPrices(ports.aws, merger.spotTypesSoFar()))
    : undefined;
  await Promise.all([awsRead, kubeRead]);
  // Merged last, as when it was asked last: the notes keep their order.
  if (spotRead) mergeSpotPrices(await spotRead, merger, gap);
  const { snapshot, notices, setAside } = merger.finish(options.clusterName);
  const unreadable = unreadableReason(snapshot, kubeWanted);
  return unreadable ? { snapshot, notices, setAside, unreadable } : { snapshot, notices, setAside };
}

/**
 * Whether nothing about the cluster was read. The region's instance types (perhaps from the
 * adapter's cache, with credentials that no longer work) say nothing about it, nor do Spot prices.
 */
export function readNothingOfTheCluster(snapshot: ClusterSnapshot): boolean {
  return [...snapshot.captured].every((s) => s === 'instancetypes' || s === 'spotprices');
}

function unreadableReason(snapshot: ClusterSnapshot, kubeWanted: readonly SourceName[]): string | undefined {
  const [first] = snapshot.gaps;
  if (!first) return undefined;
  if (readNothingOfTheCluster(snapshot)) return `nothing could be read (${first.source}: ${first.error})`;
  if (snapshot.cluster?.gone || kubeWanted.length === 0 || kubeWanted.some((s) => snapshot.captured.has(s))) return undefined;
  const kubeGap = snapshot.gaps.find((g) => kubeWanted.includes(g.source)) ?? first;
  return `its Kubernetes API could not be read (${kubeGap.source}: ${kubeGap.error})`;
}

/**
 * Every Kubernetes source wanted, the subnets of the EC2NodeClasses, and the interruption queue the
 * controller's Deployment names. `spotSourcesIn` is called once the Nodes and NodeClaims are merged
 * (or gaps). Never rejects.
 */
async function readKube(
  ports: CollectPorts,
  cluster: ClusterInfo | undefined,
  options: CollectOptions & { wanted: ReadonlySet<SourceName>; kubeWanted: readonly SourceName[] },
  merger: CaptureMerger,
  gap: (source: SourceName, error: unknown) => void,
  spotSourcesIn: () => void,
): Promise<void> {
  const { wanted, kubeWanted } = options;
  const subnetsWanted = wanted.has('subnets');
  const queueWanted = wanted.has('interruptionqueue');
  let kube: KubernetesReader;
  try {
    kube = await ports.connectKube(cluster);
  } catch (error) {
    for (const source of kubeWanted) gap(source, error);
    if (subnetsWanted) gap('subnets', SUBNETS_UNKNOWN);
    if (queueWanted) gap('interruptionqueue', QUEUE_SETTING_UNKNOWN);
    return;
  }
  const now = options.now ?? new Date();
  const collection = collectKube(kube, wanted, merger, gap, {
    now,
    needNodeClasses: subnetsWanted,
    needDeployments: queueWanted,
    inFlight: CONCURRENCY,
  });
  void collection.settled(SPOT_KUBE_SOURCES).then(spotSourcesIn);
  // The subnets come from the EC2NodeClasses: asked once they are listed.
  const subnets = subnetsWanted ? collectSubnets(ports.aws, collection.nodeClasses, merger, gap) : undefined;
  // The queue from the controller's Deployment: asked once the Deployments are listed.
  const queue = queueWanted
    ? collectInterruptionQueue(
        ports.aws,
        { reader: collection.ahead, deployments: collection.deployments, configMapsListed: collection.settled(['configmaps']) },
        merger,
        gap,
        { clusterName: options.clusterName, now, wanted },
      )
    : undefined;
  await Promise.all([collection.done, subnets, queue]);
}

async function describeCluster(
  ports: CollectPorts,
  name: string,
  merger: CaptureMerger,
  gap: (source: SourceName, error: unknown) => void,
): Promise<ClusterInfo | undefined> {
  try {
    const cluster = await ports.aws.eks.describeCluster(name);
    merger.add('AWS API', [
      cluster.gone ? { type: 'cluster-gone', name } : { type: 'aws', output: { source: 'cluster', cluster } },
    ]);
    return cluster;
  } catch (error) {
    gap('cluster', error);
    return undefined;
  }
}
