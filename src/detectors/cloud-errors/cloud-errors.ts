/**
 * Reading AWS errors out of Karpenter's words: NodeClaim `Launched` conditions, events and
 * controller log lines. Karpenter (aws/karpenter-provider-aws) wraps the EC2 error text, e.g.
 * `launching nodeclaim, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted: ...`,
 * and since v1.1 also sets well-known `Launched` reasons (`SpotSLRCreationFailed`, `Unauthorized`,
 * `VCPULimitExceeded`, ...: pkg/errors ToReasonMessage) whose messages no longer carry the code.
 */
import { AWS_DENIED_CODES, type LogLine } from '../../domain/aws.ts';
import type { CauseCodeOf } from '../../domain/codes.ts';
import { conditionText } from '../karpenter/readiness.ts';

type LaunchErrorCause = Exclude<CauseCodeOf<'NODECLAIM_LAUNCH_FAILED'>, 'UNKNOWN'>;

export interface CloudError {
  cause: LaunchErrorCause;
  /** The AWS error code or Karpenter reason that decided it, e.g. `VcpuLimitExceeded`. */
  code: string;
}

// Order matters: the first rule that matches decides, in one piece of text. The Spot
// service-linked-role failure is an AuthFailure and Karpenter counts it as insufficient capacity,
// so it goes first; quota errors are wrapped as insufficient capacity too, and are the more
// actionable reading. A fleet error lists one error per override: quota, AMI, network and
// permission errors fail every subnet alike and win over a full subnet; a full subnet wins over
// plain insufficient capacity. Within a rule an AWS code wins over a phrase.
const RULES: { cause: LaunchErrorCause; codes: RegExp; phrases?: RegExp; phraseCode?: string }[] = [
  {
    cause: 'SPOT_SERVICE_LINKED_ROLE_MISSING',
    codes: /(AuthFailure\.ServiceLinkedRoleCreationNotPermitted|SpotSLRCreationFailed)/,
    phrases: /service-linked role for EC2 Spot/i,
  },
  {
    cause: 'QUOTA_EXCEEDED',
    codes:
      /\b(VcpuLimitExceeded|VCPULimitExceeded|MaxSpotInstanceCountExceeded|SpotQuotaExceeded|InstanceLimitExceeded|MaxFleetCountExceeded|FleetQuotaExceeded)\b/,
  },
  { cause: 'AMI_NOT_FOUND', codes: /\b(InvalidAMIID(?:\.(?:NotFound|Malformed|Unavailable))?)\b/ },
  // EC2's `InvalidParameterValue: Value (<name>) for parameter iamInstanceProfile.name is invalid.
  // Invalid IAM Instance Profile name`, and the reason Karpenter v1.1+ sets for it (pkg/errors).
  {
    cause: 'INSTANCE_PROFILE_NOT_FOUND',
    codes: /\b(InstanceProfileNameInvalid)\b/,
    phrases: /Invalid IAM Instance Profile name|iamInstanceProfile\.name is invalid/,
    phraseCode: 'InvalidParameterValue',
  },
  {
    cause: 'SECURITY_GROUP_SUBNET_VPC_MISMATCH',
    codes: /\b(InvalidGroup\.NotFound)\b/,
    phrases: /belong to different networks/i,
  },
  {
    cause: 'UNAUTHORIZED',
    codes: /\b(UnauthorizedOperation|AccessDenied(?:Exception)?|Unauthorized|AuthFailure)\b/,
    phrases: /not authorized to perform/,
  },
  // Throttling fails the whole call (CreateFleet, DescribeLaunchTemplates), never one override.
  {
    cause: 'API_THROTTLED',
    codes: /\b(RequestLimitExceeded|ThrottlingException)\b/,
    phrases: /request limit exceeded|failed to get rate limit token|\bRate exceeded\b/i,
  },
  // Karpenter files a subnet out of addresses under insufficient capacity (unfulfillableCapacityErrorCodes),
  // and a fleet error can list it next to InsufficientInstanceCapacity for other overrides: the subnet
  // wins over capacity, since more instance types do not help a full subnet.
  {
    cause: 'SUBNET_IP_EXHAUSTED',
    codes: /\b(InsufficientFreeAddressesInSubnet)\b/,
    // The v1.2+ reason message and EC2's fleet message, which name no code.
    phrases: /not enough free (?:IP )?addresses/i,
    phraseCode: 'InsufficientFreeAddressesInSubnet',
  },
  {
    cause: 'INSUFFICIENT_CAPACITY',
    codes: /\b(InsufficientInstanceCapacity|InsufficientCapacityError|UnfulfillableCapacity|ReservationCapacityExceeded)\b/,
    phrases: /insufficient capacity|all requested instance types were unavailable|no capacity offerings are currently available/i,
  },
];

