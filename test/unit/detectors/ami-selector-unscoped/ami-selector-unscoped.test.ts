import { describe, expect, it } from 'vitest';
import { amiSelectorUnscoped } from '../../../../src/detectors/ami-selector-unscoped/detector.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { T0 } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

function detect(snapshot: ClusterSnapshot) {
  return amiSelectorUnscoped.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(T0),
  });
}

describe('AMI_SELECTOR_UNSCOPED', () => {
  it('a name term without owner picked an AMI of this account (seed 004 #6)', () => {
    // Prepare
    const nc = ec2NodeClass({
      name: 'default',
      amiSelectorTerms: [{ name: 'amazon-eks-node-1.32-*' }],
      amis: [
        { id: 'ami-03ad4f0274233f98e', name: 'Offseclab Base AMI' },
        { id: 'ami-071a9f2683c2da4bd', name: 'amazon-eks-node-1.32-v20241216' },
      ],
    });

    // Act
    const findings = detect(snapshotOf({ nodeClasses: [nc] }));

    // Assess
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f).toMatchObject({
      code: 'AMI_SELECTOR_UNSCOPED',
      severity: 'warning',
      resource: { kind: 'EC2NodeClass', name: 'default' },
      cause: { code: 'NO_OWNER' },
      remediation: { action: 'MANUAL', status: 'manual' },
    });
    expect(f.cause?.detail).toContain('owners self and amazon');
    expect(f.evidence).toContain('amiSelectorTerms[0] {"name":"amazon-eks-node-1.32-*"} has no owner');
    expect(f.evidence).toContain(
      'status.amis: ami-03ad4f0274233f98e (Offseclab Base AMI), ami-071a9f2683c2da4bd (amazon-eks-node-1.32-v20241216)',
    );
    const steps = f.remediation!.steps;
    expect(steps[0]).toContain('{"owner":"602401143452","name":"amazon-eks-node-1.32-*"}');
    expect(steps).toContain(
      `kubectl patch ec2nodeclass default --type=merge -p '{"spec":{"amiSelectorTerms":[{"owner":"602401143452","name":"amazon-eks-node-1.32-*"}]}}'`,
    );
    expect(steps.join('\n')).toContain(
      "aws ec2 describe-images --owners 602401143452 --filters 'Name=name,Values=amazon-eks-node-1.32-*'",
    );
  });

  it('a tags-only term without owner is flagged and scoped to self', () => {
    const nc = ec2NodeClass({ name: 'golden', amiSelectorTerms: [{ tags: { 'team/golden-ami': 'true' } }] });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.cause?.code).toBe('NO_OWNER');
    expect(f?.title).toBe('EC2NodeClass golden selects AMIs by tags without an owner');
    expect(f?.remediation?.steps[0]).toContain('{"owner":"self","tags":{"team/golden-ami":"true"}}');
  });

  it('the patch keeps the pinned terms and scopes only the unscoped ones', () => {
    const nc = ec2NodeClass({
      name: 'mixed',
      amiSelectorTerms: [{ alias: 'al2023@latest' }, { name: 'al2023-ami-2023.*-x86_64' }],
    });

    const [f] = detect(snapshotOf({ nodeClasses: [nc] }));

    expect(f?.evidence[0]).toBe('amiSelectorTerms[1] {"name":"al2023-ami-2023.*-x86_64"} has no owner');
    expect(f?.remediation?.steps).toContain(
      `kubectl patch ec2nodeclass mixed --type=merge -p '{"spec":{"amiSelectorTerms":[{"alias":"al2023@latest"},{"owner":"amazon","name":"al2023-ami-2023.*-x86_64"}]}}'`,
    );
  });

  it('terms with owner, id, alias or ssmParameter are fine', () => {
    const nodeClasses = [
      ec2NodeClass({ name: 'owned', amiSelectorTerms: [{ owner: '602401143452', name: 'amazon-eks-node-1.32-*' }] }),
      ec2NodeClass({ name: 'by-id', amiSelectorTerms: [{ id: 'ami-071a9f2683c2da4bd' }] }),
      ec2NodeClass({ name: 'by-alias', amiSelectorTerms: [{ alias: 'al2@latest' }] }),
      ec2NodeClass({
        name: 'by-ssm',
        amiSelectorTerms: [{ ssmParameter: '/aws/service/eks/optimized-ami/1.32/amazon-linux-2/recommended/image_id' }],
      }),
      ec2NodeClass({ name: 'owned-tags', amiSelectorTerms: [{ owner: 'self', tags: { golden: 'true' } }] }),
    ];

    expect(detect(snapshotOf({ nodeClasses }))).toEqual([]);
  });

  it('one finding per node class, listing every unscoped term', () => {
    const nodeClasses = [
      ec2NodeClass({ name: 'a', amiSelectorTerms: [{ name: 'amazon-eks-node-1.32-*' }, { tags: { golden: 'true' } }] }),
      ec2NodeClass({ name: 'b', amiSelectorTerms: [{ name: 'amazon-eks-node-1.31-*' }] }),
    ];

    const findings = detect(snapshotOf({ nodeClasses }));

    expect(findings.map((f) => f.resource.name)).toEqual(['a', 'b']);
    expect(findings[0]?.evidence.filter((e) => e.endsWith('has no owner'))).toHaveLength(2);
  });
});
