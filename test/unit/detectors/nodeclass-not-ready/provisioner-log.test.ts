import { describe, expect, it } from 'vitest';
import { nodeClassNotReady } from '../../../../src/detectors/nodeclass-not-ready/detector.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { readControllerLog } from '../../../../src/snapshot/controller-logs.ts';
import { snapshotOf, subnet } from '../../../factories/aws.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { T0, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

/**
 * Provisioner-era selector errors read from the log alone: the lines of
 * test/incidents/eksctl-subnets-missing-discovery-tag and security-group-selector-criteria-anded.
 */
const NOW = minutesAfter(T0, 60);
const SUBNETS_LINE =
  '2022-02-16T17:58:09.522Z        ERROR   controller.controller.provisioning      Reconciler error        {"commit": "3d0d368", "reconciler group": "karpenter.sh", "reconciler kind": "Provisioner", "name": "default", "namespace": "", "error": "no subnets matched selector map[karpenter.sh/discovery:test-karpenter-sa-9]"}';
const SG_LINE =
  '2022-01-10T20:37:35.302Z\tERROR\tcontroller.provisioning\tCould not launch node, launching instances, getting launch template configs, getting launch templates, no security groups exist given constraints\t{"commit": "5047f3c", "provisioner": "karpenter-provisioner"}';
const LATER_INFO =
  '2022-02-16T19:30:00.000Z\tINFO\tcontroller.provisioning\tWaiting for unschedulable pods\t{"commit": "3d0d368"}';

function detect(snapshot: ClusterSnapshot) {
  const findings = nodeClassNotReady.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  });
  return { findings, text: JSON.stringify(findings) };
}

const logs = (...lines: string[]) => readControllerLog(lines.join('\n'), 'karpenter.log');
const eksctlSubnet = (id: string, tags: Record<string, string> = {}) =>
  subnet({ id, zone: 'us-west-2a', tags: { 'kubernetes.io/cluster/test-karpenter-sa-9': 'shared', ...tags } });

describe('NODECLASS_NOT_READY from a Provisioner-era log', () => {
  it('SUBNETS_NOT_FOUND: names the Provisioner and the selector, leads with the query Karpenter makes', () => {
    // Prepare
    const snapshot = snapshotOf({
      logs: logs(SUBNETS_LINE),
      subnets: [eksctlSubnet('subnet-0aa1'), eksctlSubnet('subnet-0bb2')],
    });
    // Act
    const { findings, text } = detect(snapshot);
    // Assess
    expect(findings).toHaveLength(1);
    expect(findings[0]?.resource).toEqual({ kind: 'Provisioner', name: 'default' });
    expect(findings[0]?.cause?.code).toBe('SUBNETS_NOT_FOUND');
    // The factory's subnets carry the discovery tag with another value: the evidence shows it.
    expect(findings[0]?.evidence).toContainEqual(
      expect.stringContaining(
        'none of the 2 captured subnet(s) matches karpenter.sh/discovery=test-karpenter-sa-9; subnet-0aa1 has karpenter.sh/discovery=demo',
      ),
    );
    expect(findings[0]?.remediation?.steps[0]).toContain(
      'aws ec2 describe-subnets --region us-west-2 --filters Name=tag:karpenter.sh/discovery,Values=test-karpenter-sa-9',
    );
    expect(text).toContain('--tags Key=karpenter.sh/discovery,Value=test-karpenter-sa-9');
    expect(text).not.toContain('ec2:DescribeSubnets');
  });

  it('a captured subnet that carries the tag contradicts "tag the subnets": no create-tags, the cause stays UNKNOWN', () => {
    // Prepare
    const tagged = eksctlSubnet('subnet-0cc3', { 'karpenter.sh/discovery': 'test-karpenter-sa-9' });
    const snapshot = snapshotOf({ logs: logs(SUBNETS_LINE), subnets: [eksctlSubnet('subnet-0aa1'), tagged] });
    // Act
    const { findings, text } = detect(snapshot);
    // Assess
    expect(findings[0]?.cause?.code).toBe('UNKNOWN');
    expect(findings[0]?.cause?.detail).toContain('subnet-0cc3');
    expect(text).not.toContain('create-tags');
  });

  it('SECURITY_GROUPS_NOT_FOUND: names the Provisioner, says the criteria are ANDed, grants no permission', () => {
    // Act
    const { findings, text } = detect(snapshotOf({ logs: logs(SG_LINE) }));
    // Assess
    expect(findings[0]?.cause?.code).toBe('SECURITY_GROUPS_NOT_FOUND');
    expect(findings[0]?.title).toContain('Provisioner karpenter-provisioner');
    expect(findings[0]?.cause?.detail).toContain('ANDed');
    expect(text).not.toContain('ec2:DescribeSecurityGroups');
  });

  it('an error that stopped recurring an hour before the log ends raises nothing', () => {
    // Act
    const { findings } = detect(snapshotOf({ logs: logs(SUBNETS_LINE, LATER_INFO) }));
    // Assess
    expect(findings).toEqual([]);
  });

  it('with an EC2NodeClass captured its status decides, not a Provisioner-era line', () => {
    // Act
    const { findings } = detect(snapshotOf({ logs: logs(SUBNETS_LINE), nodeClasses: [ec2NodeClass({ name: 'default' })] }));
    // Assess
    expect(findings.some((f) => f.resource.kind === 'Provisioner')).toBe(false);
  });
});