/** The cloud error a piece of Karpenter text reports, or undefined when it names none we know. */
export function classifyCloudError(text: string | undefined): CloudError | undefined {
  if (!text) return undefined;
  for (const rule of RULES) {
    const m = rule.codes.exec(text);
    if (m) return { cause: rule.cause, code: m[1] ?? m[0] };
    const p = rule.phrases?.exec(text);
    if (p) return { cause: rule.cause, code: rule.phraseCode ?? p[1] ?? p[0] };
  }
  return undefined;
}

/**
 * `Launched` reasons Karpenter sets when a launch failed (core's `LaunchFailed`, and the AWS
 * provider's well-known reasons). Anything else on a not-launched NodeClaim (no reason yet,
 * `NodeClassReadinessUnknown`) is not a cloud failure.
 */
const LAUNCH_FAILURE_REASONS: ReadonlySet<string> = new Set([
  'LaunchFailed',
  'LinkFailed',
  'SpotSLRCreationFailed',
  'Unauthorized',
  'InstanceProfileNameInvalid',
  'LaunchTemplateNotFound',
  'InvalidAMIID',
  'RequestLimitExceeded',
  'InternalError',
  'FleetQuotaExceeded',
  'AccountPendingVerification',
  'SpotQuotaExceeded',
  'VCPULimitExceeded',
  'InsufficientFreeAddressesInSubnet',
  'InstanceTypeFilteringFailed',
  'SubnetResolutionFailed',
]);

/** A not-True `Launched` (or NodePool `NodeRegistrationHealthy`) condition that reports a failed launch. */
export function isLaunchFailureCondition(c: { reason?: string; message?: string }): boolean {
  if (c.reason === 'RegistrationFailed') return false;
  return (c.reason !== undefined && LAUNCH_FAILURE_REASONS.has(c.reason)) || classifyCloudError(conditionText(c)) !== undefined;
}

/** Event reasons Karpenter publishes on a NodeClaim whose launch failed. */
export const LAUNCH_FAILURE_EVENT_REASONS: ReadonlySet<string> = new Set(['InsufficientCapacityError', 'LaunchFailed']);

/**
 * The error text of a log record, for matching: the message and the JSON `error` field, and the
 * lines that continue the record (a stack trace, an error wrapped onto indented lines).
 */
export function logText(line: LogLine): string {
  const head = logHeadText(line);
  return line.continuation ? `${head}\n${line.continuation}` : head;
}

/** The same without the continuation lines: what evidence quotes, next to the record's `file:line`. */
export function logHeadText(line: LogLine): string {
  return line.error ? `${line.message} ${line.error}` : line.message;
}

const LAUNCH_CONTEXT =
  /launching (?:nodeclaim|node|machine)\b|could not launch node|creating (?:cloud provider )?instance\b(?! ?profile)/i;
const CLOUD_CALL = /creating (?:cloud provider )?instance\b(?! ?profile)|fleet error|creating fleet/i;

