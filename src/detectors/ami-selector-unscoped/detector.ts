import type { Finding } from '../../domain/finding.ts';
import { commandStep, manualRemediation, newFinding } from '../../domain/finding.ts';
import type { SelectorTerm } from '../../domain/kube.ts';
import type { Detector } from '../detector.ts';
import { EKS_AMI_OWNER, describeImagesCommand, formatTerm, isUnscopedAmiTerm } from '../karpenter/selector-terms.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';

/**
 * AMI_SELECTOR_UNSCOPED: an EC2NodeClass amiSelectorTerm that selects by `name` or `tags` with no
 * `owner`. Karpenter then searches owners `self` and `amazon` for a name (and any owner for tags
 * alone), so an image of this account that happens to match (seed: "Offseclab Base AMI") can be
 * picked as the newest. Terms with `id`, `alias` or `ssmParameter` pin the image and are fine.
 */
export const amiSelectorUnscoped: Detector<'AMI_SELECTOR_UNSCOPED'> = {
  code: 'AMI_SELECTOR_UNSCOPED',
  requires: ['ec2nodeclasses'],
  refinedBy: [],
  detect(ctx) {
    const findings: Finding<'AMI_SELECTOR_UNSCOPED'>[] = [];
    for (const nc of ctx.snapshot.nodeClasses) {
      const terms = nc.spec?.amiSelectorTerms ?? [];
      const unscoped = terms.map((term, i) => ({ term, i })).filter(({ term }) => isUnscopedAmiTerm(term));
      if (unscoped.length === 0) continue;
      const name = nc.metadata?.name ?? '?';
      const resolved = (nc.status?.amis ?? []).map((a) => `${a.id} (${a.name ?? 'no name'})`).join(', ');
      const byName = unscoped.some(({ term }) => term.name);
      const scoped = terms.map((t) => (isUnscopedAmiTerm(t) ? withOwner(t) : t));
      findings.push(
        newFinding({
          code: 'AMI_SELECTOR_UNSCOPED',
          severity: 'warning',
          title: `EC2NodeClass ${name} selects AMIs by ${byName ? 'name' : 'tags'} without an owner`,
          resource: { kind: 'EC2NodeClass', name },
          since: null,
          cause: {
            code: 'NO_OWNER',
            detail:
              (byName
                ? `Without an owner Karpenter looks up AMI names among owners self and amazon, so an AMI of this account (self) whose name matches is picked when it is the newest.`
                : `Without an owner Karpenter does not restrict the owner of tag-selected AMIs, so any image in this account (self) or shared with it that carries these tags qualifies.`) +
              ` Resolved now: ${resolved || 'none'}; check they are the images you meant.`,
          },
          evidence: [
            ...unscoped.map(({ term, i }) => `amiSelectorTerms[${i}] ${formatTerm(term)} has no owner`),
            resolved ? `status.amis: ${resolved}` : 'status.amis: none resolved',
          ],
          remediation: manualRemediation([
            ...unscoped.map(
              ({ term, i }) =>
                `amiSelectorTerms[${i}] with an owner: ${formatTerm(withOwner(term))} (if these are images you build, use your own account id instead)`,
            ),
            `kubectl patch ec2nodeclass ${shellQuote(name)} --type=merge -p ${shellJson({ spec: { amiSelectorTerms: scoped } })}`,
            ...unscoped
              .map(({ term }) => describeImagesCommand(withOwner(term)))
              .filter((c): c is string => !!c)
              .map((c) => commandStep('Check the scoped term still matches', c)),
          ]),
        }),
      );
    }
    return findings;
  },
};

/** Amazon Linux and Windows base images are published under the `amazon` owner alias, not the EKS account. */
const AMAZON_BASE_IMAGE = /^(al2023-ami-|amzn2-ami-|amzn-ami-|Windows_Server-)/;

/**
 * The term pinned to an owner, keeping its name pattern and tags: the EKS AMI account for a name,
 * `amazon` for Amazon's base images, `self` for tags alone (only an AMI's owner sees its tags).
 */
function withOwner(term: SelectorTerm): SelectorTerm {
  const owner = !term.name ? 'self' : AMAZON_BASE_IMAGE.test(term.name) ? 'amazon' : EKS_AMI_OWNER;
  const { owner: _empty, ...rest } = term;
  return { owner, ...rest };
}
