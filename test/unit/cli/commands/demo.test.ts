import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW, HEADLINE_EXAMPLE } from '../../../../src/cli/commands/demo.ts';
import type { LoadResult } from '../../../../src/snapshot/load.ts';
import { InputError } from '../../../../src/domain/errors.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { karpenterPod, T0 } from '../../../factories/kube.ts';
import { ANSI, pendingControllerDetector, run } from '../cli-harness.ts';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sentinel-demo-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function example(name: string, readme?: string): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, 'pods.json'), '{"apiVersion":"v1","kind":"List","items":[]}');
  if (readme !== undefined) await writeFile(join(root, name, 'README.md'), readme);
}

/** Every example holds one controller pod Pending since T0; `broken` examples fail to load. */
function demoServices(broken: string[] = []) {
  const loaded: string[] = [];
  const loadSnapshot = async (paths: readonly string[]): Promise<LoadResult> => {
    const path = paths[0] ?? '';
    loaded.push(path);
    if (broken.some((b) => path.includes(b))) throw new InputError(join(path, 'pods.json'), 'not JSON or YAML');
    return {
      snapshot: snapshotOf({ pods: [karpenterPod({ name: 'karpenter-5697769d6c-x7k2p', createdAt: T0 })] }),
      notices: [],
      files: 1,
    };
  };
  return {
    loaded,
    services: {
      loadSnapshot,
      detectors: [pendingControllerDetector],
      examplesRoot: pathToFileURL(`${root}/`),
      clock: () => new Date('2026-01-01T01:00:00Z'),
    },
  };
}

