/**
 * A folder where the capture script runs for real (sh or bash) against stub `kubectl` and `aws`
 * on PATH: small sh scripts that print canned outputs written by the test. The stubs print what
 * kubectl 1.32 and AWS CLI v1 print (kubectl's `-o json` is JSON.stringify(…, null, 4): checked
 * against the real kubectl in test/simulator/capture-script-redact.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { run } from '../cli-harness.ts';

const EMPTY_LIST = '{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}';

/** What kubectl's config says; unset fields print nothing (`current-context` then fails as kubectl does). */
interface KubeconfigStub {
  context?: string;
  /** The context's cluster entry name. */
  contextCluster?: string;
  server?: string;
}

interface StubOutputs {
  /** `kubectl get RESOURCE ...` (first word after get) → what it prints on stdout; an empty List otherwise. */
  kubectl?: Record<string, string>;
  /** `aws SERVICE OPERATION` → stdout, or `{ stderr, code }` for a failure. */
  aws?: Record<string, string | { stderr: string; code: number }>;
  /** `aws eks describe-cluster --query cluster.endpoint`; a ResourceNotFound failure when absent. */
  endpoint?: string;
  /** `aws configure get region`; exit 1 (as AWS CLI v1 with none configured) when absent. */
  configuredRegion?: string;
}

const KUBECTL = `#!/bin/sh
case "$*" in
  "config current-context")
    [ -n "$STUB_CONTEXT" ] || { echo 'error: current-context is not set' >&2; exit 1; }
    printf '%s\\n' "$STUB_CONTEXT" ;;
  "config view --minify -o jsonpath="*".context.cluster}") printf '%s' "$STUB_CONTEXT_CLUSTER" ;;
  "config view --minify -o jsonpath="*".cluster.server}") printf '%s' "$STUB_SERVER" ;;
  "get pods -A -l"*) exit 0 ;;
  logs*) echo 'Error from server (NotFound): pods "karpenter" not found' >&2; exit 1 ;;
  get*)
    if [ -f "$STUB_DIR/kubectl-$2" ]; then cat "$STUB_DIR/kubectl-$2"; else echo '${EMPTY_LIST}'; fi ;;
  *) echo "stub kubectl: unexpected: $*" >&2; exit 1 ;;
esac
`;

const AWS = `#!/bin/sh
printf '%s\\n' "$*" >>"$STUB_DIR/aws-calls"
case "$*" in
  "configure get region")
    if [ -f "$STUB_DIR/aws-region" ]; then cat "$STUB_DIR/aws-region"; exit 0; else exit 1; fi ;;
  *"describe-cluster"*"cluster.endpoint"*)
    if [ -f "$STUB_DIR/aws-endpoint" ]; then cat "$STUB_DIR/aws-endpoint"; exit 0; else
      echo 'An error occurred (ResourceNotFoundException) when calling the DescribeCluster operation: No cluster found for name: x.' >&2; exit 254; fi ;;
  *"--query"*) exit 0 ;;
esac
while [ $# -gt 0 ] && [ "$1" != ec2 ] && [ "$1" != eks ] && [ "$1" != iam ]; do shift; done
f="$STUB_DIR/aws-$1-$2"
if [ -f "$f.err" ]; then cat "$f.err" >&2; exit "$(cat "$f.code")"; fi
if [ -f "$f" ]; then cat "$f"; else echo '{}'; fi
`;

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The folder the script wrote, if it wrote one. */
  folder: string | undefined;
  /** The .tgz, unzipped (a tar stream: names and contents in the clear). */
  packed: string | undefined;
  /** What the stub aws was called with, one call a line. */
  awsCalls: string;
}

export interface StubWorkspace {
  dir: string;
  /** Prints the script with `capture-script ARGS`, then runs `SHELL capture.sh SCRIPT_ARGS`. */
  capture(
    options: { argv?: string[]; scriptArgs?: string[]; shell?: string; env?: Record<string, string> },
    kubeconfig: KubeconfigStub,
    outputs: StubOutputs,
  ): Promise<ScriptRun>;
  remove(): Promise<void>;
}

export async function stubWorkspace(): Promise<StubWorkspace> {
  const root = await mkdtemp(join(tmpdir(), 'sentinel-capture-stubs-'));
  let runs = 0;
  return {
    dir: root,
    async capture({ argv = [], scriptArgs = [], shell = 'sh', env = {} }, kubeconfig, outputs) {
      const dir = join(root, `run-${++runs}`);
      const stubs = join(dir, 'stubs');
      const bin = join(dir, 'bin');
      await mkdir(stubs, { recursive: true });
      await mkdir(bin);
      await writeFile(join(bin, 'kubectl'), KUBECTL);
      await writeFile(join(bin, 'aws'), AWS);
      await chmod(join(bin, 'kubectl'), 0o755);
      await chmod(join(bin, 'aws'), 0o755);
      for (const [resource, text] of Object.entries(outputs.kubectl ?? {}))
        await writeFile(join(stubs, `kubectl-${resource}`), text);
      for (const [call, answer] of Object.entries(outputs.aws ?? {})) {
        const file = join(stubs, `aws-${call.replace(' ', '-')}`);
        if (typeof answer === 'string') await writeFile(file, answer);
        else {
          await writeFile(`${file}.err`, answer.stderr);
          await writeFile(`${file}.code`, String(answer.code));
        }
      }
      if (outputs.endpoint) await writeFile(join(stubs, 'aws-endpoint'), `${outputs.endpoint}\n`);
      if (outputs.configuredRegion) await writeFile(join(stubs, 'aws-region'), `${outputs.configuredRegion}\n`);
      const printed = await run(['capture-script', ...argv]);
      if (printed.code !== 0) throw new Error(`capture-script failed: ${printed.stderr}`);
      await writeFile(join(dir, 'capture.sh'), printed.stdout);

      const result = spawnSync(shell, ['capture.sh', ...scriptArgs], {
        cwd: dir,
        // Not the test runner's environment: no AWS_REGION or KUBECONFIG of its own.
        env: {
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          HOME: dir,
          STUB_DIR: stubs,
          STUB_CONTEXT: kubeconfig.context ?? '',
          STUB_CONTEXT_CLUSTER: kubeconfig.contextCluster ?? '',
          STUB_SERVER: kubeconfig.server ?? '',
          ...env,
        },
        encoding: 'utf8',
      });
      const names = await readdir(dir);
      const folder = names.find((n) => n.startsWith('karpenter-capture-') && !n.endsWith('.tgz'));
      const tgz = names.find((n) => n.endsWith('.tgz'));
      const awsCalls = await readFile(join(stubs, 'aws-calls'), 'utf8').catch(() => '');
      return {
        code: result.status,
        stdout: result.stdout,
        stderr: result.stderr,
        folder: folder && join(dir, folder),
        packed: tgz && gunzipSync(await readFile(join(dir, tgz))).toString('latin1'),
        awsCalls,
      };
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