/**
 * A log line about launching capacity (Karpenter's `launching nodeclaim, creating instance, ...`).
 * Denied calls inside a launch belong to NODECLAIM_LAUNCH_FAILED; every other denied call is
 * KARPENTER_IAM_DENIED, so the two findings never report the same line.
 */
export function isLaunchLogLine(line: LogLine): boolean {
  return LAUNCH_CONTEXT.test(logText(line));
}

/** A launch line that reached the cloud (not `resolving ec2nodeclass, ...`, which NODECLASS_NOT_READY covers). */
export function isCloudLaunchFailure(line: LogLine): boolean {
  const text = logText(line);
  return LAUNCH_CONTEXT.test(text) && (CLOUD_CALL.test(text) || classifyCloudError(text) !== undefined);
}

const DENIED_TEXT = /is not authorized to perform|\bUnauthorizedOperation\b|\bAccessDenied(?:Exception)?\b|unauthorized to call /;
const SPOT_SLR = /ServiceLinkedRoleCreationNotPermitted/;

/** A log line saying AWS refused a call Karpenter made (AccessDenied / UnauthorizedOperation). */
export function isDeniedLogLine(line: LogLine): boolean {
  const text = logText(line);
  if (SPOT_SLR.test(text)) return false;
  const code = line.fields['aws-error-code'];
  return (typeof code === 'string' && AWS_DENIED_CODES.has(code)) || DENIED_TEXT.test(text);
}

export interface DeniedCall {
  /** `iam:ListInstanceProfiles`; undefined when neither the text nor the fields name it. */
  action: string | undefined;
  resource: string | undefined;
  /** Role the controller ran as, from `assumed-role/<name>/` in the message. */
  principalRole: string | undefined;
  principalArn: string | undefined;
  /** `a service control policy`, `a permissions boundary`, `an identity-based policy`... */
  explicitDenyIn: string | undefined;
  /** `identity-based policy`, `permissions boundary`... of AWS's implicit-deny text (`because no ... allows the <action> action`). */
  notAllowedBy: string | undefined;
  /** The policy AWS named after the type (`with an explicit deny in a permissions boundary: arn:aws:iam::1:policy/x`). */
  denyingPolicyArn: string | undefined;
  encodedMessage: string | undefined;
  /** The controller's web identity (IRSA) could not become its role: STS refused AssumeRoleWithWebIdentity. */
  webIdentity: boolean;
}

// The resource is an ARN: only its characters are taken, so a planted message cannot put shell or
// JSON syntax into the policy statement a step prints.
const NOT_AUTHORIZED =
  /[Nn]ot authorized to perform:?\s+([a-z0-9-]+:[A-Za-z0-9*]+)(?:\s+on resource:?\s+([A-Za-z0-9:/_+=,.@*-]+))?/;
