import { describe, expect, it } from 'vitest';
import type { Detector } from '../../../src/detectors/detector.ts';
import { manualRemediation, newFinding } from '../../../src/domain/finding.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { detectorVerdict } from '../../../src/detectors/detector.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { instance, karpenterSnapshotOf, snapshotOf } from '../../factories/aws.ts';
import { pod } from '../../factories/kube.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

/** A detector that reports one finding per captured pod, so we can see whether it ran. */
const podCounter: Detector<'PODS_PENDING_PROLONGED'> = {
  code: 'PODS_PENDING_PROLONGED',
  requires: ['pods', 'events'],
  refinedBy: [],
  detect: (ctx) =>
    ctx.snapshot.pods.map((p) =>
      newFinding({
        code: 'PODS_PENDING_PROLONGED',
        severity: 'warning',
        title: `pod ${p.metadata?.name}`,
        resource: { kind: 'Pod', namespace: p.metadata?.namespace, name: p.metadata?.name },
        since: null,
        cause: { code: 'UNKNOWN', detail: 'test' },
        evidence: [],
        remediation: manualRemediation([]),
      }),
    ),
};

const run = (s: ReturnType<typeof snapshotOf>, detectors: Detector[] = [podCounter]) =>
  analyze(s, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW, detectors });

describe('analyze: completeness rules', () => {
  it('runs a detector whose required sources were all captured, even when empty', () => {
    const report = run(snapshotOf({ pods: [pod({ name: 'a' })], events: [] }));

    expect(report.findings).toHaveLength(1);
    expect(report.complete).toBe(true);
    expect(report.gaps).toEqual([]);
  });

  it('does not ask a detector none of whose sources was given, and stays complete', () => {
    const report = run(snapshotOf({ instances: [] }));

    expect(report.findings).toEqual([]);
    expect(report.complete).toBe(true);
  });

  it('skips a detector missing one required source and reports the gap', () => {
    const report = run(snapshotOf({ pods: [pod({ name: 'a' })] }));

    expect(report.findings).toEqual([]);
    expect(report.complete).toBe(false);
    expect(report.gaps).toEqual([{ source: 'events', error: 'not captured; PODS_PENDING_PROLONGED needs it' }]);
  });

  it('keeps the error of a source that failed live instead of "not captured"', () => {
    const snapshot = snapshotOf({ pods: [pod({ name: 'a' })] });
    snapshot.gaps.push({ source: 'events', error: '403 Forbidden' });

    const report = run(snapshot);

    expect(report.gaps).toEqual([{ source: 'events', error: '403 Forbidden' }]);
    expect(report.complete).toBe(false);
  });

  it('keeps every gap of a source: a missing last page and objects set aside are both reported', () => {
    const snapshot = snapshotOf({ pods: [pod({ name: 'a' })], events: [] });
    const gaps = [
      { source: 'pods' as const, error: 'only part was captured: the output ends with metadata.continue' },
      { source: 'pods' as const, error: '1 object set aside as malformed (see notes)' },
    ];
    snapshot.gaps.push(...gaps);

    const report = run(snapshot);

    expect(report.gaps).toEqual(gaps);
    expect(report.findings).toHaveLength(1);
  });

  it('anyOf: runs when one alternative source is present, not asked when none is', () => {
    const anyOf: Detector = { ...podCounter, requires: [], anyOf: ['pods', 'logs'] };

    expect(detectorVerdict(anyOf, new Set(['logs']))).toEqual({ run: true });
    expect(detectorVerdict(anyOf, new Set(['instances']))).toEqual({ run: false, missing: [] });
  });

  it('summarises findings by severity and stamps the report with the given time', () => {
    const report = run(snapshotOf({ pods: [pod({ name: 'a' }), pod({ name: 'b' })], events: [] }));

    expect(report).toMatchObject({ schemaVersion: 1, cluster: 'demo', generatedAt: '2026-01-01T01:00:00Z' });
    expect(report.summary).toEqual({ critical: 0, warning: 2, info: 0 });
  });

  it('orphan terminations are never planned on an incomplete snapshot', () => {
    const orphanProposer: Detector<'ORPHANED_INSTANCE'> = {
      code: 'ORPHANED_INSTANCE',
      requires: ['instances'],
      refinedBy: [],
      detect: (ctx) =>
        ctx.snapshot.instances.map((i) =>
          newFinding({
            code: 'ORPHANED_INSTANCE',
            severity: 'warning',
            title: i.id,
            resource: { kind: 'Instance', id: i.id },
            since: null,
            cause: { code: 'NO_NODECLAIM', detail: '' },
            evidence: [],
            remediation: { action: 'TERMINATE_INSTANCE', status: 'planned', reason: '', steps: [] },
          }),
        ),
    };
    const snapshot = snapshotOf({ instances: [instance({ id: 'i-0aaa' })] });
    snapshot.gaps.push({ source: 'nodeclaims', error: '403 Forbidden' });

    const report = run(snapshot, [orphanProposer]);

    expect(report.findings[0]?.remediation).toMatchObject({ status: 'skipped', reason: expect.stringContaining('incomplete') });

    // A gap in the instance types only (they prove nothing about an instance) leaves the report
    // incomplete but the termination planned.
    const advisory = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaa' })] });
    advisory.gaps.push({ source: 'instancetypes', error: 'DescribeInstanceTypes: AccessDenied' });
    const planned = run(advisory, [orphanProposer]);
    expect(planned.complete).toBe(false);
    expect(planned.findings[0]?.remediation).toMatchObject({ status: 'planned' });

    // Nor do Spot prices (they only price the finding).
    const unpriced = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaa' })] });
    unpriced.gaps.push({ source: 'spotprices', error: 'DescribeSpotPriceHistory failed: UnauthorizedOperation: denied' });
    expect(run(unpriced, [orphanProposer]).findings[0]?.remediation).toMatchObject({ status: 'planned' });

    // Nor do the sources only ADMISSION_WEBHOOK_BROKEN and INTERRUPTION_HANDLING_OFF read (a service
    // upgraded without re-applying the RBAC cannot list the webhook configurations).
    for (const source of ['webhookconfigurations', 'endpoints', 'interruptionqueue', 'queuerules', 'queueage'] as const) {
      const denied = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaa' })] });
      denied.gaps.push({ source, error: '403 Forbidden' });
      const result = run(denied, [orphanProposer]);
      expect([source, result.complete, result.findings[0]?.remediation?.status]).toEqual([source, false, 'planned']);
    }

    // … but not when anything else is missing too.
    advisory.gaps.push({ source: 'nodes', error: '403 Forbidden' });
    expect(run(advisory, [orphanProposer]).findings[0]?.remediation).toMatchObject({ status: 'skipped' });
  });
});

