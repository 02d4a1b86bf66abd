/**
 * A capture is data, and data may be hostile: the steps `scan --from` prints are pasted into a
 * terminal, so a value planted in the cluster must reach the command as one argument and run
 * nothing. Each command step of the JSON report is run by /bin/sh with `kubectl` and `aws` as
 * functions that only record their arguments.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../../src/domain/report.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { T0 } from '../../../factories/kube.ts';
import { run } from '../cli-harness.ts';

const HOSTILE = "x'; touch PWNED; echo '";
const RECORD = `record() { for a in "$@"; do printf '%s\\0' "$a"; done; printf '\\n' ; }
kubectl() { record kubectl "$@" >> calls; }
aws() { record aws "$@" >> calls; }
`;

let capture: string;
let sandbox: string;

beforeAll(async () => {
  capture = await mkdtemp(join(tmpdir(), 'sentinel-hostile-'));
  sandbox = await mkdtemp(join(tmpdir(), 'sentinel-paste-'));
  const nodeClass = ec2NodeClass({ name: 'default', amiSelectorTerms: [{ name: HOSTILE }] });
  await writeFile(join(capture, 'ec2nodeclasses.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [nodeClass] }));
});
afterAll(async () => {
  await rm(capture, { recursive: true, force: true });
  await rm(sandbox, { recursive: true, force: true });
});

/** The arguments of every kubectl / aws call the pasted step made. */
async function paste(step: string): Promise<string[][]> {
  await rm(join(sandbox, 'calls'), { force: true });
  execFileSync('/bin/sh', ['-c', `${RECORD}${step}\n`], { cwd: sandbox, stdio: 'pipe' });
  const calls = existsSync(join(sandbox, 'calls')) ? await readFile(join(sandbox, 'calls'), 'utf8') : '';
  return calls
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\0').slice(0, -1));
}

describe('scan --from a capture holding a shell-breaking AMI selector name', () => {
  it('prints steps that, pasted, run nothing planted and pass the name intact', async () => {
    const result = await run(['scan', '--from', capture, '--cluster', 'demo', '--now', T0, '--output', 'json']);
    const report = JSON.parse(result.stdout) as Report;
    const finding = report.findings.find((f) => f.code === 'AMI_SELECTOR_UNSCOPED');
    const commands = (finding?.remediation?.steps ?? []).filter((s) => /^(# |kubectl |aws )/.test(s));
    expect(commands.length).toBeGreaterThan(1);

    const calls = (await Promise.all(commands.map(paste))).flat();
    expect(existsSync(join(sandbox, 'PWNED'))).toBe(false);

    const patch = calls.find((c) => c[0] === 'kubectl' && c[1] === 'patch');
    expect(patch?.slice(0, 5)).toEqual(['kubectl', 'patch', 'ec2nodeclass', 'default', '--type=merge']);
    const body = JSON.parse(patch?.[patch.indexOf('-p') + 1] ?? 'null') as { spec: { amiSelectorTerms: { name: string }[] } };
    expect(body.spec.amiSelectorTerms[0]?.name).toBe(HOSTILE);

    const describe = calls.find((c) => c[0] === 'aws' && c[2] === 'describe-images');
    expect(describe).toContain(`Name=name,Values=${HOSTILE}`);
  });
});