describe('demo', () => {
  it('narrates each example, in name order, then prints its report; exit 0 although findings were made', async () => {
    await example('fargate-race', '# Fargate scheduler race: the controller never starts\n\nFrom seed 000.\n');
    await example('aws-auth-missing', '\n## Node role missing from aws-auth\n');
    const { loaded, services } = demoServices();

    const result = await run(['demo'], { services });

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(loaded).toEqual([join(root, 'aws-auth-missing'), join(root, 'fargate-race')].map((p) => `${p}/`));
    expect(result.stdout).toContain(
      '=== example 1/2: aws-auth-missing ===\nNode role missing from aws-auth\n$ karpenter-sentinel scan --simulate examples/aws-auth-missing --apply --now 2026-01-01T01:00:00Z\n\ncluster demo',
    );
    expect(result.stdout).toContain('=== example 2/2: fargate-race ===\nFargate scheduler race: the controller never starts\n');
    expect(result.stdout.match(/^\d+ critical, \d+ warning, \d+ info$/gm)).toHaveLength(2);
    expect(result.stdout).not.toMatch(ANSI);
    // No cleanup-partial-destroy among these examples: no cleanup act.
    expect(result.stdout).not.toContain('destroy-time cleanup');
  });

  it('opens with the headline case, fargate-bootstrap-deadlock, then the others in name order', async () => {
    for (const name of ['zeta', HEADLINE_EXAMPLE, 'alpha']) await example(name);
    const { loaded, services } = demoServices();

    const result = await run(['demo'], { services });

    expect(HEADLINE_EXAMPLE).toBe('fargate-bootstrap-deadlock');
    expect(loaded).toEqual([HEADLINE_EXAMPLE, 'alpha', 'zeta'].map((name) => `${join(root, name)}/`));
    expect(result.stdout).toMatch(/^=== example 1\/3: fargate-bootstrap-deadlock ===\n/);
  });

  it('wraps its narration to the terminal, leaving the command to run whole', async () => {
    await example('fargate-race', '# Karpenter’s pods were created before their Fargate profile was active, and sit Pending\n');
    const { services } = demoServices();

    const result = await run(['demo'], { services, terminal: { columns: 60 } });

    expect(result.stdout).toContain(
      [
        '=== example 1/1: fargate-race ===',
        'Karpenter’s pods were created before their Fargate profile',
        'was active, and sit Pending',
        '$ karpenter-sentinel scan --simulate examples/fargate-race --apply --now 2026-01-01T01:00:00Z',
      ].join('\n'),
    );
  });

  it('judges every example at the instant its captures were frozen, not the wall clock', async () => {
    await example('fargate-race');
    const { services } = demoServices();

    const result = await run(['demo'], { services: { ...services, clock: () => new Date('2030-06-01T00:00:00Z') } });

    expect(result.stdout).toContain(`$ karpenter-sentinel scan --simulate examples/fargate-race --apply --now ${EXAMPLES_NOW}`);
    expect(result.stdout).toContain(`cluster demo at ${EXAMPLES_NOW}`);
  });

  it('--now overrides every example', async () => {
    await example('fargate-race', 'Fargate race, see `scan --now 2026-01-01T01:00:00Z`\n');
    const { services } = demoServices();

    const result = await run(['demo', '--now', '2026-01-01T00:02:00Z'], { services });

    expect(result.stdout).toContain('cluster demo at 2026-01-01T00:02:00Z');
    expect(result.stdout).toContain('No findings.');
  });

  it('reports an example that cannot be read in one line, still runs the others, exit 2', async () => {
    await example('a-broken');
    await example('b-fine');
    const { services } = demoServices(['a-broken']);

    const result = await run(['demo'], { services });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`karpenter-sentinel: example a-broken: ${join(root, 'a-broken')}/pods.json: not JSON or YAML\n`);
    expect(result.stdout).toContain('=== example 2/2: b-fine ===');
    expect(result.stdout).toContain('CRITICAL KARPENTER_CONTROLLER_PENDING');
  });

  it('colours the narration and the reports on a terminal', async () => {
    await example('fargate-race');
    const { services } = demoServices();

    const result = await run(['demo'], { services, isTTY: true });

    expect(result.stdout).toContain('\u001b[1m=== example 1/1: fargate-race ===\u001b[22m');
  });

  it.each([
    ['an empty folder', async () => {}],
    ['a missing folder', async () => rm(root, { recursive: true })],
  ])('says so in one line when examples/ is %s, exit 2', async (_case, prepare) => {
    await prepare();
    const { services } = demoServices();

    const result = await run(['demo'], { services });

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`karpenter-sentinel: ${root}/: no bundled examples found (is this a complete install?)\n`);
  });

  it('leads its summary with the money at stake across the examples, and each priced report with its own', async () => {
    await example('alpha');
    await example('beta');
    const { services } = demoServices();
    const cost = { perDayUsd: 3.61, basis: '1 × t3a.xlarge on-demand at $0.1504/h (on-demand, test prices); × 24 h' };
    const priced: typeof pendingControllerDetector = {
      ...pendingControllerDetector,
      detect: (ctx) => pendingControllerDetector.detect(ctx).map((f) => ({ ...f, cost })),
    };

    const result = await run(['demo'], { services: { ...services, detectors: [priced] } });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--now 2026-01-01T01:00:00Z\n\n≈ $3.61/day at stake across 1 finding\ncluster demo');
    expect(result.stdout).toContain(
      '=== summary ===\n≈ $7.22/day at stake across 2 findings.\n2 simulated clusters scanned, 2 findings.',
    );
  });

  it('has no money line in its summary when nothing was priced', async () => {
    await example('alpha');
    const { services } = demoServices();

    const result = await run(['demo'], { services });

    expect(result.stdout).toContain('=== summary ===\n1 simulated clusters scanned, 1 findings.');
    expect(result.stdout).not.toContain('at stake');
  });

  it('rejects a bad --now before scanning anything', async () => {
    await example('fargate-race');
    const { loaded, services } = demoServices();

    const result = await run(['demo', '--now', 'soon'], { services });

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^karpenter-sentinel: --now must be an ISO-8601 time/);
    expect(loaded).toEqual([]);
  });
});

