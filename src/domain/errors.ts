/**
 * Typed errors. Each carries the exit code the CLI maps it to and a one-line message meant
 * for a human; `cause` keeps the underlying error for debugging (never printed by default).
 */
import { shellQuote } from './shell.ts';
export class SentinelError extends Error {
  /** 1 is reserved for "findings at or above --fail-on"; every error is 2. */
  readonly exitCode: number = 2;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad command line: exit 2. */
export class UsageError extends SentinelError {}

/** A capture file that cannot be read or recognised: exit 2; the message names the file. */
export class InputError extends SentinelError {
  readonly file: string;
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(`${file}: ${problem}`, options);
    this.file = file;
  }
}

/** A live or simulated scan that could read nothing of the cluster (credentials, network, RBAC): exit 2. */
export class ClusterUnreadableError extends SentinelError {
  constructor(cluster: string, why: string) {
    super(`cannot scan cluster ${cluster}: ${why}`);
  }
}

/**
 * One line for the log and the CLI: where EKS was asked, and what it may mean. Without a region
 * (a capture whose region is only guessed, or not known) none is named: a guess is not a fact.
 */
export function clusterNotFoundText(cluster: string, region?: string): string {
  const where = region === undefined ? '' : ` in ${region}`;
  return `cluster ${cluster} does not exist${where} for this AWS account (EKS DescribeCluster: ResourceNotFoundException): a typo, another region or account, or deleted`;
}

export class ClusterNotFoundError extends SentinelError {
  constructor(cluster: string, region?: string) {
    const list = region === undefined ? 'aws eks list-clusters' : `aws eks list-clusters --region ${shellQuote(region)}`;
    super(`${clusterNotFoundText(cluster, region)}; the region's clusters: ${list}`);
  }
}

/**
 * `--from` files none of which could be read: exit 2. `files` has one line per file, naming it and
 * what is wrong with it (the CLI prints them all: one run names every mistake).
 */
export class NothingReadableError extends SentinelError {
  readonly files: readonly string[];
  constructor(files: readonly string[]) {
    super(`none of the ${files.length} capture files could be read; fix or capture them again:`);
    this.files = files;
  }
}
