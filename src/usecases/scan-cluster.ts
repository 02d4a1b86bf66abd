import type { Report } from '../domain/report.ts';
import type { ActionSettings, DetectionSettings } from '../domain/settings.ts';
import type { ClusterSnapshot, Gap, SourceName } from '../domain/snapshot.ts';
import type { Detector } from '../detectors/detector.ts';
import { collectSnapshot } from '../collect/collect.ts';
import type { ClusterConnection } from '../ports/cluster.ts';
import type { KubernetesPort } from '../ports/kubernetes.ts';
import type { Finding } from '../domain/finding.ts';
import { attemptsOf, executeRemediations } from '../remediations/execute.ts';
import { analyze } from './analyze.ts';

export interface ScanClusterOptions {
  clusterName: string;
  detection: DetectionSettings;
  actions: ActionSettings;
  now: Date;
  /** Only these sources (a simulation of a partial capture). */
  sources?: ReadonlySet<SourceName>;
  detectors?: readonly Detector[];
  /**
   * Gaps known before anything is read: a simulation's capture had objects set aside, which its
   * simulated cluster does not serve. They count as the collected ones do.
   */
  knownGaps?: readonly Gap[];
  /** Capture files a simulation's seed left out without knowing their source (ClusterSnapshot.unreadFiles). */
  unreadFiles?: readonly string[];
  /**
   * Changes the plan before anything is applied (the service holds back remediations still cooling
   * down after an earlier attempt). Pure; must only turn `planned` remediations into `skipped`.
   */
  reviewPlan?: (planned: Report) => Report;
  /**
   * Called with the findings whose action is about to be attempted (never with none), before
   * anything is done: the service records their announcements first (its outbox). A rejection
   * stops the scan before it acts.
   */
  beforeActing?: (attempts: readonly Finding[]) => Promise<void>;
}

export interface ScanClusterResult {
  report: Report;
  /** What was read (metrics count from it). */
  snapshot: ClusterSnapshot;
  notices: string[];
  /** Why the scan read nothing of the cluster (see CollectResult); the report is then empty, not healthy. */
  unreadable?: string;
}

/** collect → detect → plan → apply (in the configured modes): one live scan of one cluster. */
export async function scanCluster(connection: ClusterConnection, options: ScanClusterOptions): Promise<ScanClusterResult> {
  const { snapshot, notices, unreadable } = await collectSnapshot(connection, {
    clusterName: options.clusterName,
    now: options.now,
    ...(options.sources ? { sources: options.sources } : {}),
  });
  if (options.knownGaps?.length) snapshot.gaps.push(...options.knownGaps);
  if (options.unreadFiles?.length) snapshot.unreadFiles = [...options.unreadFiles];
  const analysed = analyze(snapshot, {
    detection: options.detection,
    actions: options.actions,
    now: options.now,
    ...(options.detectors ? { detectors: options.detectors } : {}),
  });
  const planned = options.reviewPlan ? options.reviewPlan(analysed) : analysed;
  const attempts = attemptsOf(planned, options.actions);
  if (attempts.length > 0 && options.beforeActing) await options.beforeActing(attempts);
  // In dry-run, or with nothing planned, this is the plan as it is, and nothing is connected to.
  const report = await executeRemediations(planned, {
    kube: connectOnFirstUse(() => connection.connectKube(snapshot.cluster)),
    ec2: connection.aws.ec2,
    iam: connection.aws.iam,
    region: connection.aws.region,
    actions: options.actions,
    detection: options.detection,
    clusterName: snapshot.clusterName,
    now: options.now,
  });
  return unreadable ? { report, snapshot, notices, unreadable } : { report, snapshot, notices };
}

/**
 * Only ROLLOUT_RESTART needs the Kubernetes API: a deleted cluster's orphans are terminated
 * without reaching for its API, which went with it. A failed connection fails the call that needed it.
 */
function connectOnFirstUse(connect: () => Promise<KubernetesPort>): KubernetesPort {
  let port: Promise<KubernetesPort> | undefined;
  const kube = () => (port ??= connect());
  return {
    list: async (query) => (await kube()).list(query),
    get: async (resource, name, namespace) => (await kube()).get(resource, name, namespace),
    podLog: async (query) => (await kube()).podLog(query),
    patchDeploymentAnnotations: async (patch) => (await kube()).patchDeploymentAnnotations(patch),
    deleteNodePool: async (name) => (await kube()).deleteNodePool(name),
  };
}
