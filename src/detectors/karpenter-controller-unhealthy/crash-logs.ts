import type { LogLine } from '../../domain/aws.ts';
import { logText } from '../cloud-errors/cloud-errors.ts';

/**
 * Reading why a Karpenter controller stopped out of its logs: the previous container's log first
 * (`kubectl logs --previous`, what it wrote before it died), then the current one (a container
 * waiting in CrashLoopBackOff shows the run that just ended). Strings from
 * research/karpenter-failure-catalogue.md §1 items 17 and 18 (aws pkg/operator/operator.go,
 * client-go leaderelection).
 */

/** client-go's leader election and controller-runtime's exit when it loses the lease. */
const LEADER_ELECTION = /leader election lost|failed to renew lease|error retrieving resource lock|leaderelection lost/i;

/** A call that never got an answer: the network path is missing, not a permission. */
const NETWORK_FAILURE =
  /i\/o timeout|dial tcp|no such host|connection refused|connection reset by peer|TLS handshake timeout|Client\.Timeout exceeded|network is unreachable|context deadline exceeded/i;

/** `https://sts.us-west-2.amazonaws.com/`, `api.pricing.us-east-1.amazonaws.com`, `ec2.cn-north-1.amazonaws.com.cn`. */
const AWS_HOST =
  /\b(sts|ec2|eks|ssm|sqs|api\.pricing|pricing|iam|api\.ecr|ecr)\.(?:([a-z]{2}(?:-[a-z]+)+-\d+)\.)?amazonaws\.com(?:\.cn)?\b/gi;

/** Karpenter's own words for a failed call, when the line names no host. */
const SERVICE_PHRASES: readonly [RegExp, AwsService][] = [
  [/WebIdentityErr|failed to retrieve credentials|AssumeRoleWithWebIdentity/i, 'sts'],
  [/ec2 api connectivity check failed|describing instance types|DescribeInstanceTypes/i, 'ec2'],
  [/failed detecting cluster endpoint|detect the cluster endpoint|resolve cluster endpoint|DescribeCluster/i, 'eks'],
  [/resolving ssm parameter|GetParameter/i, 'ssm'],
  [/pricing/i, 'pricing'],
  [/interruption queue|ReceiveMessage|GetQueueUrl/i, 'sqs'],
];

export type AwsService = 'sts' | 'ec2' | 'eks' | 'ssm' | 'sqs' | 'pricing' | 'iam' | 'ecr';
const SERVICE_ORDER: readonly AwsService[] = ['sts', 'ec2', 'eks', 'ssm', 'sqs', 'pricing', 'iam', 'ecr'];

const ERROR_LEVELS = new Set(['ERROR', 'DPANIC', 'PANIC', 'FATAL']);
/**
 * Go's own last words: a panic, a runtime fatal error, a klog/cobra error line, or a line that
 * starts with zap's level in a shape the reader did not split (`FATAL controller.aws ...`).
 */
const ERROR_TEXT = /^(?:panic:|fatal error:|Error:|F\d{4} |E\d{4} |(?:FATAL|ERROR|DPANIC|PANIC)\s)/;

export interface LogEvidence {
  line: LogLine;
}

export interface AwsUnreachable extends LogEvidence {
  /** Every service found unreachable in the logs, in a fixed order. */
  services: AwsService[];
  /** The region of the endpoints, when a host names one. */
  region: string | undefined;
}

/** The previous container's lines, then the current ones: the order in which they explain a crash. */
function bySource(logs: readonly LogLine[]): LogLine[][] {
  return [logs.filter((l) => l.previous), logs.filter((l) => !l.previous)];
}

/** The last line of the first source holding one that matches. */
function lastMatching(logs: readonly LogLine[], test: (line: LogLine) => boolean): LogLine | undefined {
  for (const lines of bySource(logs)) {
    const found = lines.findLast(test);
    if (found) return found;
  }
  return undefined;
}

export function leaderElectionLost(logs: readonly LogLine[]): LogEvidence | undefined {
  const line = lastMatching(logs, (l) => LEADER_ELECTION.test(logText(l)));
  return line ? { line } : undefined;
}

/** The AWS services a line says could not be reached (empty when it says no such thing). */
export function unreachableServices(line: LogLine): { services: AwsService[]; region: string | undefined } {
  const text = logText(line);
  if (!NETWORK_FAILURE.test(text)) return { services: [], region: undefined };
  const services = new Set<AwsService>();
  let region: string | undefined;
  for (const match of text.matchAll(AWS_HOST)) {
    services.add(serviceOfHost(match[1] ?? ''));
    region ??= match[2];
  }
  if (services.size === 0) for (const [phrase, service] of SERVICE_PHRASES) if (phrase.test(text)) services.add(service);
  return { services: SERVICE_ORDER.filter((s) => services.has(s)), region };
}

function serviceOfHost(prefix: string): AwsService {
  const p = prefix.toLowerCase();
  if (p.endsWith('pricing')) return 'pricing';
  if (p.endsWith('ecr')) return 'ecr';
  return p as AwsService;
}

/** Lines about AWS endpoints out of reach: the last one quoted, every service named. */
export function awsUnreachable(logs: readonly LogLine[]): AwsUnreachable | undefined {
  const line = lastMatching(logs, (l) => unreachableServices(l).services.length > 0);
  if (!line) return undefined;
  const services = new Set<AwsService>();
  let region: string | undefined;
  for (const l of logs) {
    const found = unreachableServices(l);
    for (const s of found.services) services.add(s);
    region ??= found.region;
  }
  return { line, services: SERVICE_ORDER.filter((s) => services.has(s)), region };
}

/** The last error line: of the previous container's log if it has one, else of the current log. */
export function lastErrorLine(logs: readonly LogLine[]): LogLine | undefined {
  return lastMatching(logs, (l) => (l.level !== undefined && ERROR_LEVELS.has(l.level)) || ERROR_TEXT.test(l.message));
}
