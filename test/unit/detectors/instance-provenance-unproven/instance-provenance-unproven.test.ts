import { describe, expect, it } from 'vitest';
import { instanceProvenanceUnproven } from '../../../../src/detectors/instance-provenance-unproven/detector.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';
import {
  cluster,
  forgedInstance,
  instance,
  instanceProfile,
  karpenterSnapshotOf,
  launchTemplate,
} from '../../../factories/aws.ts';
import { nodeClaim } from '../../../factories/karpenter.ts';
import { T0, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = new Date(minutesAfter(T0, 60));
const FORGED = 'i-0f00d5ba5e0b1e7a2';

function detect(snapshot: ClusterSnapshot) {
  return instanceProvenanceUnproven.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: NOW,
  });
}

describe('INSTANCE_PROVENANCE_UNPROVEN', () => {
  it('reports the forged-tag production database, says why it is not touched and how to find out whose it is', () => {
    // Prepare
    const snapshot = karpenterSnapshotOf({
      instances: [forgedInstance(FORGED), instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      nodeClaims: [],
      cluster: cluster(),
    });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      code: 'INSTANCE_PROVENANCE_UNPROVEN',
      severity: 'warning',
      resource: { kind: 'Instance', id: FORGED },
      since: '2024-03-12T09:15:00Z',
      cause: { code: 'NOT_LAUNCHED_FROM_TEMPLATE' },
      remediation: { action: 'MANUAL', status: 'manual' },
    });
    expect(findings[0]?.title).toContain('not terminated');
    expect(findings[0]?.cause?.detail).toMatch(/^no aws:ec2launchtemplate:id tag: not launched from a launch template\. /);
    expect(findings[0]?.evidence).toContain('tags: eks:eks-cluster-name=demo, karpenter.sh/nodepool=anything');
    expect(findings[0]?.remediation?.steps).toContain(
      '# Who launched it (RunInstances or CreateFleet) and who tagged it (CreateTags), from CloudTrail (90 days)\n' +
        `aws cloudtrail lookup-events --region us-east-1 --lookup-attributes AttributeKey=ResourceName,AttributeValue=${FORGED}`,
    );
  });

  it('an instance whose launch template is gone and whose profile is not Karpenter’s: says both, keeps the manual steps', () => {
    // Prepare: its template deleted; its profile the one Terraform made, not Karpenter's.
    const terraform = instanceProfile({ name: 'KarpenterNodeInstanceProfile-demo', tags: { Terraform: 'true' } });
    const subject = { ...instance({ id: 'i-0aaaaaaaaaaaaaaa1' }), iamInstanceProfileArn: terraform.arn! };
    const snapshot = karpenterSnapshotOf({
      instances: [subject],
      nodeClaims: [],
      cluster: cluster(),
      launchTemplates: [launchTemplate({ id: 'lt-0still0there' })],
      instanceProfiles: [terraform],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('LAUNCH_TEMPLATE_UNKNOWN');
    expect(finding?.cause?.detail).toContain(
      'launch template lt-0d3e9a7c1b5f28e46 not found among the 1 captured (deleted since, or not tagged for cluster demo), ' +
        `and no proof by its instance profile either: ${terraform.arn} is not Karpenter's instance profile for cluster demo in us-east-1`,
    );
    expect(finding?.remediation?.steps).toContain(
      '# The launch template it names, and whether it still exists (capture it for the next scan)\n' +
        'aws ec2 describe-launch-templates --region us-east-1 --launch-template-ids lt-0d3e9a7c1b5f28e46',
    );
  });

  it('quotes every value from the data in its commands: an instance id cannot run anything', () => {
    const hostile = {
      ...instance({ id: "i-1'; rm -rf ~; echo '" }),
      tags: { 'eks:eks-cluster-name': 'demo', 'karpenter.sh/nodepool': 'x' },
    };
    const snapshot = karpenterSnapshotOf({ instances: [hostile], nodeClaims: [] });

    const [finding] = detect(snapshot);

    const commands = (finding?.remediation?.steps ?? []).map((step) => step.split('\n').at(-1) ?? '');
    expect(commands).toContain(
      `aws ec2 describe-instances --instance-ids 'i-1'\\''; rm -rf ~; echo '\\''' --query 'Reservations[].Instances[].{launched:LaunchTime,tags:Tags}'`,
    );
    for (const command of commands) expect(command).not.toMatch(/ i-1'; rm/);
  });

  it('asks for the launch template an instance names when it is not among those captured', () => {
    const snapshot = karpenterSnapshotOf({
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1', launchTemplateId: 'lt-0deleted0000000' })],
      nodeClaims: [],
      launchTemplates: [launchTemplate({ id: 'lt-0other' })],
    });

    const [finding] = detect(snapshot);

    expect(finding?.cause?.code).toBe('LAUNCH_TEMPLATE_UNKNOWN');
    expect(finding?.cause?.detail).toContain('launch template lt-0deleted0000000 not found among the 1 captured');
    expect(finding?.remediation?.steps).toContainEqual(
      expect.stringContaining('aws ec2 describe-launch-templates --launch-template-ids lt-0deleted0000000'),
    );
  });

  it('says nothing of a proven orphan, a claimed instance, or one within the grace period', () => {
    const snapshot = karpenterSnapshotOf({
      instances: [
        instance({ id: 'i-0aaaaaaaaaaaaaaa1' }),
        { ...forgedInstance('i-0bbbbbbbbbbbbbbb2'), launchTime: minutesAfter(T0, 55) },
        forgedInstance('i-0ccccccccccccccc3'),
      ],
      nodeClaims: [nodeClaim({ name: 'default-x', instanceId: 'i-0ccccccccccccccc3' })],
    });

    expect(detect(snapshot)).toEqual([]);
  });

  it('through analyze: reported without an automated remediation, while the real orphan’s termination is planned', () => {
    const snapshot = karpenterSnapshotOf({
      instances: [forgedInstance(FORGED), instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      nodeClaims: [],
      pods: [],
    });

    const report = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW });

    const byInstance = Object.fromEntries(report.findings.map((f) => [f.resource.id, `${f.code} ${f.remediation?.action}`]));
    expect(byInstance).toEqual({
      [FORGED]: 'INSTANCE_PROVENANCE_UNPROVEN MANUAL',
      'i-0aaaaaaaaaaaaaaa1': 'ORPHANED_INSTANCE TERMINATE_INSTANCE',
    });
    expect(report.complete).toBe(true);
  });
});
