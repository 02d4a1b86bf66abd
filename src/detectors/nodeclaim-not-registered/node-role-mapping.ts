import type { AccessEntry } from '../../domain/aws.ts';
import type { DetectContext } from '../detector.ts';
import { checkAwsAuthRoles, NODE_GROUPS, readAwsAuth, type EntryCheck } from './aws-auth.ts';
import { parseRoleArn, regionFlag } from '../aws-iam/iam-arn.ts';
import { accessEntryType, type NodeRole } from './node-role.ts';
import { captureSteps, fixSteps } from './node-role-fixes.ts';
import { shellQuote } from '../../domain/shell.ts';
import { commandStep } from '../../domain/finding.ts';

type MappingCause = 'NODE_ROLE_NOT_MAPPED' | 'NODE_ROLE_MAPPING_INVALID' | 'UNKNOWN';

export interface MappingVerdict {
  cause: MappingCause;
  /** True when a source that counts maps the role correctly. */
  mapped: boolean;
  /** What is wrong with the entries that exist (NODE_ROLE_MAPPING_INVALID). */
  problems: string[];
  /** Which sources count under the cluster's authentication mode, in words. */
  modeText: string;
  evidence: string[];
  /** The fix with the real ARN and cluster; empty unless NOT_MAPPED/INVALID, or sources are missing. */
  steps: string[];
}

type SourceCheck = EntryCheck | { state: 'unverified'; entry: string } | { state: 'not-captured' };
interface Checked {
  check: SourceCheck;
  /** Access entries that must be deleted before a correct one can be created. */
  wrongEntries: string[];
}

/**
 * Is the node role allowed to register nodes, under the cluster's authentication mode?
 * `CONFIG_MAP`: only aws-auth counts; `API`: only access entries; `API_AND_CONFIG_MAP` or an
 * uncaptured mode: either.
 */
export function judgeNodeRoleMapping(ctx: DetectContext, role: NodeRole, region: string | undefined): MappingVerdict {
  const s = ctx.snapshot;
  const mode = s.cluster?.authenticationMode;
  // EKS Auto Mode maps its node roles through access entries only (it requires API or API_AND_CONFIG_MAP).
  const awsAuthCounts = mode !== 'API' && !role.autoMode;
  const accessCounts = mode !== 'CONFIG_MAP' || role.autoMode;
  const shown = role.arn ?? role.name;
  const evidence: string[] = [modeEvidence(mode)];
  if (role.autoMode) evidence.push('EKS Auto Mode nodes: only an access entry of type EC2 maps their role; aws-auth does not');

  const awsAuth = checkAwsAuth(ctx, role, evidence, awsAuthCounts);
  const access = checkAccess(ctx, role, evidence, accessCounts, region);
  if (!role.pathKnown) {
    evidence.push(
      `path of role ${role.name} not captured (assumed /): aws iam get-role --role-name ${shellQuote(role.name)} --query Role.Arn`,
    );
  }

  const counting = [...(awsAuthCounts ? [awsAuth] : []), ...(accessCounts ? [access] : [])];
  const states = new Set(counting.map((c) => c.check.state));
  const problems = counting.flatMap((c) => (c.check.state === 'invalid' ? c.check.problems : []));
  const modeText = describeWhere(mode, awsAuthCounts ? awsAuth : undefined, accessCounts ? access : undefined);
  const fix = (): string[] =>
    fixSteps(ctx.snapshot.clusterName, role, mode, region, {
      wrongEntries: access.wrongEntries,
      valid: access.check.state === 'valid',
    });

  if (states.has('valid')) {
    const by = awsAuthCounts && awsAuth.check.state === 'valid' ? 'in aws-auth' : 'by an access entry';
    return {
      cause: 'UNKNOWN',
      mapped: true,
      problems: [],
      modeText: mode ? `${by} (authentication mode ${mode})` : by,
      evidence,
      steps: [],
    };
  }
  if (states.has('invalid'))
    return { cause: 'NODE_ROLE_MAPPING_INVALID', mapped: false, problems, modeText, evidence, steps: fix() };
  if (states.has('unverified')) {
    const steps = [
      `aws eks describe-access-entry --cluster-name ${shellQuote(s.clusterName)} --principal-arn ${shellQuote(shown)}${regionFlag(region)}`,
    ];
    return { cause: 'UNKNOWN', mapped: false, problems: [], modeText, evidence, steps };
  }
  if (states.has('absent')) {
    // Absent where it was looked for; where it was not captured it may well be: look there before mapping it.
    const look = [
      ...(awsAuthCounts && awsAuth.check.state === 'not-captured'
        ? [
            commandStep(
              `aws-auth was not captured: look for role ${role.name} there first, and map it only if it is in neither`,
              'kubectl get configmap aws-auth -n kube-system -o yaml',
            ),
          ]
        : []),
      ...(accessCounts && access.check.state === 'not-captured'
        ? [
            commandStep(
              `access entries were not captured: look for role ${role.name} there first, and map it only if it is in neither`,
              `aws eks list-access-entries --cluster-name ${shellQuote(s.clusterName)}${regionFlag(region)}`,
            ),
          ]
        : []),
    ];
    return { cause: 'NODE_ROLE_NOT_MAPPED', mapped: false, problems: [], modeText, evidence, steps: [...look, ...fix()] };
  }
  return { cause: 'UNKNOWN', mapped: false, problems: [], modeText, evidence, steps: captureSteps(s.clusterName, mode, region) };
}

