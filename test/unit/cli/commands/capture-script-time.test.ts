/**
 * The capture script records when it read the cluster (captured-at.txt), so the "next" command it
 * prints needs no --now: run a week later, it judges at the capture's time (issue 21).
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../../src/domain/report.ts';
import { run } from '../cli-harness.ts';

const EMPTY_LIST = '{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}';
/** A pod Pending since long before the capture: how long depends on when it is judged. */
const PODS = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: 'shop', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
      status: { phase: 'Pending' },
    },
  ],
});
const FAKE_KUBECTL = `#!/bin/sh
case "$*" in
  "get pods -A -o json") printf '%s\\n' '${PODS}' ;;
  "get pods -A -l"*) exit 0 ;;
  logs*) echo 'Error from server (NotFound): pods "karpenter" not found' >&2; exit 1 ;;
  get*) printf '%s\\n' '${EMPTY_LIST}' ;;
  *) exit 1 ;;
esac
`;
const FAKE_AWS = `#!/bin/sh
echo 'An error occurred (AccessDenied) when calling the operation: denied' >&2
exit 254
`;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sentinel-capture-time-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('capture-script and the capture time', () => {
  it('records captured-at.txt; its "next" command, run a week later without --now, judges at it', async () => {
    // Prepare
    const bin = join(work, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'kubectl'), FAKE_KUBECTL);
    await writeFile(join(bin, 'aws'), FAKE_AWS);
    await chmod(join(bin, 'kubectl'), 0o755);
    await chmod(join(bin, 'aws'), 0o755);
    const script = await run(['capture-script', '--cluster', 'demo', '--region', 'us-east-1']);
    await writeFile(join(work, 'capture.sh'), script.stdout);

    // Act
    const captured = spawnSync('sh', ['capture.sh'], {
      cwd: work,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
    const folder = (await readdir(work)).find((n) => n.startsWith('karpenter-capture-demo-') && !n.endsWith('.tgz')) ?? '?';
    const capturedAt = (await readFile(join(work, folder, 'captured-at.txt'), 'utf8')).trim();
    const next = /^next: karpenter-sentinel (.*)$/m.exec(captured.stdout)?.[1] ?? '';
    const args = next.split(' ').map((word) => (word === folder ? join(work, folder) : word));
    const weekLater = new Date(Date.parse(capturedAt) + 7 * 86_400_000);
    const later = await run([...args, '-o', 'json'], { services: { clock: () => weekLater } });
    const onTheDay = await run([...args, '-o', 'json', '--now', capturedAt]);

    // Assess
    expect(capturedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(next).toBe(`scan --from ${folder} --cluster demo`);
    const report = JSON.parse(later.stdout) as Report;
    expect(report.generatedAt).toBe(capturedAt);
    expect(report.timeSource).toEqual({
      source: 'captured-at-file',
      detail: `${join(work, folder, 'captured-at.txt')}: ${capturedAt}`,
      notes: [],
    });
    expect(report.findings).toEqual((JSON.parse(onTheDay.stdout) as Report).findings);
    expect(report.cluster).toBe('demo');
    // The archive shared in a ticket carries the time too.
    const listed = spawnSync('tar', ['tzf', join(work, `${folder}.tgz`)], { encoding: 'utf8' }).stdout;
    expect(listed).toContain(`${folder}/captured-at.txt`);
  });
});
