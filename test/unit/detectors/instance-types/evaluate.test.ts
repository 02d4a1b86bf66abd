import { describe, expect, it } from 'vitest';
import { instanceTypeCatalogue } from '../../../../src/detectors/instance-types/catalogue.ts';
import { evaluateTypes } from '../../../../src/detectors/instance-types/evaluate.ts';
import { parsePrintedRequirement } from '../../../../src/detectors/instance-types/requirements.ts';
import { snapshotOf } from '../../../factories/aws.ts';

const BUNDLED = instanceTypeCatalogue(snapshotOf({})).types;
const DEFAULTS = { vmMemoryOverheadPercent: 0.075 };
const GI = 2 ** 30;

describe('instance types a NodePool allows, and which would hold the pods', () => {
  it('finds the one type a family and a vCPU count leave, and that 28Gi plus overhead does not fit it', () => {
    // Act
    const fit = evaluateTypes(
      [
        { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m6a'] },
        { key: 'karpenter.k8s.aws/instance-cpu', operator: 'In', values: ['8'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ],
      { cpu: 6.48, memory: 30877471104, pods: 6 },
      BUNDLED,
      DEFAULTS,
    );

    // Assess
    expect(fit.allowed.map((t) => t.name)).toEqual(['m6a.2xlarge']);
    expect(fit.fitting).toEqual([]);
    expect(fit.closest?.type.name).toBe('m6a.2xlarge');
    expect(fit.closest?.short).toEqual(['memory']);
  });

  it('finds no GPU among compute, general and memory categories, and one once the g category is allowed', () => {
    const without = evaluateTypes(
      [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] }],
      { 'nvidia.com/gpu': 1, cpu: 1 },
      BUNDLED,
      DEFAULTS,
    );
    const withG = evaluateTypes(
      [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'g', 'm', 'r'] }],
      { 'nvidia.com/gpu': 1, cpu: 1 },
      BUNDLED,
      DEFAULTS,
    );

    expect(without.allowed.length).toBeGreaterThan(100);
    expect(without.fitting).toEqual([]);
    expect(without.closest?.short).toEqual(['nvidia.com/gpu']);
    expect(withG.fitting.some((t) => t.name.startsWith('g5.'))).toBe(true);
  });

  it('reads Gt and Lt as Karpenter does: instance-cpu Lt 5 excludes an 8 vCPU request', () => {
    const fit = evaluateTypes(
      [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['5'] }],
      { cpu: 7 },
      BUNDLED,
      DEFAULTS,
    );

    expect(fit.allowed.every((t) => t.vcpus < 5)).toBe(true);
    expect(fit.fitting).toEqual([]);
  });

  it('names family and type values the table does not hold, so nobody concludes from a stale table', () => {
    const fit = evaluateTypes(
      [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m6a', 'z99q'] }],
      { memory: 4 * GI },
      BUNDLED,
      DEFAULTS,
    );

    expect(fit.unknownNames).toEqual(['z99q']);
  });

  it('leaves labels it does not model, and reserved capacity, out of the judgement', () => {
    const fit = evaluateTypes(
      [
        { key: 'example.com/team', operator: 'In', values: ['ml'] },
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
      ],
      { cpu: 1 },
      BUNDLED,
      DEFAULTS,
    );

    expect(fit.allowed.map((t) => t.name)).toEqual(['m5.large']);
    expect(fit.fitting.map((t) => t.name)).toEqual(['m5.large']);
  });

  it('says which requirement alone matches nothing', () => {
    const fit = evaluateTypes(
      [
        { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
        { key: 'karpenter.k8s.aws/instance-cpu-manufacturer', operator: 'In', values: ['intel'] },
        { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Gt', values: ['64'] },
      ],
      { cpu: 1 },
      BUNDLED,
      DEFAULTS,
    );

    expect(fit.allowed).toEqual([]);
    expect(fit.excludesAll.map((r) => r.key)).toEqual(['karpenter.k8s.aws/instance-gpu-count']);
  });
});

describe("Karpenter's printed requirements", () => {
  it.each([
    ['karpenter.k8s.aws/instance-cpu In [8]', [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'In', values: ['8'] }]],
    ['karpenter.k8s.aws/instance-cpu Exists <=32', [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['33'] }]],
    [
      'karpenter.k8s.aws/instance-cpu Exists >=4 <=32',
      [
        { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['3'] },
        { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['33'] },
      ],
    ],
    ['kubernetes.io/arch NotIn [arm64]', [{ key: 'kubernetes.io/arch', operator: 'NotIn', values: ['arm64'] }]],
    [
      'karpenter.k8s.aws/instance-gpu-count DoesNotExist',
      [{ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' }],
    ],
    ['node.kubernetes.io/instance-type In [a.large b.large c.large d.large e.large and 20 others]', []],
    [
      'karpenter.k8s.aws/instance-family In [m6a] minValues 2',
      [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m6a'] }],
    ],
    ['not a requirement', []],
  ])('%s', (text, expected) => {
    expect(parsePrintedRequirement(text)).toEqual(expected);
  });
});
