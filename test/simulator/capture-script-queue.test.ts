/**
 * The capture recipe's interruption-queue part (`capture-script`, docs/capture.md) with the real
 * kubectl v1.32 against the simulator (examples/healthy: its controller's INTERRUPTION_QUEUE names
 * aws-2026-eks) and the real AWS CLI against moto_server on 127.0.0.1 for SQS, EventBridge and
 * CloudWatch: what the script saves is read back by `scan --from`'s loader as the live scan reads it.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { run } from '../unit/cli/cli-harness.ts';
import { startMoto, type Moto } from '../support/moto.ts';
import { captureWorkspace, type CaptureWorkspace } from './support/capture-workspace.ts';

const EXAMPLE = new URL('../../examples/healthy/', import.meta.url).pathname;
const CLUSTER = 'aws-2026-eks';
const REGION = 'us-east-1';
/** moto's account; the pipeline is in REGION, and another region holds nothing. */
const ACCOUNT = '123456789012';
const EMPTY_REGION = 'eu-west-1';
const PATTERNS = [
  { source: ['aws.health'], 'detail-type': ['AWS Health Event'] },
  { source: ['aws.ec2'], 'detail-type': ['EC2 Spot Instance Interruption Warning'] },
  { source: ['aws.ec2'], 'detail-type': ['EC2 Instance Rebalance Recommendation'] },
  { source: ['aws.ec2'], 'detail-type': ['EC2 Instance State-change Notification'] },
];

let sim: Simulation;
let moto: Moto;
const workspaces: CaptureWorkspace[] = [];

beforeAll(async () => {
  sim = await startSimulation([EXAMPLE]);
  moto = await startMoto();
  // Karpenter's getting-started CloudFormation: the queue named after the cluster, its policy, four rules.
  const config = { region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } };
  const arn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${CLUSTER}`;
  await new SQSClient(config).send(
    new CreateQueueCommand({
      QueueName: CLUSTER,
      Attributes: {
        MessageRetentionPeriod: '300',
        SqsManagedSseEnabled: 'true',
        Policy: JSON.stringify({
          Id: 'EC2InterruptionPolicy',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Service: ['events.amazonaws.com', 'sqs.amazonaws.com'] },
              Action: 'sqs:SendMessage',
              Resource: arn,
            },
          ],
        }),
      },
    }),
  );
  const events = new EventBridgeClient(config);
  for (const [i, pattern] of PATTERNS.entries()) {
    await events.send(new PutRuleCommand({ Name: `${CLUSTER}-rule-${i}`, EventPattern: JSON.stringify(pattern) }));
    await events.send(
      new PutTargetsCommand({ Rule: `${CLUSTER}-rule-${i}`, Targets: [{ Id: 'KarpenterInterruptionQueueTarget', Arn: arn }] }),
    );
  }
}, 60_000);

afterAll(async () => {
  await sim?.close();
  moto?.close();
  await Promise.all(workspaces.map((w) => w.remove()));
});

async function capture(region: string) {
  const awsCli = execFileSync('sh', ['-c', 'command -v aws'], { encoding: 'utf8' }).trim();
  const work = await captureWorkspace(sim, EXAMPLE, 'vpc-0c2e8a4f7b1d93e56', { awsCli, endpoint: moto.endpoint, region });
  workspaces.push(work);
  const printed = await run(['capture-script', '--cluster', CLUSTER, '--region', REGION]);
  await writeFile(join(work.dir, 'capture.sh'), printed.stdout);
  const captured = await work.sh('capture.sh');
  const { path } = await work.captureFolder(CLUSTER);
  return { captured, path, files: (await readdir(path)).filter((f) => /^(sqs|events)-/.test(f)).sort() };
}

describe('the capture recipe of the interruption queue, real kubectl and aws CLI', () => {
  it('saves the queue the Deployment names, its attributes, its four rules and its (empty) age; the loader reads them', async () => {
    // Act
    const { captured, path, files } = await capture(REGION);
    const { snapshot } = await loadSnapshot([path]);

    // Assess
    expect(captured.code).toBe(0);
    expect(files).toEqual([
      'events-rule-aws-2026-eks-rule-0.json',
      'events-rule-aws-2026-eks-rule-1.json',
      'events-rule-aws-2026-eks-rule-2.json',
      'events-rule-aws-2026-eks-rule-3.json',
      'events-rule-names.json',
      'sqs-oldest-message-age.json',
      'sqs-queue-attributes.json',
      'sqs-queue-url.json',
    ]);
    expect(snapshot.interruptionQueues).toEqual([
      expect.objectContaining({
        name: CLUSTER,
        exists: true,
        attributes: expect.objectContaining({
          QueueArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:${CLUSTER}`,
          SqsManagedSseEnabled: 'true',
        }),
      }),
    ]);
    expect((snapshot.queueRules ?? []).map((r) => [r.name, r.state, JSON.parse(r.eventPattern ?? '{}')])).toEqual(
      PATTERNS.map((p, i) => [`${CLUSTER}-rule-${i}`, 'ENABLED', p]),
    );
    // moto publishes no SQS metrics: the age is read, and unknown.
    expect(snapshot.captured.has('queueage')).toBe(true);
    expect(snapshot.queueOldestMessageAgeSeconds).toBeUndefined();
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.unreadFiles).toBeUndefined();
  }, 180_000);

  it("saves SQS's NonExistentQueue answer when the queue does not exist, read as a queue that does not exist, and asks nothing more", async () => {
    // Act
    const { path, files } = await capture(EMPTY_REGION);
    const { snapshot } = await loadSnapshot([path]);

    // Assess
    expect(files).toEqual(['sqs-queue-url.json']);
    expect(await readFile(join(path, 'sqs-queue-url.json'), 'utf8')).toContain(
      'An error occurred (AWS.SimpleQueueService.NonExistentQueue) when calling the GetQueueUrl operation: The specified queue does not exist.',
    );
    expect(snapshot.interruptionQueues).toEqual([{ name: '', exists: false }]);
    expect(snapshot.gaps).toEqual([]);
  }, 180_000);
});

