/**
 * capture-script saves the current Spot prices of the Spot types it finds (docs/capture.md,
 * docs/cost.md): one `aws ec2 describe-spot-price-history`, the types checked before they reach
 * the command line, nothing asked when nothing runs on Spot.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../../src/snapshot/load.ts';
import { run } from '../cli-harness.ts';

const EMPTY_LIST = '{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}';
const CLUSTER = '{"cluster":{"name":"demo","arn":"arn:aws:eks:us-east-1:123456789012:cluster/demo","status":"ACTIVE"}}';
const HISTORY =
  '{"SpotPriceHistory":[{"AvailabilityZone":"us-east-1a","InstanceType":"m5.large","ProductDescription":"Linux/UNIX","SpotPrice":"0.034500","Timestamp":"2026-11-29T04:12:00+00:00"}]}';

/** kubectl: a Spot node and two Spot NodeClaims, one of whose labels is hostile; every list empty otherwise. */
function fakeKubectl(spotNodes: string, spotClaims: string): string {
  return `#!/bin/sh
case "$*" in
  "config current-context") echo demo-context ;;
  "config view"*) ;;
  "get nodes -l karpenter.sh/capacity-type=spot"*) printf '%s' '${spotNodes}' ;;
  "get nodeclaims.karpenter.sh -l karpenter.sh/capacity-type=spot"*) printf '%s' '${spotClaims}' ;;
  "get pods -A -l"*) exit 0 ;;
  logs*) exit 1 ;;
  get*) printf '%s\\n' '${EMPTY_LIST}' ;;
  *) exit 1 ;;
esac
`;
}

/** aws: records the Spot price call's arguments; one Spot instance of the cluster (r5.large). */
function fakeAws(record: string, spotInstances: string): string {
  return `#!/bin/sh
case "$*" in
  *"describe-cluster"*--query*) echo vpc-0abc ;;
  *"describe-cluster"*) printf '%s\\n' '${CLUSTER}' ;;
  *"describe-instances"*instance-lifecycle*) printf '%s\\n' '${spotInstances}' ;;
  *"describe-spot-price-history"*) printf '%s\\n' "$*" >'${record}'; printf '%s\\n' '${HISTORY}' ;;
  *"--query"*) ;;
  *) echo '{}' ;;
esac
`;
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function capture(spotNodes: string, spotClaims: string, spotInstances: string) {
  const work = await mkdtemp(join(tmpdir(), 'sentinel-capture-spot-'));
  dirs.push(work);
  const bin = join(work, 'bin');
  await mkdir(bin);
  const record = join(work, 'spot-call.txt');
  await writeFile(join(bin, 'kubectl'), fakeKubectl(spotNodes, spotClaims));
  await writeFile(join(bin, 'aws'), fakeAws(record, spotInstances));
  await chmod(join(bin, 'kubectl'), 0o755);
  await chmod(join(bin, 'aws'), 0o755);
  const script = await run(['capture-script', '--cluster', 'demo', '--region', 'us-east-1']);
  await writeFile(join(work, 'capture.sh'), script.stdout);
  const result = spawnSync('sh', ['capture.sh'], {
    cwd: work,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    encoding: 'utf8',
  });
  const folder = join(
    work,
    (await readdir(work)).find((n) => n.startsWith('karpenter-capture-demo-') && !n.endsWith('.tgz')) ?? '?',
  );
  const call = await readFile(record, 'utf8').catch(() => undefined);
  return { result, folder, call };
}

describe('capture-script: Spot prices', () => {
  it('asks once for the Spot types of the nodes, NodeClaims and instances, Linux/UNIX from now, and the scan reads the file', async () => {
    const { result, folder, call } = await capture('m5.large m5.large', 'c6g.xlarge m5.large;reboot $(id)', 'r5.large\tm5.large');

    expect(result.status).toBe(0);
    expect(call).toMatch(
      /^--region us-east-1 --output json ec2 describe-spot-price-history --instance-types m5\.large c6g\.xlarge r5\.large --product-descriptions Linux\/UNIX --start-time \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\n$/,
    );
    const { snapshot } = await loadSnapshot([join(folder, 'spot-prices.json')]);
    expect(snapshot.spotPrices?.map((p) => [p.instanceType, p.availabilityZone, p.usd])).toEqual([
      ['m5.large', 'us-east-1a', 0.0345],
    ]);
  });

  it('asks nothing, and saves no file, when nothing runs on Spot', async () => {
    const { result, folder, call } = await capture('', '', '');

    expect(result.status).toBe(0);
    expect(call).toBeUndefined();
    expect(await readdir(folder)).not.toContain('spot-prices.json');
  });
});
