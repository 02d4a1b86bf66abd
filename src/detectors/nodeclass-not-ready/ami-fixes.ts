import { commandStep } from '../../domain/finding.ts';
import type { Condition, EC2NodeClass, SelectorTerm } from '../../domain/kube.ts';
import { mergePatch, nameOf, quoted, type Explanation, type FixContext } from './nodeclass-fix-context.ts';
import { EKS_AMI_OWNER, describeImagesCommand, formatTerms } from '../karpenter/selector-terms.ts';
import { shellQuote } from '../../domain/shell.ts';

/** Amazon Linux 2 selection: AL2 family, an `al2@` alias, or an AL2 EKS AMI name (`amazon-eks-node-1.32-*`). */
function selectsAl2(nc: EC2NodeClass): boolean {
  const terms = nc.spec?.amiSelectorTerms ?? [];
  return (
    nc.spec?.amiFamily === 'AL2' ||
    terms.some((t) => t.alias?.toLowerCase().startsWith('al2@') || /^amazon-eks-(gpu-|arm64-)?node-1\.\d+/.test(t.name ?? ''))
  );
}

/** Kubernetes version the node class targets: the cluster's, else the one in its AMI name pattern. */
function targetVersion(nc: EC2NodeClass, fx: FixContext): string | undefined {
  if (fx.clusterVersion) return fx.clusterVersion;
  for (const t of nc.spec?.amiSelectorTerms ?? []) {
    const m = /node-(1\.\d+)/.exec(t.name ?? '');
    if (m) return m[1];
  }
  return undefined;
}

/** SSM parameters Karpenter reads for the `al2@latest` / `al2023@latest` aliases (x86_64). */
const ALIAS_PARAMETER: Record<string, (version: string) => string> = {
  'al2@latest': (v) => `/aws/service/eks/optimized-ami/${v}/amazon-linux-2/recommended/image_id`,
  'al2023@latest': (v) => `/aws/service/eks/optimized-ami/${v}/amazon-linux-2023/x86_64/standard/recommended/image_id`,
};

function aliasLookup(term: SelectorTerm, version: string | undefined): string | undefined {
  const parameter = term.alias && version ? ALIAS_PARAMETER[term.alias.toLowerCase()]?.(version) : undefined;
  return parameter && `aws ssm get-parameter --name ${shellQuote(parameter)} --query Parameter.Value --output text`;
}

/** AMIsReady=False: what the selector matches, and the AL2 → AL2023 move when it selects Amazon Linux 2. */
export function explainAmi(c: Condition, nc: EC2NodeClass, fx: FixContext): Explanation {
  const name = nameOf(nc);
  const terms = nc.spec?.amiSelectorTerms ?? [];
  const family = nc.spec?.amiFamily ?? '(unset)';
  const version = targetVersion(nc, fx);
  const lookups = terms.map((t) => describeImagesCommand(t) ?? aliasLookup(t, version)).filter((s): s is string => !!s);
  let detail = `EC2NodeClass ${name} (amiFamily ${family}, amiSelectorTerms ${formatTerms(terms)}) resolved no AMI (${quoted(c)}).`;
  const steps = lookups.map((cmd) => commandStep('See what the selector matches in this region', cmd));
  if (c.reason && c.reason !== 'AMINotFound') {
    detail += ` Karpenter could not list AMIs; the controller's IAM role needs ec2:DescribeImages (and ssm:GetParameter for aliases).`;
  }
  if (selectsAl2(nc)) {
    const minor = version ? Number(version.split('.')[1]) : undefined;
    detail +=
      ' AWS stopped publishing Amazon Linux 2 EKS AMIs on 26 November 2025; EKS 1.33 and newer have only AL2023 AMIs' +
      (version
        ? ` (this node class targets Kubernetes ${version}${minor !== undefined && minor >= 33 ? ', which has no AL2 AMI' : ''}).`
        : '.');
    steps.push(
      commandStep(
        `Switch EC2NodeClass ${name} to AL2023 (nodes bootstrap with nodeadm instead of /etc/eks/bootstrap.sh)`,
        mergePatch(nc, { amiFamily: 'AL2023', amiSelectorTerms: [{ alias: 'al2023@latest' }] }),
      ),
    );
    if (version) {
      steps.push(
        commandStep(
          'Or pin EKS-published AL2023 AMIs by owner and name',
          mergePatch(nc, {
            amiFamily: 'AL2023',
            amiSelectorTerms: [{ owner: EKS_AMI_OWNER, name: `amazon-eks-node-al2023-x86_64-standard-${version}-*` }],
          }),
        ),
      );
    }
  } else {
    steps.push(
      commandStep(
        `Correct spec.amiSelectorTerms of EC2NodeClass ${name} so every term matches an AMI in this region and account: AMI ids from another region and deregistered AMIs never match`,
        `kubectl edit ec2nodeclass ${shellQuote(name)}`,
      ),
    );
  }
  return { detail, steps };
}
