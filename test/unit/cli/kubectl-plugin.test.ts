/**
 * The plugin as kubectl runs it: the real kubectl v1.32 (/usr/bin/kubectl) finds `kubectl-sentinel`
 * on PATH (package.json bin) and runs it for `kubectl sentinel`. The live scan then reads the
 * simulated cluster's API over HTTPS through the kubeconfig context, and AWS from moto_server on
 * 127.0.0.1 (the real SDK): no flag names the cluster, the context does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../src/cli/commands/demo.ts';
import type { Report } from '../../../src/domain/report.ts';
import { startKubeApiServer, type SimulatedKubeApi } from '../../../src/simulator/kube-api-server.ts';
import { storeFromSnapshot } from '../../../src/simulator/seed.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { startMoto, type Moto } from '../../support/moto.ts';

const BIN = fileURLToPath(new URL('../../../bin/karpenter-sentinel.js', import.meta.url));
const HEALTHY = fileURLToPath(new URL('../../../examples/healthy', import.meta.url));
const ARN = 'arn:aws:eks:us-east-1:069057294951:cluster/aws-2026-eks';
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' };

let dir: string;
let api: SimulatedKubeApi;
let moto: Moto;
let motoUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sentinel-plugin-'));
  await symlink(BIN, join(dir, 'kubectl-sentinel'));
  const { snapshot } = await loadSnapshot([HEALTHY]);
  api = await startKubeApiServer(storeFromSnapshot(snapshot));
  // What `aws eks update-kubeconfig` names the context, cluster and user.
  await writeFile(join(dir, 'kubeconfig'), api.kubeconfig({ name: ARN }));
  moto = await startMoto();
  motoUrl = moto.endpoint;
  const eks = new EKSClient({ region: 'us-east-1', endpoint: motoUrl, credentials: CREDENTIALS });
  await eks.send(
    new CreateClusterCommand({
      name: 'aws-2026-eks',
      roleArn: 'arn:aws:iam::069057294951:role/eks',
      resourcesVpcConfig: { subnetIds: [] },
    }),
  );
}, 30_000);

afterAll(async () => {
  moto?.close();
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

/** `kubectl ARGS` with kubectl-sentinel and this Node 22 first on PATH, nothing of the machine's kube or AWS setup. */
function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: [dirname(process.execPath), dir, process.env.PATH ?? ''].join(delimiter),
    HOME: dir,
    KUBECONFIG: join(dir, 'kubeconfig'),
    AWS_ENDPOINT_URL: motoUrl,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  };
  return new Promise((resolve) => {
    execFile('kubectl', args, { env, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('kubectl sentinel, run by kubectl v1.32', () => {
  it('--help names the command as typed and fits 80 columns', async () => {
    const result = await kubectl(['sentinel', '--help']);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: kubectl sentinel <command> [options]');
    expect(result.stdout.split('\n').filter((line) => line.length > 80)).toEqual([]);
  });

  it('alone, scans the EKS cluster the current context names, saying which first', async () => {
    const result = await kubectl(['sentinel', '--now', EXAMPLES_NOW, '-o=json', '--fail-on', 'never']);

    // The note wraps to 80 columns (no terminal): its continuation hangs under two spaces.
    expect(result.stderr.replace(/\n {2}/g, ' ').split('\n')[0]).toBe(
      `scanning context "${ARN}": EKS cluster aws-2026-eks (from its EKS cluster ARN) in us-east-1`,
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.cluster).toBe('aws-2026-eks');
    // Read from the served API through the context: no Kubernetes source is a gap.
    expect(report.gaps.map((g) => g.source)).not.toContain('pods');
    expect(report.gaps.map((g) => g.source)).not.toContain('nodeclaims');
  }, 120_000);

  it('scna is answered with the command meant', async () => {
    const result = await kubectl(['sentinel', 'scna']);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'scna'; did you mean scan?");
  });
});
