/**
 * `scan --from` through the real capture loader, on files written to a temp folder. The
 * detectors are the stand-ins from the harness, so these tests pin the command line, not the
 * diagnosis (the detectors have their own tests).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../../src/cli/commands/demo.ts';
import type { Report } from '../../../../src/domain/report.ts';
import { karpenterPod, minutesAfter, T0 } from '../../../factories/kube.ts';
import { pendingControllerDetector, run } from '../cli-harness.ts';

let capture: string;
const services = { detectors: [pendingControllerDetector] };
const NOW = minutesAfter(T0, 8);

beforeAll(async () => {
  capture = await mkdtemp(join(tmpdir(), 'sentinel-scan-'));
  const pods = { apiVersion: 'v1', kind: 'List', items: [karpenterPod({ name: 'karpenter-5697769d6c-x7k2p' })] };
  const profile = {
    fargateProfile: {
      fargateProfileName: 'karpenter',
      clusterName: 'demo',
      status: 'ACTIVE',
      selectors: [{ namespace: 'karpenter' }],
      podExecutionRoleArn: 'arn:aws:iam::069057294951:role/demo-fargate',
    },
  };
  await writeFile(join(capture, 'pods.json'), JSON.stringify(pods, null, 2));
  await writeFile(join(capture, 'fargate-karpenter.json'), JSON.stringify(profile, null, 2));
});
afterAll(async () => {
  await rm(capture, { recursive: true, force: true });
});

describe('scan --from with the real loader', () => {
  it('reads the folder and reports the pending controller, exit 1', async () => {
    const result = await run(['scan', '--from', capture, '--cluster', 'demo', '--now', NOW, '--output', 'json'], { services });

    const report = JSON.parse(result.stdout) as Report;
    expect(result.code).toBe(1);
    expect(report).toMatchObject({
      cluster: 'demo',
      generatedAt: '2026-01-01T00:08:00Z',
      summary: { critical: 1, warning: 0, info: 0 },
    });
    expect(report.findings[0]?.evidence).toEqual(['pod karpenter/karpenter-5697769d6c-x7k2p Pending']);
  });

  it('takes files one by one, after one --from', async () => {
    const result = await run(
      ['scan', '--from', join(capture, 'pods.json'), join(capture, 'fargate-karpenter.json'), '--now', NOW],
      {
        services,
      },
    );

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('CRITICAL KARPENTER_CONTROLLER_PENDING Deployment karpenter/karpenter');
  });

  it('finds nothing once --controller-pending is above the pod age, exit 0', async () => {
    const result = await run(['scan', '--from', capture, '--now', NOW, '--controller-pending', '9m'], { services });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No findings.');
  });

  it('names a missing path in one line, exit 2', async () => {
    const missing = join(capture, 'no-such-dir');

    const result = await run(['scan', '--from', capture, missing, '--now', NOW], { services });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`karpenter-sentinel: ${missing}: no such file or directory\n`);
  });
});

describe('scan --from: a gzip bomb among good files', () => {
  let bombed: string;
  const bomb = () => join(bombed, 'nodeclaims.json.gz');

  beforeAll(async () => {
    bombed = await mkdtemp(join(tmpdir(), 'sentinel-bomb-'));
    await writeFile(join(bombed, 'pods.json'), JSON.stringify(kubeList([karpenterPod({ name: 'karpenter-5697769d6c-x7k2p' })])));
    // An empty NodeClaim list padded with 8 MiB of whitespace: a 10 kB file.
    const padded = Buffer.concat([
      Buffer.from('{"apiVersion":"v1","kind":"List","items":[\n'),
      Buffer.alloc(8 * 1024 * 1024, 0x20),
      Buffer.from(']}\n'),
    ]);
    await writeFile(bomb(), gzipSync(padded, { level: 9 }));
  });
  afterAll(async () => {
    await rm(bombed, { recursive: true, force: true });
  });

  it('is left out in one line naming the file and the limit, a gap; the good files are still scanned', async () => {
    const result = await run(['scan', '--from', bombed, '--now', NOW, '--max-file-size', '4MiB', '--output', 'json'], {
      services,
    });

    const report = JSON.parse(result.stdout) as Report;
    expect(result.code).toBe(1);
    expect(report.findings.map((f) => f.code)).toEqual(['KARPENTER_CONTROLLER_PENDING']);
    expect(report.complete).toBe(false);
    expect(report.gaps).toEqual([
      { source: 'nodeclaims', error: `${bomb()}: unpacks to more than 4 MiB (the limit; raise it with --max-file-size)` },
    ]);
    expect(result.stderr).toContain(
      `note: ${bomb()}: unpacks to more than 4 MiB (the limit; raise it with --max-file-size); left out (nodeclaims is a gap)`,
    );
  });

  it('is read, and the good files with it, once --max-file-size is above what it unpacks to', async () => {
    const result = await run(['scan', '--from', bombed, '--now', NOW, '--max-file-size', '9MiB', '--output', 'json'], {
      services,
    });

    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as Report).findings.map((f) => f.code)).toEqual(['KARPENTER_CONTROLLER_PENDING']);
  });
});

function kubeList(items: object[]) {
  return { apiVersion: 'v1', kind: 'List', items };
}

describe('scan --from a capture holding an instance with forged Karpenter tags (issue 11)', () => {
  const ORPHANS = fileURLToPath(new URL('../../../../examples/orphans-after-destroy', import.meta.url));
  const FORGED = 'i-0f00d5ba5e0b1e7a2';

  it('reports it as not proven and plans no termination for it; the real orphans’ terminations are planned', async () => {
    const result = await run(['scan', '--from', ORPHANS, '--now', EXAMPLES_NOW, '-o', 'json']);

    const report = JSON.parse(result.stdout) as Report;
    const forged = report.findings.filter((f) => f.resource.id === FORGED);
    expect(forged.map((f) => [f.code, f.cause?.code, f.remediation?.action, f.remediation?.status])).toEqual([
      ['INSTANCE_PROVENANCE_UNPROVEN', 'NOT_LAUNCHED_FROM_TEMPLATE', 'MANUAL', 'manual'],
    ]);
    const terminations = report.findings.filter((f) => f.remediation?.action === 'TERMINATE_INSTANCE');
    expect(terminations.map((f) => [f.resource.id, f.remediation?.status])).toEqual([
      ['i-0a3f1c9e8b7d6a501', 'planned'],
      ['i-0b7e2d4f6a8c9e102', 'planned'],
    ]);
    expect(result.code).toBe(1);
  });

  it('says in the table why it was not touched', async () => {
    const result = await run(['scan', '--from', ORPHANS, '--now', EXAMPLES_NOW, '-o', 'table']);

    expect(result.stdout).toContain(`Instance ${FORGED} is tagged as a Karpenter node of platform-eks-dev without a NodeClaim`);
    expect(result.stdout).toContain('no aws:ec2launchtemplate:id tag: not launched from a launch template');
  });
});

describe('scan --from: bad files, several at once', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'sentinel-bad-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('names every file when none could be read, one line each, exit 2', async () => {
    await writeFile(join(folder, 'nodeclaims.json'), '');
    await writeFile(join(folder, 'notes.txt'), 'call Bob\n');
    await writeFile(join(folder, 'pods.json'), 'Unable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout\n');

    const result = await run(['scan', '--from', folder, '--now', NOW], { services });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('karpenter-sentinel: none of the 3 capture files could be read; fix or capture them again:');
    expect(lines.slice(1).map((l) => l.slice(0, l.indexOf(': ')))).toEqual(
      ['nodeclaims.json', 'notes.txt', 'pods.json'].map((n) => `  ${join(folder, n)}`),
    );
  });
});
