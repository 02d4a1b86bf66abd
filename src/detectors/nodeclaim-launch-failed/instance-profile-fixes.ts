import { commandStep } from '../../domain/finding.ts';
import type { EC2NodeClass } from '../../domain/kube.ts';
import { shellQuote } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import type { DetectContext } from '../detector.ts';
import { controllerIdentity } from '../aws-iam/controller-iam.ts';
import type { CauseCodeOf } from '../../domain/codes.ts';

/** What the explanation reads of a group of failed launches (launch-failure-fixes.ts LaunchGroup). */
interface ProfileLaunches {
  nodeClass: string | undefined;
  /** Raw error texts, oldest first. */
  texts: string[];
  codes: string[];
}

/** EC2's `Value (<name>) for parameter iamInstanceProfile.name is invalid`. */
const NAMED_PROFILE = /Value \(([^()\s]+)\) for parameter iamInstanceProfile\.name/g;
const MAX_LISTED = 5;

export interface ProfileExplanation {
  /** INSTANCE_PROFILE_NOT_FOUND, or UNKNOWN when the captured profile list holds every named profile. */
  cause: CauseCodeOf<'NODECLAIM_LAUNCH_FAILED'>;
  detail: string;
  steps: string[];
}

/**
 * EC2 rejected the instance profile of the launch template. The profile is named by EC2's message
 * (before Karpenter v1.1) or, with the v1.1+ reason `InstanceProfileNameInvalid` whose message names
 * none, by the EC2NodeClass's status. The captured `aws iam list-instance-profiles` decides: the name
 * absent there is a profile that does not exist; present there, "missing" is contradicted and the
 * cause stays open (docs/findings.md, NODECLAIM_LAUNCH_FAILED).
 */
export function explainInstanceProfile(ctx: DetectContext, g: ProfileLaunches): ProfileExplanation {
  const s = ctx.snapshot;
  const fromText = [...new Set(g.texts.flatMap((t) => [...t.matchAll(NAMED_PROFILE)].map((m) => m[1] as string)))];
  const ownClass = g.nodeClass ? ctx.index.nodeClassesByName.get(g.nodeClass) : undefined;
  const names = fromText.length > 0 ? fromText : profileOf(ownClass) ? [profileOf(ownClass) as string] : [];
  const nodeClass = ownClass ?? s.nodeClasses.find((nc) => names.some((n) => namesProfile(nc, n)));
  const ncName = nodeClass?.metadata?.name ?? g.nodeClass;
  const profile = names[0];
  const listed = s.captured.has('instanceprofiles');
  const present = names.filter((n) => s.instanceProfiles.some((p) => p.name === n));
  const shown = names.length > 0 ? `instance profile ${names.join(', ')}` : 'the instance profile';
  const codes = g.codes.length > 0 ? ` (${g.codes.join(', ')})` : '';
  const q = profile ? shellQuote(profile) : '<name>';
  const check = `aws iam get-instance-profile --instance-profile-name ${q}`;

  if (listed && names.length > 0 && present.length === names.length) {
    return {
      cause: 'UNKNOWN',
      detail:
        `EC2 rejected ${shown}${codes} as an invalid instance profile name, but the captured aws iam list-instance-profiles holds it, so it is not missing. ` +
        'A profile created moments before the launch is not visible to EC2 yet (IAM is eventually consistent) and Karpenter retries; if the error repeats, the profile EC2 sees differs from the listed one (another account or partition).',
      steps: [
        commandStep('Check the profile from the account the cluster runs in: its Roles should hold the node role', check),
        'aws sts get-caller-identity   # the account you listed the profiles in',
      ],
    };
  }

  const byClass = describeClass(nodeClass, ncName, profile, controllerIdentity(ctx).namespace);
  const parts = [`EC2 rejected ${shown}${codes}: no instance profile by that name exists in the account.`];
  if (listed) {
    const others = s.instanceProfiles.slice(0, MAX_LISTED).map((p) => p.name);
    const more = s.instanceProfiles.length > MAX_LISTED ? `, ... (${s.instanceProfiles.length} in all)` : '';
    parts.push(
      `The captured aws iam list-instance-profiles does not list it${others.length > 0 ? ` (it lists ${others.join(', ')}${more})` : ' (it lists none)'}.`,
    );
  } else {
    parts.push(
      "The account's instance profiles were not captured: aws iam get-instance-profile decides (NoSuchEntity means it does not exist).",
    );
  }
  if (byClass.text) parts.push(byClass.text);
  const steps: string[] = [];
  if (!listed) steps.push(commandStep('Does it exist? NoSuchEntity confirms it is missing', check));
  steps.push(...byClass.steps);
  return { cause: 'INSTANCE_PROFILE_NOT_FOUND', detail: parts.join(' '), steps };
}

/** The profile a node class launches with: the one it names, else the one Karpenter made for its role. */
function profileOf(nc: EC2NodeClass | undefined): string | undefined {
  return nc?.spec?.instanceProfile ?? nc?.status?.instanceProfile;
}

function namesProfile(nc: EC2NodeClass, name: string): boolean {
  return nc.spec?.instanceProfile === name || nc.status?.instanceProfile === name;
}

/** Who names the profile, and the fix that fits: a profile the user manages, or one Karpenter manages for a role. */
function describeClass(
  nc: EC2NodeClass | undefined,
  ncName: string | undefined,
  profile: string | undefined,
  namespace: string,
): { text: string | undefined; steps: string[] } {
  const q = profile ? shellQuote(profile) : '<name>';
  const edit = `kubectl edit ec2nodeclass ${ncName ? shellQuote(ncName) : '<ec2nodeclass>'}`;
  const role = nc?.spec?.role;
  if (nc && role && nc.spec?.instanceProfile === undefined) {
    return {
      text: `EC2NodeClass ${ncName} sets spec.role ${role}: Karpenter creates and manages the profile for that role (status.instanceProfile ${nc.status?.instanceProfile ?? 'unset'}), so it was deleted outside Karpenter or Karpenter could not create it. Karpenter creates a new one when it finds its profile gone; the controller log says why it cannot.`,
      steps: [
        commandStep('The role the profile is made for must exist', `aws iam get-role --role-name ${shellQuote(role)}`),
        `kubectl logs -n ${shellQuote(namespace)} -l app.kubernetes.io/name=karpenter --tail=500 | grep -i 'instance profile'`,
      ],
    };
  }
  const text = nc
    ? `EC2NodeClass ${ncName} names it in spec.instanceProfile: Karpenter uses a named profile as it is and never creates it.`
    : ncName
      ? `EC2NodeClass ${ncName} launches with it (the EC2NodeClass was not captured).`
      : 'No captured EC2NodeClass names it.';
  return {
    text,
    steps: [
      commandStep(
        `Create ${profile ? visibleLine(profile) : 'the profile'} with the node role in it`,
        `aws iam create-instance-profile --instance-profile-name ${q}`,
      ),
      `aws iam add-role-to-instance-profile --instance-profile-name ${q} --role-name <node-role>`,
      commandStep('Or set spec.instanceProfile to a profile that exists', edit),
    ],
  };
}
