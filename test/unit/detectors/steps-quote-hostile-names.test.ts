/**
 * Every step a detector prints quotes what came from the cluster. The cause-code scenarios and
 * the bundled examples are run again with every object name, namespace and the cluster name
 * carrying shell syntax; each command step is then run by /bin/sh with kubectl, aws, eksctl and
 * helm as functions that only record their arguments. Nothing planted may run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../src/cli/commands/demo.ts';
import type { Finding } from '../../../src/domain/finding.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { NOW, SCENARIOS } from './cause-scenarios.ts';

/** Breaks out of unquoted words, double quotes and single quotes alike, if a step lets it. */
const PLANTED = "-$(touch PWNED)`touch PWNED`';touch PWNED;'\"";
const RECORDERS = ['kubectl', 'aws', 'eksctl', 'helm'].map((c) => `${c}() { :; }`).join('\n');
const sandbox = mkdtempSync(join(tmpdir(), 'sentinel-hostile-steps-'));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

/** Subtrees whose strings are selectors or label values, which the detectors match on. */
const KEEP = new Set(['labels', 'matchLabels', 'selector', 'nodeSelector', 'annotations', 'apiVersion', 'kind']);

/** The snapshot with every name, namespace and the cluster name made hostile, consistently everywhere. */
function hostile(snapshot: ClusterSnapshot, planted = PLANTED): ClusterSnapshot {
  const names = new Set<string>([snapshot.clusterName]);
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') {
      const meta = (value as { metadata?: { name?: unknown; namespace?: unknown } }).metadata;
      for (const n of [meta?.name, meta?.namespace]) if (typeof n === 'string') names.add(n);
      const plainName = (value as { name?: unknown }).name;
      if (typeof plainName === 'string' && /^[a-z0-9][a-z0-9.-]*$/.test(plainName)) names.add(plainName);
    }
  };
  for (const part of Object.values(snapshot)) if (Array.isArray(part)) part.forEach(collect);
  const rename = (value: unknown, key = ''): unknown => {
    if (KEEP.has(key)) return value;
    if (typeof value === 'string') return names.has(value) ? `${value}${planted}` : value;
    if (value instanceof Set || value instanceof Map || value instanceof Date) return value;
    if (Array.isArray(value)) return value.map((v) => rename(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v, k)]));
    return value;
  };
  return rename(snapshot) as ClusterSnapshot;
}

/** Command steps (a `# why` line and a command, or a bare command): what people paste. */
function commandSteps(findings: readonly Finding[]): string[] {
  return findings.flatMap((f) => f.remediation?.steps ?? []).filter((s) => /^(# |kubectl |aws |eksctl |helm )/.test(s));
}

function pasteAll(steps: readonly string[]): void {
  rmSync(join(sandbox, 'PWNED'), { force: true });
  for (const step of steps) {
    spawnSync('/bin/sh', ['-c', `${RECORDERS}\n${step}\n`], { cwd: sandbox, stdio: 'ignore', timeout: 5000 });
    expect(existsSync(join(sandbox, 'PWNED')), step).toBe(false);
  }
}

const analyzed = (snapshot: ClusterSnapshot, now: Date, planted = PLANTED) =>
  analyze(hostile(snapshot, planted), { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now }).findings;

/** A line break, then a command: printed raw, a prose step would show the command on a line of its own. */
const LINE_BREAK = '\nkubectl delete nodepools --all $(touch PWNED) `touch PWNED`';

/** Lines of prose steps (no `# why` line, no command) that start with the planted command. */
function forgedLines(findings: readonly Finding[]): string[] {
  return findings
    .flatMap((f) => (f.remediation?.steps ?? []).map((s) => `${f.code}: ${s}`))
    .filter((s) => !/^[A-Z_]+: (# |kubectl |aws |eksctl |helm )/.test(s))
    .filter((s) => s.split('\n').some((line) => line.startsWith('kubectl delete nodepools --all')));
}

describe('steps with hostile names, pasted', () => {
  it('run nothing planted, in any cause-code scenario', () => {
    const steps = SCENARIOS.flatMap((s) => commandSteps(analyzed(s.snapshot, NOW)));
    // The planted text did reach many commands, quoted.
    expect(steps.filter((s) => s.includes('PWNED')).length).toBeGreaterThan(30);
    pasteAll(steps);
  });

  it('run nothing planted, in any bundled example', async () => {
    const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));
    const steps: string[] = [];
    for (const dir of readdirSync(examples, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const { snapshot } = await loadSnapshot([`${examples}${dir.name}`]);
      steps.push(...commandSteps(analyzed(snapshot, new Date(EXAMPLES_NOW))));
    }
    expect(steps.filter((s) => s.includes('PWNED')).length).toBeGreaterThan(10);
    pasteAll(steps);
  });

  it('keep a planted line break in prose on the line it was in, in any cause-code scenario and bundled example', async () => {
    const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));
    const findings = SCENARIOS.flatMap((s) => analyzed(s.snapshot, NOW, LINE_BREAK));
    for (const dir of readdirSync(examples, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const { snapshot } = await loadSnapshot([`${examples}${dir.name}`]);
      findings.push(...analyzed(snapshot, new Date(EXAMPLES_NOW), LINE_BREAK));
    }
    // The planted text did reach prose steps, on their own line.
    const prose = findings.flatMap((f) => f.remediation?.steps ?? []).filter((s) => !/^(# |kubectl |aws |eksctl |helm )/.test(s));
    expect(prose.filter((s) => s.includes('kubectl delete nodepools --all')).length).toBeGreaterThan(4);
    expect(forgedLines(findings)).toEqual([]);
  });
});
