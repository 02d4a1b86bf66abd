/**
 * Karpenter's own words about an EC2NodeClass no sub-condition explains: the message on its
 * `Ready` condition (Karpenter v0.37 to v1.6 write the cause there: `NodeClassNotReady`,
 * `Failed to detect the cluster CIDR`) and the nodeclass controller's `Reconciler error` log lines
 * naming it (`resolving instance profile, ... Post "https://iam.amazonaws.com/": dial tcp ...: i/o timeout`).
 * Read before UNKNOWN is chosen (docs/findings.md, NODECLASS_NOT_READY).
 */
import type { LogLine } from '../../domain/aws.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';
import type { Condition, EC2NodeClass } from '../../domain/kube.ts';
import type { DetectContext } from '../detector.ts';
import { logText, objectNameField, stringField, trimError } from '../cloud-errors/cloud-errors.ts';
import type { NodeClassCauseCode } from '../karpenter/nodeclass-status.ts';
import { conditionText } from '../karpenter/readiness.ts';

/** Karpenter's `Ready` messages (pkg/controllers/nodeclass/status/readiness.go, v0.37 to v1.6) whose meaning is certain. */
const READY_MESSAGES: readonly [RegExp, NodeClassCauseCode][] = [
  [/^Failed to detect the cluster CIDR$/, 'CLUSTER_CIDR_NOT_RESOLVED'],
  [/^Failed to resolve instance profile$/, 'INSTANCE_PROFILE_NOT_READY'],
];

/** A network failure in a Go / AWS SDK error: the call never reached the service. */
export const NETWORK_FAILURE =
  /i\/o timeout|no such host|connection refused|network is unreachable|context deadline exceeded|send request failed|TLS handshake timeout/i;

export interface OwnWords {
  code: NodeClassCauseCode;
  /** Karpenter's text: `reason: message` of Ready, or the error of the newest log line. */
  text: string;
  /** Where it was read, for the evidence. */
  origin: string;
  /** The nodeclass controller's newest error about this class, when the log was captured. */
  logError: string | undefined;
}

/** Undefined when Karpenter said nothing of its own about the class. */
export function ownWords(ctx: DetectContext, nc: EC2NodeClass): OwnWords | undefined {
  const name = nc.metadata?.name ?? '';
  const line = newestError(ctx.snapshot.logs, name);
  const logError = line ? (line.error ?? line.message) : undefined;
  const fromLog = logError ? codeOfLogError(logError) : undefined;
  const ready = conditionOf(nc, 'Ready');
  const readyText = ready ? ownReadyText(ready) : undefined;
  const fromReady = ready?.message ? READY_MESSAGES.find(([re]) => re.test(ready.message ?? ''))?.[1] : undefined;
  if (line && logError && (fromLog || !readyText)) {
    return { code: fromLog ?? fromReady ?? 'UNKNOWN', text: trimError(logError, 400), origin: line.origin, logError };
  }
  if (readyText) return { code: fromReady ?? 'UNKNOWN', text: readyText, origin: `EC2NodeClass ${name} Ready`, logError };
  return undefined;
}

/**
 * `reason: message` of a not-True Ready that says something of its own: not Karpenter's summary
 * of sub-conditions (`UnhealthyDependents`), which the sub-conditions themselves explain.
 */
function ownReadyText(ready: Condition): string | undefined {
  if (ready.status === 'True' || !ready.message || ready.reason === 'UnhealthyDependents') return undefined;
  return conditionText(ready);
}

function codeOfLogError(text: string): NodeClassCauseCode | undefined {
  if (/failed to detect the cluster CIDR|resolving cluster CIDR/i.test(text)) return 'CLUSTER_CIDR_NOT_RESOLVED';
  if (/instance profile/i.test(text) && /iam\.amazonaws\.com/i.test(text) && NETWORK_FAILURE.test(text))
    return 'IAM_API_UNREACHABLE';
  return undefined;
}

/** The newest ERROR line of a nodeclass controller (`nodeclass`, `nodeclass.status`, ...) about this class. */
function newestError(logs: readonly LogLine[], name: string): LogLine | undefined {
  let newest: LogLine | undefined;
  for (const line of logs) {
    if (line.level !== 'ERROR' || !/^nodeclass\b/.test(stringField(line, 'controller') ?? '')) continue;
    const about =
      objectNameField(line, 'EC2NodeClass', 'ec2nodeclass', 'nodeclass') ??
      (stringField(line, 'controllerKind') === 'EC2NodeClass' ? stringField(line, 'name') : undefined);
    if (about !== name || !logText(line)) continue;
    if (!newest || (Date.parse(line.time ?? '') || 0) >= (Date.parse(newest.time ?? '') || 0)) newest = line;
  }
  return newest;
}