/** Replaces the controller container's args and env in the simulated cluster (the tests below run last, in order). */
async function setController(args: string[], env: object[]) {
  const awsCli = execFileSync('sh', ['-c', 'command -v aws'], { encoding: 'utf8' }).trim();
  const work = await captureWorkspace(sim, EXAMPLE, 'vpc-0c2e8a4f7b1d93e56', { awsCli, endpoint: moto.endpoint, region: REGION });
  workspaces.push(work);
  const patch = JSON.stringify([
    { op: 'add', path: '/spec/template/spec/containers/0/args', value: args },
    { op: 'replace', path: '/spec/template/spec/containers/0/env', value: env },
  ]);
  await writeFile(
    join(work.dir, 'patch.sh'),
    `kubectl patch deployment karpenter -n karpenter --type json -p '${patch.replace(/'/g, "'\\''")}'\n`,
  );
  const patched = await work.sh('patch.sh');
  expect(patched.stderr).toBe('');
}

describe('the capture recipe reads the setting as the live scan does', () => {
  it('one dash, the last flag wins, and an explicit empty flag is off: the env is not read', async () => {
    // Prepare
    await setController(
      ['-interruption-queue=' + CLUSTER, '--interruption-queue='],
      [{ name: 'INTERRUPTION_QUEUE', value: CLUSTER }],
    );

    // Act
    const { files } = await capture(REGION);

    // Assess: unset, so only the queue named after the cluster is looked up, as a hint.
    expect(files).toEqual([`sqs-queue-url-${CLUSTER}.json`]);
  }, 180_000);

  it('hostile values in args (command substitution, ;, a newline) run nothing and reach no command line', async () => {
    // Prepare
    await setController(
      ['--interruption-queue=$(touch pwned)', '--interruption-queue', ';touch pwned', 'x\n--interruption-queue=`touch pwned`'],
      [],
    );

    // Act
    const { captured, path, files } = await capture(REGION);

    // Assess
    expect(captured.code).toBe(0);
    expect(files).toEqual([`sqs-queue-url-${CLUSTER}.json`]);
    const dir = join(path, '..');
    expect((await readdir(dir, { recursive: true })).filter((f) => String(f).includes('pwned'))).toEqual([]);
  }, 180_000);

  it('an env set from elsewhere (valueFrom) is unknown: nothing is looked up, not even the queue named after the cluster', async () => {
    // Prepare
    await setController([], [{ name: 'INTERRUPTION_QUEUE', valueFrom: { configMapKeyRef: { name: 'queue', key: 'name' } } }]);

    // Act
    const { files } = await capture(REGION);

    // Assess
    expect(files).toEqual([]);
  }, 180_000);

  it('an ARN setting: its name is looked up and saved under that name, which the loader applies to the name, not to the ARN', async () => {
    // Prepare
    await setController([`--interruption-queue=arn:aws:sqs:${REGION}:${ACCOUNT}:${CLUSTER}`], []);

    // Act
    const { path, files } = await capture(REGION);
    const { snapshot } = await loadSnapshot([path]);

    // Assess
    expect(files).toContain(`sqs-queue-url-${CLUSTER}.json`);
    expect(files).not.toContain('sqs-queue-url.json');
    expect(snapshot.interruptionQueues).toEqual([expect.objectContaining({ name: CLUSTER, exists: true })]);
  }, 180_000);
});
