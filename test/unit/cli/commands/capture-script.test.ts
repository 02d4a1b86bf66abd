import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../../src/domain/report.ts';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { M5_LARGE_ITEM } from '../../../factories/instance-type-items.ts';
import { run } from '../cli-harness.ts';

const CONVERSION_FAILED =
  'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.karpenter.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found';

const EMPTY_LIST = '{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}';
const PODS = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: 'shop', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { containers: [{ name: 'web', image: 'nginx' }], nodeName: 'ip-10-0-1-1.ec2.internal' },
      status: { phase: 'Running' },
    },
  ],
});
const INSTANCE_TYPES = JSON.stringify({ InstanceTypes: [M5_LARGE_ITEM] });
const CLUSTER = JSON.stringify({
  cluster: {
    name: 'demo',
    arn: 'arn:aws:eks:us-east-1:123456789012:cluster/demo',
    status: 'ACTIVE',
    version: '1.32',
    accessConfig: { authenticationMode: 'API' },
  },
});

/**
 * kubectl: most lists succeed; NodeClaims fail with the conversion webhook's error (after the
 * empty List kubectl 1.32 prints with -o json when the list fails); NodePools print nothing.
 */
const FAKE_KUBECTL = `#!/bin/sh
case "$*" in
  "config current-context") echo demo-context ;;
  "config view"*) ;;
  "get pods -A -o json") printf '%s\\n' '${PODS}' ;;
  "get nodeclaims.karpenter.sh -o json") printf '%s\\n' '${EMPTY_LIST}'; echo 'Error from server: ${CONVERSION_FAILED}' >&2; exit 1 ;;
  "get nodepools.karpenter.sh -o json") exit 0 ;;
  "get configmap aws-auth -n kube-system -o json") echo 'Error from server (NotFound): configmaps "aws-auth" not found' >&2; exit 1 ;;
  "get configmap karpenter-global-settings"*) echo 'Error from server (NotFound): configmaps "karpenter-global-settings" not found' >&2; exit 1 ;;
  "get pods -A -l"*) exit 0 ;;
  logs*) echo 'Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "karpenter"' >&2; exit 1 ;;
  get*) printf '%s\\n' '${EMPTY_LIST}' ;;
  *) echo "fake kubectl: unexpected: $*" >&2; exit 1 ;;
esac
`;

/** aws: every call answers, but launch templates are denied and EC2's endpoint is out of reach for instances; instance types only for the region asked. */
const FAKE_AWS = `#!/bin/sh
case "$*" in
  *"describe-cluster"*--query*) echo vpc-0abc ;;
  *"describe-cluster"*) printf '%s\\n' '${CLUSTER}' ;;
  *"list-fargate-profiles"*--query*) ;;
  *"list-fargate-profiles"*) echo '{"fargateProfileNames": []}' ;;
  *"list-access-entries"*) echo '{"accessEntries": []}' ;;
  *"describe-instances"*) echo 'Could not connect to the endpoint URL: "https://ec2.us-east-1.amazonaws.com/"' >&2; exit 255 ;;
  *"describe-launch-templates"*) echo 'An error occurred (UnauthorizedOperation) when calling the DescribeLaunchTemplates operation: You are not authorized to perform this operation.' >&2; exit 254 ;;
  *"list-instance-profiles"*) echo '{"InstanceProfiles": []}' ;;
  *"describe-subnets"*) echo '{"Subnets": []}' ;;
  "--region us-east-1 --output json ec2 describe-instance-types") printf '%s\\n' '${INSTANCE_TYPES}' ;;
  *) echo "fake aws: unexpected: $*" >&2; exit 1 ;;
esac
`;

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sentinel-capture-script-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function script(argv: string[]): Promise<string> {
  const result = await run(['capture-script', ...argv]);
  expect(result.code).toBe(0);
  return result.stdout;
}

describe('capture-script', () => {
  it('prints a POSIX sh script that sh -n accepts, with no set -e, every output saved with its errors', async () => {
    const text = await script(['--cluster', 'demo', '--region', 'us-east-1']);

    expect(spawnSync('sh', ['-n'], { input: text }).status).toBe(0);
    expect(text).not.toMatch(/set -e/);
    for (const file of [
      'pods.json',
      'nodeclaims.json',
      'pdb.json',
      'volumeattachments.json',
      'subnets.json',
      'cluster.json',
      'instance-types.json',
    ]) {
      expect(text).toContain(` ${file} `);
    }
    expect(text).toContain('>"$out/$file" 2>&1');
    expect(text).toContain('tar czf');
  });

  it.each([
    [['--cluster', "demo'; rm -rf ~; '"], /--cluster must be an EKS cluster name/],
    [['--region', 'us-east-1 --profile admin'], /--region must be an AWS region/],
  ])('refuses %j as a usage error', async (argv, message) => {
    const result = await run(['capture-script', ...argv]);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('run on a broken cluster, goes on past failures; scan --from the folder reports the conversion webhook, the failures as gaps', async () => {
    // Prepare
    const bin = join(work, 'bin');
    await rm(bin, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(bin));
    await writeFile(join(bin, 'kubectl'), FAKE_KUBECTL);
    await writeFile(join(bin, 'aws'), FAKE_AWS);
    await chmod(join(bin, 'kubectl'), 0o755);
    await chmod(join(bin, 'aws'), 0o755);
    await writeFile(join(work, 'capture.sh'), await script(['--cluster', 'demo', '--region', 'us-east-1']));

    // Act
    const captured = spawnSync('sh', ['capture.sh'], {
      cwd: work,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
    const folder = (await readdir(work)).find((n) => n.startsWith('karpenter-capture-demo-') && !n.endsWith('.tgz'));
    const scan = await run(['scan', '--from', join(work, folder ?? '?'), '--output', 'json', '--now', '2026-01-01T01:00:00Z']);

    // Assess
    expect(captured.status).toBe(0);
    expect(captured.stdout).toContain(`next: karpenter-sentinel scan --from ${folder}`);
    expect(await readdir(work)).toContain(`${folder}.tgz`);
    const report = JSON.parse(scan.stdout) as Report;
    expect(scan.code).toBe(1);
    expect(report.findings.map((f) => [f.code, f.cause?.code])).toEqual([['CRD_CONVERSION_WEBHOOK_BROKEN', 'SERVICE_MISSING']]);
    expect(report.complete).toBe(false);
    expect(report.gaps).toEqual(
      expect.arrayContaining([
        { source: 'nodeclaims', error: CONVERSION_FAILED },
        { source: 'nodepools', error: expect.stringContaining('nodepools.json: empty file') },
        { source: 'launchtemplates', error: expect.stringContaining('UnauthorizedOperation') },
        // The tool's own words, after the command that failed.
        {
          source: 'instances',
          error:
            'aws ec2 describe-instances failed: Could not connect to the endpoint URL: "https://ec2.us-east-1.amazonaws.com/"',
        },
        { source: 'logs', error: expect.stringContaining('cannot list resource "pods"') },
      ]),
    );
    // A missing aws-auth is an answer (authentication mode API), not a gap.
    expect(report.gaps.map((g) => g.source)).not.toContain('configmaps');
    expect(report.unreadFiles).toBeUndefined();
    expect(report.gaps.map((g) => g.source)).not.toContain('instancetypes');
    const { snapshot } = await loadSnapshot([join(work, folder ?? '?', 'instance-types.json')]);
    expect(snapshot.instanceTypes.map((t) => t.name)).toEqual(['m5.large']);
  });
});
