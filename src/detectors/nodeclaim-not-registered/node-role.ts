import type { InstanceProfile } from '../../domain/aws.ts';
import type { EC2NodeClass } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { DetectContext } from '../detector.ts';
import { accountOf, instanceProfileNameOf, parseRoleArn, roleArn, type RoleArn } from '../aws-iam/iam-arn.ts';
import { awsAuthRoleArns } from './aws-auth.ts';
import { shellQuote } from '../../domain/shell.ts';

/** The IAM role Karpenter's nodes run with, as far as the snapshot tells. */
export interface NodeRole {
  name: string;
  /** `/` unless the data showed a path. */
  path: string;
  /** False when only the bare name was known, so the path was assumed to be `/`. */
  pathKnown: boolean;
  /** Full ARN (with path), when the account is known. */
  arn: string | undefined;
  /** ARN without path (the form aws-auth needs), when the account is known. */
  arnWithoutPath: string | undefined;
  /** How we found it, for evidence: `EC2NodeClass default spec.role`. */
  source: string;
  /** Instance profile names known to carry this role (aws-auth must not name these). */
  instanceProfiles: string[];
  /** The EC2NodeClass selects a Windows AMI family (access entry type EC2_WINDOWS). */
  windows: boolean;
  /** Nodes of an EKS Auto Mode NodeClass: only an access entry of type EC2 maps them, aws-auth does not. */
  autoMode: boolean;
}

/** The access entry type a node role needs: `EC2` for EKS Auto Mode nodes, else by operating system. */
export function accessEntryType(role: NodeRole): 'EC2' | 'EC2_WINDOWS' | 'EC2_LINUX' {
  return role.autoMode ? 'EC2' : role.windows ? 'EC2_WINDOWS' : 'EC2_LINUX';
}

export interface NodeRoleResolution {
  role: NodeRole | undefined;
  /** Why the role could not be resolved, and what to capture. */
  gaps: string[];
}

/**
 * Node role of the nodes launched for an EC2NodeClass: `spec.role` (name or ARN), else the role
 * inside `spec.instanceProfile`, else the role in the instance profile the instances carry. An
 * EKS Auto Mode NodeClass is no EC2NodeClass and is not captured: only the instances tell.
 */
export function resolveNodeRole(
  ctx: DetectContext,
  nodeClassName: string | undefined,
  instanceIds: string[],
  autoMode = false,
): NodeRoleResolution {
  const { snapshot, index } = ctx;
  const gaps: string[] = [];
  const nodeClass = nodeClassName && !autoMode ? index.nodeClassesByName.get(nodeClassName) : undefined;
  const windows = /^windows/i.test(nodeClass?.spec?.amiFamily ?? '');
  const profiles = snapshot.instanceProfiles;

  const fromClass = nodeClass ? roleOfNodeClass(nodeClass, profiles, gaps, snapshot.captured.has('instanceprofiles')) : undefined;
  if (autoMode) {
    gaps.push(
      `EKS Auto Mode NodeClass ${nodeClassName ?? '?'} is not captured; its spec.role is the node role (kubectl get nodeclasses.eks.amazonaws.com ${shellQuote(nodeClassName ?? '')} -o jsonpath='{.spec.role}')`,
    );
  } else if (!nodeClass) {
    gaps.push(
      nodeClassName
        ? `EC2NodeClass ${nodeClassName} not in the capture (kubectl get ec2nodeclass ${shellQuote(nodeClassName)} -o yaml)`
        : 'no EC2NodeClass reference on the NodeClaims',
    );
  }
  const found = fromClass ?? roleOfInstances(ctx, instanceIds, profiles);
  if (!found) return { role: undefined, gaps };

  const account = found.arn ? { partition: found.arn.partition, account: found.arn.account } : accountHint(ctx);
  const full: RoleArn | undefined = found.arn ?? (account ? { ...account, name: found.name, path: found.path } : undefined);
  const linkedProfiles = new Set(profiles.filter((p) => p.roles.some((r) => r.name === found.name)).map((p) => p.name));
  if (nodeClass?.spec?.instanceProfile) linkedProfiles.add(nodeClass.spec.instanceProfile);
  if (nodeClass?.status?.instanceProfile) linkedProfiles.add(nodeClass.status.instanceProfile);
  for (const id of instanceIds) {
    const name = instanceProfileNameOf(index.instancesById.get(id)?.iamInstanceProfileArn);
    if (name) linkedProfiles.add(name);
  }
  return {
    role: {
      name: found.name,
      path: found.path,
      pathKnown: found.pathKnown,
      arn: full ? roleArn(full) : undefined,
      arnWithoutPath: full ? roleArn(full, false) : undefined,
      source: found.source,
      instanceProfiles: [...linkedProfiles].sort(),
      windows,
      autoMode,
    },
    gaps,
  };
}

