/** Runs the CLI in-process with captured streams and, where a test wants it, fake services. */
import type { TerminalEnvironment } from '../../../src/config.ts';
import { runCli } from '../../../src/cli/main.ts';
import type { CliServices } from '../../../src/cli/io.ts';
import type { Detector } from '../../../src/detectors/detector.ts';
import type { Severity } from '../../../src/domain/codes.ts';
import { manualRemediation, newFinding, proposedAction } from '../../../src/domain/finding.ts';
import type { ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import type { LoadOptions, LoadResult } from '../../../src/snapshot/load.ts';
import { ageMs, isoSeconds } from '../../../src/domain/kube-helpers.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  isTTY?: boolean;
  /**
   * Tests of what is said run on a terminal wide enough that nothing wraps (COLUMNS=1000); tests
   * of how it fits pass their own width, or `terminal: { columns: undefined }` for a pipe's.
   */
  terminal?: Partial<TerminalEnvironment>;
  services?: Partial<CliServices>;
}

export async function run(argv: string[], options: RunOptions = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    {
      stdout: { write: (s: string) => out.push(s), isTTY: options.isTTY ?? false },
      stderr: { write: (s: string) => err.push(s), isTTY: options.isTTY ?? false },
      terminal: { noColor: false, forceColor: false, columns: 1000, ...options.terminal },
    },
    options.services,
  );
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** A loader that hands back `snapshot` and remembers how it was called. */
export function fakeLoader(snapshot: ClusterSnapshot, notices: string[] = []) {
  const calls: { paths: readonly string[]; options: LoadOptions | undefined }[] = [];
  const loadSnapshot = async (paths: readonly string[], options?: LoadOptions): Promise<LoadResult> => {
    calls.push({ paths, options });
    return {
      snapshot: options?.clusterName ? { ...snapshot, clusterName: options.clusterName } : snapshot,
      notices,
      files: paths.length,
    };
  };
  return { loadSnapshot, calls };
}

/**
 * Stands in for the real controller-pending detector (written elsewhere): every Pending pod older
 * than the controller-pending threshold is a critical finding with a ROLLOUT_RESTART proposal.
 */
export const pendingControllerDetector: Detector<'KARPENTER_CONTROLLER_PENDING'> = {
  code: 'KARPENTER_CONTROLLER_PENDING',
  requires: ['pods'],
  refinedBy: [],
  detect(ctx) {
    const stuck = ctx.snapshot.pods.filter(
      (p) =>
        p.status?.phase === 'Pending' && (ageMs(p.metadata?.creationTimestamp, ctx.now) ?? 0) >= ctx.settings.controllerPendingMs,
    );
    const first = stuck[0];
    if (!first) return [];
    return [
      newFinding({
        code: 'KARPENTER_CONTROLLER_PENDING',
        severity: 'critical',
        title: 'Karpenter controller has no ready replica',
        resource: { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' },
        since: isoSeconds(first.metadata?.creationTimestamp),
        cause: { code: 'FARGATE_SCHEDULER_RACE', detail: 'pods use default-scheduler though profile karpenter is ACTIVE' },
        evidence: stuck.map((p) => `pod ${p.metadata?.namespace}/${p.metadata?.name} Pending`),
        remediation: proposedAction('ROLLOUT_RESTART', ['kubectl rollout restart deployment -n karpenter karpenter']),
      }),
    ];
  },
};

/** One finding of the given severity whenever NodeClasses were captured. */
export function fixedSeverityDetector(severity: Severity): Detector<'AMI_SELECTOR_UNSCOPED'> {
  return {
    code: 'AMI_SELECTOR_UNSCOPED',
    requires: ['ec2nodeclasses'],
    refinedBy: [],
    detect: () => [
      newFinding({
        code: 'AMI_SELECTOR_UNSCOPED',
        severity,
        title: 'EC2NodeClass default selects AMIs by name without an owner',
        resource: { kind: 'EC2NodeClass', name: 'default' },
        since: null,
        cause: { code: 'NO_OWNER', detail: 'amiSelectorTerms[0] has name but no owner' },
        evidence: ['amiSelectorTerms[0].name = amazon-eks-node-1.31-*'],
        remediation: manualRemediation([
          'kubectl patch ec2nodeclass default --type=json -p=\'[{"op":"add","path":"/spec/amiSelectorTerms/0/owner","value":"602401143452"}]\'',
        ]),
      }),
    ],
  };
}

/** An ANSI escape sequence introducer (ESC [). */
export const ANSI = new RegExp(String.raw`\x1b\[`);