function modeEvidence(mode: string | undefined): string {
  if (mode === undefined)
    return 'cluster authentication mode not captured (aws eks describe-cluster): aws-auth and access entries both considered';
  if (mode === 'CONFIG_MAP') return 'cluster authentication mode CONFIG_MAP: only aws-auth counts';
  if (mode === 'API') return 'cluster authentication mode API: only access entries count, aws-auth is ignored';
  return `cluster authentication mode ${mode}: aws-auth and access entries both count`;
}

/** Where the role was looked for (and found, or not), in words: `in aws-auth (access entries not captured)`. */
function describeWhere(mode: string | undefined, awsAuth: Checked | undefined, access: Checked | undefined): string {
  const looked = [
    ...(awsAuth && awsAuth.check.state !== 'not-captured' ? ['aws-auth'] : []),
    ...(access && access.check.state !== 'not-captured' ? ['any access entry'] : []),
  ];
  const missing = [
    ...(awsAuth?.check.state === 'not-captured' ? ['aws-auth'] : []),
    ...(access?.check.state === 'not-captured' ? ['access entries'] : []),
  ];
  const modeNote = mode === undefined ? '' : `authentication mode ${mode}`;
  const notes = [modeNote, missing.length ? `${missing.join(' and ')} not captured` : ''].filter(Boolean).join('; ');
  const where = looked.length ? `in ${looked.join(' or ')}` : 'anywhere captured';
  return notes ? `${where} (${notes})` : where;
}

