import { readCliCloudEnvironment, type CliCloudEnvironment } from '../config.ts';
import { eksTargetOfContext, type KubeContextFacts } from '../domain/eks-context.ts';
import { InputError, UsageError } from '../domain/errors.ts';
import type { KubeReadLimits } from '../domain/kube-read-limits.ts';
import { visibleLine } from '../domain/visible.ts';

/** A live cluster the CLI scans. */
export interface LiveTarget {
  clusterName: string;
  region?: string;
  /** kubeconfig context; without it, an EKS token for the ambient AWS credentials. */
  context?: string;
  /** `--kubeconfig`: this file instead of KUBECONFIG or ~/.kube/config. */
  kubeconfig?: string;
  /** `--profile` (or the context's AWS_PROFILE): the AWS profile of the SDK clients and the EKS token. */
  profile?: string;
  /** `--kube-read-limits`: over KUBE_READ_LIMITS, over the defaults. */
  readLimits?: Partial<KubeReadLimits>;
}

/** The live-scan flags as typed; every one may be absent. */
export interface LiveFlags {
  cluster?: string;
  region?: string;
  context?: string;
  kubeconfig?: string;
  profile?: string;
  readLimits?: Partial<KubeReadLimits>;
  /** What else the command takes when there is no kubeconfig, for the error (`--from PATH...`). */
  otherwise?: string;
  /** The announcement's first word: `scanning` unless the command does something else (`capturing`). */
  verb?: string;
}

export interface ResolvedTarget {
  target: LiveTarget;
  /**
   * What the kubeconfig chose, said first on stderr as kubectl users expect: `scanning context
   * "x": EKS cluster NAME in REGION`. None when `--cluster` alone says it all.
   */
  announcement?: string;
}

/** Reads the selected kubeconfig context (client-node, loaded only when a context is needed). */
export type ContextReader = (selection: { kubeconfigPath?: string; context?: string }) => Promise<KubeContextFacts>;

const readContext: ContextReader = async (selection) =>
  (await import('../adapters/kubernetes/kubeconfig-file.ts')).kubeContextFacts(selection);

/**
 * The cluster a live command reaches, as kubectl would (docs/usage.md, "kubectl plugin and the
 * current context"): `--cluster` alone keeps the EKS-token path; otherwise the kubeconfig context
 * (`--context`, else the current one, from `--kubeconfig`, KUBECONFIG or ~/.kube/config) gives the
 * Kubernetes API and, unless `--cluster`/`--region` say otherwise, the EKS cluster and region.
 */
export async function resolveLiveTarget(
  flags: LiveFlags,
  environment: CliCloudEnvironment = readCliCloudEnvironment(),
  reader: ContextReader = readContext,
): Promise<ResolvedTarget> {
  const extras = {
    ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
    ...(flags.readLimits ? { readLimits: flags.readLimits } : {}),
  };
  if (flags.cluster !== undefined && flags.context === undefined && flags.kubeconfig === undefined) {
    // No region here is connectLive's one-line error, as before the kubeconfig path existed.
    const region = flags.region ?? environment.region;
    const target = {
      clusterName: flags.cluster,
      ...(region ? { region } : {}),
      ...(flags.profile ? { profile: flags.profile } : {}),
      ...extras,
    };
    return { target };
  }
  const kubeconfigPath = flags.kubeconfig ?? environment.kubeconfig;
  const facts = await reader({
    ...(kubeconfigPath ? { kubeconfigPath } : {}),
    ...(flags.context ? { context: flags.context } : {}),
  }).catch((err: unknown) => {
    // No kubeconfig at all and nothing asked for one: say what else works.
    if (kubeconfigPath !== undefined || flags.context !== undefined || !(err instanceof InputError)) throw err;
    const otherwise = flags.otherwise ? `, or ${flags.otherwise}` : '';
    throw new UsageError(`${err.message}: pass --kubeconfig PATH, or --cluster NAME (and --region REGION)${otherwise}`);
  });
  const context = eksTargetOfContext(facts);
  const where = `context "${visibleLine(facts.name)}"`;
  const clusterName = flags.cluster ?? context.cluster;
  if (clusterName === undefined) {
    throw new UsageError(
      `cannot tell which EKS cluster ${where} (server ${visibleLine(facts.server)}) is for: pass --cluster NAME (and --region REGION)`,
    );
  }
  if (flags.cluster !== undefined && context.cluster !== undefined && flags.cluster !== context.cluster) {
    // Else the scan would read Y's Kubernetes API and X's AWS resources: the capture script refuses too.
    throw new UsageError(
      `${where} is EKS cluster ${visibleLine(context.cluster)} (from ${context.clusterFrom ?? 'the context'}), not ${visibleLine(clusterName)}: pass --context for ${visibleLine(clusterName)}'s, or --cluster ${visibleLine(context.cluster)}`,
    );
  }
  const sameCluster = flags.cluster === undefined || flags.cluster === context.cluster;
  const region = flags.region ?? (sameCluster ? context.region : undefined) ?? environment.region;
  if (!region) {
    throw new UsageError(`no AWS region for cluster ${clusterName}: ${where} names none; pass --region REGION or set AWS_REGION`);
  }
  const profile = flags.profile ?? (sameCluster ? context.profile : undefined);
  const target = { clusterName, region, context: facts.name, ...(profile ? { profile } : {}), ...extras };
  const from = flags.cluster === undefined && context.clusterFrom ? ` (from ${context.clusterFrom})` : '';
  return { target, announcement: `${flags.verb ?? 'scanning'} ${where}: EKS cluster ${shown(target, from)}` };
}

function shown(target: LiveTarget, from = ''): string {
  const profile = target.profile ? `, AWS profile ${visibleLine(target.profile)}` : '';
  const region = target.region ? ` in ${visibleLine(target.region)}` : '';
  return `${visibleLine(target.clusterName)}${from}${region}${profile}`;
}
