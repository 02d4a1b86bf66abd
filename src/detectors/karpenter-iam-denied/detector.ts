import type { LogLine } from '../../domain/aws.ts';
import { isoSeconds } from '../../domain/kube-helpers.ts';
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import type { DetectContext, Detector } from '../detector.ts';
import {
  deniedCall,
  isDeniedLogLine,
  isLaunchLogLine,
  stringField,
  trimError,
  type DeniedCall,
} from '../cloud-errors/cloud-errors.ts';
import { controllerIdentity } from '../aws-iam/controller-iam.ts';
import { denialExplanation, readDenial } from '../aws-iam/denial.ts';
import { denialSteps } from '../aws-iam/denial-steps.ts';
import { newestLogTime, stoppedRecurring } from '../karpenter/log-recency.ts';

type Code = 'KARPENTER_IAM_DENIED';

interface Denial {
  line: LogLine;
  call: DeniedCall;
}

/**
 * Denied AWS calls in the controller's logs, one finding per action however often it repeats. An
 * action whose denials stopped more than an hour before the newest log line is not reported: the
 * controller retries failed reconciles at least every ~17 minutes, so it was granted since (see
 * karpenter/log-recency.ts). Denials inside a launch
 * (`launching nodeclaim, creating instance, ...`, e.g. ec2:RunInstances or ec2:CreateFleet) are
 * NODECLAIM_LAUNCH_FAILED / UNAUTHORIZED, and the Spot service-linked-role AuthFailure is
 * NODECLAIM_LAUNCH_FAILED / SPOT_SERVICE_LINKED_ROLE_MISSING: neither is reported here.
 */
export const karpenterIamDenied: Detector<Code> = {
  code: 'KARPENTER_IAM_DENIED',
  requires: ['logs'],
  refinedBy: ['pods', 'deployments', 'replicasets', 'cluster'],
  detect(ctx) {
    const byAction = new Map<string, Denial[]>();
    for (const line of ctx.snapshot.logs) {
      if (!isDeniedLogLine(line) || isLaunchLogLine(line)) continue;
      const call = deniedCall(line);
      const key = call.action ?? '';
      const list = byAction.get(key);
      if (list) list.push({ line, call });
      else byAction.set(key, [{ line, call }]);
    }
    const newest = newestLogTime(ctx.snapshot.logs);
    const fixedSince = (denials: Denial[]) =>
      stoppedRecurring(
        denials.map((d) => d.line.time),
        newest,
      );
    return [...byAction.entries()]
      .filter(([, denials]) => !fixedSince(denials))
      .map(([action, denials]) => findingFor(ctx, action || undefined, denials));
  },
};

function findingFor(ctx: DetectContext, action: string | undefined, denials: Denial[]): Finding<Code> {
  const id = controllerIdentity(ctx);
  const times = denials.flatMap((d) => (d.line.time ? [d.line.time] : [])).sort((a, b) => Date.parse(a) - Date.parse(b));
  const sample = denials[0] as Denial;
  const resource = denials.find((d) => d.call.resource)?.call.resource;
  const principal = denials.find((d) => d.call.principalArn)?.call.principalArn;
  const encoded = denials.find((d) => d.call.encodedMessage)?.call.encodedMessage;
  const reading = readDenial(denials.map((d) => d.call));
  const controllers = [
    ...new Set(
      denials.flatMap((d) => [stringField(d.line, 'controller') ?? stringField(d.line, 'logger')].filter((c) => c !== undefined)),
    ),
  ];
  const codes = [...new Set(denials.flatMap((d) => [stringField(d.line, 'aws-error-code')].filter((c) => c !== undefined)))];
  const what = action ?? 'an AWS call';
  const by = controllers.length ? ` in controller ${controllers.join(', ')}` : '';
  const detail = [
    `AWS denied ${what}${resource ? ` on ${resource}` : ''} to Karpenter's controller role${principal ? ` ${principal}` : ''}${by}${codes.length ? ` (${codes.join(', ')})` : ''}.`,
    denialExplanation(reading, action),
    'Karpenter keeps retrying and the feature that needs the call does not work until it is allowed.',
  ]
    .filter(Boolean)
    .join(' ');
  const steps = denialSteps(
    ctx,
    { actions: action ? [action] : [], resource, principalRoleArn: principal, encodedMessage: encoded },
    reading,
  );
  const span = times.length ? [`first at ${isoSeconds(times[0])}, last at ${isoSeconds(times[times.length - 1])}`] : [];
  return newFinding({
    code: 'KARPENTER_IAM_DENIED',
    severity: 'critical',
    title: `Karpenter's controller is denied ${what}`,
    resource: id.resource,
    since: isoSeconds(times[0]),
    cause: { code: reading.cause, detail },
    evidence: [
      `${denials.length} log line${denials.length > 1 ? 's' : ''} denied ${what}${by}`,
      ...span,
      `sample ${sample.line.origin}: ${trimError(sample.line.error ?? sample.line.message)}`,
    ],
    remediation: manualRemediation(steps),
    discriminator: action ?? 'unknown-action',
  });
}