interface FoundRole {
  name: string;
  path: string;
  pathKnown: boolean;
  arn: RoleArn | undefined;
  source: string;
}

function roleOfNodeClass(
  nc: EC2NodeClass,
  profiles: InstanceProfile[],
  gaps: string[],
  profilesCaptured: boolean,
): FoundRole | undefined {
  const ncName = nc.metadata?.name ?? '?';
  const role = nc.spec?.role?.trim();
  if (role) {
    const source = `EC2NodeClass ${ncName} spec.role`;
    const parsed = parseRoleArn(role);
    if (parsed) return { name: parsed.name, path: parsed.path, pathKnown: true, arn: parsed, source };
    const slash = role.lastIndexOf('/');
    const name = role.slice(slash + 1);
    if (slash >= 0) {
      const path = `/${role.slice(0, slash + 1).replace(/^\/+/, '')}`;
      return { name, path, pathKnown: true, arn: undefined, source };
    }
    // A bare name: an instance profile holding the role gives its ARN, and with it the path.
    const preferred = nc.status?.instanceProfile;
    const candidates = [...profiles].sort((a, b) => Number(b.name === preferred) - Number(a.name === preferred));
    for (const p of candidates) {
      const parsedRole = parseRoleArn(p.roles.find((r) => r.name === name)?.arn);
      if (parsedRole) return { name, path: parsedRole.path, pathKnown: true, arn: parsedRole, source };
    }
    return { name, path: '/', pathKnown: false, arn: undefined, source };
  }
  const profileName = nc.spec?.instanceProfile?.trim();
  if (profileName) {
    const profile = profiles.find((p) => p.name === profileName);
    const inner = profile?.roles[0];
    if (inner)
      return foundFromProfileRole(inner, `role of instance profile ${profileName} (EC2NodeClass ${ncName} spec.instanceProfile)`);
    gaps.push(
      profilesCaptured && !profile
        ? `instance profile ${profileName} (EC2NodeClass ${ncName} spec.instanceProfile) is not in the captured instance profiles`
        : profile
          ? `instance profile ${profileName} has no role`
          : `instance profile ${profileName} not captured (aws iam get-instance-profile --instance-profile-name ${shellQuote(profileName)})`,
    );
    return undefined;
  }
  gaps.push(`EC2NodeClass ${ncName} names neither spec.role nor spec.instanceProfile`);
  return undefined;
}

function roleOfInstances(ctx: DetectContext, instanceIds: string[], profiles: InstanceProfile[]): FoundRole | undefined {
  for (const id of instanceIds) {
    const profileName = instanceProfileNameOf(ctx.index.instancesById.get(id)?.iamInstanceProfileArn);
    const inner = profileName ? profiles.find((p) => p.name === profileName)?.roles[0] : undefined;
    if (inner) return foundFromProfileRole(inner, `role of instance profile ${profileName} (instance ${id})`);
  }
  return undefined;
}

function foundFromProfileRole(r: { name: string; arn?: string }, source: string): FoundRole {
  const parsed = parseRoleArn(r.arn);
  return parsed
    ? { name: parsed.name, path: parsed.path, pathKnown: true, arn: parsed, source }
    : { name: r.name, path: '/', pathKnown: false, arn: undefined, source };
}

/** The account the cluster lives in: its ARN, else any instance profile or mapped ARN in the capture. */
function accountHint(ctx: DetectContext): { partition: string; account: string } | undefined {
  for (const arn of accountCandidates(ctx.snapshot)) {
    const hit = accountOf(arn);
    if (hit) return hit;
  }
  return undefined;
}

/** In order of trust, and lazily: the first hit ends the search before the instances or aws-auth are read. */
function* accountCandidates(s: ClusterSnapshot): Generator<string | undefined> {
  yield s.cluster?.arn;
  for (const i of s.instances) yield i.iamInstanceProfileArn;
  for (const p of s.instanceProfiles) yield p.arn;
  for (const e of s.accessEntries) yield e.principalArn;
  yield* awsAuthRoleArns(s);
}
