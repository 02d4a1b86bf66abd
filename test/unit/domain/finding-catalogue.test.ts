/**
 * The finding catalogue is the one place a finding's thresholds and metric are declared: the
 * scan function, the CLI, serverless.yml, the dashboard, the alarms and the README's links are
 * held to it here (the generated docs tables: test/scripts/catalogue-tables.test.ts; the sections
 * of docs/findings.md: test/docs/links.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { METRICS_NAMESPACE, readScanConfig } from '../../../src/config.ts';
import { scanCommand } from '../../../src/cli/commands/scan.ts';
import { CAUSES_BY_FINDING, type FindingCode } from '../../../src/domain/codes.ts';
import type { Detector } from '../../../src/detectors/detector.ts';
import {
  COUNTED_FINDINGS,
  findingDocAnchor,
  FINDING_CATALOGUE,
  FINDING_METRIC_DIMENSIONS,
  FINDING_METRICS,
  THRESHOLDS,
} from '../../../src/domain/finding-catalogue.ts';
import { METRIC } from '../../../src/domain/metric.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION, minimumText, thresholdText } from '../../../src/domain/settings.ts';
import { scanMetrics } from '../../../src/notify/scan-metrics.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { fakeLoader, run } from '../cli/cli-harness.ts';
import { NOW, SCENARIOS } from '../detectors/cause-scenarios.ts';

const ROOT = join(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** What the stack sets on every scan function; the thresholds come on top. */
const SCAN_ENV = { AWS_REGION: 'eu-west-1', STATE_TABLE: 'state', ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts' };

/** A threshold's value as written and as read, unlike any default: 37, 37m, 37.5 USD. */
function unlikeDefault(t: (typeof THRESHOLDS)[number]): [string, number] {
  if (t.unit === 'count') return ['37', 37];
  if (t.unit === 'usd') return ['37.5', 37.5];
  return ['37m', 37 * 60_000];
}

describe('each threshold of the catalogue', () => {
  it.each(THRESHOLDS.map((t) => [t.env, t] as const))('%s sets its setting in the scan function', (_env, t) => {
    // Prepare: a value unlike any default
    const [text, value] = unlikeDefault(t);

    const detection = readScanConfig({ ...SCAN_ENV, [t.env]: text }).detection;

    expect(detection[t.setting as keyof typeof detection]).toBe(value);
    expect(readScanConfig(SCAN_ENV).detection).toEqual(DEFAULT_DETECTION);
  });

  it.each(THRESHOLDS.map((t) => [t.flag, t] as const))('--%s is in `scan --help` with its default', (flag, t) => {
    const line = scanCommand.usage.split('\n').find((l) => l.trimStart().startsWith(`--${flag} `));

    expect(line).toContain(`(default ${thresholdText(t, t.default)}`);
  });

  it.each(THRESHOLDS.map((t) => [t.flag, t] as const))('--%s sets its setting in `scan`, and only that one', async (flag, t) => {
    // Prepare: a value unlike any default, and a detector that keeps the settings it is given
    const [text, value] = unlikeDefault(t);
    const seen: unknown[] = [];
    const probe: Detector = {
      code: 'PODS_PENDING_PROLONGED',
      requires: ['pods'],
      refinedBy: [],
      detect: (ctx) => (seen.push(ctx.settings), []),
    };

    const result = await run(['scan', '--from', 'cap', '--now', NOW.toISOString(), `--${flag}`, text], {
      services: { loadSnapshot: fakeLoader(SCENARIOS[0]!.snapshot).loadSnapshot, detectors: [probe] },
    });

    expect(result.code, result.stderr).toBe(0);
    expect(seen).toEqual([{ ...DEFAULT_DETECTION, [t.setting]: value }]);
  });

  it.each(THRESHOLDS.filter((t) => minimumText(t)).map((t) => [t.flag, t] as const))(
    '--%s says its minimum in `scan --help` and in the docs tables, in the same words',
    (flag, t) => {
      const line = scanCommand.usage.split('\n').find((l) => l.trimStart().startsWith(`--${flag} `));
      const quoted = minimumText(t, (v) => `\`${v}\``) ?? '';

      expect(line).toContain(`, ${minimumText(t) ?? ''})`);
      for (const doc of ['docs/usage.md', 'docs/deploy.md', 'docs/service.md']) expect(read(doc), doc).toContain(`(${quoted})`);
    },
  );

  it('serverless.yml: a param with the default, passed to the scan function as the variable', () => {
    const service = parse(read('serverless.yml')) as {
      params: { default: Record<string, unknown> };
      functions: { scan: { environment: Record<string, unknown> } };
    };

    for (const t of THRESHOLDS) {
      expect(String(service.params.default[t.param]), t.param).toBe(thresholdText(t, t.default));
      expect(service.functions.scan.environment[t.env], t.env).toBe(`\${param:${t.param}}`);
    }
  });
});

describe('each finding metric of the catalogue', () => {
  it.each(FINDING_METRICS.map((m) => [m.name]))('%s is on the dashboard, searched per cluster', (name) => {
    const dashboard = read('infra/dashboard.yml');

    expect(dashboard).toMatch(new RegExp(`SEARCH\\('\\{${METRICS_NAMESPACE},Cluster[^}]*\\} MetricName=\\\\"${name}\\\\"'`));
  });

  it('each is sent with the dimension sets the catalogue declares (the ones docs/service.md lists)', () => {
    // Prepare: a scan finding one NodeClaim of a NodePool not registered
    const scenario = SCENARIOS.find((s) => s.produces.some((p) => p.startsWith('NODECLAIM_NOT_REGISTERED/')));
    const snapshot = scenario!.snapshot;
    const report = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW });

    const datums = scanMetrics({ cluster: 'prod', snapshot, report, durationMs: 1, now: NOW });

    const sets = datums.filter((d) => d.name === 'UnregisteredNodeClaims').map((d) => Object.keys(d.dimensions).sort());
    expect(sets.length).toBeGreaterThan(1);
    expect(sets.every((set) => FINDING_METRIC_DIMENSIONS.some((declared) => declared.join() === set.join()))).toBe(true);
  });

  it('the alarms watch only metrics the service sends', () => {
    const { Resources } = parse(read('infra/alarms.yml')) as {
      Resources: Record<string, { Properties?: Record<string, unknown> }>;
    };
    const ours = Object.values(Resources)
      .map((r) => r.Properties ?? {})
      .filter((p) => p.Namespace === METRICS_NAMESPACE)
      .map((p) => String(p.MetricName));
    const known = new Set<string>([...Object.values(METRIC), ...FINDING_METRICS.map((m) => m.name)]);

    expect(ours.length).toBeGreaterThan(0);
    expect(ours.filter((name) => !known.has(name))).toEqual([]);
  });

  it('no two codes count into one metric, and none reuses a name of METRIC', () => {
    const names = FINDING_METRICS.map((m) => m.name);

    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => (Object.values(METRIC) as string[]).includes(n))).toEqual([]);
  });
});

