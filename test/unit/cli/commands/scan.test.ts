import { describe, expect, it } from 'vitest';
import type { Detector } from '../../../../src/detectors/detector.ts';
import { newFinding, proposedAction } from '../../../../src/domain/finding.ts';
import type { Report } from '../../../../src/domain/report.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { instance, karpenterSnapshotOf, snapshotOf } from '../../../factories/aws.ts';
import { karpenterPod, minutesAfter, T0 } from '../../../factories/kube.ts';
import { ANSI, fakeLoader, fixedSeverityDetector, pendingControllerDetector, run } from '../cli-harness.ts';

/** A controller pod Pending since T0; the scan runs 7 minutes later. */
const NOW = minutesAfter(T0, 7);
const pendingController = snapshotOf({ pods: [karpenterPod({ name: 'karpenter-5697769d6c-x7k2p' })] });

function scanServices(
  snapshot = pendingController,
  detectors: readonly Detector[] = [pendingControllerDetector],
  notices: string[] = [],
) {
  const loader = fakeLoader(snapshot, notices);
  return { loader, services: { loadSnapshot: loader.loadSnapshot, detectors } };
}

describe('scan --from: input', () => {
  it('collects paths from repeated --from flags and the paths that follow one, and passes --cluster on', async () => {
    const { loader, services } = scanServices();

    const result = await run(['scan', '--from', 'a', 'b', '--cluster', 'prod', '--from=c', '--now', NOW, '--output', 'json'], {
      services,
    });

    expect(loader.calls).toEqual([{ paths: ['a', 'b', 'c'], options: { clusterName: 'prod' } }]);
    expect((JSON.parse(result.stdout) as Report).cluster).toBe('prod');
  });

  it('does not invent a cluster name when --cluster is absent', async () => {
    const { loader, services } = scanServices();

    await run(['scan', '--from', 'a', '--now', NOW], { services });

    expect(loader.calls[0]?.options).toEqual({});
  });

  it('passes --max-file-size to the loader in bytes', async () => {
    const { loader, services } = scanServices();

    await run(['scan', '--from', 'a', '--now', NOW, '--max-file-size', '2GiB'], { services });

    expect(loader.calls[0]?.options).toEqual({ maxFileBytes: 2 * 1024 ** 3 });
  });

  it('takes a path starting with a dash after --', async () => {
    const { loader, services } = scanServices();

    await run(['scan', '--now', NOW, '--from', 'a', '--', '-odd-dir'], { services });

    expect(loader.calls[0]?.paths).toEqual(['a', '-odd-dir']);
  });

  it("prints the loader's notices on stderr, keeping stdout for the report", async () => {
    const { services } = scanServices(
      pendingController,
      [pendingControllerDetector],
      ['cap/secrets.json: Secret skipped (never read)'],
    );

    const result = await run(['scan', '--from', 'cap', '--now', NOW, '--output', 'json'], { services });

    expect(result.stderr).toBe('note: cap/secrets.json: Secret skipped (never read)\n');
    expect(() => JSON.parse(result.stdout)).not.toThrow();
  });

  it('shows a notice naming a planted file as text: no escape sequence, no override, no forged line', async () => {
    const planted = 'cap/\u001b]0;owned\u0007\u202Egnp.json\nnote: all checks passed: skipped';
    const { services } = scanServices(pendingController, [pendingControllerDetector], [planted]);

    const result = await run(['scan', '--from', 'cap', '--now', NOW, '--output', 'json'], { services });

    expect(result.stderr).toBe('note: cap/\\x1b]0;owned\\x07\\u202egnp.json note: all checks passed: skipped\n');
  });
});