function checkAwsAuth(ctx: DetectContext, role: NodeRole, evidence: string[], counts: boolean): Checked {
  const a = readAwsAuth(ctx.snapshot);
  const ignored = counts ? '' : ', but authentication mode API ignores aws-auth';
  switch (a.state) {
    case 'not-captured':
      if (counts) evidence.push('aws-auth not captured (kubectl get configmap aws-auth -n kube-system -o yaml)');
      return { check: { state: 'not-captured' }, wrongEntries: [] };
    case 'absent':
      if (counts) evidence.push('ConfigMap kube-system/aws-auth does not exist');
      return { check: { state: 'absent' }, wrongEntries: [] };
    case 'unreadable':
      evidence.push(`aws-auth mapRoles cannot be parsed (${a.error})${ignored}`);
      return { check: { state: 'invalid', problems: [`aws-auth mapRoles is not valid YAML (${a.error})`] }, wrongEntries: [] };
    case 'read': {
      const check = checkAwsAuthRoles(a.roles, {
        name: role.name,
        arnWithoutPath: role.arnWithoutPath,
        instanceProfiles: role.instanceProfiles,
      });
      if (check.state === 'valid') evidence.push(`aws-auth maps ${check.entry} with ${NODE_GROUPS.join(' and ')}${ignored}`);
      else if (check.state === 'invalid') evidence.push(...check.problems.map((p) => `aws-auth ${p}${ignored}`));
      else if (counts) {
        const mapped = a.roles.map((r) => r.rolearn);
        const listed =
          mapped.length === 0
            ? 'mapRoles is empty'
            : `it maps only ${mapped.slice(0, 5).join(', ')}${mapped.length > 5 ? ', ...' : ''}`;
        evidence.push(`aws-auth has no entry for ${role.arnWithoutPath ?? role.name}; ${listed}`);
      }
      return { check, wrongEntries: [] };
    }
  }
}

function checkAccess(
  ctx: DetectContext,
  role: NodeRole,
  evidence: string[],
  counts: boolean,
  region: string | undefined,
): Checked {
  const s = ctx.snapshot;
  if (!s.captured.has('accessentries')) {
    if (counts)
      evidence.push(
        `access entries not captured (aws eks list-access-entries --cluster-name ${shellQuote(s.clusterName)}${regionFlag(region)})`,
      );
    return { check: { state: 'not-captured' }, wrongEntries: [] };
  }
  const ignored = counts ? '' : ', but authentication mode CONFIG_MAP ignores access entries';
  const expected = accessEntryType(role);
  const account = role.arn ? parseRoleArn(role.arn)?.account : undefined;
  const problems: string[] = [];
  const wrongEntries: string[] = [];
  let unverified: string | undefined;
  for (const e of s.accessEntries) {
    const parsed = parseRoleArn(e.principalArn);
    if (!parsed || parsed.name.toLowerCase() !== role.name.toLowerCase()) continue;
    if (account !== undefined && parsed.account !== account) continue;
    const problem = accessEntryProblem(e, parsed, role, expected);
    if (problem === undefined) {
      evidence.push(`access entry ${e.principalArn} has type ${e.type}${ignored}`);
      return { check: { state: 'valid', entry: e.principalArn }, wrongEntries: [] };
    }
    if (problem === 'unverified') {
      unverified = e.principalArn;
      continue;
    }
    problems.push(problem);
    wrongEntries.push(e.principalArn);
  }
  if (problems.length > 0) {
    evidence.push(...problems.map((p) => `${p}${ignored}`));
    return { check: { state: 'invalid', problems }, wrongEntries };
  }
  if (unverified) {
    evidence.push(`access entry ${unverified} listed but not described, so its type is unknown${ignored}`);
    return { check: { state: 'unverified', entry: unverified }, wrongEntries: [] };
  }
  if (counts) evidence.push(`no access entry for ${role.arn ?? role.name} among ${s.accessEntries.length} access entries`);
  return { check: { state: 'absent' }, wrongEntries: [] };
}

function accessEntryProblem(
  e: AccessEntry,
  parsed: { name: string; path: string },
  role: NodeRole,
  expected: string,
): string | undefined {
  if (parsed.name !== role.name) return `access entry ${e.principalArn} differs in letter case from the role name ${role.name}`;
  if (role.pathKnown && parsed.path !== role.path) {
    return `access entry ${e.principalArn} has path ${parsed.path} but the role's path is ${role.path}; access entries need the full role ARN`;
  }
  if (e.type === undefined) return 'unverified';
  if (e.type === expected) return undefined;
  if (e.type === 'STANDARD') return `access entry ${e.principalArn} has type STANDARD; a node role needs type ${expected}`;
  return `access entry ${e.principalArn} has type ${e.type}; these nodes need type ${expected}`;
}
