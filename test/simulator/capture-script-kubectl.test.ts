/**
 * The acceptance: the capture recipe (`capture-script`), run with the real kubectl v1.32
 * against a cluster whose Karpenter CRDs convert through a webhook Service that is gone, gives a
 * report that names the broken conversion webhook. The cluster is the simulator seeded from
 * examples/crd-conversion-webhook-broken, its objects stored at v1beta1 (so every read of them
 * needs the webhook); the AWS CLI is a fake printing that example's describe-cluster.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/domain/report.ts';
import { brokenConversionFaults } from '../../src/simulator/conversion-webhook.ts';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { run } from '../unit/cli/cli-harness.ts';

const EXAMPLE = new URL('../../examples/crd-conversion-webhook-broken/', import.meta.url).pathname;
const CLUSTER = 'aws-2026-eks';

const NODECLAIMS_FAILED =
  'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.kube-system.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found';

/** The AWS CLI: describe-cluster prints the example's capture; the account has nothing else. */
function fakeAws(clusterJson: string): string {
  return `#!/bin/sh
case "$*" in
  *"describe-cluster"*--query*) echo vpc-0a7c3e91d5b2f4816 ;;
  *"describe-cluster"*) cat <<'JSON'
${clusterJson.trim()}
JSON
  ;;
  *"list-fargate-profiles"*--query*) ;;
  *"list-fargate-profiles"*) echo '{"fargateProfileNames": []}' ;;
  *"list-access-entries"*) echo '{"accessEntries": []}' ;;
  *"describe-instances"*) echo '{"Reservations": []}' ;;
  *"describe-launch-templates"*) echo '{"LaunchTemplates": []}' ;;
  *"list-instance-profiles"*) echo '{"InstanceProfiles": []}' ;;
  *"describe-subnets"*) echo '{"Subnets": []}' ;;
  *) echo "fake aws: unexpected: $*" >&2; exit 1 ;;
esac
`;
}

let sim: Simulation;
let work: string;

beforeAll(async () => {
  sim = await startSimulation([EXAMPLE]);
  for (const fault of brokenConversionFaults(sim.kubeApi.store)) sim.kubeApi.faults.add(fault);
  work = await mkdtemp(join(tmpdir(), 'sentinel-recipe-'));
  await mkdir(join(work, 'bin'));
  await writeFile(join(work, 'kubeconfig'), sim.kubeApi.kubeconfig());
  await writeFile(join(work, 'bin', 'aws'), fakeAws(await readFile(join(EXAMPLE, 'cluster.json'), 'utf8')));
  await chmod(join(work, 'bin', 'aws'), 0o755);
});

afterAll(async () => {
  await sim.close();
  await rm(work, { recursive: true, force: true });
});

function sh(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [script], {
      cwd,
      env: {
        ...process.env,
        HOME: work,
        KUBECONFIG: join(work, 'kubeconfig'),
        PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}`,
      },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

describe('the capture recipe with the real kubectl, on a cluster whose conversion webhook Service is gone', () => {
  it('saves kubectl’s errors; scan --from the folder names CRD_CONVERSION_WEBHOOK_BROKEN, cause SERVICE_MISSING', async () => {
    // Prepare
    const printed = await run(['capture-script', '--cluster', CLUSTER, '--region', 'us-east-1']);
    await writeFile(join(work, 'capture.sh'), printed.stdout);

    // Act
    const captured = await sh('capture.sh', work);
    const folder = (await readdir(work)).find((n) => n.startsWith(`karpenter-capture-${CLUSTER}-`) && !n.endsWith('.tgz'));
    const dir = join(work, folder ?? '?');
    const nodeclaimsFile = await readFile(join(dir, 'nodeclaims.json'), 'utf8');
    const scan = await run(['scan', '--from', dir, '--output', 'json', '--now', '2026-01-01T01:00:00Z']);

    // Assess
    expect(captured.code).toBe(0);
    expect(captured.stdout).toContain(`next: karpenter-sentinel scan --from ${folder}`);
    expect(await readdir(work)).toContain(`${folder}.tgz`);
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
      { source: 'ec2nodeclasses', error: expect.stringContaining('Kind=EC2NodeClass failed: Post') },
      { source: 'nodeclaims', error: NODECLAIMS_FAILED },
      { source: 'nodepools', error: expect.stringContaining('Kind=NodePool failed: Post') },
    ]);
    // Everything else kubectl saved was read: nothing is missing, no file left unread.
    expect(report.notCaptured).toEqual([]);
    expect(report.unreadFiles).toBeUndefined();
  }, 180_000);
});