describe('scan --from: exit code and --fail-on', () => {
  const withSeverity = (severity: 'critical' | 'warning' | 'info') =>
    scanServices(snapshotOf({ nodeClasses: [ec2NodeClass({ name: 'default' })] }), [fixedSeverityDetector(severity)]).services;

  it.each([
    ['critical', undefined, 1],
    ['critical', 'critical', 1],
    ['critical', 'never', 0],
    ['warning', undefined, 1],
    ['warning', 'critical', 0],
    ['warning', 'warning', 1],
    ['warning', 'info', 1],
    ['info', undefined, 0],
    ['info', 'warning', 0],
    ['info', 'info', 1],
  ] as const)('a %s finding with --fail-on %s exits %i', async (severity, failOn, expected) => {
    const argv = ['scan', '--from', 'cap', '--now', NOW, ...(failOn ? ['--fail-on', failOn] : [])];

    const result = await run(argv, { services: withSeverity(severity) });

    expect(result.code).toBe(expected);
    expect(result.stderr).toBe('');
  });

  it('exits 0 when nothing is found', async () => {
    const { services } = scanServices(snapshotOf({ pods: [] }));

    const result = await run(['scan', '--from', 'cap', '--now', NOW, '--fail-on', 'info'], { services });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No findings.');
  });
});

describe('scan --from: thresholds reach the detectors', () => {
  it.each([
    [[], 1],
    [['--controller-pending', '7m'], 1],
    [['--controller-pending', '421'], 0],
    [['--controller-pending', '10m'], 0],
    [['--controller-pending', '1h30m'], 0],
  ])('a controller pod Pending 7m with %j exits %i', async (flags, expected) => {
    const { services } = scanServices();

    const result = await run(['scan', '--from', 'cap', '--now', NOW, ...flags], { services });

    expect(result.code).toBe(expected);
    expect(result.stdout.includes('KARPENTER_CONTROLLER_PENDING')).toBe(expected === 1);
  });

  it('passes every threshold flag in milliseconds', async () => {
    const seen: unknown[] = [];
    const probe: Detector = {
      code: 'PODS_PENDING_PROLONGED',
      requires: ['pods'],
      refinedBy: [],
      detect: (ctx) => (seen.push(ctx.settings), []),
    };

    await run(
      [
        'scan',
        '--from',
        'cap',
        '--now',
        NOW,
        '--controller-pending',
        '90s',
        '--workload-pending',
        '2m',
        '--registration',
        '1h',
        '--orphan-grace',
        '300',
        '--termination-stuck',
        '20m',
        '--disruption-blocked',
        '3h',
        '--churn-per-hour',
        '25',
        '--initialization',
        '7m',
      ],
      { services: { loadSnapshot: fakeLoader(pendingController).loadSnapshot, detectors: [probe] } },
    );

    // The whole settings object: a threshold added to the catalogue keeps its default here
    // (each flag of the catalogue: test/unit/domain/finding-catalogue.test.ts).
    expect(seen).toEqual([
      {
        ...DEFAULT_DETECTION,
        controllerPendingMs: 90_000,
        workloadPendingMs: 120_000,
        registrationMs: 3_600_000,
        orphanGraceMs: 300_000,
        terminationStuckMs: 1_200_000,
        disruptionBlockedMs: 10_800_000,
        churnPerHour: 25,
        initializationMs: 420_000,
      },
    ]);
  });

  it('caps planned terminations with --max-terminations', async () => {
    const orphans: Detector<'ORPHANED_INSTANCE'> = {
      code: 'ORPHANED_INSTANCE',
      requires: ['instances'],
      refinedBy: [],
      detect: (ctx) =>
        ctx.snapshot.instances.map((i) =>
          newFinding({
            code: 'ORPHANED_INSTANCE',
            severity: 'warning',
            title: `instance ${i.id} has no NodeClaim`,
            resource: { kind: 'Instance', id: i.id },
            since: i.launchTime ?? null,
            cause: { code: 'NO_NODECLAIM', detail: 'no NodeClaim has this providerID' },
            evidence: [],
            remediation: proposedAction('TERMINATE_INSTANCE', [`aws ec2 terminate-instances --instance-ids ${i.id}`]),
          }),
        ),
    };
    const snapshot = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaa' }), instance({ id: 'i-0bbb' })] });
    const { services } = scanServices(snapshot, [orphans]);

    const result = await run(['scan', '--from', 'cap', '--now', NOW, '--max-terminations', '1', '--output', 'json'], {
      services,
    });

    const statuses = (JSON.parse(result.stdout) as Report).findings.map((f) => [
      f.resource.id,
      f.remediation?.status,
      f.remediation?.reason,
    ]);
    expect(statuses).toEqual([
      ['i-0aaa', 'planned', ''],
      ['i-0bbb', 'skipped', 'per-run cap of 1 terminations reached'],
    ]);
  });
});

