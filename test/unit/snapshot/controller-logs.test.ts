import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { isPreviousControllerLog, readControllerLog, readControllerLogFrom } from '../../../src/snapshot/controller-logs.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const ACCESS_DENIED = JSON.stringify({
  level: 'ERROR',
  time: '2025-12-28T20:35:39.951Z',
  logger: 'controller',
  message: 'Reconciler error',
  commit: '0f0e5b3',
  controller: 'instanceprofile.garbagecollection',
  'aws-error-code': 'AccessDenied',
  error:
    'listing instance profiles, User is not authorized to perform: iam:ListInstanceProfiles on resource: arn:aws:iam::069057294951:instance-profile/',
});

const LAUNCH_FAILED = JSON.stringify({
  level: 'ERROR',
  time: '2025-12-28T20:36:02.118Z',
  logger: 'controller',
  message: 'Reconciler error',
  controller: 'nodeclaim.lifecycle',
  NodeClaim: { name: 'default-x2kq8' },
  error:
    'launching nodeclaim, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.',
});

async function loadLog(text: string, name = 'karpenter.log') {
  const dir = await captureDir({ [name]: text });
  const result = await loadSnapshot([dir]);
  return { ...result, file: join(dir, name) };
}

describe('loadSnapshot: Karpenter controller logs', () => {
  it('reads zap JSON lines, keeping every field and where each line came from', async () => {
    // Act
    const { snapshot, file } = await loadLog(`${ACCESS_DENIED}\n\n${LAUNCH_FAILED}\n`);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['logs']));
    expect(snapshot.logs).toEqual([
      {
        time: '2025-12-28T20:35:39.951Z',
        level: 'ERROR',
        message: 'Reconciler error',
        error: expect.stringContaining('iam:ListInstanceProfiles'),
        fields: JSON.parse(ACCESS_DENIED),
        origin: `${file}:1`,
      },
      {
        time: '2025-12-28T20:36:02.118Z',
        level: 'ERROR',
        message: 'Reconciler error',
        error: expect.stringContaining('AuthFailure.ServiceLinkedRoleCreationNotPermitted'),
        fields: expect.objectContaining({ controller: 'nodeclaim.lifecycle', NodeClaim: { name: 'default-x2kq8' } }),
        origin: `${file}:3`,
      },
    ]);
  });

  it("accepts zap's default keys: msg, and ts as epoch seconds", async () => {
    // Act
    const { snapshot } = await loadLog(
      '{"level":"warn","ts":1735417539.951,"msg":"could not schedule pod","error":"incompatible requirements"}\n',
    );

    // Assess
    expect(snapshot.logs[0]).toMatchObject({
      time: '2024-12-28T20:25:39.951Z',
      level: 'WARN',
      message: 'could not schedule pod',
      error: 'incompatible requirements',
    });
  });

  it("reads zap's console format: time, level, logger, message and trailing JSON fields", async () => {
    // Act
    const { snapshot, file } = await loadLog(
      '2025-12-28T20:35:39.951Z\tERROR\tcontroller\tReconciler error\t{"commit": "0f0e5b3", "controller": "nodeclaim.lifecycle", "error": "creating instance, AMI not found"}\r\n',
    );

    // Assess
    expect(snapshot.logs).toEqual([
      {
        time: '2025-12-28T20:35:39.951Z',
        level: 'ERROR',
        message: 'Reconciler error',
        error: 'creating instance, AMI not found',
        fields: {
          logger: 'controller',
          commit: '0f0e5b3',
          controller: 'nodeclaim.lifecycle',
          error: 'creating instance, AMI not found',
        },
        origin: `${file}:1`,
      },
    ]);
  });

  it('keeps free text as the message, and reads a leading time and level when there are some', async () => {
    // Act
    const { snapshot } = await loadLog(
      'panic: runtime error: invalid memory address\n2025-12-28T20:35:39Z ERROR webhook failed to start\n',
    );

    // Assess
    expect(snapshot.logs.map(({ time, level, message, fields }) => ({ time, level, message, fields }))).toEqual([
      { time: undefined, level: undefined, message: 'panic: runtime error: invalid memory address', fields: {} },
      { time: '2025-12-28T20:35:39Z', level: 'ERROR', message: 'webhook failed to start', fields: {} },
    ]);
  });

  it('strips the `kubectl logs --prefix` and `--timestamps` prefixes', async () => {
    // Act
    const { snapshot } = await loadLog(
      [
        `[pod/karpenter-5697769d6c-7lglp/controller] ${ACCESS_DENIED}`,
        `[pod/karpenter-5697769d6c-cdwct/controller] 2025-12-28T20:40:00.000000001Z ${LAUNCH_FAILED}`,
        '[pod/karpenter-5697769d6c-cdwct/controller] 2025-12-28T20:41:00.000000001Z {"level":"INFO","message":"no time of its own"}',
      ].join('\n'),
    );

    // Assess
    expect(snapshot.logs.map((l) => [l.level, l.time, l.fields.controller])).toEqual([
      ['ERROR', '2025-12-28T20:35:39.951Z', 'instanceprofile.garbagecollection'],
      ['ERROR', '2025-12-28T20:36:02.118Z', 'nodeclaim.lifecycle'],
      ['INFO', '2025-12-28T20:41:00.000000001Z', undefined],
    ]);
  });

  it('reads lines through terminal colours (zap development encoder, stern, a pager)', async () => {
    // Prepare
    const esc = '\u001b';
    const consoleLine = `${esc}[36m2025-12-28T20:35:39.951Z${esc}[0m\t${esc}[31mERROR${esc}[0m\tcontroller\tReconciler error\t{"error": "AccessDenied"}`;
    const jsonLine = `${esc}[31m${ACCESS_DENIED}${esc}[0m`;

    // Act
    const { snapshot } = await loadLog(`${consoleLine}\n${jsonLine}\n`);

    // Assess
    expect(snapshot.logs.map((l) => [l.time, l.level, l.message, l.error?.slice(0, 12)])).toEqual([
      ['2025-12-28T20:35:39.951Z', 'ERROR', 'Reconciler error', 'AccessDenied'],
      ['2025-12-28T20:35:39.951Z', 'ERROR', 'Reconciler error', 'listing inst'],
    ]);
  });

  it('reads `stern` output (pod and container before each line), interleaved for two pods', async () => {
    // Act
    const { snapshot } = await loadLog(
      [
        '+ karpenter-5697769d6c-7lglp › controller',
        `karpenter-5697769d6c-7lglp controller ${ACCESS_DENIED}`,
        `karpenter-5697769d6c-cdwct controller ${LAUNCH_FAILED}`,
      ].join('\n'),
    );

    // Assess
    expect(snapshot.logs.map((l) => [l.level, l.fields.controller])).toEqual([
      [undefined, undefined],
      ['ERROR', 'instanceprofile.garbagecollection'],
      ['ERROR', 'nodeclaim.lifecycle'],
    ]);
  });

  it('keeps klog lines of old versions (level, no time: klog prints no year) and a partly written last line', async () => {
    // Act
    const { snapshot } = await loadLog(
      [
        'E0108 10:00:04.951000       1 reflector.go:138] Failed to watch *v1.Node: nodes is forbidden',
        ACCESS_DENIED,
        ACCESS_DENIED.slice(0, 60),
      ].join('\n'),
    );

    // Assess
    expect(snapshot.logs.map((l) => [l.level, l.time, l.message.slice(0, 25)])).toEqual([
      ['ERROR', undefined, 'Failed to watch *v1.Node:'],
      ['ERROR', '2025-12-28T20:35:39.951Z', 'Reconciler error'],
      [undefined, undefined, ACCESS_DENIED.slice(0, 25)],
    ]);
  });

  it("reads zap's console format without its time: the level and logger are read, not left in the message", async () => {
    // Prepare: the line of aws/karpenter-provider-aws#3584 (test/incidents/iam-eks-describecluster-missing)
    const fatal =
      'FATAL\tcontroller.aws\tunable to detect the cluster endpoint, failed to resolve cluster endpoint, AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-pay-eks/1678700083010048590 is not authorized to perform: eks:DescribeCluster on resource: arn:aws:eks:us-west-2:111122223333:cluster/pay-eks';

    // Act
    const { snapshot } = await loadLog([fatal, 'INFO\tstarting'].join('\n'));

    // Assess
    expect(snapshot.logs.map((l) => [l.level, l.time, l.fields.logger, l.message.slice(0, 37)])).toEqual([
      ['FATAL', undefined, 'controller.aws', 'unable to detect the cluster endpoint'],
      ['INFO', undefined, undefined, 'starting'],
    ]);
  });

  it('reads a very long single line (a 5 MB error message) as one line', async () => {
    // Prepare
    const long = JSON.stringify({
      level: 'ERROR',
      time: '2025-12-28T20:35:39.951Z',
      message: 'Reconciler error',
      error: 'x'.repeat(5_000_000),
    });

    // Act
    const { snapshot } = await loadLog(`${long}\n${ACCESS_DENIED}`);

    // Assess
    expect(snapshot.logs.map((l) => [l.level, l.error?.length])).toEqual([
      ['ERROR', 5_000_000],
      ['ERROR', JSON.parse(ACCESS_DENIED).error.length],
    ]);
  });

  it('captures an empty log as "logs read, nothing in them"', async () => {
    // Act
    const { snapshot } = await loadLog('\n  \n', 'controller.LOG');

    // Assess
    expect(snapshot.captured).toEqual(new Set(['logs']));
    expect(snapshot.logs).toEqual([]);
  });

  it('recognises logs by the .log suffix only: the same lines in a .txt file are not understood', async () => {
    // Prepare
    const dir = await captureDir({ 'karpenter.txt': 'E1228 20:35:39.951234 1 reflector.go:158] failed to list\n' });

    // Act
    const loading = loadSnapshot([dir]);

    // Assess
    await expect(loading).rejects.toThrow(/karpenter\.txt: .*controller logs need a \.log suffix/);
  });
});

