import { loadAll } from 'js-yaml';
import type { ConfigMap } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import { instanceProfileNameOf, parseRoleArn } from '../aws-iam/iam-arn.ts';

/** One `data.mapRoles` entry of the `kube-system/aws-auth` ConfigMap. */
export interface MapRole {
  rolearn: string;
  username: string | undefined;
  groups: string[];
}

export type AwsAuth =
  { state: 'not-captured' } | { state: 'absent' } | { state: 'unreadable'; error: string } | { state: 'read'; roles: MapRole[] };

/** The one document of `mapRoles` (null when it holds none); throws on invalid YAML or several documents. */
function parse(text: string): unknown {
  // js-yaml shares an aliased value rather than copying it; 100 aliases are plenty for a hand-written file.
  const documents = loadAll(text, { maxAliases: 100 });
  if (documents.length > 1) throw new Error('expected a single document in the stream, but found more');
  return documents[0] ?? null;
}

export const NODE_USERNAME = 'system:node:{{EC2PrivateDNSName}}';
export const NODE_GROUPS = ['system:bootstrappers', 'system:nodes'] as const;

function findAwsAuth(s: ClusterSnapshot): ConfigMap | undefined {
  return s.configMaps.find((c) => c.metadata?.name === 'aws-auth' && c.metadata?.namespace === 'kube-system');
}

/**
 * ConfigMaps captured without `kube-system/aws-auth` means the cluster has none, unless a ConfigMap
 * read failed: another one read by name (karpenter-global-settings) also marks ConfigMaps captured,
 * so a refused aws-auth read would otherwise pass for "none".
 */
export function readAwsAuth(s: ClusterSnapshot): AwsAuth {
  if (!s.captured.has('configmaps')) return { state: 'not-captured' };
  const cm = findAwsAuth(s);
  if (!cm) return s.gaps.some((g) => g.source === 'configmaps') ? { state: 'not-captured' } : { state: 'absent' };
  const text = cm.data?.mapRoles;
  if (text === undefined || text.trim() === '') return { state: 'read', roles: [] };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return { state: 'unreadable', error: err instanceof Error ? (err.message.split('\n')[0] ?? 'invalid YAML') : 'invalid YAML' };
  }
  if (doc === null || doc === undefined) return { state: 'read', roles: [] };
  if (!Array.isArray(doc)) return { state: 'unreadable', error: 'mapRoles is not a YAML list' };
  const roles: MapRole[] = [];
  for (const item of doc as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    if (typeof r.rolearn !== 'string') continue;
    roles.push({
      rolearn: r.rolearn.trim(),
      username: typeof r.username === 'string' ? r.username : undefined,
      groups: Array.isArray(r.groups) ? r.groups.filter((g): g is string => typeof g === 'string') : [],
    });
  }
  return { state: 'read', roles };
}

/** Role ARNs aws-auth maps (for account hints); empty when unreadable or absent. */
export function awsAuthRoleArns(s: ClusterSnapshot): string[] {
  const a = readAwsAuth(s);
  return a.state === 'read' ? a.roles.map((r) => r.rolearn) : [];
}

export type EntryCheck = { state: 'valid'; entry: string } | { state: 'invalid'; problems: string[] } | { state: 'absent' };

/** What aws-auth needs to know about the node role to judge its entries. */
export interface RoleIdentity {
  name: string;
  /** ARN without path; undefined when the account is unknown (then names are compared). */
  arnWithoutPath: string | undefined;
  instanceProfiles: string[];
}

/**
 * Judges the aws-auth entries that concern the node role. A usable entry names the role ARN
 * without path and gives both `system:bootstrappers` and `system:nodes`; entries that name the
 * role with a path, by its instance profile, or in another letter case never match at login.
 */
export function checkAwsAuthRoles(roles: MapRole[], role: RoleIdentity): EntryCheck {
  const problems: string[] = [];
  for (const entry of roles) {
    const arn = entry.rolearn;
    const profile = instanceProfileNameOf(arn);
    if (profile !== undefined) {
      if (profile === role.name || role.instanceProfiles.includes(profile)) {
        problems.push(`rolearn ${arn} is an instance-profile ARN; aws-auth needs the role ARN`);
      }
      continue;
    }
    const parsed = parseRoleArn(arn);
    if (!parsed || parsed.name.toLowerCase() !== role.name.toLowerCase()) continue;
    const sameAccount = role.arnWithoutPath === undefined || parseRoleArn(role.arnWithoutPath)?.account === parsed.account;
    if (!sameAccount) continue;
    if (parsed.name !== role.name) {
      problems.push(`rolearn ${arn} differs in letter case from the role name ${role.name}`);
      continue;
    }
    if (parsed.path !== '/') {
      problems.push(`rolearn ${arn} includes the path ${parsed.path}; aws-auth entries must leave the path out`);
      continue;
    }
    const missing = NODE_GROUPS.filter((g) => !entry.groups.includes(g));
    // The node authorizer only admits `system:node:<name>`; the template is the usual form.
    const badUser = !entry.username?.startsWith('system:node:');
    if (missing.length === 0 && !badUser) return { state: 'valid', entry: arn };
    if (missing.length > 0) problems.push(`entry for ${arn} lacks group${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
    if (badUser) {
      const has = entry.username === undefined ? 'no username' : `username ${entry.username}`;
      problems.push(`entry for ${arn} has ${has}; nodes need ${NODE_USERNAME}`);
    }
  }
  return problems.length > 0 ? { state: 'invalid', problems } : { state: 'absent' };
}
