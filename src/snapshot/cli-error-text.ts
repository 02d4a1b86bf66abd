import type { Buffer } from 'node:buffer';
import type { SourceName } from '../domain/snapshot.ts';
import { sourceNamedByFile, sourceOfKind } from './kube-objects.ts';
import { oneLine } from '../domain/shape.ts';
import { CONVERSION_WEBHOOK_FAILED } from '../domain/conversion-webhook.ts';
import { FAILED_CALLING_WEBHOOK } from '../domain/admission-webhooks.ts';
import { queueAnswerMayBeDenial } from '../domain/interruption-queue.ts';

/** What a captured error message says about the cluster. */
export type CliErrorFact =
  | { type: 'cluster-gone'; name: string }
  | { type: 'gap'; source: SourceName; error: string }
  /** `kubectl get cm aws-auth` answered NotFound: read, and the object does not exist. */
  | { type: 'captured'; source: SourceName }
  /** A line (1-based `line`) of a saved client error naming an admission webhook the API server could not call. */
  | { type: 'refused-write'; text: string; line: number }
  /**
   * SQS answered that the queue asked for does not exist: an answer, not a gap (the interruption
   * queue the setting names, docs/capture.md). The error does not repeat the name: '' here, the
   * file's name may give it (recognise.ts).
   */
  | { type: 'queue-not-found'; name: string }
  | { type: 'no-resources' };

/** AWS operations whose failure leaves a source unread; a source's first operation is the one that lists it. */
export const SOURCE_OF_OPERATION: Readonly<Record<string, SourceName>> = {
  DescribeCluster: 'cluster',
  DescribeInstances: 'instances',
  ListFargateProfiles: 'fargateprofiles',
  DescribeFargateProfile: 'fargateprofiles',
  ListAccessEntries: 'accessentries',
  DescribeAccessEntry: 'accessentries',
  DescribeLaunchTemplates: 'launchtemplates',
  ListInstanceProfiles: 'instanceprofiles',
  GetInstanceProfile: 'instanceprofiles',
  DescribeSubnets: 'subnets',
  DescribeInstanceTypes: 'instancetypes',
  DescribeSpotPriceHistory: 'spotprices',
  GetQueueUrl: 'interruptionqueue',
  GetQueueAttributes: 'interruptionqueue',
  ListRuleNamesByTarget: 'queuerules',
  DescribeRule: 'queuerules',
  GetMetricStatistics: 'queueage',
};

/** SQS's codes for a queue that does not exist: the query protocol's and the JSON protocol's. */
const QUEUE_NOT_FOUND_CODES = new Set(['AWS.SimpleQueueService.NonExistentQueue', 'QueueDoesNotExist']);

const AWS_CLI_ERROR = /An error occurred \(([^)\s]+)\) when calling the (\w+) operation(?: \([^)\n]*\))?: ?([^\r\n]*)/g;
/** EKS answers every call about a deleted cluster this way (describe-cluster, list-fargate-profiles, ...). */
const NO_SUCH_CLUSTER = /No cluster found for name: ([0-9A-Za-z][0-9A-Za-z_-]*)/;
const KUBECTL_ERROR = /Error from server \((\w+)\): ([^\r\n]*)/g;
const KUBECTL_NO_RESOURCE_TYPE = /error: the server doesn't have a resource type "([^"]+)"/g;
/**
 * `kubectl get cm aws-auth -n kube-system`: NotFound is an answer (a cluster in authentication
 * mode API has none). Only aws-auth: the configmaps source holds nothing else detectors read,
 * whereas a NodeClaim not found says nothing about the others.
 */
const AWS_AUTH_NOT_FOUND = /^configmaps "aws-auth" not found\s*$/;
const NO_RESOURCES = /^\s*No resources found(?: in \S+ namespace)?\.?\s*$/;

/**
 * Error text the AWS CLI or kubectl printed instead of output (captured with `2>&1`, or pasted).
 * Only consulted for files that are not a recognisable output: an Event's message may well quote
 * such an error.
 */