describe('readControllerLogFrom: a log read a piece at a time', () => {
  it('keeps the last 200,000 lines of a longer log, and says so', async () => {
    // Prepare: one line more, then a blank one (not counted)
    const text = `${Array.from({ length: 200_001 }, (_, i) => `line ${i + 1}`).join('\n')}\n\n`;

    // Act
    const { snapshot, notices, file } = await loadLog(text);

    // Assess
    expect(snapshot.logs).toHaveLength(200_000);
    expect(snapshot.logs[0]).toMatchObject({ message: 'line 2', origin: `${file}:2` });
    expect(snapshot.logs.at(-1)).toMatchObject({ message: 'line 200001', origin: `${file}:200001` });
    expect(notices).toEqual([`${file}: read the last 200,000 of 200,001 log lines`]);
  });

  it('gives the lines reading it whole gives, however the pieces cut lines and characters', () => {
    // Prepare: CRLF, a blank line, a character of 3 bytes and one of 4, no final line break
    const text = `${ACCESS_DENIED}\r\n\n2025-12-28T20:35:39Z ERROR nœud ☃ 🚀 not ready\n${LAUNCH_FAILED}`;
    const bytes = Buffer.from(text, 'utf8');

    for (const size of [1, 2, 3, 5, 64, bytes.length]) {
      // Act
      const { lines } = readControllerLogFrom(piecesOf(bytes, size), 'karpenter.log');

      // Assess
      expect(lines).toEqual(readControllerLog(text, 'karpenter.log'));
    }
  });
});

