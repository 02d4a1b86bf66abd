import type { CauseCodeOf } from '../../domain/codes.ts';
import type { DeniedCall } from '../cloud-errors/cloud-errors.ts';

/** Which policy refused a call, as far as AWS's (or Karpenter's) text says: KARPENTER_IAM_DENIED's causes. */
export type DenialCause = CauseCodeOf<'KARPENTER_IAM_DENIED'>;

export interface DenialReading {
  cause: DenialCause;
  /** The policy type as the text words it (`a permissions boundary`, `VPC endpoint policy`), when it names one. */
  policy: string | undefined;
  /** `arn:aws:iam::1:policy/boundary` when AWS named the denying policy. */
  policyArn: string | undefined;
  /**
   * The text proves the cause. False for MISSING_PERMISSION read from a message that names no policy
   * type (older AWS messages, Karpenter's `Controller isn't authorized to call ...`): an SCP, a
   * boundary or a Deny statement give the same message, so the steps start with the checks.
   */
  stated: boolean;
}

// Most decisive first: several lines about one action may word it differently (one with the
// context, one without), and the line that names the policy decides.
const PRECEDENCE: readonly DenialCause[] = [
  'IRSA_TRUST_POLICY_MISMATCH',
  'DENIED_BY_SCP',
  'DENIED_BY_PERMISSIONS_BOUNDARY',
  'EXPLICIT_DENY',
  'DENIED_BY_OTHER_POLICY',
  'MISSING_PERMISSION',
  'DENIED_UNKNOWN_POLICY',
];

/**
 * What the denial texts of one action say about the policy that refused it. AWS words it
 * `with an explicit deny in a <type>` or `because no <type> allows the <action> action`; an SCP
 * denial always says "explicit deny", even when the SCP only fails to allow it (IAM User Guide,
 * "Troubleshooting access denied error messages"), so the SCP cause covers both.
 */
export function readDenial(calls: readonly DeniedCall[]): DenialReading {
  const readings = calls.map(readOne);
  const best = PRECEDENCE.map((cause) => readings.filter((r) => r.cause === cause)).find((rs) => rs.length > 0) ?? [];
  const stated = best.find((r) => r.stated) ?? best[0];
  return stated ?? { cause: 'DENIED_UNKNOWN_POLICY', policy: undefined, policyArn: undefined, stated: false };
}

function readOne(call: DeniedCall): DenialReading {
  const base = { policyArn: call.denyingPolicyArn, stated: true };
  if (call.webIdentity) return { ...base, cause: 'IRSA_TRUST_POLICY_MISMATCH', policy: 'role trust policy' };
  const policy = call.explicitDenyIn ?? call.notAllowedBy;
  if (policy) {
    if (/service control policy/i.test(policy)) return { ...base, cause: 'DENIED_BY_SCP', policy };
    if (/permissions? boundary/i.test(policy)) return { ...base, cause: 'DENIED_BY_PERMISSIONS_BOUNDARY', policy };
    if (!call.explicitDenyIn && /identity-based/i.test(policy)) return { ...base, cause: 'MISSING_PERMISSION', policy };
    if (/identity-based|does not name/i.test(policy)) return { ...base, cause: 'EXPLICIT_DENY', policy };
    return { ...base, cause: 'DENIED_BY_OTHER_POLICY', policy };
  }
  return { ...base, cause: call.action ? 'MISSING_PERMISSION' : 'DENIED_UNKNOWN_POLICY', policy: undefined, stated: false };
}

/** What the text says about the policy that refused the call, for the cause detail. */
export function denialExplanation(reading: DenialReading, action: string | undefined): string {
  const named = reading.policyArn ? ` (${reading.policyArn})` : '';
  switch (reading.cause) {
    case 'IRSA_TRUST_POLICY_MISMATCH':
      return "STS refused the controller's web identity (IRSA): the role's trust policy does not accept this cluster's OIDC provider and service account, so no permission on the role is ever used.";
    case 'DENIED_BY_SCP':
      return `AWS says the deny is in a service control policy${named}: an Allow on the role cannot override it.`;
    case 'DENIED_BY_PERMISSIONS_BOUNDARY':
      return `AWS says the role's permissions boundary${named} does not allow it: an Allow on the role cannot widen the boundary.`;
    case 'EXPLICIT_DENY':
      return `The deny is explicit, in ${reading.policy ?? 'a policy'}${named}: an Allow on the role cannot override it.`;
    case 'DENIED_BY_OTHER_POLICY':
      return `AWS says ${reading.policy ?? 'another policy'}${named} refuses it, not the role's own permissions.`;
    case 'MISSING_PERMISSION':
      return reading.stated
        ? "AWS says no identity-based policy allows it: the controller role's policy lacks it."
        : 'The message does not say which policy refused it: most often the role lacks the permission, but an SCP, a permissions boundary or a Deny statement give the same message.';
    case 'DENIED_UNKNOWN_POLICY':
      return action ? '' : 'The log names neither the action nor the policy; decode the authorization message to find both.';
  }
}
