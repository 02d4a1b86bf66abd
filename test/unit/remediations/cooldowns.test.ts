import { describe, expect, it } from 'vitest';
import { buildReport, type Report } from '../../../src/domain/report.ts';
import type { Finding } from '../../../src/domain/finding.ts';
import { cooldownsAfter, holdBackCoolingDown } from '../../../src/remediations/cooldowns.ts';
import type { RemediationCooldown } from '../../../src/ports/state.ts';
import { controllerPendingFinding, orphanFinding } from './reports.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

function reportOf(findings: Finding[]): Report {
  return buildReport({ cluster: 'pattern-infra-eks-dev', now: NOW, gaps: [], findings });
}

function withStatus(finding: Finding, status: 'planned' | 'applied' | 'failed' | 'skipped', reason = ''): Finding {
  return { ...finding, remediation: { ...finding.remediation!, status, reason } };
}

function cooldown(finding: Finding, action: string, lastOutcome = 'applied at 2026-01-01T00:55:00Z'): RemediationCooldown {
  return { cluster: 'pattern-infra-eks-dev', findingId: finding.id, action, until: '2026-01-01T01:10:00Z', lastOutcome };
}

describe('holdBackCoolingDown', () => {
  it('skips a planned remediation of the same finding and action, saying until when and what happened last', () => {
    const restart = controllerPendingFinding('2026-01-01T00:19:00Z');
    const report = reportOf([restart]);

    const held = holdBackCoolingDown(report, [cooldown(restart, 'ROLLOUT_RESTART')]);

    expect(held.findings[0]?.remediation).toMatchObject({
      action: 'ROLLOUT_RESTART',
      status: 'skipped',
      reason: 'cooling down until 2026-01-01T01:10:00Z after the last attempt (applied at 2026-01-01T00:55:00Z)',
    });
    expect(held.findings[0]?.remediation?.steps).toEqual(restart.remediation?.steps);
  });

  it('leaves other findings, other actions and remediations that are not planned alone', () => {
    const restart = controllerPendingFinding('2026-01-01T00:19:00Z');
    const orphanA = orphanFinding('i-0a3f1c9e8b7d6a501');
    const orphanB = withStatus(orphanFinding('i-0b7e2d4f6a8c9e102'), 'skipped', 'TERMINATE_INSTANCE is off');
    const report = reportOf([restart, orphanA, orphanB]);

    const held = holdBackCoolingDown(report, [
      // Same finding, another action: not this remediation's cooldown.
      cooldown(restart, 'TERMINATE_INSTANCE'),
      cooldown(orphanB, 'TERMINATE_INSTANCE'),
    ]);

    expect(held.findings.map((f) => f.remediation?.status)).toEqual(report.findings.map((f) => f.remediation?.status));
    expect(held.findings.find((f) => f.id === orphanB.id)?.remediation?.reason).toBe('TERMINATE_INSTANCE is off');
  });

  it('returns the report unchanged when nothing is cooling down', () => {
    const report = reportOf([controllerPendingFinding(null)]);
    expect(holdBackCoolingDown(report, [])).toBe(report);
  });
});

describe('cooldownsAfter', () => {
  it('starts one cooldown per applied or failed remediation, none for planned, skipped or manual ones', () => {
    const restart = withStatus(controllerPendingFinding('2026-01-01T00:19:00Z'), 'applied', 'restartedAt=2026-01-01T01:00:00Z');
    const failedOrphan = withStatus(orphanFinding('i-0a3f1c9e8b7d6a501'), 'failed', 'UnauthorizedOperation: not authorized');
    const plannedOrphan = orphanFinding('i-0b7e2d4f6a8c9e102');
    const report = reportOf([restart, failedOrphan, plannedOrphan]);

    const started = cooldownsAfter(report, NOW, 15 * 60_000);

    expect(started).toEqual([
      {
        cluster: 'pattern-infra-eks-dev',
        findingId: restart.id,
        action: 'ROLLOUT_RESTART',
        until: '2026-01-01T01:15:00Z',
        lastOutcome: 'applied at 2026-01-01T01:00:00Z',
      },
      {
        cluster: 'pattern-infra-eks-dev',
        findingId: failedOrphan.id,
        action: 'TERMINATE_INSTANCE',
        until: '2026-01-01T01:15:00Z',
        lastOutcome: 'failed at 2026-01-01T01:00:00Z: UnauthorizedOperation: not authorized',
      },
    ]);
  });

  it('a cooldown it starts holds the same remediation back on the next scan', () => {
    const applied = withStatus(controllerPendingFinding('2026-01-01T00:19:00Z'), 'applied');
    const [started] = cooldownsAfter(reportOf([applied]), NOW, 15 * 60_000);

    const next = holdBackCoolingDown(reportOf([controllerPendingFinding('2026-01-01T00:19:00Z')]), [started!]);

    expect(next.findings[0]?.remediation?.status).toBe('skipped');
    expect(next.findings[0]?.remediation?.reason).toMatch(/^cooling down until 2026-01-01T01:15:00Z/);
  });
});
