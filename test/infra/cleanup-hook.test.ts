/**
 * The Terraform destroy-time hook (infra/terraform/karpenter-cleanup): its POSIX sh script run with
 * `sh` against a fake `aws` first on PATH that records its arguments and answers from a queue of
 * canned invocations, and the module's text checked for what a destroy provisioner may use.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CleanupResult } from '../../src/domain/cleanup.ts';
import { cleanupResult } from '../factories/cleanup.ts';

const MODULE_DIR = path.resolve(import.meta.dirname, '../../infra/terraform/karpenter-cleanup');
const SCRIPT = path.join(MODULE_DIR, 'invoke-cleanup.sh');
const FUNCTION_NAME = 'karpenter-sentinel-prod-cleanup';

/** Records every call (one argument per line), answers from reply-<n>.*, else reply-default.*. */
const FAKE_AWS = `#!/bin/sh
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
if [ "\${1:-}" = --version ]; then cat "$dir/version"; exit 0; fi
n=$(( $(cat "$dir/calls") + 1 ))
printf '%s\\n' "$n" > "$dir/calls"
printf '%s\\n' "$@" > "$dir/call-$n.args"
reply="$dir/reply-$n"
[ -f "$reply.out" ] || reply="$dir/reply-default"
[ -f "$reply.out" ] || { echo "fake aws: no reply for call $n" >&2; exit 255; }
if [ -f "$reply.exit" ]; then cat "$reply.stderr" >&2; exit "$(cat "$reply.exit")"; fi
eval "response=\\\${$#}"
cp "$reply.json" "$response"
cat "$reply.out"
`;

type Reply =
  /** What the function returned: the CLI prints "None" for FunctionError. */
  | { result: CleanupResult }
  /** The function threw or was killed: FunctionError is set and the payload is Lambda's error object. */
  | { functionError: string; payload: { errorType: string; errorMessage: string; trace?: string[] } }
  /** The CLI itself failed (credentials, throttling, no such function): no response file. */
  | { cliExit: number; cliStderr: string };

let workDir: string;
let binDir: string;
let scratchDir: string;

beforeEach(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'karpenter-cleanup-hook-'));
  binDir = path.join(workDir, 'bin');
  scratchDir = path.join(workDir, 'tmp');
  mkdirSync(binDir);
  mkdirSync(scratchDir);
  writeFileSync(path.join(binDir, 'aws'), FAKE_AWS);
  chmodSync(path.join(binDir, 'aws'), 0o755);
  writeFileSync(path.join(binDir, 'calls'), '0\n');
  awsVersion('aws-cli/2.22.35 Python/3.12.6 Linux/6.1 exe/x86_64.ubuntu.24');
});

afterEach(() => {
  rmSync(workDir, { recursive: true, force: true });
});

function awsVersion(line: string): void {
  writeFileSync(path.join(binDir, 'version'), `${line}\n`);
}

/** Replies in order; `forever` is the answer once the queue is used up. */
function replies(queue: Reply[], forever?: Reply): void {
  queue.forEach((reply, i) => writeReply(`reply-${i + 1}`, reply));
  if (forever) writeReply('reply-default', forever);
}

function writeReply(name: string, reply: Reply): void {
  const file = (ext: string, text: string) => writeFileSync(path.join(binDir, `${name}.${ext}`), text);
  if ('cliExit' in reply) {
    file('out', '');
    file('exit', String(reply.cliExit));
    file('stderr', `${reply.cliStderr}\n`);
  } else if ('functionError' in reply) {
    file('out', `${reply.functionError}\n`);
    file('json', JSON.stringify(reply.payload));
  } else {
    file('out', 'None\n');
    file('json', JSON.stringify(reply.result));
  }
}

const result = cleanupResult;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The arguments of each `aws lambda invoke`, in order. */
  invokes: string[][];
}

