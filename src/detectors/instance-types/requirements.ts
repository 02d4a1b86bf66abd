import type { LabelSelectorRequirement } from '../../domain/kube.ts';

/**
 * Karpenter's printed requirements (`karpenter.k8s.aws/instance-cpu In [8]`,
 * `karpenter.k8s.aws/instance-cpu Exists <=32`, `… In [a b c d e and 20 others]`; core
 * `pkg/scheduling/requirement.go` String(), `>N`/`<N` before v1) read back as requirements. A list
 * Karpenter cut short (`and N others`) cannot be judged: it is dropped, which only widens what the
 * evaluation allows, never narrows it.
 */

const PRINTED = /^(\S+) (In|NotIn|Exists|DoesNotExist|Gt|Lt)(?: \[([^\]]*)\])?((?: (?:>=|<=|>|<)-?\d+)*)(?: minValues \d+)?$/;

export function parsePrintedRequirement(text: string): LabelSelectorRequirement[] {
  const m = PRINTED.exec(text.trim());
  if (!m?.[1] || !m[2]) return [];
  const [, key, operator, list, bounds] = m;
  const out: LabelSelectorRequirement[] = [];
  if (operator === 'In' || operator === 'NotIn') {
    const values = (list ?? '').split(/\s+/).filter(Boolean);
    if (/ and \d+ others$/.test(list ?? '')) return bounds ? boundsOf(key, bounds) : [];
    out.push({ key, operator, values });
  } else if (operator === 'Gt' || operator === 'Lt') {
    out.push({ key, operator, values: (list ?? '').split(/\s+/).filter(Boolean) });
  } else if (operator === 'DoesNotExist' || !bounds) {
    out.push({ key, operator });
  }
  return [...out, ...boundsOf(key, bounds ?? '')];
}

function boundsOf(key: string, bounds: string): LabelSelectorRequirement[] {
  const out: LabelSelectorRequirement[] = [];
  for (const b of bounds.trim().split(/\s+/).filter(Boolean)) {
    const m = /^(>=|<=|>|<)(-?\d+)$/.exec(b);
    if (!m?.[1] || !m[2]) continue;
    const n = Number.parseInt(m[2], 10);
    if (m[1] === '>=') out.push({ key, operator: 'Gt', values: [String(n - 1)] });
    if (m[1] === '>') out.push({ key, operator: 'Gt', values: [String(n)] });
    if (m[1] === '<=') out.push({ key, operator: 'Lt', values: [String(n + 1)] });
    if (m[1] === '<') out.push({ key, operator: 'Lt', values: [String(n)] });
  }
  return out;
}
