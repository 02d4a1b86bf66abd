/**
 * The `cleanup` function's event → a CleanupRequest (docs/cleanup.md#the-cleanup-function). The event is
 * typed by hand (`aws lambda invoke`, a Terraform provisioner), and a mistake here deletes things, so
 * nothing is guessed: a misspelt field ("dryrun") or a string "false" is refused, never read as the
 * opposite of a dry run or silently ignored.
 */
import { isEksClusterName } from '../domain/aws.ts';
import { isKubeObjectName } from '../domain/kube-helpers.ts';
import type { CleanupRequest } from '../domain/cleanup.ts';
import { SentinelError } from '../domain/errors.ts';

const FIELDS = ['clusterName', 'dryRun', 'nodePools', 'deleteNodePools'] as const;

/** An invalid request: one line naming each wrong field. Nothing has been done. */
export class CleanupRequestError extends SentinelError {
  readonly fields: string[];
  constructor(problems: { field: string; problem: string }[]) {
    super(`invalid cleanup request: ${problems.map((p) => p.problem).join('; ')}`);
    this.fields = problems.map((p) => p.field);
    // The caller's mistake, not ours: the Lambda runtime logs and returns `stack`, whose frames would only be noise.
    this.stack = `${this.name}: ${this.message}`;
  }
}

export function parseCleanupRequest(event: unknown): CleanupRequest {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new CleanupRequestError([
      {
        field: 'event',
        problem: `expected a JSON object like {"clusterName": "my-cluster", "dryRun": true}, got ${describe(event)}`,
      },
    ]);
  }
  const fields = event as Record<string, unknown>;
  const problems: { field: string; problem: string }[] = [];
  for (const key of Object.keys(fields).filter((k) => !(FIELDS as readonly string[]).includes(k))) {
    const meant = FIELDS.find((f) => f.toLowerCase() === key.toLowerCase());
    problems.push({
      field: key,
      problem: `unknown field ${JSON.stringify(key)} (${meant ? `did you mean "${meant}"?` : `the fields are ${FIELDS.join(', ')}`})`,
    });
  }

  const clusterName = fields.clusterName;
  if (clusterName === undefined) problems.push({ field: 'clusterName', problem: 'clusterName is required' });
  else if (typeof clusterName !== 'string' || !isEksClusterName(clusterName)) {
    problems.push({
      field: 'clusterName',
      problem: `clusterName must be an EKS cluster name (letters, digits, - and _, at most 100), got ${describe(clusterName)}`,
    });
  }
  const dryRun = booleanField(fields, 'dryRun', true, problems);
  const deleteNodePools = booleanField(fields, 'deleteNodePools', true, problems);
  const nodePools = nodePoolsField(fields.nodePools, problems);

  if (problems.length > 0) throw new CleanupRequestError(problems);
  return { clusterName: clusterName as string, dryRun, deleteNodePools, ...(nodePools ? { nodePools } : {}) };
}

function booleanField(
  fields: Record<string, unknown>,
  field: 'dryRun' | 'deleteNodePools',
  fallback: boolean,
  problems: { field: string; problem: string }[],
): boolean {
  const value = fields[field];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  problems.push({ field, problem: `${field} must be true or false (a JSON boolean), got ${describe(value)}` });
  return fallback;
}

/** Absent: every NodePool. Present: at least one name; an empty list would mean "nothing" and is surely a mistake. */
function nodePoolsField(value: unknown, problems: { field: string; problem: string }[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push({ field: 'nodePools', problem: `nodePools must be a list of NodePool names, got ${describe(value)}` });
    return undefined;
  }
  if (value.length === 0) {
    problems.push({ field: 'nodePools', problem: 'nodePools must name at least one NodePool (leave it out for all of them)' });
    return undefined;
  }
  const bad = value.flatMap((name, i) =>
    typeof name === 'string' && isKubeObjectName(name) ? [] : [`[${i}] ${describe(name)}`],
  );
  if (bad.length > 0) {
    problems.push({
      field: 'nodePools',
      problem: `nodePools must hold NodePool names (lowercase letters, digits, - and .), got ${bad.join(', ')}`,
    });
    return undefined;
  }
  return [...new Set(value as string[])];
}

/** A value as it was sent, short: `"false"`, `null`, `an array`. */
function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
