import { commandStep } from '../../domain/finding.ts';
import type { Condition, EC2NodeClass, SelectorTerm } from '../../domain/kube.ts';
import { explainAmi } from './ami-fixes.ts';
import { explainClusterCidr, explainIamUnreachable } from './own-words-fixes.ts';
import { mergePatch, nameOf, quoted, type Explanation, type FixContext } from './nodeclass-fix-context.ts';
import type { NodeClassCauseCode } from '../karpenter/nodeclass-status.ts';
import { describeSecurityGroupsCommand, describeSubnetsCommand, formatTerms } from '../karpenter/selector-terms.ts';
import { shellQuote, shellWords } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import { deniedCallInText } from '../cloud-errors/cloud-errors.ts';
import { denialExplanation, readDenial, type DenialCause } from '../aws-iam/denial.ts';
import { denialSteps } from '../aws-iam/denial-steps.ts';
import { conditionText } from '../karpenter/readiness.ts';

/** Tag keys Karpenter reserves for itself; an EC2NodeClass carrying them in spec.tags fails validation. */
const RESTRICTED_TAG =
  /^(kubernetes\.io\/cluster\/|karpenter\.sh\/nodepool$|eks:eks-cluster-name$|karpenter\.k8s\.aws\/ec2nodeclass$|karpenter\.sh\/nodeclaim$)/;

const VALIDATION_ACTION: Record<string, string> = {
  CreateFleetAuthCheckFailed: 'ec2:CreateFleet',
  CreateLaunchTemplateAuthCheckFailed: 'ec2:CreateLaunchTemplate',
  RunInstancesAuthCheckFailed: 'ec2:RunInstances',
};

export function explainNodeClassFailure(
  code: NodeClassCauseCode,
  c: Condition,
  nc: EC2NodeClass,
  fx: FixContext,
  logError: string | undefined,
): Explanation {
  switch (code) {
    case 'CLUSTER_CIDR_NOT_RESOLVED':
      return explainClusterCidr(c, nc, fx, logError);
    case 'IAM_API_UNREACHABLE':
      return explainIamUnreachable(nc, logError ?? quoted(c));
    case 'AMI_NOT_FOUND':
      return explainAmi(c, nc, fx);
    case 'SUBNETS_NOT_FOUND':
      return explainSubnets(c, nc, fx);
    case 'SECURITY_GROUPS_NOT_FOUND':
      return explainSecurityGroups(c, nc, fx);
    case 'INSTANCE_PROFILE_NOT_READY':
      return explainInstanceProfile(c, nc, fx);
    case 'VALIDATION_FAILED':
      return explainValidation(c, nc, fx);
    case 'UNKNOWN':
      return explainUnknown(nc, fx);
  }
}

function explainSubnets(c: Condition, nc: EC2NodeClass, fx: FixContext): Explanation {
  const name = nameOf(nc);
  const terms = nc.spec?.subnetSelectorTerms ?? [];
  const steps = terms.map((t) => commandStep('See what subnetSelectorTerms match', describeSubnetsCommand(t)));
  const tagStep = tagCommand(terms, fx.knownSubnets.length ? shellWords(fx.knownSubnets) : '<private-subnet-ids>');
  if (tagStep) steps.push(commandStep('Tag the private subnets the nodes should use', tagStep));
  steps.push(
    commandStep(
      'Or select subnets by ID',
      mergePatch(nc, { subnetSelectorTerms: (fx.knownSubnets.length ? fx.knownSubnets : ['<subnet-id>']).map((id) => ({ id })) }),
    ),
  );
  return {
    detail: `EC2NodeClass ${name}: subnetSelectorTerms ${formatTerms(terms)} match no subnet (${quoted(c)}); Karpenter cannot launch nodes without one.`,
    steps,
  };
}

