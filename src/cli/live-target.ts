import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeContextRead, KubeconfigSelection } from '../adapters/kubernetes/kubeconfig-file.ts';
import { readCliCloudEnvironment, type CliCloudEnvironment } from '../config.ts';
import { eksTargetOfContext } from '../domain/eks-context.ts';
import { InputError, UsageError } from '../domain/errors.ts';
import { KUBE_READ_LIMITS_VARIABLE, parseKubeReadLimits, type KubeReadLimits } from '../domain/kube-read-limits.ts';
import { visibleLine } from '../domain/visible.ts';

/**
 * A live cluster the CLI scans, with all that the flags and the environment say of it, read once
 * here (resolveLiveTarget): connectLive reads neither again.
 */
export interface LiveTarget {
  clusterName: string;
  region?: string;
  /** kubeconfig context; without it, an EKS token for the ambient AWS credentials. */
  context?: string;
  /** The kubeconfig the context is in: `--kubeconfig`, else KUBECONFIG; neither: ~/.kube/config. */
  kubeconfig?: string;
  /** `--profile` (or the context's AWS_PROFILE): the AWS profile of the SDK clients and the EKS token. */
  profile?: string;
  /** `--kube-read-limits` over KUBE_READ_LIMITS; the defaults for the limits neither names. */
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
   * The kubeconfig read to resolve the target's context (none for `--cluster` alone): connectLive
   * builds the Kubernetes client on it, so the file is read once per command.
   */
  loadedKubeconfig?: KubeConfig;
  /**
   * What the kubeconfig chose, said first on stderr as kubectl users expect: `scanning context
   * "x": EKS cluster NAME in REGION`. None when `--cluster` alone says it all.
   */
  announcement?: string;
}

/** Reads the selected kubeconfig context (client-node, loaded only when a context is needed). */
type ContextReader = (selection: KubeconfigSelection) => Promise<KubeContextRead>;

const readContext: ContextReader = async (selection) =>
  (await import('../adapters/kubernetes/kubeconfig-file.ts')).readKubeContext(selection);

/** The AWS shared config's region for a profile (undefined: AWS_PROFILE, else `default`), as the SDK reads it. */
export type ConfigRegionReader = (profile: string | undefined) => Promise<string | undefined>;

const readConfigRegion: ConfigRegionReader = async (profile) =>
  (await import('../adapters/aws/shared-config-region.ts')).sharedConfigRegion(profile);

/** The one "no AWS region" line of every live command. */
export function noAwsRegionError(clusterName: string): UsageError {
  return new UsageError(
    `no AWS region for cluster ${visibleLine(clusterName)}: pass --region REGION, set AWS_REGION, or set one in the AWS config (aws configure set region REGION)`,
  );
}

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
  configRegion: ConfigRegionReader = readConfigRegion,
): Promise<ResolvedTarget> {
  const readLimits = mergedReadLimits(flags, environment);
  const extras = readLimits ? { readLimits } : {};
  const verb = flags.verb ?? 'scanning';
  if (flags.cluster !== undefined && flags.context === undefined && flags.kubeconfig === undefined) {
    const given = flags.region ?? environment.region;
    const region = given ?? (await configRegion(flags.profile));
    // No region at all is connectLive's noAwsRegionError, as before the kubeconfig path existed.
    const target = {
      clusterName: flags.cluster,
      ...(region ? { region } : {}),
      ...(flags.profile ? { profile: flags.profile } : {}),
      ...extras,
    };
    // --cluster alone says it all, unless the region came from the AWS config: then say so.
    return given === undefined && region !== undefined
      ? { target, announcement: `${verb} EKS cluster ${shown(target, '', configNote(target))}` }
      : { target };
  }
  const kubeconfigPath = flags.kubeconfig ?? environment.kubeconfig;
  const { facts, config } = await reader({
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
  const profile = flags.profile ?? (sameCluster ? context.profile : undefined);
  const given = flags.region ?? (sameCluster ? context.region : undefined) ?? environment.region;
  const region = given ?? (await configRegion(profile));
  if (region === undefined) throw noAwsRegionError(clusterName);
  const target: LiveTarget = {
    clusterName,
    region,
    context: facts.name,
    ...(kubeconfigPath ? { kubeconfig: kubeconfigPath } : {}),
    ...(profile ? { profile } : {}),
    ...extras,
  };
  const from = flags.cluster === undefined && context.clusterFrom ? ` (from ${context.clusterFrom})` : '';
  const note = given === undefined ? configNote(target) : '';
  return { target, loadedKubeconfig: config, announcement: `${verb} ${where}: EKS cluster ${shown(target, from, note)}` };
}

/** KUBE_READ_LIMITS, then `--kube-read-limits` over it; a bad variable is a usage error naming it. */
function mergedReadLimits(flags: LiveFlags, environment: CliCloudEnvironment): Partial<KubeReadLimits> | undefined {
  if (environment.kubeReadLimits === undefined) return flags.readLimits;
  const fromEnvironment = parseKubeReadLimits(environment.kubeReadLimits);
  if ('problem' in fromEnvironment) throw new UsageError(`${KUBE_READ_LIMITS_VARIABLE}: ${fromEnvironment.problem}`);
  return { ...fromEnvironment, ...flags.readLimits };
}

/** Where a region read from the AWS shared config came from, for the announcement. */
function configNote(target: LiveTarget): string {
  return target.profile
    ? ` (region from the AWS config of profile ${visibleLine(target.profile)})`
    : ' (region from the AWS config)';
}

function shown(target: LiveTarget, from = '', regionNote = ''): string {
  const profile = target.profile ? `, AWS profile ${visibleLine(target.profile)}` : '';
  const region = target.region ? ` in ${visibleLine(target.region)}${regionNote}` : '';
  return `${visibleLine(target.clusterName)}${from}${region}${profile}`;
}
