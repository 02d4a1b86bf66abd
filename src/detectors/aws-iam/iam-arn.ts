import { regionOfClusterArn, regionOfZone } from '../../domain/aws.ts';
import { shellQuote } from '../../domain/shell.ts';

/**
 * IAM ARN handling for node roles. IAM roles may live under a path
 * (`arn:aws:iam::111122223333:role/some/path/Name`); EKS access entries take the full ARN, while
 * aws-auth `mapRoles` entries must leave the path out (aws-iam-authenticator matches the role
 * name from the assumed-role session, which carries no path).
 */

export interface RoleArn {
  partition: string;
  account: string;
  name: string;
  /** `/` or `/some/path/`. */
  path: string;
}

const ROLE_ARN = /^arn:([a-z-]+):iam::(\d{12}):role(\/(?:[^/\s]+\/)*)([^/\s]+)$/;
const ANY_ARN = /^arn:([a-z-]+):[a-z0-9-]*:[a-z0-9-]*:(\d{12}):/;
const INSTANCE_PROFILE_ARN = /^arn:[a-z-]+:iam::\d{12}:instance-profile\/(?:[^/\s]+\/)*([^/\s]+)$/;

export function parseRoleArn(arn: string | undefined): RoleArn | undefined {
  const m = arn ? ROLE_ARN.exec(arn.trim()) : null;
  if (!m) return undefined;
  return { partition: m[1] as string, account: m[2] as string, path: m[3] as string, name: m[4] as string };
}

export function roleArn(r: RoleArn, withPath = true): string {
  return `arn:${r.partition}:iam::${r.account}:role${withPath ? r.path : '/'}${r.name}`;
}

/** Partition and account of any ARN (`arn:aws:eks:us-east-1:111122223333:cluster/x` → aws, 111122223333). */
export function accountOf(arn: string | undefined): { partition: string; account: string } | undefined {
  const m = arn ? ANY_ARN.exec(arn.trim()) : null;
  return m ? { partition: m[1] as string, account: m[2] as string } : undefined;
}

/** `arn:aws:iam::1:instance-profile/path/Name` → `Name`. */
export function instanceProfileNameOf(arn: string | undefined): string | undefined {
  const m = arn ? INSTANCE_PROFILE_ARN.exec(arn.trim()) : null;
  return m?.[1];
}

/** Region of an EKS cluster ARN, or of an availability zone (`us-east-1a` → `us-east-1`). */
export function regionOf(input: { clusterArn?: string; zone?: string }): string | undefined {
  const fromArn = regionOfClusterArn(input.clusterArn);
  if (fromArn) return fromArn;
  return regionOfZone(input.zone);
}

/** ` --region us-east-1` for a CLI command, or nothing when the region is unknown. */
export function regionFlag(region: string | undefined): string {
  return region ? ` --region ${shellQuote(region)}` : '';
}