function explainSecurityGroups(c: Condition, nc: EC2NodeClass, fx: FixContext): Explanation {
  const name = nameOf(nc);
  const terms = nc.spec?.securityGroupSelectorTerms ?? [];
  const steps = terms.map((t) => commandStep('See what securityGroupSelectorTerms match', describeSecurityGroupsCommand(t)));
  steps.push(
    commandStep(
      'Tag discovery can fail; select the security groups by ID instead. Find the cluster security group',
      `aws eks describe-cluster --name ${shellQuote(fx.clusterName)} --query 'cluster.resourcesVpcConfig.clusterSecurityGroupId' --output text`,
    ),
    commandStep('Then select it by ID', mergePatch(nc, { securityGroupSelectorTerms: [{ id: '<sg-id>' }] })),
  );
  const tagStep = tagCommand(terms, '<sg-id>');
  if (tagStep) steps.push(commandStep('Or tag the node security group', tagStep));
  return {
    detail: `EC2NodeClass ${name}: securityGroupSelectorTerms ${formatTerms(terms)} match no security group (${quoted(c)}).`,
    steps,
  };
}

/** `resources` is shell text already: quoted ids, or a placeholder to replace. */
function tagCommand(terms: readonly SelectorTerm[], resources: string): string | undefined {
  const tags = terms.find((t) => t.tags && Object.keys(t.tags).length)?.tags;
  if (!tags) return undefined;
  const pairs = Object.entries(tags).map(([k, v]) => shellQuote(`Key=${k},Value=${v === '*' ? '' : v}`));
  return `aws ec2 create-tags --resources ${resources} --tags ${pairs.join(' ')}`;
}

function explainInstanceProfile(c: Condition, nc: EC2NodeClass, fx: FixContext): Explanation {
  const name = nameOf(nc);
  const role = nc.spec?.role;
  const profile = nc.spec?.instanceProfile;
  const authFailure = /AuthFailure/.test(c.reason ?? '');
  const steps: string[] = [];
  let detail: string;
  if (role) {
    const roleArn = fx.accountId ? `arn:aws:iam::${fx.accountId}:role/${role}` : `the role ${role}`;
    detail = `EC2NodeClass ${name}: Karpenter could not create the instance profile for node role ${role} (${quoted(c)}).`;
    steps.push(commandStep('Check the role exists', `aws iam get-role --role-name ${shellQuote(role)}`));
    steps.push(
      authFailure
        ? `Allow the Karpenter controller's IAM role iam:PassRole on ${visibleLine(roleArn)} and iam:GetInstanceProfile, iam:CreateInstanceProfile, iam:TagInstanceProfile, iam:AddRoleToInstanceProfile.`
        : commandStep(
            `Create node role ${role} (policies AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy, AmazonEC2ContainerRegistryReadOnly, AmazonSSMManagedInstanceCore) or set spec.role to an existing one`,
            `kubectl edit ec2nodeclass ${shellQuote(name)}`,
          ),
    );
  } else {
    detail = `EC2NodeClass ${name}: instance profile ${profile ?? '(unset)'} is not usable (${quoted(c)}).`;
    steps.push(
      commandStep(
        'Check it exists and has a role',
        `aws iam get-instance-profile --instance-profile-name ${profile ? shellQuote(profile) : '<name>'}`,
      ),
    );
    steps.push(
      authFailure
        ? `Allow the Karpenter controller's IAM role iam:GetInstanceProfile, and iam:PassRole on the profile's role.`
        : commandStep(
            `Create instance profile ${profile ?? ''} with the node role, or set spec.instanceProfile / spec.role`,
            `kubectl edit ec2nodeclass ${shellQuote(name)}`,
          ),
    );
  }
  return { detail, steps };
}

