/**
 * `npm run invoke` run as a user runs it: a child process fed the sample events in events/, over
 * the example captures. Its stdout must be one JSON document; its errors one line and exit 2.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ChatNotification } from '../../src/domain/alert.ts';
import type { MetricDatum } from '../../src/domain/metric.ts';
import { CLEANED } from '../examples/cleanup-partial-destroy.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../scripts/invoke-local.ts', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface InvokeDocument {
  function: string;
  now: string;
  response?: Record<string, unknown>;
  error?: string;
  alerts: ChatNotification[];
  metrics: MetricDatum[];
  emf: Record<string, unknown>[];
  queued: { cluster: string; requestedAt: string }[];
  slack: { text?: string; blocks?: { type: string; text?: { text: string } }[] }[];
  notes: string[];
}

function invoke(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { cwd: REPO_ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The run succeeded and printed exactly one JSON document. */
function documentOf(run: Run): InvokeDocument {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as InvokeDocument;
}

const codeAndEvent = (n: ChatNotification) => ({
  code: n.metadata?.additionalContext?.code,
  event: n.metadata?.additionalContext?.event,
});

describe.concurrent('npm run invoke (offline local invoke)', () => {
  it('scan over the Fargate deadlock capture: alerts the Pending controller and the restart it applied', async () => {
    const run = await invoke('scan', 'events/scan.message.json', '--simulate', 'examples/fargate-bootstrap-deadlock');

    const doc = documentOf(run);
    expect(doc.function).toBe('scan');
    expect(doc.response).toEqual({ batchItemFailures: [] });
    expect(doc.alerts.map(codeAndEvent)).toEqual([
      { code: 'KARPENTER_CONTROLLER_PENDING', event: 'opened' },
      { code: 'KARPENTER_CONTROLLER_PENDING', event: 'remediation-applied' },
    ]);
    expect(doc.alerts[0]!.content.title).toContain('pattern-infra-eks-dev');
    expect(doc.metrics).toContainEqual(
      expect.objectContaining({
        name: 'Remediations',
        value: 1,
        dimensions: { Cluster: 'pattern-infra-eks-dev', Action: 'ROLLOUT_RESTART', Outcome: 'applied' },
      }),
    );
    // The same metrics as the deployed function writes them: EMF documents, in the document and in the log (stderr).
    expect(doc.emf).toContainEqual(
      expect.objectContaining({
        _aws: expect.objectContaining({
          CloudWatchMetrics: [
            {
              Namespace: 'KarpenterSentinel',
              Dimensions: [['Action', 'Cluster', 'Outcome']],
              Metrics: [{ Name: 'Remediations', Unit: 'Count' }],
            },
          ],
        }),
        Action: 'ROLLOUT_RESTART',
        Cluster: 'pattern-infra-eks-dev',
        Outcome: 'applied',
        Remediations: 1,
      }),
    );
    expect(run.stderr.split('\n').filter((line) => line.startsWith('{"_aws":'))).toHaveLength(doc.emf.length);
    expect(doc.notes).toEqual([]);
    // The handler's log lines go to stderr, never into the document.
    expect(run.stderr).toContain('"message":"invocation done"');
  });

  it('scan with the default capture (examples/healthy) serves the requested cluster from it, renamed, and alerts nothing', async () => {
    const doc = documentOf(await invoke('scan', 'events/scan.message.json'));

    expect(doc.response).toEqual({ batchItemFailures: [] });
    expect(doc.alerts).toEqual([]);
    expect(doc.metrics).toContainEqual(
      expect.objectContaining({ name: 'PendingPods', value: 0, dimensions: { Cluster: 'pattern-infra-eks-dev' } }),
    );
    expect(doc.notes).toEqual([
      'cluster pattern-infra-eks-dev is served by the capture examples/healthy (cluster aws-2026-eks), renamed',
    ]);
  });

  it('scan --now long after the request: the stale request is skipped, nothing is scanned', async () => {
    const doc = documentOf(await invoke('scan', 'events/scan.message.json', '--now', '2026-01-01T01:10:00Z'));

    expect(doc.now).toBe('2026-01-01T01:10:00.000Z');
    expect(doc.response).toEqual({ batchItemFailures: [] });
    expect(doc.metrics).toEqual([]);
  });

  it('scan-dispatch --clusters queues every name, stamped with the tick time; one EKS does not list is reported, its scan counts it', async () => {
    const run = await invoke(
      'scan-dispatch',
      'events/scan-dispatch.schedule.json',
      '--simulate',
      'examples/healthy',
      '--clusters',
      'aws-2026-eks,aws-2026-eks-typo',
    );

    const doc = documentOf(run);
    expect(doc.queued).toEqual([
      { cluster: 'aws-2026-eks', requestedAt: '2026-01-01T01:00:00Z' },
      { cluster: 'aws-2026-eks-typo', requestedAt: '2026-01-01T01:00:00Z' },
    ]);
    expect(doc.response).toMatchObject({ dispatched: ['aws-2026-eks', 'aws-2026-eks-typo'], notFound: ['aws-2026-eks-typo'] });
    expect(doc.metrics).toEqual([]);
  });

  it('scan-dispatch without --clusters asks the capture’s EKS: its cluster lacks the opt-in tag, nothing is queued', async () => {
    const doc = documentOf(await invoke('scan-dispatch', 'events/scan-dispatch.schedule.json'));

    expect(doc.queued).toEqual([]);
    expect(doc.response).toMatchObject({ dispatched: [], skipped: { optedOut: 1 } });
    expect(doc.notes.join('\n')).toContain(
      'aws-2026-eks of examples/healthy lacks the opt-in tag karpenter-sentinel/enabled=true',
    );
  });

  it('interruptions: each malformed record is a batch item failure; the valid one is counted', async () => {
    const doc = documentOf(await invoke('interruptions', 'events/interruptions.malformed.json'));

    expect(doc.response).toEqual({
      batchItemFailures: [
        { itemIdentifier: 'd3ae03ac-e5a8-4b49-a93a-725571155cbf' },
        { itemIdentifier: 'f324ad29-ec17-4f68-a71d-3be25ca1f8b4' },
        { itemIdentifier: '135468ed-fd55-42d3-980e-4151ebec6f32' },
      ],
    });
    expect(doc.alerts).toEqual([]);
    expect(doc.notes).toContain('EC2 DescribeInstances calls: 1');
    expect(doc.notes.join('\n')).toContain('not in the capture examples/healthy');
    expect(doc.notes.join('\n')).toContain('i-0c5e8f1a2b3d4e5f6');
  });

  it('slack-notify prints the Block Kit payload it would post, and posts nothing', async () => {
    const doc = documentOf(await invoke('slack-notify', 'events/slack-notify.alert.json'));

    expect(doc.response).toEqual({ posted: 1, attempts: 1 });
    expect(doc.slack).toHaveLength(1);
    const [payload] = doc.slack;
    expect(payload!.blocks?.[0]).toMatchObject({ type: 'header' });
    expect(payload!.blocks?.[0]?.text?.text).toContain('2 NodeClaims of NodePool default launched but never registered a Node');
    expect(JSON.stringify(payload)).toContain('NODE_ROLE_NOT_MAPPED');
  });

  it('cleanup dry run over examples/cleanup-partial-destroy (the default): lists the leftovers, deletes nothing', async () => {
    const run = await invoke('cleanup', 'events/cleanup.dry-run.json');

    const doc = documentOf(run);
    expect(doc.function).toBe('cleanup');
    expect(doc.response).toMatchObject({
      cluster: 'platform-eks-dev',
      dryRun: true,
      complete: true,
      ...CLEANED,
      errors: [],
    });
    expect(doc.notes).toContain('AWS TerminateInstances calls: 0');
    expect(doc.notes).toContain('AWS DeleteInstanceProfile calls: 0');
    expect(run.stderr).toContain('"message":"cleanup dry run complete"');
  });

  it('cleanup apply: no controller runs to drain the NodeClaims, so it does not wait for them; it cleans everything', async () => {
    const run = await invoke('cleanup', 'events/cleanup.apply.json');
    const doc = documentOf(run);

    expect(run.stderr).toContain('nothing will drain the 2 NodeClaims; their instances are terminated next');
    expect(run.stderr).not.toContain('NodeClaim(s) to go');
    expect(doc.response).toMatchObject({ dryRun: false, complete: true, errors: [] });
    expect(doc.response?.instancesTerminated).toHaveLength(3);
    expect(doc.notes).toContain('AWS TerminateInstances calls: 1');
    expect(doc.notes).toContain('AWS DeleteLaunchTemplate calls: 2');
  });

  it('cleanup of another cluster of the captured account: that cluster is gone, its tagged leftovers are found', async () => {
    const doc = documentOf(await invoke('cleanup', 'test/scripts/fixtures/cleanup.staging-dry-run.json'));

    expect(doc.response).toMatchObject({
      cluster: 'platform-eks-staging',
      complete: true,
      nodePoolsDeleted: [],
      instancesTerminated: ['i-0a8c4e2b7d1f95603', 'i-0e1a7c3f9b5d26487'],
      launchTemplatesDeleted: ['lt-0f5a2d8c1e7b39640'],
      instanceProfilesDeleted: ['platform-eks-staging_4178203956112483307'],
    });
    expect(doc.notes[0]).toBe(
      "cluster platform-eks-staging is not the cluster of examples/cleanup-partial-destroy (platform-eks-dev): it is gone here, but the account's records are searched for it",
    );
  });

  it('cleanup with an invalid request: exit 1, the handler’s one-line error in the document', async () => {
    const run = await invoke('cleanup', 'test/scripts/fixtures/cleanup.dryrun-typo.json');

    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as InvokeDocument;
    expect(doc.error).toBe('invalid cleanup request: unknown field "dryrun" (did you mean "dryRun"?)');
    expect(run.stderr).toContain('"message":"invocation failed"');
  });

  describe('bad input: one line on stderr, exit 2, nothing on stdout', () => {
    it.each([
      [['cleanp', 'events/cleanup.dry-run.json'], 'unknown function "cleanp"'],
      [['cleanup', 'events/scan.message.json'], 'event file events/scan.message.json is not a cleanup event: no "clusterName"'],
      [['scan', 'events/no-such-event.json'], 'event file events/no-such-event.json cannot be read (ENOENT)'],
      [['scan', 'README.md'], 'event file README.md is not JSON'],
      [['scan', 'events/slack-notify.alert.json'], 'event file events/slack-notify.alert.json is not a scan event'],
      [['scan', 'events/scan.message.json', '--simulate', 'examples/no-such-capture'], 'examples/no-such-capture'],
      [['scan', 'events/scan.message.json', '--now', 'yesterday'], '--now must be an ISO-8601 time'],
      [['scan', 'events/scan.message.json', '--clusters', 'a'], '--clusters applies to scan-dispatch only'],
      [['scan-dispatch', 'events/scan-dispatch.schedule.json', '--clusters', ','], 'CLUSTERS must list at least one name'],
    ])('%j', async (args, expected) => {
      const run = await invoke(...args);

      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(expected);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    });
  });
});