describe('each finding code of the catalogue', () => {
  // Its section in docs/findings.md and its README row: test/docs/links.test.ts.
  it('the README links each code it names to its section, with causes of its own row', () => {
    const links = [...read('README.md').matchAll(/\[`([A-Z_]+)`\]\(docs\/findings\.md#([a-z_]+)\)((?:[:,] `[A-Z0-9_]+`)*)/g)];
    const problems: string[] = [];
    for (const [link, code, anchor, causes] of links) {
      const row = (CAUSES_BY_FINDING as Record<string, readonly string[] | undefined>)[code ?? ''];
      if (!row || anchor !== findingDocAnchor(code as FindingCode)) problems.push(link);
      for (const [, cause] of (causes ?? '').matchAll(/`([A-Z0-9_]+)`/g)) if (!row?.includes(cause ?? '')) problems.push(link);
    }

    expect(links.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('the scenarios of every cause give only severities of the row', () => {
    const outside: string[] = [];
    const seen = new Set<string>();
    for (const { snapshot } of SCENARIOS) {
      for (const f of analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW }).findings) {
        seen.add(f.code);
        if (!(FINDING_CATALOGUE[f.code].severities as readonly string[]).includes(f.severity))
          outside.push(`${f.code}/${f.severity}`);
      }
    }

    expect(seen.size).toBe(Object.keys(FINDING_CATALOGUE).length);
    expect(outside).toEqual([]);
  });

  it('the codes whose findings carry `counts` are the rows saying what they count (docs/report-json.md), and each metric counts them', () => {
    const counted = new Set<string>();
    for (const { snapshot } of SCENARIOS) {
      for (const f of analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW }).findings) {
        if (f.counts) counted.add(f.code);
      }
    }

    expect([...counted].sort()).toEqual(COUNTED_FINDINGS.map((c) => c.code).sort());
    expect(FINDING_METRICS.filter((m) => !m.counts)).toEqual([]);
  });

  it.each(Object.entries(FINDING_CATALOGUE))('docs/findings.md gives %s the severities of its row', (code, row) => {
    const findings = read('docs/findings.md');
    const line = findings.slice(findings.indexOf(`\n## \`${code}\`\n`)).match(/\nSeverity: ([^\n]*)/)?.[1] ?? '';

    for (const severity of ['critical', 'warning'] as const) {
      expect(line.includes(severity), `${code}: "${line}" and ${severity}`).toBe(
        (row.severities as readonly string[]).includes(severity),
      );
    }
  });
});
