import type { LogLine } from '../../domain/aws.ts';
import { isoSeconds } from '../../domain/kube-helpers.ts';
import { logText } from '../cloud-errors/cloud-errors.ts';
import { newestLogTime, stoppedRecurring } from '../karpenter/log-recency.ts';
import { awsUnreachable, unreachableServices, type AwsService, type AwsUnreachable } from './crash-logs.ts';

/**
 * A capture holding the controller's log and not its pods (docs/findings.md,
 * KARPENTER_CONTROLLER_UNHEALTHY): the pods' state cannot say it is failing, but a log whose
 * calls to AWS keep timing out can. Only errors count, and only calls the controller cannot work
 * without (NOT_BLOCKING). A failure that
 * stopped recurring an hour before the newest line was fixed since (karpenter/log-recency.ts).
 */
const QUIET_LEVELS = new Set(['INFO', 'DEBUG', 'WARN', 'WARNING']);
/**
 * Services whose timeout leaves the controller working: pricing (built-in prices), and IAM, which
 * only an EC2NodeClass's instance profile needs (NODECLASS_NOT_READY reports that).
 */
const NOT_BLOCKING: ReadonlySet<AwsService> = new Set(['pricing', 'iam']);

export interface BlockedController {
  aws: AwsUnreachable;
  /** The first such line's time, when it has one. */
  since: string | null;
  /** The controller cannot start (FATAL, panic) or get credentials at all: nothing it does works. */
  stopped: boolean;
}

export function controllerCannotReachAws(logs: readonly LogLine[]): BlockedController | undefined {
  const blocking = logs.filter(
    (l) => !QUIET_LEVELS.has(l.level ?? '') && unreachableServices(l).services.some((s) => !NOT_BLOCKING.has(s)),
  );
  const aws = awsUnreachable(blocking);
  if (!aws) return undefined;
  if (
    stoppedRecurring(
      blocking.map((l) => l.time),
      newestLogTime(logs),
    )
  )
    return undefined;
  const times = blocking.flatMap((l) => (l.time ? [l.time] : [])).sort((a, b) => Date.parse(a) - Date.parse(b));
  const stopped =
    aws.services.includes('sts') ||
    blocking.some((l) => l.level === 'FATAL' || l.level === 'PANIC' || /^panic:/.test(logText(l)));
  return { aws, since: isoSeconds(times[0]), stopped };
}
