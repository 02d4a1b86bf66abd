/**
 * The CLI (resolveLiveTarget over readKubeContext) and the capture script's preflight answer
 * "which EKS cluster, in which region, is this kubectl context for" alike, for the same kubeconfig
 * files: the script runs for real under sh with the real kubectl on PATH and a stub `aws`.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveLiveTarget } from '../../../src/cli/live-target.ts';
import { PREFLIGHT } from '../../../src/snapshot/capture-script-preflight.ts';

const KUBECTL = spawnSync('sh', ['-c', 'command -v kubectl']).stdout.toString().trim();

/** `aws configure get region` has none; describe-cluster fails (the preflight only warns). */
const STUB_AWS = `#!/bin/sh
exit 254
`;

interface Variant {
  title: string;
  context: string;
  clusterEntry: string;
  server: string;
  args?: string[];
  command?: string;
}

const GET_TOKEN = ['--region', 'eu-west-1', 'eks', 'get-token', '--cluster-name', 'payments-prod', '--output', 'json'];
const VARIANTS: Variant[] = [
  {
    title: 'an ARN-named context (aws eks update-kubeconfig)',
    context: 'arn:aws:eks:eu-central-1:123456789012:cluster/platform-dev',
    clusterEntry: 'arn:aws:eks:eu-central-1:123456789012:cluster/platform-dev',
    server: 'https://ABC.gr7.eu-central-1.eks.amazonaws.com',
  },
  {
    title: 'a renamed context (--alias) whose user runs aws eks get-token',
    context: 'prod',
    clusterEntry: 'prod',
    server: 'https://10.0.0.1:6443',
    args: GET_TOKEN,
  },
  {
    title: 'get-token with --cluster-name=NAME and --region=R',
    context: 'p',
    clusterEntry: 'p',
    server: 'https://10.0.0.1:6443',
    args: ['eks', 'get-token', '--cluster-name=payments-prod', '--region=eu-west-1'],
  },
  {
    title: 'aws-iam-authenticator token -i NAME, the region from the EKS server',
    context: 'legacy',
    clusterEntry: 'legacy',
    server: 'https://XYZ.yl4.us-east-2.eks.amazonaws.com',
    command: 'aws-iam-authenticator',
    args: ['token', '-i', 'old-cluster'],
  },
  {
    title: 'an eksctl context (user@NAME.REGION.eksctl.io)',
    context: 'admin@batch.ap-southeast-2.eksctl.io',
    clusterEntry: 'batch.ap-southeast-2.eksctl.io',
    server: 'https://10.0.0.1:6443',
  },
];

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function kubeconfigOf(variant: Variant): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'sentinel-eks-context-'));
  folders.push(dir);
  const path = join(dir, 'config');
  const exec = variant.args
    ? { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: variant.command ?? 'aws', args: variant.args } }
    : { token: 't' };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': variant.context,
    clusters: [{ name: variant.clusterEntry, cluster: { server: variant.server } }],
    users: [{ name: 'u', user: exec }],
    contexts: [{ name: variant.context, context: { cluster: variant.clusterEntry, user: 'u' } }],
  };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  await writeFile(join(dir, 'aws'), STUB_AWS);
  await chmod(join(dir, 'aws'), 0o755);
  return { dir, path };
}

/** The preflight as capture.sh runs it, with `cluster` and `region` given (or empty). */
function preflight(dir: string, kubeconfig: string, cluster = '', region = '') {
  const script = `cluster=$1\nregion=$2\naws_() { aws --region "$region" --output json "$@"; }\n${PREFLIGHT}\n`;
  const result = spawnSync('sh', ['-c', script, 'capture.sh', cluster, region], {
    env: { PATH: `${dir}:${join(KUBECTL, '..')}:/usr/bin:/bin`, KUBECONFIG: kubeconfig, HOME: dir },
    encoding: 'utf8',
  });
  const cluster_ = /^EKS cluster: (\S+) /m.exec(result.stdout)?.[1];
  const region_ = /^AWS region: (\S+) /m.exec(result.stdout)?.[1];
  return { code: result.status, cluster: cluster_, region: region_, stderr: result.stderr };
}

describe('which EKS cluster a kubectl context is for: the CLI and the capture script agree', () => {
  it.each(VARIANTS)('$title', async (variant) => {
    const { dir, path } = await kubeconfigOf(variant);

    const { target } = await resolveLiveTarget({ kubeconfig: path }, { region: undefined, kubeconfig: undefined });
    const script = preflight(dir, path);

    expect(KUBECTL).not.toBe('');
    expect(script.code).toBe(0);
    expect({ cluster: script.cluster, region: script.region }).toEqual({ cluster: target.clusterName, region: target.region });
  });

  it('--cluster X with a context that is EKS cluster Y: both refuse, in one line', async () => {
    const { dir, path } = await kubeconfigOf(VARIANTS[1] as Variant);

    const cli = resolveLiveTarget({ cluster: 'other', kubeconfig: path }, { region: undefined, kubeconfig: undefined });
    const script = preflight(dir, path, 'other');

    await expect(cli).rejects.toThrow(
      `context "prod" is EKS cluster payments-prod (from the user's aws eks get-token --cluster-name), not other: pass --context for other's, or --cluster payments-prod`,
    );
    expect(script.code).toBe(2);
    expect(script.stderr).toContain("kubectl's current context is EKS cluster payments-prod, not other");
  });
});
