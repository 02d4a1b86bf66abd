import { manualRemediation, newFinding, proposedAction, type Finding } from '../../../../src/domain/finding.ts';
import { buildReport, type Report } from '../../../../src/domain/report.ts';
import type { Gap } from '../../../../src/domain/snapshot.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

export const notRegistered = newFinding({
  code: 'NODECLAIM_NOT_REGISTERED',
  severity: 'critical',
  title: 'NodeClaim default-x2k4p launched 22m ago but its Node never registered',
  resource: { kind: 'NodeClaim', name: 'default-x2k4p' },
  since: '2026-01-01T00:38:00Z',
  cause: {
    code: 'NODE_ROLE_NOT_MAPPED',
    detail: 'role KarpenterNodeRole-demo is in neither aws-auth nor an EC2_LINUX access entry',
  },
  evidence: [
    'NodeClaim default-x2k4p Launched=True, Registered=Unknown',
    'aws-auth mapRoles has 1 entry, none for KarpenterNodeRole-demo',
  ],
  remediation: manualRemediation([
    'aws eks create-access-entry --cluster-name demo --principal-arn arn:aws:iam::069057294951:role/KarpenterNodeRole-demo --type EC2_LINUX',
    'kubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aws-auth\nEOF',
  ]),
});

export const orphan = newFinding({
  code: 'ORPHANED_INSTANCE',
  severity: 'warning',
  title: 'Instance i-0abc123 (NodePool default) has no NodeClaim',
  resource: { kind: 'Instance', id: 'i-0abc123' },
  since: '2026-01-01T00:00:00Z',
  cause: { code: 'NO_NODECLAIM', detail: 'no NodeClaim has providerID aws:///us-east-1a/i-0abc123' },
  evidence: ['instance i-0abc123 running since 2026-01-01T00:00:00Z'],
  remediation: {
    ...proposedAction('TERMINATE_INSTANCE', ['aws ec2 terminate-instances --instance-ids i-0abc123']),
    status: 'skipped',
    reason: 'snapshot incomplete (see gaps): nothing is terminated on partial data',
  },
});

export const unexplained = newFinding({
  code: 'PODS_PENDING_PROLONGED',
  severity: 'info',
  title: '3 pods Pending | longer than 10m',
  resource: { kind: 'Cluster', name: 'demo' },
  since: null,
  cause: null,
  evidence: [],
  remediation: null,
});

export function reportOf(findings: Finding[], gaps: Gap[] = []): Report {
  return buildReport({ cluster: 'demo', now: NOW, gaps, findings });
}
