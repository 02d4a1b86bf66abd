import { commandStep } from '../../domain/finding.ts';
import { shellQuote, shellWords } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import type { DetectContext } from '../detector.ts';
import { controllerIdentity, findRoleSteps, grantSteps } from './controller-iam.ts';
import type { DenialReading } from './denial.ts';
import { accountOf, parseRoleArn, regionFlag, regionOf } from './iam-arn.ts';

export interface DeniedCalls {
  actions: string[];
  resource: string | undefined;
  principalRoleArn: string | undefined;
  encodedMessage: string | undefined;
  /** Denied while launching instances (NodeClaim launch, EC2NodeClass dry-run), whatever the text names. */
  launch?: boolean;
}

/**
 * Steps for a denied call, by what the text proved (docs/findings.md, KARPENTER_IAM_DENIED): a
 * stated SCP, boundary or Deny statement gets the fix in that policy and never an Allow on the
 * role (it cannot override them); a denial whose text names no policy starts with the commands
 * that decide, then gives the fix for each outcome.
 */
export function denialSteps(ctx: DetectContext, calls: DeniedCalls, reading: DenialReading): string[] {
  const role = roleOf(ctx, calls.principalRoleArn);
  const what = calls.actions.join(', ') || 'the denied action';
  const decode = calls.encodedMessage ? [decodeStep(calls.encodedMessage)] : [];
  switch (reading.cause) {
    case 'IRSA_TRUST_POLICY_MISMATCH':
      return trustPolicySteps(ctx, role);
    case 'DENIED_BY_SCP':
      return [
        ...decode,
        ...cloudTrailSteps(ctx, calls.actions),
        commandStep(
          'the SCPs that apply to the account (run with AWS Organizations read access, usually in the management account)',
          `aws organizations list-policies-for-target --target-id ${role.account ? shellQuote(role.account) : '<account-id>'} --filter SERVICE_CONTROL_POLICY`,
        ),
        ...(launches(calls)
          ? [
              `An Allow on the controller role cannot override an SCP. Keep Karpenter inside it: if the SCP allows only some instance types, narrow the NodePools' requirements (node.kubernetes.io/instance-type, karpenter.k8s.aws/instance-family) to those; if it requires tags or regions, set them in the EC2NodeClass spec.tags or use an allowed region.`,
            ]
          : ['An Allow on the controller role cannot override an SCP.']),
        `${launches(calls) ? 'Or have' : 'Have'} the organization's administrator change the SCP so it no longer denies ${what} to ${role.arn ?? "the controller's role"}.`,
      ];
    case 'DENIED_BY_PERMISSIONS_BOUNDARY':
      return [
        ...findRoleSteps(ctx, calls.principalRoleArn).steps,
        commandStep(
          "the role's permissions boundary",
          `aws iam get-role --role-name ${role.nameArg} --query Role.PermissionsBoundary`,
        ),
        ...(reading.policyArn
          ? [
              commandStep(
                'what it allows',
                `aws iam get-policy-version --policy-arn ${shellQuote(reading.policyArn)} --version-id "$(aws iam get-policy --policy-arn ${shellQuote(reading.policyArn)} --query Policy.DefaultVersionId --output text)"`,
              ),
            ]
          : []),
        `The boundary caps the role: an Allow on the role does not widen it. Allow ${what} in the boundary policy (its owner, often a platform team's IaC), or remove its Deny statement for it.`,
      ];
    case 'EXPLICIT_DENY':
      return [
        ...decode,
        ...findRoleSteps(ctx, calls.principalRoleArn).steps,
        commandStep(
          'the Deny statement that matched',
          simulateCommand(role.arnArg, calls.actions, 'EvaluationResults[].MatchedStatements'),
        ),
        `aws iam list-attached-role-policies --role-name ${role.nameArg}`,
        `aws iam list-role-policies --role-name ${role.nameArg}`,
        `Remove or narrow the Deny statement for ${what} in ${reading.policy ?? 'that policy'}; an Allow cannot override it.`,
      ];
    case 'DENIED_BY_OTHER_POLICY':
      return [
        ...decode,
        ...cloudTrailSteps(ctx, calls.actions),
        ...vpcEndpointSteps(ctx, reading, calls.actions),
        `${visibleLine(`AWS names ${reading.policy ?? 'another policy'}`)}: allow ${what} there for ${role.arn ?? "the controller's role"}${reading.policyArn ? ` (${visibleLine(reading.policyArn)})` : ''}; the role's own policy is not what refuses it.`,
      ];
    case 'MISSING_PERMISSION':
      if (reading.stated) return grantSteps(ctx, calls);
      return [...decode, ...decidingSteps(ctx, calls, role), ...outcomeSteps(ctx, calls, what)];
    case 'DENIED_UNKNOWN_POLICY':
      return [
        ...decode,
        ...findRoleSteps(ctx, calls.principalRoleArn).steps,
        `kubectl logs -n ${shellQuote(controllerIdentity(ctx).namespace)} -l app.kubernetes.io/name=karpenter --tail=500 | grep -iE 'AccessDenied|UnauthorizedOperation'`,
        'The decoded message (or a log line with the full AWS text) names the action and the policy: "explicitDeny" or "with an explicit deny in a service control policy" means an SCP or a Deny statement an Allow cannot override; a permissions boundary is changed in the boundary; only "no identity-based policy allows" is fixed by allowing the action on the role.',
      ];
  }
}