// Karpenter's EC2NodeClass validation: the log says `unauthorized to call ec2:RunInstances`, the
// ValidationSucceeded condition `Controller isn't authorized to call ec2:RunInstances`.
const UNAUTHORIZED_TO_CALL = /(?:unauthorized|isn't authorized) to call ([a-z0-9-]+:[A-Za-z0-9]+)/i;
const ASSUMED_ROLE = /(arn:[a-z-]+:sts::(\d{12}):assumed-role\/([^/\s]+))\/\S+/;
// AWS's access-denied context (IAM User Guide, "Troubleshooting access denied error messages"):
// `with an explicit deny in a service control policy`, `... in a permissions boundary[: <policy-arn>]`,
// `... in an identity-based policy`, `... in the role trust policy`; implicit: `because no permissions
// boundary allows the <action> action`. Karpenter's own condition messages (pkg/errors ToReasonMessage)
// say `due to a service control policy` / `due to a permission boundary`; its fallback `because no
// identity-based policy allows it` is said of any other denial, so it is not read as evidence.
const EXPLICIT_DENY = /with an explicit deny in ((?:an?|the) [a-z -]*?(?:policy|boundary))/i;
const TRANSITIVE_SCP = /transitively through a service control policy/i;
const KARPENTER_DENY_REASON = /not authorized to perform this operation due to a (service control policy|permission boundary)/;
const NOT_ALLOWED = /because no ([a-z -]*?(?:policy|boundary)) allows the [a-z0-9-]+:[A-Za-z0-9*]+ action/i;
const DENYING_POLICY =
  /with an explicit deny in [a-z -]*?(?:policy|boundary):\s*(arn:aws[a-z-]*:(?:iam|organizations)::[0-9a-z-]*:policy\/[A-Za-z0-9+=,.@_/-]*[A-Za-z0-9_-])/i;
const WEB_IDENTITY = /\bWebIdentityErr\b|AssumeRoleWithWebIdentity/;
const ENCODED = /Encoded authorization failure message:\s*([A-Za-z0-9_-]+)/;
const SERVICE_PREFIX: Record<string, string> = {
  EC2: 'ec2',
  IAM: 'iam',
  SQS: 'sqs',
  SSM: 'ssm',
  EKS: 'eks',
  Pricing: 'pricing',
  STS: 'sts',
};

export function deniedCall(line: LogLine): DeniedCall {
  const text = logText(line);
  const m = NOT_AUTHORIZED.exec(text);
  const service = stringField(line, 'aws-service-name');
  const operation = stringField(line, 'aws-operation-name');
  const fromFields =
    service && operation && /^[A-Za-z0-9]+$/.test(service) && /^[A-Za-z0-9]+$/.test(operation)
      ? `${SERVICE_PREFIX[service] ?? service.toLowerCase()}:${operation}`
      : undefined;
  const principal = ASSUMED_ROLE.exec(text);
  return {
    action: m?.[1] ?? UNAUTHORIZED_TO_CALL.exec(text)?.[1] ?? fromFields,
    resource: m?.[2]?.replace(/[.,;"']+$/, ''),
    principalRole: principal?.[3],
    principalArn: principal ? `arn:aws:iam::${principal[2]}:role/${principal[3]}` : undefined,
    explicitDenyIn: explicitDenyIn(text),
    notAllowedBy: NOT_ALLOWED.exec(text)?.[1]?.toLowerCase(),
    denyingPolicyArn: DENYING_POLICY.exec(text)?.[1],
    encodedMessage: ENCODED.exec(text)?.[1],
    webIdentity: WEB_IDENTITY.test(text),
  };
}

function explicitDenyIn(text: string): string | undefined {
  if (TRANSITIVE_SCP.test(text)) return 'a service control policy';
  const karpenter = KARPENTER_DENY_REASON.exec(text)?.[1];
  if (karpenter) return karpenter === 'permission boundary' ? 'a permissions boundary' : 'a service control policy';
  return (
    EXPLICIT_DENY.exec(text)?.[1] ?? (/with an explicit deny\b/i.test(text) ? 'a policy the message does not name' : undefined)
  );
}

/** Same as deniedCall, for text that is not a log line (a NodeClaim condition or event). */
export function deniedCallInText(text: string): DeniedCall {
  return deniedCall({ message: text, fields: {}, origin: '' });
}

export function stringField(line: LogLine, key: string): string | undefined {
  const v = line.fields[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** `{"name":"x"}` or `"x"` under any of the keys (Karpenter v1 uses `NodeClaim: {name}`; older versions `nodeclaim: x`). */
export function objectNameField(line: LogLine, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const v = line.fields[key];
    if (typeof v === 'string' && v !== '') return v;
    if (v && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string') return (v as { name: string }).name;
  }
  return undefined;
}

/** One line of evidence: whitespace collapsed, encoded blobs dropped, at most `max` characters. */
export function trimError(text: string, max = 220): string {
  const flat = text
    .replace(/(Encoded authorization failure message:)\s*[A-Za-z0-9_-]{20,}/g, '$1 …')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
