/**
 * A folder in which the capture recipe (`capture-script`) runs with the real kubectl against a
 * simulation: a kubeconfig for it, and on PATH a fake AWS CLI that prints the example's
 * describe-cluster (its VPC for `--query`, and the simulator's URL as its endpoint, so that the
 * script's context check passes) and an account with nothing else in it.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Simulation } from '../../../src/simulator/simulation.ts';

export interface CaptureWorkspace {
  dir: string;
  /** Runs `sh script` in the workspace with its kubeconfig and fake `aws`. */
  sh(script: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** The folder the recipe saved for `cluster` (not its .tgz). */
  captureFolder(cluster: string): Promise<{ name: string; path: string }>;
  remove(): Promise<void>;
}

/**
 * The real AWS CLI against moto_server, for SQS, EventBridge and CloudWatch. aws-cli v1 ignores
 * AWS_ENDPOINT_URL for sqs (docs/simulator.md): the endpoint is passed on the command line.
 */
export interface QueueAccount {
  /** The real `aws` (an absolute path: the fake shadows it on PATH). */
  awsCli: string;
  endpoint: string;
  /** The region these calls go to, whatever the script asks (another region is another, empty, account for moto). */
  region: string;
}

function fakeAws(clusterJson: string, vpcId: string, endpoint: string, queues?: QueueAccount): string {
  const real = queues
    ? `  *" sqs "* | *" events "* | *" cloudwatch "*) AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=not-a-secret exec ${queues.awsCli} --endpoint-url ${queues.endpoint} "$@" --region ${queues.region} ;;\n`
    : '';
  return `#!/bin/sh
case "$*" in
${real}
  *"describe-cluster"*cluster.endpoint*) echo ${endpoint} ;;
  *"describe-cluster"*--query*) echo ${vpcId} ;;
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
  *"describe-instance-types"*) echo '{"InstanceTypes": []}' ;;
  *"sqs get-queue-url"*) echo 'An error occurred (AWS.SimpleQueueService.NonExistentQueue) when calling the GetQueueUrl operation: The specified queue does not exist.' >&2; exit 255 ;;
  *) echo "fake aws: unexpected: $*" >&2; exit 1 ;;
esac
`;
}

export async function captureWorkspace(
  sim: Simulation,
  example: string,
  vpcId: string,
  queues?: QueueAccount,
): Promise<CaptureWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), 'sentinel-recipe-'));
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'kubeconfig'), sim.kubeApi.kubeconfig());
  await writeFile(
    join(dir, 'bin', 'aws'),
    fakeAws(await readFile(join(example, 'cluster.json'), 'utf8'), vpcId, sim.kubeApi.url, queues),
  );
  await chmod(join(dir, 'bin', 'aws'), 0o755);
  const env = {
    ...process.env,
    HOME: dir,
    KUBECONFIG: join(dir, 'kubeconfig'),
    PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
  };
  return {
    dir,
    sh: (script) =>
      new Promise((resolve, reject) => {
        const child = spawn('sh', [script], { cwd: dir, env });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (b: Buffer) => out.push(b));
        child.stderr.on('data', (b: Buffer) => err.push(b));
        child.on('error', reject);
        child.on('close', (code) =>
          resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
        );
      }),
    async captureFolder(cluster) {
      const name = (await readdir(dir)).find((n) => n.startsWith(`karpenter-capture-${cluster}-`) && !n.endsWith('.tgz'));
      return { name: name ?? '?', path: join(dir, name ?? '?') };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