export function readCliErrorText(text: string): CliErrorFact[] {
  if (NO_RESOURCES.test(text)) return [{ type: 'no-resources' }];
  const facts: CliErrorFact[] = [];
  for (const [, code = '', operation = '', message = ''] of text.matchAll(AWS_CLI_ERROR)) {
    const gone = code === 'ResourceNotFoundException' ? NO_SUCH_CLUSTER.exec(message) : null;
    if (gone?.[1]) {
      facts.push({ type: 'cluster-gone', name: gone[1] });
      continue;
    }
    const source = Object.hasOwn(SOURCE_OF_OPERATION, operation) ? SOURCE_OF_OPERATION[operation] : undefined;
    // `… does not exist or you do not have access to it.` may be a refusal: a gap, not an absent queue.
    if (source === 'interruptionqueue' && QUEUE_NOT_FOUND_CODES.has(code) && !queueAnswerMayBeDenial(message)) {
      facts.push({ type: 'queue-not-found', name: '' });
      continue;
    }
    if (source) facts.push({ type: 'gap', source, error: oneLine(`${operation} failed: ${code}: ${message}`, 300) });
  }
  for (const [whole, group = '', version = '', kind = ''] of text.matchAll(CONVERSION_WEBHOOK_FAILED)) {
    const source = sourceOfKind(`${group}/${version}`, kind);
    if (source) facts.push({ type: 'gap', source, error: oneLine(whole, 400) });
  }
  for (const [, reason = '', message = ''] of text.matchAll(KUBECTL_ERROR)) {
    if (reason === 'NotFound' && AWS_AUTH_NOT_FOUND.test(message)) {
      facts.push({ type: 'captured', source: 'configmaps' });
      continue;
    }
    const source = sourceOfKubectlMessage(message);
    if (source) facts.push({ type: 'gap', source, error: oneLine(`${reason}: ${message}`, 300) });
  }
  for (const [whole, resource = ''] of text.matchAll(KUBECTL_NO_RESOURCE_TYPE)) {
    const source = sourceNamedByFile(resource);
    if (source) facts.push({ type: 'gap', source, error: oneLine(whole, 300) });
  }
  facts.push(...refusedWrites(text));
  return facts;
}

/** Lines kept of one saved client error, and characters of each: Karpenter joins one error per NodeClaim on a line. */
const MAX_REFUSED_LINES = 50;
const MAX_REFUSED_LINE = 4000;

/** The lines naming an admission webhook the API server could not call (each once, in order). */
function refusedWrites(text: string): CliErrorFact[] {
  const facts: CliErrorFact[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && facts.length < MAX_REFUSED_LINES; i++) {
    const line = lines[i] ?? '';
    if (!FAILED_CALLING_WEBHOOK.test(line)) continue;
    const kept = oneLine(line, MAX_REFUSED_LINE);
    if (seen.has(kept)) continue;
    seen.add(kept);
    facts.push({ type: 'refused-write', text: kept, line: i + 1 });
  }
  return facts;
}

/** `... cannot list resource "nodeclaims" in API group "karpenter.sh" ...` → 'nodeclaims'. */
function sourceOfKubectlMessage(message: string): SourceName | undefined {
  const resource = /resource "([^"]+)"/.exec(message)?.[1];
  if (resource) return sourceNamedByFile(resource);
  const object = /^([a-z0-9.-]+)(?: "[^"]*")? is forbidden/.exec(message)?.[1];
  return object ? sourceNamedByFile(object) : undefined;
}

/**
 * `kubectl get ... > file 2>&1` puts what kubectl says on stderr before the output: warnings
 * (`Warning: karpenter.sh/v1beta1 NodePool is deprecated`, client-go's `W0108 ...` lines) and the
 * errors for the resources it could not list. How many leading bytes of `head` are such lines.
 */
export function stderrPreambleLength(head: Buffer): number {
  let end = 0;
  for (let start = 0; start < head.length;) {
    const newline = head.indexOf(0x0a, start);
    if (newline < 0) break; // a last line cut off by the end of the head could be anything
    const line = head.toString('utf8', start, newline);
    start = newline + 1;
    if (line.trim() === '') continue;
    if (!STDERR_LINE.test(line)) break;
    end = start;
  }
  return end;
}

const STDERR_LINE = /^(?:Warning: |[IWEF]\d{4} \d\d:\d\d:\d\d|Error from server(?: \(\w+\))?: |error: )/;