interface RoleNames {
  arn: string | undefined;
  /** Shell word: the role name or `<controller-role-name>`. */
  nameArg: string;
  arnArg: string;
  account: string | undefined;
}

function roleOf(ctx: DetectContext, principalRoleArn: string | undefined): RoleNames {
  const arn = principalRoleArn ?? controllerIdentity(ctx).roleArn;
  const parsed = parseRoleArn(arn);
  return {
    arn: parsed ? arn : undefined,
    nameArg: parsed ? shellQuote(parsed.name) : '<controller-role-name>',
    arnArg: parsed && arn ? shellQuote(arn) : '<controller-role-arn>',
    account: parsed?.account ?? accountOf(ctx.snapshot.cluster?.arn)?.account,
  };
}

function decodeStep(encoded: string): string {
  return commandStep(
    'names the action, the resource and whether the deny is explicit',
    `aws sts decode-authorization-message --encoded-message ${shellQuote(encoded)} --query DecodedMessage --output text`,
  );
}

const SIMULATE_QUERY =
  'EvaluationResults[].[EvalActionName,EvalDecision,OrganizationsDecisionDetail.AllowedByOrganizations,PermissionsBoundaryDecisionDetail.AllowedByPermissionsBoundary]';

function simulateCommand(roleArnArg: string, actions: readonly string[], query = SIMULATE_QUERY): string {
  return `aws iam simulate-principal-policy --policy-source-arn ${roleArnArg} --action-names ${shellWords(actions)} --query ${shellQuote(query)} --output text`;
}

/** CloudTrail keeps AWS's full message for the event, with the policy type the log may have cut. */
function cloudTrailSteps(ctx: DetectContext, actions: readonly string[]): string[] {
  const r = regionFlag(regionOf({ clusterArn: ctx.snapshot.cluster?.arn }));
  return actions
    .slice(0, 2)
    .map((action) =>
      commandStep(
        `AWS's own error message for the ${action} events`,
        `aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventName,AttributeValue=${shellQuote(action.split(':')[1] ?? action)} --max-results 20 --query 'Events[].CloudTrailEvent' --output text${r} | grep -o '"errorMessage":"[^"]*"'`,
      ),
    );
}

function decidingSteps(ctx: DetectContext, calls: DeniedCalls, role: RoleNames): string[] {
  return [
    ...cloudTrailSteps(ctx, calls.actions),
    ...findRoleSteps(ctx, calls.principalRoleArn).steps,
    commandStep(
      'decision, allowed by the SCPs, allowed by the permissions boundary',
      simulateCommand(role.arnArg, calls.actions.length ? calls.actions : ['<action>']),
    ),
  ];
}

