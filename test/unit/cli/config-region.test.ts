/**
 * The CLI takes the region from the AWS shared config as the SDK and `aws configure get region` do
 * (a temp HOME holding ~/.aws/config), says so in the announcement, and has one "no AWS region" line.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveLiveTarget } from '../../../src/cli/live-target.ts';
import { run } from './cli-harness.ts';

const NO_ENVIRONMENT = { region: undefined, kubeconfig: undefined };
const folders: string[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A HOME whose ~/.aws/config holds `text`; AWS_* variables that would win over it are cleared. */
async function home(text: string | undefined): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sentinel-aws-home-'));
  folders.push(dir);
  if (text !== undefined) {
    await mkdir(join(dir, '.aws'));
    await writeFile(join(dir, '.aws', 'config'), text);
  }
  vi.stubEnv('HOME', dir);
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE']) {
    vi.stubEnv(name, undefined);
  }
  return dir;
}

const CONFIG = '[default]\nregion = eu-north-1\n\n[profile dev]\nregion = ap-south-1\n';

describe('the region from the AWS shared config', () => {
  it("--cluster alone: the default profile's region, and the line says where it came from", async () => {
    await home(CONFIG);

    const { target, announcement } = await resolveLiveTarget({ cluster: 'prod' }, NO_ENVIRONMENT);

    expect(target.region).toBe('eu-north-1');
    expect(announcement).toBe('scanning EKS cluster prod in eu-north-1 (region from the AWS config)');
  });

  it('--profile (or AWS_PROFILE) chooses the profile whose region is read', async () => {
    await home(CONFIG);

    const flag = await resolveLiveTarget({ cluster: 'prod', profile: 'dev' }, NO_ENVIRONMENT);
    vi.stubEnv('AWS_PROFILE', 'dev');
    const variable = await resolveLiveTarget({ cluster: 'prod' }, NO_ENVIRONMENT);

    expect(flag.target.region).toBe('ap-south-1');
    expect(flag.announcement).toContain('(region from the AWS config of profile dev)');
    expect(variable.target.region).toBe('ap-south-1');
  });

  it('--region and AWS_REGION still win, and need no announcement', async () => {
    await home(CONFIG);

    expect(await resolveLiveTarget({ cluster: 'prod', region: 'us-east-2' }, NO_ENVIRONMENT)).toEqual({
      target: { clusterName: 'prod', region: 'us-east-2' },
    });
  });

  it('with no region anywhere: one line, the same for every live command', async () => {
    await home(undefined);

    const scan = await run(['scan', '--cluster', 'prod']);
    const cleanup = await run(['cleanup', '--cluster', 'prod']);

    const line =
      'karpenter-sentinel: no AWS region for cluster prod: pass --region REGION, set AWS_REGION, or set one in the AWS config (aws configure set region REGION)\n';
    expect(scan).toMatchObject({ code: 2, stderr: line });
    expect(cleanup).toMatchObject({ code: 2, stderr: line });
  });
});