describe('scan --from: output formats', () => {
  const argv = ['scan', '--from', 'cap', '--now', NOW];

  it('prints exactly the Report object as JSON, generatedAt being --now', async () => {
    const { services } = scanServices();

    const result = await run(['scan', '--from', 'cap', '--output', 'json', '--now', '2026-01-01T00:07:00Z'], { services });

    const report = JSON.parse(result.stdout) as Report;
    expect(Object.keys(report)).toEqual([
      'schemaVersion',
      'cluster',
      'generatedAt',
      'complete',
      'gaps',
      'notCaptured',
      'findings',
      'summary',
      'timeSource',
    ]);
    expect(report).toMatchObject({
      schemaVersion: 1,
      cluster: 'demo',
      generatedAt: '2026-01-01T00:07:00Z',
      timeSource: { source: 'now-option', detail: '--now 2026-01-01T00:07:00Z', notes: [] },
      complete: true,
      gaps: [],
    });
    expect(report.summary).toEqual({ critical: 1, warning: 0, info: 0 });
    expect(Object.keys(report.findings[0] ?? {})).toEqual(
      expect.arrayContaining(['id', 'code', 'severity', 'title', 'resource', 'since', 'cause', 'evidence', 'remediation']),
    );
    expect(report.findings[0]?.remediation).toEqual({
      action: 'ROLLOUT_RESTART',
      status: 'planned',
      reason: '',
      steps: ['kubectl rollout restart deployment -n karpenter karpenter'],
    });
    expect(result.stdout).toBe(`${JSON.stringify(report, null, 2)}\n`);
  });

  it('prints a plain table off a terminal: cause, steps and summary, no escape codes', async () => {
    const { services } = scanServices();

    const result = await run(argv, { services });

    expect(result.stdout).not.toMatch(ANSI);
    expect(result.stdout).toContain('cluster demo at 2026-01-01T00:07:00Z · data complete');
    expect(result.stdout).toContain('CRITICAL KARPENTER_CONTROLLER_PENDING Deployment karpenter/karpenter');
    expect(result.stdout).toContain(
      '  cause: FARGATE_SCHEDULER_RACE — pods use default-scheduler though profile karpenter is ACTIVE',
    );
    expect(result.stdout).toContain('  remediation: ROLLOUT_RESTART planned');
    expect(result.stdout).toContain('    1. kubectl rollout restart deployment -n karpenter karpenter\n');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      '1 critical, 0 warning, 0 info · exit 1: a finding is at or above --fail-on warning',
    );
  });

  it.each([
    [['--fail-on', 'critical'], 1, 'exit 1: a finding is at or above --fail-on critical'],
    [['--fail-on', 'never'], 0, 'exit 0 (--fail-on never)'],
  ])('ends the table with the exit code it returns (%j)', async (flags, code, words) => {
    const { services } = scanServices();

    const result = await run([...argv, ...flags], { services });

    expect(result.code).toBe(code);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(`1 critical, 0 warning, 0 info · ${words}`);
  });

  it('warns on stderr when JSON is printed from incomplete data, stdout staying pure JSON', async () => {
    const needsNodeClaims: Detector = {
      code: 'ORPHANED_INSTANCE',
      requires: ['instances', 'nodeclaims'],
      refinedBy: [],
      detect: () => [],
    };
    const { services } = scanServices(snapshotOf({ instances: [instance({ id: 'i-0aaa' })] }), [needsNodeClaims]);

    const result = await run([...argv, '--output', 'json'], { services });

    expect((JSON.parse(result.stdout) as Report).complete).toBe(false);
    expect(result.stderr).toBe(
      'warning: data incomplete, findings may be missing: nodeclaims: not captured; ORPHANED_INSTANCE needs it\n',
    );
  });

  it('wraps that warning to a narrow terminal under a hanging indent; the JSON itself is never wrapped', async () => {
    const needsNodeClaims: Detector = {
      code: 'ORPHANED_INSTANCE',
      requires: ['instances', 'nodeclaims'],
      refinedBy: [],
      detect: () => [],
    };
    const { services } = scanServices(snapshotOf({ instances: [instance({ id: 'i-0aaa' })] }), [needsNodeClaims]);

    const result = await run([...argv, '--output', 'json'], { services, terminal: { columns: 60 } });

    expect(result.stderr).toBe(
      ['warning: data incomplete, findings may be missing:', '  nodeclaims: not captured; ORPHANED_INSTANCE needs it', ''].join(
        '\n',
      ),
    );
    expect(result.stdout).toBe(`${JSON.stringify(JSON.parse(result.stdout), null, 2)}\n`);
  });

  it('colours the table on a terminal', async () => {
    const { services } = scanServices();

    const result = await run(argv, { services, isTTY: true });

    expect(result.stdout).toMatch(ANSI);
    expect(result.stdout).toContain('\u001b[31mCRITICAL\u001b[39m');
  });

  it.each([
    ['NO_COLOR on a terminal', { isTTY: true, terminal: { noColor: true } }, false],
    ['NO_COLOR beats FORCE_COLOR', { isTTY: true, terminal: { noColor: true, forceColor: true } }, false],
    ['FORCE_COLOR off a terminal', { isTTY: false, terminal: { forceColor: true } }, true],
  ])('%s', async (_case, options, coloured) => {
    const { services } = scanServices();

    const result = await run(argv, { services, ...options });

    expect(ANSI.test(result.stdout)).toBe(coloured);
  });

  it.each([['json'], ['markdown']])('never colours %s, even on a terminal', async (format) => {
    const { services } = scanServices();

    const result = await run([...argv, '--output', format], { services, isTTY: true, terminal: { forceColor: true } });

    expect(result.stdout).not.toMatch(ANSI);
  });

  it('prints Markdown with the summary table and fenced steps', async () => {
    const { services } = scanServices();

    const result = await run([...argv, '-o', 'markdown'], { services });

    expect(result.stdout).toMatch(/^# karpenter-sentinel report: cluster `demo`/);
    expect(result.stdout).toContain('| Severity | Code | Resource | Cause | Remediation |');
    expect(result.stdout).toContain(
      '| critical | `KARPENTER_CONTROLLER_PENDING` | Deployment karpenter/karpenter | `FARGATE_SCHEDULER_RACE` | ROLLOUT_RESTART planned (dry run: nothing was changed) |',
    );
    expect(result.stdout).toContain('   ```sh\n   kubectl rollout restart deployment -n karpenter karpenter\n   ```');
  });
});

