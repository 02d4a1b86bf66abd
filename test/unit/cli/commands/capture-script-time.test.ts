/**
 * The capture script records when it read the cluster (captured-at.txt), so the "next" command it
 * prints needs no --now: run a week later, it judges at the capture's time (issue 21).
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../../src/domain/report.ts';
import { run } from '../cli-harness.ts';
import { stubWorkspace, type StubWorkspace } from './capture-script-stubs.ts';

/** A pod Pending since long before the capture: how long depends on when it is judged. */
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'shop', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { containers: [{ name: 'web', image: 'nginx' }] },
  status: { phase: 'Pending' },
};
/** As kubectl 1.32 prints `-o json` (see capture-script-stubs.ts). */
const PODS = `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [POD], metadata: { resourceVersion: '' } }, null, 4)}\n`;
const CONTEXT = { context: 'arn:aws:eks:us-east-1:111122223333:cluster/demo', server: 'https://127.0.0.1:6443' };

let work: StubWorkspace;
beforeAll(async () => {
  work = await stubWorkspace();
});
afterAll(async () => {
  await work.remove();
});

describe('capture-script and the capture time', () => {
  it('records captured-at.txt; its "next" command, run a week later without --now, judges at it', async () => {
    // Act
    const captured = await work.capture({ argv: ['--cluster', 'demo', '--region', 'us-east-1'] }, CONTEXT, {
      kubectl: { pods: PODS },
    });
    const folderPath = captured.folder ?? '?';
    const folder = basename(folderPath);
    const capturedAt = (await readFile(join(folderPath, 'captured-at.txt'), 'utf8')).trim();
    const next = /^next: karpenter-sentinel (.*)$/m.exec(captured.stdout)?.[1] ?? '';
    const args = next.split(' ').map((word) => (word === folder ? folderPath : word));
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
      detail: `${join(folderPath, 'captured-at.txt')}: ${capturedAt}`,
      notes: [],
    });
    expect(report.findings).toEqual((JSON.parse(onTheDay.stdout) as Report).findings);
    expect(report.cluster).toBe('demo');
    // The archive shared in a ticket carries the time too.
    const listed = spawnSync('tar', ['tzf', `${folderPath}.tgz`], { encoding: 'utf8' }).stdout;
    expect(listed).toContain(`${folder}/captured-at.txt`);
  });
});
