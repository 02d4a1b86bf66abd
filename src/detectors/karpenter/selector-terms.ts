import type { SelectorTerm } from '../../domain/kube.ts';
import { shellQuote, shellWords } from '../../domain/shell.ts';

/** Account that publishes the EKS optimized AMIs (Amazon Linux 2 and AL2023). */
export const EKS_AMI_OWNER = '602401143452';

/** Karpenter v1's owners for an AMI `name` term without `owner` (providers/amifamily). */
const DEFAULT_NAME_OWNERS = ['self', 'amazon'] as const;

/** A term exactly as written in the spec, for evidence: `{"owner":"602401143452","name":"..."}`. */
export function formatTerm(term: SelectorTerm): string {
  return JSON.stringify(term);
}

export function formatTerms(terms: readonly SelectorTerm[] | undefined): string {
  return terms?.length ? terms.map(formatTerm).join(', ') : '(none)';
}

/** `--filters` arguments for the tags (and optional name) of a term; `*` means "key present". */
function filters(term: SelectorTerm, nameFilter?: string): string[] {
  const out: string[] = [];
  if (term.name && nameFilter) out.push(shellQuote(`Name=${nameFilter},Values=${term.name}`));
  for (const [k, v] of Object.entries(term.tags ?? {})) {
    out.push(shellQuote(v === '*' ? `Name=tag-key,Values=${k}` : `Name=tag:${k},Values=${v}`));
  }
  return out.length ? [`--filters ${out.join(' ')}`] : [];
}

/** The `aws ec2 describe-subnets` call that shows what one subnetSelectorTerm matches. */
export function describeSubnetsCommand(term: SelectorTerm): string {
  const select = term.id ? [`--subnet-ids ${shellQuote(term.id)}`] : filters(term);
  return ['aws ec2 describe-subnets', ...select, `--query 'Subnets[*].[SubnetId,AvailabilityZone,VpcId]' --output table`].join(
    ' ',
  );
}

/** The `aws ec2 describe-security-groups` call that shows what one securityGroupSelectorTerm matches. */
export function describeSecurityGroupsCommand(term: SelectorTerm): string {
  const select = term.id ? [`--group-ids ${shellQuote(term.id)}`] : filters(term, 'group-name');
  return [
    'aws ec2 describe-security-groups',
    ...select,
    `--query 'SecurityGroups[*].[GroupId,GroupName,VpcId]' --output table`,
  ].join(' ');
}

/** The `aws ec2 describe-images` call Karpenter effectively makes for one amiSelectorTerm (none for alias/ssmParameter). */
export function describeImagesCommand(term: SelectorTerm): string | undefined {
  if (term.alias || term.ssmParameter) return undefined;
  const query = `--query 'Images[*].[ImageId,Name,OwnerId,CreationDate]' --output table`;
  if (term.id) return `aws ec2 describe-images --image-ids ${shellQuote(term.id)} ${query}`;
  const owners = term.owner ? [term.owner] : term.name ? DEFAULT_NAME_OWNERS : [];
  const ownerArg = owners.length ? [`--owners ${shellWords(owners)}`] : [];
  return ['aws ec2 describe-images', ...ownerArg, ...filters(term, 'name'), query].join(' ');
}

/** An AMI term selects by name or tags with no owner (id, alias and ssmParameter pin the image). */
export function isUnscopedAmiTerm(term: SelectorTerm): boolean {
  if (term.id || term.alias || term.ssmParameter || term.owner) return false;
  return !!term.name || Object.keys(term.tags ?? {}).length > 0;
}