function piecesOf(bytes: Buffer, size: number) {
  let at = 0;
  return {
    next: () => (at < bytes.length ? bytes.subarray(at, (at += size)) : undefined),
    close: () => {
      at = bytes.length;
    },
  };
}

describe('loadSnapshot: the previous container log', () => {
  it('marks the lines of karpenter-previous.log (gzipped too) as previous, and leaves karpenter.log as it was', async () => {
    // Prepare
    const dir = await captureDir({
      'karpenter.log': `${ACCESS_DENIED}\n`,
      'karpenter-previous.log.gz': gzipSync('panic: Unable to start manager, leader election lost\n'),
    });
    // Act
    const { snapshot } = await loadSnapshot([dir]);
    // Assess
    expect(snapshot.captured).toEqual(new Set(['logs']));
    expect(snapshot.logs.map((l) => [l.message, l.previous ?? false])).toEqual([
      ['panic: Unable to start manager, leader election lost', true],
      ['Reconciler error', false],
    ]);
    expect(snapshot.logs[0]?.origin).toBe(`${join(dir, 'karpenter-previous.log.gz')}:1`);
    expect(snapshot.logs[1]).not.toHaveProperty('previous');
  });

  it.each([
    ['karpenter-previous.log', true],
    ['previous.log', true],
    ['controller_previous.log.gz', true],
    ['logs/karpenter.previous.log', true],
    ['karpenter.log', false],
    ['previously.log', false],
    ['karpenter-previous.txt', false],
  ])('%s is a previous log: %s', (name, expected) => {
    expect(isPreviousControllerLog(name)).toBe(expected);
  });
});