describe('analyze: a detector that throws', () => {
  const throwing: Detector<'AMI_SELECTOR_UNSCOPED'> = {
    code: 'AMI_SELECTOR_UNSCOPED',
    requires: ['ec2nodeclasses'],
    refinedBy: [],
    detect: () => {
      throw new TypeError('terms.some is not a function');
    },
  };

  it('costs only that check: a gap naming it and the error, the report incomplete, the other findings kept', () => {
    const snapshot = snapshotOf({ pods: [pod({ name: 'a' })], events: [], nodeClasses: [] });

    const report = run(snapshot, [throwing, podCounter]);

    expect(report.findings.map((f) => f.title)).toEqual(['pod a']);
    expect(report.complete).toBe(false);
    expect(report.gaps).toEqual([
      {
        source: 'ec2nodeclasses',
        error: 'AMI_SELECTOR_UNSCOPED check failed on this data: terms.some is not a function',
        detector: 'AMI_SELECTOR_UNSCOPED',
      },
    ]);
  });

  it('keeps a gap the source already had next to the failure', () => {
    const snapshot = snapshotOf({ nodeClasses: [] });
    snapshot.gaps.push({ source: 'ec2nodeclasses', error: '1 object set aside as malformed (see notes)' });

    const report = run(snapshot, [throwing]);

    expect(report.gaps.map((g) => g.error)).toEqual([
      '1 object set aside as malformed (see notes)',
      'AMI_SELECTOR_UNSCOPED check failed on this data: terms.some is not a function',
    ]);
  });
});
