import { commandStep } from '../../domain/finding.ts';
import { NODE_GROUPS, NODE_USERNAME } from './aws-auth.ts';
import { accessEntryType, type NodeRole } from './node-role.ts';
import { AUTO_NODE_POLICY_ARN } from '../../domain/auto-mode.ts';
import { regionFlag } from '../aws-iam/iam-arn.ts';
import { shellQuote } from '../../domain/shell.ts';

/** The mapping fix for the cluster's authentication mode, with the real role ARN and cluster `c`. */
export function fixSteps(
  c: string,
  role: NodeRole,
  mode: string | undefined,
  region: string | undefined,
  access: { wrongEntries: string[]; valid: boolean },
): string[] {
  const r = regionFlag(region);
  const withoutPath = role.arnWithoutPath ?? `arn:aws:iam::<account-id>:role/${role.name}`;
  const full = role.arn ?? `arn:aws:iam::<account-id>:role${role.path}${role.name}`;
  const groups = role.windows ? [...NODE_GROUPS, 'eks:kube-proxy-windows'] : [...NODE_GROUPS];
  const entryYaml = [
    `- rolearn: ${yamlScalar(withoutPath)}`,
    `  username: ${NODE_USERNAME}`,
    '  groups:',
    ...groups.map((g) => `    - ${g}`),
  ].join('\n');
  const editAwsAuth = `kubectl edit configmap aws-auth -n kube-system   # under data.mapRoles, add this entry (and remove any wrong entry for ${role.name}):\n${entryYaml}`;
  const eksctl = commandStep(
    'or let eksctl add the entry',
    `eksctl create iamidentitymapping --cluster ${shellQuote(c)}${r} --arn ${shellQuote(withoutPath)} --username ${NODE_USERNAME} ${groups.map((g) => `--group ${g}`).join(' ')}`,
  );
  /** The aws-auth edit, its first line saying when it applies (`or, in aws-auth`) if it is not the only way. */
  const awsAuthSteps = (when?: string) => [when ? commandStep(when, editAwsAuth) : editAwsAuth, eksctl];
  const accessSteps = [
    ...access.wrongEntries.map(
      (arn) =>
        `aws eks delete-access-entry --cluster-name ${shellQuote(c)} --principal-arn ${shellQuote(arn)}${r}   # an access entry's type and ARN cannot be changed`,
    ),
    `aws eks create-access-entry --cluster-name ${shellQuote(c)} --principal-arn ${shellQuote(full)} --type ${accessEntryType(role)}${r}`,
    ...(role.autoMode
      ? [
          `aws eks associate-access-policy --cluster-name ${shellQuote(c)} --principal-arn ${shellQuote(full)} --policy-arn ${AUTO_NODE_POLICY_ARN} --access-scope type=cluster${r}`,
        ]
      : []),
  ];
  const verify = 'kubectl get nodes -w   # the waiting instances register within a minute or two once the role is mapped';
  if (role.autoMode) {
    const switchMode =
      mode === 'CONFIG_MAP'
        ? [
            commandStep(
              'EKS Auto Mode needs access entries',
              `aws eks update-cluster-config --name ${shellQuote(c)} --access-config authenticationMode=API_AND_CONFIG_MAP${r}`,
            ),
          ]
        : [];
    return [...switchMode, ...accessSteps, verify];
  }
  if (mode === 'CONFIG_MAP') {
    const switchMode = access.valid
      ? [
          commandStep(
            'or let the existing access entry count',
            `aws eks update-cluster-config --name ${shellQuote(c)} --access-config authenticationMode=API_AND_CONFIG_MAP${r}`,
          ),
        ]
      : [];
    return [...awsAuthSteps(), ...switchMode, verify];
  }
  if (mode === 'API') return [...accessSteps, verify];
  if (mode !== undefined) return [...accessSteps, ...awsAuthSteps('or, in aws-auth'), verify];
  return [
    `aws eks describe-cluster --name ${shellQuote(c)}${r} --query cluster.accessConfig.authenticationMode   # CONFIG_MAP: use aws-auth; API or API_AND_CONFIG_MAP: use an access entry`,
    ...awsAuthSteps('if the mode is CONFIG_MAP'),
    ...accessSteps.map((s, i) => (i === 0 ? commandStep('if the mode is API or API_AND_CONFIG_MAP', s) : s)),
    verify,
  ];
}

/**
 * A value in the YAML of a step: as it is when it is an ordinary word, else single-quoted (`'`
 * doubled). Single quotes keep it literal in YAML and, should the lines be pasted into a shell
 * along with the command, there too (`'a''b'` is two quoted strings, never bare text).
 */
function yamlScalar(value: string): string {
  return shellQuote(value) === value ? value : `'${value.replaceAll("'", "''")}'`;
}

/** What to capture when neither aws-auth nor access entries (whichever count) were given. */
export function captureSteps(c: string, mode: string | undefined, region: string | undefined): string[] {
  const r = regionFlag(region);
  const steps: string[] = [];
  if (mode === undefined)
    steps.push(`aws eks describe-cluster --name ${shellQuote(c)}${r} --query cluster.accessConfig.authenticationMode`);
  if (mode !== 'API') steps.push('kubectl get configmap aws-auth -n kube-system -o yaml');
  if (mode !== 'CONFIG_MAP') steps.push(`aws eks list-access-entries --cluster-name ${shellQuote(c)}${r}`);
  return steps;
}