describe('scan: usage errors are one line and exit 2', () => {
  it.each([
    [['scan', '--from', 'cap', '--bogus'], "unknown option --bogus for 'scan' (see karpenter-sentinel help scan)"],
    [['scan', '--from'], '--from needs a value'],
    [['scan', '--from', 'cap', '-o'], '--output needs a value'],
    [['scan', '--from', 'cap', '-x'], "unknown option -x for 'scan'"],
    [['scan', '--from', '--now', NOW], "--from needs a value (for a value starting with '-', write --from=VALUE)"],
    [['scan', '--from', 'cap', '--apply'], 'offline captures cannot be changed; --apply needs --cluster or --simulate'],
    [['scan', '--from', 'cap', '--apply=yes'], '--apply takes no value'],
    [['scan', '--from', 'cap', '--simulate', 'cap'], '--from and --simulate cannot be combined'],
    [['scan', '--from', 'cap', '--region', 'eu-west-1'], '--region applies to a live scan only (not with --from)'],
    [['scan', 'cap'], "unexpected argument 'cap' for 'scan'; paths go after --from"],
    [['scan', '--cluster', 'prod', 'cap'], "unexpected argument 'cap' for 'scan'; paths go after --from"],
    [['scan', '--from', 'cap', '--cluster', ''], '--cluster needs a name'],
    [['scan', '--from', ''], '--from got an empty path'],
    [['scan', '--from', 'cap', '--from='], '--from got an empty path'],
    [['scan', '--from', 'cap', '--output', 'yaml'], "--output must be one of table, json, markdown (got 'yaml')"],
    [['scan', '--from', 'cap', '--output', 'json', '-o', 'table'], '--output given more than once'],
    [['scan', '--from', 'cap', '--fail-on', 'error'], "--fail-on must be one of critical, warning, info, never (got 'error')"],
    [
      ['scan', '--from', 'cap', '--workload-pending', 'soon'],
      "--workload-pending must be a duration such as 90s, 5m or 1h30m (got 'soon')",
    ],
    [['scan', '--from', 'cap', '--orphan-grace', '-5m'], '--orphan-grace needs a value'],
    [['scan', '--from', 'cap', '--orphan-grace=-5m'], "--orphan-grace must be a duration such as 90s, 5m or 1h30m (got '-5m')"],
    [
      ['scan', '--from', 'cap', '--orphan-grace', '5m5m'],
      "--orphan-grace must be a duration such as 90s, 5m or 1h30m (got '5m5m')",
    ],
    [['scan', '--from', 'cap', '--orphan-grace', '5x'], "--orphan-grace must be a duration such as 90s, 5m or 1h30m (got '5x')"],
    [['scan', '--from', 'cap', '--orphan-grace', ''], "--orphan-grace must be a duration such as 90s, 5m or 1h30m (got '')"],
    [
      ['scan', '--from', 'cap', '--orphan-grace', '0'],
      "--orphan-grace must be at least 5m: a younger instance may be one Karpenter is still launching (got '0')",
    ],
    [
      ['scan', '--from', 'cap', '--orphan-grace', '2m'],
      "--orphan-grace must be at least 5m: a younger instance may be one Karpenter is still launching (got '2m')",
    ],
    [['scan', '--from', 'cap', '--orphan-grace', '299'], '--orphan-grace must be at least 5m'],
    [['scan', '--from', 'cap', '--max-terminations', 'all'], "--max-terminations must be a whole number, 0 or more (got 'all')"],
    [
      ['scan', '--from', 'cap', '--waste-per-day', '$50'],
      "--waste-per-day must be an amount of USD from 0 to 1000000, such as 50 or 12.5 (got '$50')",
    ],
    [['scan', '--from', 'cap', '--waste-per-day', '1e3'], '--waste-per-day must be an amount of USD'],
    [['scan', '--from', 'cap', '--waste-per-day', '12.345'], '--waste-per-day must be an amount of USD'],
    [['scan', '--from', 'cap', '--waste-per-day', '2000000'], '--waste-per-day must be an amount of USD from 0 to 1000000'],
    [
      ['scan', '--from', 'cap', '--max-file-size', 'huge'],
      "--max-file-size must be a size such as 512MiB, 2GiB or a number of bytes (got 'huge')",
    ],
    [
      ['scan', '--from', 'cap', '--max-file-size', '0'],
      "--max-file-size must be a size such as 512MiB, 2GiB or a number of bytes (got '0')",
    ],
    [
      ['scan', '--cluster', 'prod', '--max-file-size', '2GiB'],
      '--max-file-size applies to captured files only (--from or --simulate)',
    ],
    [
      ['scan', '--from', 'cap', '--now', 'yesterday'],
      "--now must be an ISO-8601 time with a zone, e.g. 2026-01-01T00:00:00Z (got 'yesterday')",
    ],
    [['scan', '--from', 'cap', '--now', '2026-01-01T00:00:00'], '--now must be an ISO-8601 time with a zone'],
    [['scan', '--from', 'cap', '--now', '2026-02-30T00:00:00Z'], '--now must be an ISO-8601 time with a zone'],
  ])('%j', async (argv, message) => {
    const { loader, services } = scanServices();

    const result = await run(argv, { services });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(`karpenter-sentinel: ${message}`)).toBe(true);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(loader.calls).toEqual([]);
  });

  it('accepts a choice in any case, as typed in a hurry', async () => {
    const { services } = scanServices();

    const result = await run(['scan', '--from', 'cap', '--now', NOW, '--output', 'JSON', '--fail-on', 'Never'], { services });

    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Report).summary.critical).toBe(1);
  });

  it('accepts an ISO-8601 time with an offset', async () => {
    const { services } = scanServices();

    const result = await run(['scan', '--from', 'cap', '--now', '2026-01-01T01:07:00+01:00', '-o', 'json'], { services });

    expect((JSON.parse(result.stdout) as Report).generatedAt).toBe('2026-01-01T00:07:00Z');
  });
});
