/**
 * Which EKS cluster a kubeconfig context is for, from what the context holds (docs/usage.md,
 * "kubectl plugin and the current context"): the user's `aws eks get-token --cluster-name NAME
 * --region R` (what `aws eks update-kubeconfig` writes), an ARN-style context or cluster name
 * `arn:aws:eks:REGION:ACCOUNT:cluster/NAME`, an eksctl-style `NAME.REGION.eksctl.io`, and the
 * region of an `https://….REGION.eks.amazonaws.com` server. Pure: the kubeconfig is read elsewhere.
 */
import { isAwsRegion, isEksClusterName, regionOfClusterArn } from './aws.ts';

/** What a kubeconfig context says about itself (adapters/kubernetes/kubeconfig-file.ts reads it). */
export interface KubeContextFacts {
  /** The context's name. */
  name: string;
  /** The name of the cluster entry it uses. */
  clusterEntry: string;
  server: string;
  /** The user's exec credential plugin, if it has one. */
  exec?: { command: string; args: readonly string[]; env: Readonly<Record<string, string>> };
}

export interface EksContextTarget {
  cluster?: string;
  region?: string;
  /** AWS_PROFILE in the user's exec env: the profile kubectl authenticates with. */
  profile?: string;
  /** Where the cluster name came from, for the "scanning ..." line. */
  clusterFrom?: string;
}

const ARN = /^arn:aws[a-z-]*:eks:[a-z0-9-]+:\d{12}:cluster\/([^/]+)$/;
const EKSCTL = /(?:^|@)([0-9A-Za-z][A-Za-z0-9_-]*)\.([a-z]{2}(?:-[a-z]+)+-\d{1,2})\.eksctl\.io$/;
const EKS_SERVER = /^https:\/\/[^/]+\.([a-z]{2}(?:-[a-z]+)+-\d{1,2})\.eks\.amazonaws\.com(?:\.cn)?(?::\d+)?\/?$/;

/** Everything the context tells; fields it does not tell are absent. */
export function eksTargetOfContext(facts: KubeContextFacts): EksContextTarget {
  const exec = execTarget(facts.exec);
  const arn = arnTarget(facts.clusterEntry) ?? arnTarget(facts.name);
  const eksctl = eksctlTarget(facts.clusterEntry) ?? eksctlTarget(facts.name);
  const named = [exec, arn, eksctl].find((t) => t?.cluster !== undefined);
  const region =
    [exec, arn, eksctl].find((t) => t?.region !== undefined)?.region ??
    regionOf(EKS_SERVER.exec(facts.server)?.[1]) ??
    regionOf(facts.exec?.env.AWS_REGION) ??
    regionOf(facts.exec?.env.AWS_DEFAULT_REGION);
  const profile = facts.exec?.env.AWS_PROFILE?.trim() || undefined;
  return {
    ...(named?.cluster ? { cluster: named.cluster, clusterFrom: named.clusterFrom } : {}),
    ...(region ? { region } : {}),
    ...(profile ? { profile } : {}),
  };
}

/** `aws eks get-token --cluster-name NAME [--region R]`, or `aws-iam-authenticator token -i NAME`. */
function execTarget(exec: KubeContextFacts['exec']): EksContextTarget | undefined {
  if (!exec) return undefined;
  const args = exec.args;
  const valueOf = (...flags: string[]): string | undefined => {
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      for (const flag of flags) {
        if (arg === flag) return args[i + 1];
        if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
      }
    }
    return undefined;
  };
  const isGetToken = args.includes('get-token') && args.includes('eks');
  const isAuthenticator = /aws-iam-authenticator$/.test(exec.command) && args.includes('token');
  if (!isGetToken && !isAuthenticator) return undefined;
  const name = isGetToken ? valueOf('--cluster-name', '--cluster-id') : valueOf('-i', '--cluster-id');
  const cluster = name !== undefined && isEksClusterName(name) ? name : undefined;
  const region = regionOf(valueOf('--region'));
  const how = isGetToken ? 'aws eks get-token --cluster-name' : 'aws-iam-authenticator token -i';
  return { ...(cluster ? { cluster, clusterFrom: `the user's ${how}` } : {}), ...(region ? { region } : {}) };
}

function arnTarget(name: string): EksContextTarget | undefined {
  const cluster = ARN.exec(name)?.[1];
  if (cluster === undefined || !isEksClusterName(cluster)) return undefined;
  const region = regionOf(regionOfClusterArn(name));
  return { cluster, clusterFrom: 'its EKS cluster ARN', ...(region ? { region } : {}) };
}

function eksctlTarget(name: string): EksContextTarget | undefined {
  const match = EKSCTL.exec(name);
  if (!match) return undefined;
  return { cluster: match[1] as string, clusterFrom: 'its eksctl name', region: match[2] as string };
}

function regionOf(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed && isAwsRegion(trimmed) ? trimmed : undefined;
}