/** The fix for each result of the checks, the most likely (nothing allows it) first. */
function outcomeSteps(ctx: DetectContext, calls: DeniedCalls, what: string): string[] {
  const grant = grantSteps(ctx, calls).filter((s) => !findRoleSteps(ctx, calls.principalRoleArn).steps.includes(s));
  return [
    `If the decision is implicitDeny and neither of the last two columns is False, nothing allows ${what}: add it to the role.`,
    ...grant,
    `If AllowedByOrganizations is False (or CloudTrail says "explicit deny in a service control policy"), an SCP denies it: ${launches(calls) ? "narrow the NodePools' requirements (instance types, tags) to what the SCP allows, or " : ''}have the organization's administrator change it; the Allow above does not help.`,
    `If AllowedByPermissionsBoundary is False, allow ${what} in the role's permissions boundary. If the decision is explicitDeny, remove the Deny statement that matched.`,
  ];
}

/** Calls Karpenter makes to launch: an SCP may refuse some instance types, tags or regions, which NodePools can avoid. */
function launches(calls: DeniedCalls): boolean {
  return (
    calls.launch === true || calls.actions.some((a) => /^ec2:(RunInstances|CreateFleet|CreateLaunchTemplate|CreateTags)$/.test(a))
  );
}

/** The VPC endpoint policies of the service, when AWS named a VPC endpoint policy. */
function vpcEndpointSteps(ctx: DetectContext, reading: DenialReading, actions: readonly string[]): string[] {
  const region = regionOf({ clusterArn: ctx.snapshot.cluster?.arn });
  const service = actions[0]?.split(':')[0];
  if (!/VPC endpoint/i.test(reading.policy ?? '') || !service) return [];
  return [
    commandStep(
      `the ${service} VPC endpoint policies`,
      `aws ec2 describe-vpc-endpoints --filters Name=service-name,Values=${shellQuote(`com.amazonaws.${region ?? '<region>'}.${service}`)} --query 'VpcEndpoints[].[VpcEndpointId,PolicyDocument]' --output text${regionFlag(region)}`,
    ),
  ];
}

/** IRSA: STS refused the controller's web identity; the trust policy, not the permissions, is wrong. */
function trustPolicySteps(ctx: DetectContext, role: RoleNames): string[] {
  const id = controllerIdentity(ctx);
  const r = regionFlag(regionOf({ clusterArn: ctx.snapshot.cluster?.arn }));
  const subject = `system:serviceaccount:${id.namespace}:${id.serviceAccount}`;
  const irsa = `kubectl get sa -n ${shellQuote(id.namespace)} ${shellQuote(id.serviceAccount)} -o jsonpath='{.metadata.annotations.eks\\.amazonaws\\.com/role-arn}'`;
  return [
    commandStep(
      role.arn ? `the role ${role.arn}; confirm its service account names it` : 'the role the service account names',
      irsa,
    ),
    commandStep(
      "the cluster's OIDC issuer (its host and path, without https://, is the provider)",
      `aws eks describe-cluster --name ${shellQuote(ctx.snapshot.clusterName)} --query cluster.identity.oidc.issuer --output text${r}`,
    ),
    commandStep('an IAM OIDC provider for that issuer must exist', 'aws iam list-open-id-connect-providers'),
    commandStep("the role's trust policy", `aws iam get-role --role-name ${role.nameArg} --query Role.AssumeRolePolicyDocument`),
    visibleLine(
      `Compare: Principal.Federated must be arn:aws:iam::${role.account ?? '<account-id>'}:oidc-provider/<issuer host and path>, Action sts:AssumeRoleWithWebIdentity, and the condition keys are "<issuer host and path>:sub" = "${subject}" and "<issuer host and path>:aud" = "sts.amazonaws.com" (the key is the host and path only, not the provider ARN). Fix the trust policy; adding permissions to the role does not help.`,
    ),
  ];
}