/** Runs the script with only the variables given (no AWS_* from the test's own environment). */
function runHook(env: Record<string, string>): Run {
  const run = spawnSync('sh', [SCRIPT], {
    env: { PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`, HOME: workDir, TMPDIR: scratchDir, ...env },
    encoding: 'utf8',
    timeout: 15_000,
  });
  const calls = Number(readFileSync(path.join(binDir, 'calls'), 'utf8'));
  const invokes = Array.from({ length: calls }, (_, i) =>
    readFileSync(path.join(binDir, `call-${i + 1}.args`), 'utf8')
      .replace(/\n$/, '')
      .split('\n'),
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, invokes };
}

const BASE_ENV = { CLUSTER_NAME: 'demo', FUNCTION_NAME, AWS_REGION: 'eu-west-1' };

function optionValue(args: readonly string[], option: string): string | undefined {
  const at = args.indexOf(option);
  return at < 0 ? undefined : args[at + 1];
}

function sentPayload(args: readonly string[] | undefined): unknown {
  return JSON.parse(optionValue(args ?? [], '--payload') ?? 'null');
}

describe('invoke-cleanup.sh', () => {
  it('invokes the function once and exits 0 when the first run completes', () => {
    replies([
      {
        result: result({
          nodePoolsDeleted: ['on-demand', 'spot-pool'],
          instancesTerminated: ['i-0a1', 'i-0b2', 'i-0c3'],
          launchTemplatesDeleted: ['lt-0123'],
          instanceProfilesDeleted: ['demo_4518170523645393042'],
        }),
      },
    ]);

    const run = runHook({ ...BASE_ENV, NODE_POOLS: 'spot-pool, on-demand' });

    expect(run.status).toBe(0);
    expect(run.invokes).toHaveLength(1);
    const args = run.invokes[0] ?? [];
    expect(args.slice(0, 2)).toEqual(['lambda', 'invoke']);
    expect(optionValue(args, '--function-name')).toBe(FUNCTION_NAME);
    expect(optionValue(args, '--region')).toBe('eu-west-1');
    expect(optionValue(args, '--cli-binary-format')).toBe('raw-in-base64-out');
    expect(Number(optionValue(args, '--cli-read-timeout'))).toBeGreaterThan(900);
    expect(optionValue(args, '--query')).toBe('FunctionError');
    expect(optionValue(args, '--output')).toBe('text');
    expect(args.at(-1)).toMatch(/response\.json$/);
    expect(sentPayload(args)).toEqual({
      clusterName: 'demo',
      dryRun: false,
      deleteNodePools: true,
      nodePools: ['spot-pool', 'on-demand'],
    });
    expect(run.stdout).toContain(
      'cluster demo is clean after 1 invocation(s): deleted 2 NodePool(s), terminated 3 instance(s), deleted 1 launch template(s) and 1 instance profile(s)',
    );
    expect(run.stdout).toContain('instancesTerminated (3): i-0a1 i-0b2 i-0c3');
    expect(run.stderr).toBe('');
  });

  it('prints the result’s notes (a cluster that does not exist) and still exits 0 when the run completed', () => {
    const note =
      'no cluster demo in eu-west-1 (deleted already, or a wrong name or region?): no NodePools to delete; only leftovers tagged for it in eu-west-1 are cleaned';
    replies([{ result: { ...result({ instancesTerminated: ['i-0a1'] }), notes: [note] } }]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`karpenter-cleanup: note: ${note}\n`);
    expect(run.stdout).toContain('cluster demo is clean after 1 invocation(s)');
  });

  it('sends no nodePools without NODE_POOLS (every NodePool) and no --region without AWS_REGION (the CLI decides)', () => {
    replies([{ result: result() }]);

    const run = runHook({ CLUSTER_NAME: 'demo', FUNCTION_NAME, DELETE_NODE_POOLS: 'false' });

    expect(run.status).toBe(0);
    expect(sentPayload(run.invokes[0])).toEqual({ clusterName: 'demo', dryRun: false, deleteNodePools: false });
    expect(run.invokes[0]).not.toContain('--region');
  });

  it('leaves out --cli-binary-format for AWS CLI v1, which does not know it and sends the payload as it is', () => {
    awsVersion('aws-cli/1.45.11 Python/3.11.7 Linux/6.1 botocore/1.43.11');
    replies([{ result: result() }]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(0);
    expect(run.invokes[0]).not.toContain('--cli-binary-format');
    expect(optionValue(run.invokes[0] ?? [], '--cli-read-timeout')).toBeDefined();
  });

  it('invokes again when a run ran out of time, and exits 0 once the next one completes', () => {
    replies([
      {
        result: result({
          complete: false,
          stoppedAt: 'instances',
          nodePoolsDeleted: ['default'],
          instancesTerminated: ['i-0a1'],
        }),
      },
      { result: result({ instancesTerminated: ['i-0b2'], launchTemplatesDeleted: ['lt-0123'] }) },
    ]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(0);
    expect(run.invokes).toHaveLength(2);
    expect(sentPayload(run.invokes[1])).toEqual(sentPayload(run.invokes[0]));
    expect(run.stdout).toContain('ran out of time at step instances; invoking again');
    expect(run.stdout).toContain('clean after 2 invocation(s): deleted 1 NodePool(s), terminated 2 instance(s)');
  });

  it('exits 1 naming every failed resource and step when the result has errors', () => {
    replies([
      {
        result: result({
          complete: false,
          instancesTerminated: ['i-0a1'],
          errors: [
            {
              step: 'instances',
              resource: 'i-0bad',
              message: 'TerminateInstances failed: UnauthorizedOperation: "not authorized", {ec2:TerminateInstances} [x]',
            },
            { step: 'nodepools', message: 'cannot reach the cluster API: Unauthorized; NodePools not deleted' },
          ],
        }),
      },
    ]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(1);
    expect(run.invokes).toHaveLength(1);
    expect(run.stderr).toContain('cleanup of cluster demo FAILED with 2 error(s)');
    expect(run.stderr).toContain(
      '[instances] i-0bad: TerminateInstances failed: UnauthorizedOperation: "not authorized", {ec2:TerminateInstances} [x]',
    );
    expect(run.stderr).toContain('[nodepools] cannot reach the cluster API: Unauthorized; NodePools not deleted');
  });

  it('says which steps were not started and why, and exits 1 without invoking again', () => {
    const reason =
      'instances not all known terminated: DescribeInstances (instances of cluster demo) failed: UnauthorizedOperation';
    replies([
      {
        result: result({
          complete: false,
          errors: [{ step: 'instances', message: 'DescribeInstances (instances of cluster demo) failed: UnauthorizedOperation' }],
          stepsNotStarted: [
            { step: 'launch-templates', reason },
            { step: 'instance-profiles', reason },
          ],
        }),
      },
    ]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(1);
    expect(run.invokes).toHaveLength(1);
    expect(run.stderr).toContain(
      `  - [launch-templates] not started: ${reason}\n  - [instance-profiles] not started: ${reason}\n`,
    );
  });

  it('exits 1 with the error message when the function itself failed (FunctionError)', () => {
    replies([
      {
        functionError: 'Unhandled',
        payload: {
          errorType: 'CleanupRequestError',
          errorMessage: 'invalid cleanup request: unknown field "dryrun" (did you mean "dryRun"?)',
          trace: ['CleanupRequestError: invalid cleanup request'],
        },
      },
    ]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(1);
    expect(run.invokes).toHaveLength(1);
    expect(run.stderr).toContain(
      'the cleanup function failed (Unhandled): CleanupRequestError: invalid cleanup request: unknown field "dryrun" (did you mean "dryRun"?); ' +
        "fix the module's inputs (terraform apply), then destroy again",
    );
  });

  it.each([
    [
      'without an errorType (only the message is shown)',
      { errorMessage: '2026-01-01T02:15:00.123Z 6f1e0c7a-0d2b-4f5e-9a43-2c8b7d0e1f35 Task timed out after 900.00 seconds' },
      'the cleanup function failed (Unhandled): 2026-01-01T02:15:00.123Z 6f1e0c7a-0d2b-4f5e-9a43-2c8b7d0e1f35 Task timed out after 900.00 seconds; run terraform destroy again: the cleanup carries on',
    ],
    [
      'as Sandbox.Timedout',
      {
        errorType: 'Sandbox.Timedout',
        errorMessage: 'RequestId: 6f1e0c7a-0d2b-4f5e-9a43-2c8b7d0e1f35 Error: Task timed out after 900.00 seconds',
      },
      'the cleanup function failed (Unhandled): Sandbox.Timedout: RequestId: 6f1e0c7a-0d2b-4f5e-9a43-2c8b7d0e1f35 Error: Task timed out after 900.00 seconds; run terraform destroy again: the cleanup carries on',
    ],
  ])('a function that timed out (%s): exits 1 saying to destroy again', (_case, payload, line) => {
    // Prepare
    writeFileSync(path.join(binDir, 'reply-1.out'), 'Unhandled\n');
    writeFileSync(path.join(binDir, 'reply-1.json'), JSON.stringify(payload));

    // Act
    const run = runHook(BASE_ENV);

    // Assess
    expect(run.status).toBe(1);
    expect(run.invokes).toHaveLength(1);
    expect(run.stderr.trim().split('\n')).toEqual([`karpenter-cleanup: ${line}`]);
    expect(run.stderr).not.toContain('error:');
  });

  it('another function failure gets no advice that does not fit it', () => {
    replies([
      { functionError: 'Unhandled', payload: { errorType: 'Runtime.OutOfMemory', errorMessage: 'Runtime exited with error' } },
    ]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      'karpenter-cleanup: the cleanup function failed (Unhandled): Runtime.OutOfMemory: Runtime exited with error',
    );
  });

  it('shows an instance id once when the error message already names it', () => {
    // Prepare
    replies([
      {
        result: result({
          complete: false,
          errors: [
            {
              step: 'instances',
              resource: 'i-0a1b2c3d4e5f60718',
              message:
                'TerminateInstances i-0a1b2c3d4e5f60718 failed: UnauthorizedOperation: You are not authorized to perform this operation.',
            },
            {
              step: 'instance-profiles',
              resource: 'demo_4518170523645393042',
              message: 'AccessDenied: not authorized to perform iam:DeleteInstanceProfile',
            },
          ],
        }),
      },
    ]);

    // Act
    const run = runHook(BASE_ENV);

    // Assess
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      '  - [instances] TerminateInstances i-0a1b2c3d4e5f60718 failed: UnauthorizedOperation: You are not authorized to perform this operation.\n',
    );
    expect(run.stderr.split('i-0a1b2c3d4e5f60718')).toHaveLength(2);
    expect(run.stderr).toContain(
      '  - [instance-profiles] demo_4518170523645393042: AccessDenied: not authorized to perform iam:DeleteInstanceProfile\n',
    );
  });

  it('stops after MAX_ATTEMPTS invocations that all run out of time, and exits 1', () => {
    replies([], { result: result({ complete: false, stoppedAt: 'nodepools' }) });

    const run = runHook({ ...BASE_ENV, MAX_ATTEMPTS: '3' });

    expect(run.status).toBe(1);
    expect(run.invokes).toHaveLength(3);
    expect(run.stderr).toContain('still not complete after 3 invocation(s) (stopped at step nodepools)');
  });

  it('gives up after 8 invocations by default', () => {
    replies([], { result: result({ complete: false, stoppedAt: 'instances' }) });

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(1);
    expect(run.invokes).toHaveLength(8);
  });

  it('exits 1 when the AWS CLI cannot invoke the function', () => {
    replies([
      {
        cliExit: 254,
        cliStderr: 'An error occurred (AccessDeniedException) when calling the Invoke operation: not authorized',
      },
    ]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain('AccessDeniedException');
    expect(run.stderr).toContain(`aws lambda invoke ${FUNCTION_NAME} failed`);
  });

  it('exits 1 on a response that is not a cleanup result', () => {
    writeFileSync(path.join(binDir, 'reply-1.out'), 'None\n');
    writeFileSync(path.join(binDir, 'reply-1.json'), '{"statusCode":200}');

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain('unexpected response');
  });

  it('sends dryRun true with DRY_RUN=true and says what would be done', () => {
    replies([{ result: result({ dryRun: true, instancesTerminated: ['i-0a1', 'i-0b2'] }) }]);

    const run = runHook({ ...BASE_ENV, DRY_RUN: 'true' });

    expect(run.status).toBe(0);
    expect(sentPayload(run.invokes[0])).toMatchObject({ dryRun: true });
    expect(run.stdout).toContain('would delete 0 NodePool(s), terminate 2 instance(s)');
  });

  it('exits non-zero with a one-line message when CLUSTER_NAME is missing, before calling AWS', () => {
    const run = runHook({ FUNCTION_NAME, AWS_REGION: 'eu-west-1' });

    expect(run.status).not.toBe(0);
    expect(run.invokes).toHaveLength(0);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining('CLUSTER_NAME is not set')]);
  });

  it.each([
    ['a cluster name with a quote (it would break the JSON payload)', { CLUSTER_NAME: 'demo","dryRun":true' }, 'CLUSTER_NAME'],
    ['a cluster name starting with -', { CLUSTER_NAME: '-demo' }, 'CLUSTER_NAME'],
    ['a missing function name', { FUNCTION_NAME: '' }, 'FUNCTION_NAME'],
    ['an upper-case NodePool name', { NODE_POOLS: 'spot,Default' }, "'Default' is not a NodePool name"],
    ['a NodePool name ending in -', { NODE_POOLS: 'spot-' }, "'spot-' is not a NodePool name"],
    ['MAX_ATTEMPTS 0', { MAX_ATTEMPTS: '0' }, 'MAX_ATTEMPTS'],
    ['MAX_ATTEMPTS not a number', { MAX_ATTEMPTS: 'many' }, 'MAX_ATTEMPTS'],
    ['DRY_RUN not a boolean', { DRY_RUN: 'no' }, 'DRY_RUN'],
  ])('refuses %s before calling AWS', (_case, env, message) => {
    replies([], { result: result() });

    const run = runHook({ ...BASE_ENV, ...env });

    expect(run.status).not.toBe(0);
    expect(run.invokes).toHaveLength(0);
    expect(run.stderr).toContain(message);
  });

  it('leaves nothing behind in TMPDIR', () => {
    replies([{ result: result({ complete: false, stoppedAt: 'instances' }) }, { result: result() }]);

    const run = runHook(BASE_ENV);

    expect(run.status).toBe(0);
    expect(readdirSync(scratchDir)).toEqual([]);
  });
});

describe('the karpenter-cleanup Terraform module', () => {
  const read = (file: string) => readFileSync(path.join(MODULE_DIR, file), 'utf8');
  const main = read('main.tf');
  const provisioner = main.slice(main.indexOf('provisioner "local-exec"'));
  const inputBlock = /input = \{([^}]*)\}/.exec(main)?.[1] ?? '';
  const inputKeys = [...inputBlock.matchAll(/^\s*(\w+)\s*=/gm)].map((m) => m[1]);
  /** What the script reads from the environment: its `NAME=${NAME:-...}` lines. */
  const scriptInputs = [...readFileSync(SCRIPT, 'utf8').matchAll(/^([A-Z_]+)=\$\{\1:-/gm)].map((m) => m[1]);

  it('runs the script when it is destroyed, found through path.module, with sh', () => {
    expect(main).toMatch(/resource "terraform_data" "cleanup"/);
    expect(provisioner).toMatch(/when\s*=\s*destroy/);
    expect(provisioner).toMatch(/interpreter\s*=\s*\["sh"\]/);
    expect(provisioner).toMatch(/command\s*=\s*"\$\{path\.module\}\/invoke-cleanup\.sh"/);
    // Replacing the resource would run the cleanup against a live cluster.
    expect(main).not.toMatch(/^\s*triggers_replace\s*=/m);
  });

  it('passes every variable the script reads', () => {
    expect(scriptInputs.sort()).toEqual(
      ['AWS_REGION', 'CLUSTER_NAME', 'DELETE_NODE_POOLS', 'DRY_RUN', 'FUNCTION_NAME', 'MAX_ATTEMPTS', 'NODE_POOLS'].sort(),
    );
    for (const name of scriptInputs) expect(provisioner).toMatch(new RegExp(`\\b${name}\\s*=`));
    expect(provisioner).toMatch(/DRY_RUN\s*=\s*"false"/);
  });

  it('reads only self in the destroy provisioner, and only what input keeps', () => {
    expect(provisioner).not.toMatch(/\b(var|local|module|data)\./);
    const used = [...provisioner.matchAll(/self\.input\.(\w+)/g)].map((m) => m[1]);
    expect(used.length).toBeGreaterThan(0);
    expect(inputKeys).toEqual(expect.arrayContaining([...new Set(used)]));
    expect(inputKeys).toEqual(expect.arrayContaining(['cluster_name', 'function_name', 'region', 'node_pools', 'max_attempts']));
  });

  it('validates the cluster name as EKS does, and at least one attempt', () => {
    const variables = read('variables.tf');
    const clusterPattern = /var\.cluster_name/.test(variables)
      ? new RegExp(/regex\("([^"]+)", var\.cluster_name\)/.exec(variables)?.[1] ?? 'unset')
      : undefined;

    expect(clusterPattern?.test('demo-cluster_2')).toBe(true);
    expect(clusterPattern?.test('-demo')).toBe(false);
    expect(clusterPattern?.test('demo cluster')).toBe(false);
    expect(clusterPattern?.test('d'.repeat(101))).toBe(false);
    expect(variables).toMatch(/var\.max_attempts >= 1/);
    expect(read('versions.tf')).toMatch(/required_version\s*=\s*">= 1\.4"/);
  });

  it('its README wires it with depends_on on the Helm release, the NodePools, the access entry and the cluster', () => {
    const readme = read('README.md');

    const dependsOn = /module "karpenter_cleanup" \{[^]*?depends_on = \[([^\]]*)\]/.exec(readme)?.[1] ?? '';
    for (const dependency of [
      'helm_release.karpenter',
      'kubectl_manifest.karpenter_node_pool',
      'aws_eks_access_entry.karpenter_sentinel_cleanup',
      'module.eks',
    ]) {
      expect(dependsOn).toContain(dependency);
    }
    expect(readme).toContain('source');
  });
});