function explainValidation(c: Condition, nc: EC2NodeClass, fx: FixContext): Explanation {
  const name = nameOf(nc);
  const action = VALIDATION_ACTION[c.reason ?? ''];
  const check = `kubectl get ec2nodeclass ${shellQuote(name)} -o jsonpath='{.status.conditions[?(@.type=="ValidationSucceeded")]}'`;
  if (action) {
    const reading = readDenial([deniedCallInText(conditionText(c))]);
    const denied = {
      actions: [action],
      resource: undefined,
      principalRoleArn: undefined,
      encodedMessage: undefined,
      launch: true,
    };
    return {
      detail: `EC2NodeClass ${name}: Karpenter's dry-run of ${action} was denied (${quoted(c)}). ${VALIDATION_DENIAL[reading.cause] ?? denialExplanation(reading, action)}`,
      steps: [
        ...(reading.stated
          ? []
          : [
              commandStep(
                "Karpenter's log line keeps AWS's full message: the policy type and the encoded authorization message",
                `kubectl logs -n ${shellQuote(fx.controllerNamespace)} -l app.kubernetes.io/name=karpenter --tail=1000 | grep ${shellQuote(`unauthorized to call ${action}`)}`,
              ),
            ]),
        ...denialSteps(fx.detect, denied, reading),
        ...poolsOf(nc, fx).map((pool) =>
          commandStep(
            `requirements of NodePool ${pool}, which uses this node class`,
            `kubectl get nodepool ${shellQuote(pool)} -o jsonpath='{.spec.template.spec.requirements}'`,
          ),
        ),
        `It is dry-run with this node class's tags (spec.tags) and the NodePools' instance types: tag- or instance-type-conditioned statements must allow them.`,
        commandStep('Check again', check),
      ],
    };
  }
  const restricted = Object.keys(nc.spec?.tags ?? {}).filter((k) => RESTRICTED_TAG.test(k));
  if (c.reason === 'TagValidationFailed' || restricted.length) {
    return {
      detail: `EC2NodeClass ${name}: spec.tags uses keys Karpenter reserves (${restricted.join(', ') || 'see message'}): ${quoted(c)}.`,
      steps: [
        commandStep(
          `Remove ${restricted.join(', ') || 'the reserved keys'} from spec.tags`,
          `kubectl edit ec2nodeclass ${shellQuote(name)}`,
        ),
        commandStep('Check again', check),
      ],
    };
  }
  return {
    detail: `EC2NodeClass ${name} failed validation: ${quoted(c)}.`,
    steps: [`kubectl describe ec2nodeclass ${shellQuote(name)}`, commandStep('Check again after fixing it', check)],
  };
}

/** What the condition's message proves about the policy (Karpenter >= 1.x appends AWS's policy type). */
const VALIDATION_DENIAL: Partial<Record<DenialCause, string>> = {
  DENIED_BY_SCP:
    'Karpenter says an Organizations service control policy denies it: an Allow on the controller role cannot override it.',
  DENIED_BY_PERMISSIONS_BOUNDARY:
    "Karpenter says the controller role's permissions boundary denies it: an Allow on the role cannot widen it.",
  MISSING_PERMISSION:
    'The message does not say which policy refused it: the controller role may lack it, or an SCP (often one that allows only some instance types) or a permissions boundary denies it; the checks below tell which.',
};

/** NodePools whose nodeClassRef names this EC2NodeClass. */
function poolsOf(nc: EC2NodeClass, fx: FixContext): string[] {
  return fx.detect.snapshot.nodePools
    .filter((p) => p.spec?.template?.spec?.nodeClassRef?.name === nameOf(nc))
    .flatMap((p) => (p.metadata?.name ? [p.metadata.name] : []));
}

function explainUnknown(nc: EC2NodeClass, fx: FixContext): Explanation {
  const name = nameOf(nc);
  const conditions = nc.status?.conditions ?? [];
  return {
    detail: conditions.length
      ? `EC2NodeClass ${name} is not ready and no sub-condition says why; Karpenter may still be resolving it or failing to (see its logs).`
      : `EC2NodeClass ${name} has no status: Karpenter never reconciled it. Is the controller running and watching karpenter.k8s.aws/v1?`,
    steps: [
      `kubectl describe ec2nodeclass ${shellQuote(name)}`,
      `kubectl logs -n ${shellQuote(fx.controllerNamespace)} -l app.kubernetes.io/name=karpenter --tail=200 | grep -i ${shellQuote(name)}`,
    ],
  };
}