describe('demo on the bundled examples', () => {
  it('reads every example, explains each failure and exits 0', async () => {
    const result = await run(['demo']);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const expected of [
      'FARGATE_SCHEDULER_RACE',
      'ROLLOUT_RESTART applied',
      'restarted Deployment karpenter/karpenter — restartedAt=2026-01-01T01:00:00Z (restart 1 of at most 3 in an hour)',
      'NODE_ROLE_NOT_MAPPED',
      'arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node',
      'ORPHANED_INSTANCE',
      'TERMINATE_INSTANCE applied',
      'terminated instance i-0a3f1c9e8b7d6a501 — now shutting-down',
      'Fixed automatically: 1 controller restart(s), 4 orphaned instance(s) terminated.',
      'SPOT_SERVICE_LINKED_ROLE_MISSING',
      'iam:ListInstanceProfiles',
      'CRD_CONVERSION_WEBHOOK_BROKEN',
      'AMI_NOT_FOUND',
    ]) {
      expect(result.stdout).toContain(expected);
    }
    // The money at stake heads the summary: the orphans, the relaunch loop, the nodes held terminating.
    expect(result.stdout).toMatch(/=== summary ===\n≈ \$\d+\.\d\d\/day at stake across [1-9]\d* findings\.\n/);
  });

  it('opens with the headline: the controller deadlocked on Fargate, found and restarted, on the first screen', async () => {
    const result = await run(['demo'], { terminal: { columns: 80 } });

    const firstScreen = result.stdout.split('\n').slice(0, 40);
    // Every bundled example is shown, however many there are.
    const examples = readdirSync(new URL('../../../../examples/', import.meta.url), { withFileTypes: true }).filter((d) =>
      d.isDirectory(),
    ).length;
    expect(firstScreen[0]).toBe(`=== example 1/${examples}: fargate-bootstrap-deadlock ===`);
    const text = firstScreen.join('\n');
    expect(text).toContain('CRITICAL KARPENTER_CONTROLLER_PENDING Deployment karpenter/karpenter');
    expect(text).toContain('cause: FARGATE_SCHEDULER_RACE');
    expect(text).toContain(
      'remediation: ROLLOUT_RESTART applied; it ran:\n    1. kubectl rollout restart deployment -n karpenter karpenter',
    );
    expect(text).toContain('What karpenter-sentinel did:\n  restarted Deployment karpenter/karpenter');
  });

  it('fits an 80-column terminal: a line runs longer only for a command or one word too long to break', async () => {
    const result = await run(['demo'], { terminal: { columns: 80 } });

    const lines = result.stdout.split('\n');
    const command = /^(\$ karpenter-sentinel | {4}\d+\. | {7}| {4}(kubectl|aws|helm|eksctl) )/;
    const tooWide = lines.filter((l) => l.length > 80 && !command.test(l));
    for (const line of tooWide) expect(line.trim().replace(/^- /, '')).not.toContain(' ');
    // Before wrapping, 45% of the demo's non-empty lines were wider than 80.
    expect(lines.filter((l) => l.length > 80).length / lines.filter(Boolean).length).toBeLessThan(0.15);
  });

  it('then cleans up after the partial destroy: exactly the leftovers of cleanup-partial-destroy', async () => {
    const result = await run(['demo']);

    const cleanup = result.stdout.slice(result.stdout.indexOf('=== destroy-time cleanup: cleanup-partial-destroy ==='));
    expect(cleanup).toContain('$ karpenter-sentinel cleanup --simulate examples/cleanup-partial-destroy --apply');
    expect(cleanup).toContain(
      '[2/4] instances: terminating 3 instances: i-04c1e8a2f6b9d3705, i-07e3b9d1c5a2f8406, i-09a5d2f7e1c4b6308',
    );
    expect(cleanup).toContain('Complete: every step ran to its end without errors.');
    expect(cleanup).toContain(
      'Cleaned up after a partial destroy: 2 NodePool(s), 3 instance(s), 2 launch template(s), 2 instance profile(s).',
    );
  });
});
