/**
 * The acceptance: the capture recipe (`capture-script`), run with the real kubectl v1.32
 * against a cluster whose Karpenter CRDs convert through a webhook Service that is gone, gives a
 * report that names the broken conversion webhook. The cluster is the simulator seeded from
 * examples/crd-conversion-webhook-broken, its objects stored at v1beta1 (so every read of them
 * needs the webhook); the AWS CLI is a fake printing that example's describe-cluster.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/domain/report.ts';
import { brokenConversionFaults } from '../../src/simulator/conversion-webhook.ts';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { run } from '../unit/cli/cli-harness.ts';
import { captureWorkspace, type CaptureWorkspace } from './support/capture-workspace.ts';

const EXAMPLE = new URL('../../examples/crd-conversion-webhook-broken/', import.meta.url).pathname;
const CLUSTER = 'aws-2026-eks';

const NODECLAIMS_FAILED =
  'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.kube-system.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found';

let sim: Simulation;
let work: CaptureWorkspace;

beforeAll(async () => {
  sim = await startSimulation([EXAMPLE]);
  for (const fault of brokenConversionFaults(sim.kubeApi.store)) sim.kubeApi.faults.add(fault);
  work = await captureWorkspace(sim, EXAMPLE, 'vpc-0a7c3e91d5b2f4816');
});

afterAll(async () => {
  await sim.close();
  await work.remove();
});

describe('the capture recipe with the real kubectl, on a cluster whose conversion webhook Service is gone', () => {
  it('saves kubectl’s errors; scan --from the folder names CRD_CONVERSION_WEBHOOK_BROKEN, cause SERVICE_MISSING', async () => {
    // Prepare
    const printed = await run(['capture-script', '--cluster', CLUSTER, '--region', 'us-east-1']);
    await writeFile(join(work.dir, 'capture.sh'), printed.stdout);

    // Act
    const captured = await work.sh('capture.sh');
    const { name: folder, path: dir } = await work.captureFolder(CLUSTER);
    const nodeclaimsFile = await readFile(join(dir, 'nodeclaims.json'), 'utf8');
    const scan = await run(['scan', '--from', dir, '--output', 'json', '--now', '2026-01-01T01:00:00Z']);

    // Assess
    expect(captured.code).toBe(0);
    expect(captured.stdout).toContain(`next: karpenter-sentinel scan --from ${folder}`);
    expect(await readdir(work.dir)).toContain(`${folder}.tgz`);
    // kubectl -o json prints an empty List, then its words for kube-apiserver's 500 without a reason
    expect(JSON.parse(nodeclaimsFile.slice(0, nodeclaimsFile.indexOf('\nError')))).toMatchObject({ kind: 'List', items: [] });
    expect(nodeclaimsFile).toContain(`\nError from server: ${NODECLAIMS_FAILED}\n`);
    expect(captured.stderr).toContain('nodeclaims.json (the command failed; its error is in the file)');
    const report = JSON.parse(scan.stdout) as Report;
    expect(scan.code).toBe(1);
    expect(report.findings.map((f) => [f.code, f.resource.name, f.cause?.code])).toEqual([
      ['CRD_CONVERSION_WEBHOOK_BROKEN', 'ec2nodeclasses.karpenter.k8s.aws', 'SERVICE_MISSING'],
      ['CRD_CONVERSION_WEBHOOK_BROKEN', 'nodeclaims.karpenter.sh', 'SERVICE_MISSING'],
      ['CRD_CONVERSION_WEBHOOK_BROKEN', 'nodepools.karpenter.sh', 'SERVICE_MISSING'],
    ]);
    expect(report.gaps).toEqual([
      { source: 'nodeclaims', error: NODECLAIMS_FAILED },
      { source: 'nodepools', error: expect.stringContaining('Kind=NodePool failed: Post') },
      { source: 'ec2nodeclasses', error: expect.stringContaining('Kind=EC2NodeClass failed: Post') },
    ]);
    // Everything else kubectl saved was read: nothing is missing, no file left unread. Of Karpenter's
    // interruption queue there is none (the account has no queue named after the cluster, the fake
    // answers NonExistentQueue): no rule can be read that targets it, nor its age.
    expect(report.notCaptured).toEqual(['queuerules', 'queueage']);
    expect(report.unreadFiles).toBeUndefined();
  }, 180_000);
});
