/**
 * The BUILT bundles run an invocation, not only import: `scripts/bundle.ts` builds scan-dispatch,
 * slack-notify and cleanup into a temporary dist/, and a child Node 22 process imports each bundle (cold start,
 * config read from the environment) and calls its handler with the sample event. Every AWS call and
 * the Slack post go to fakes on 127.0.0.1; the child refuses any other connection. A dynamic
 * `require`, a lazily loaded SDK module or a protocol part that esbuild dropped fails here, while the
 * handler tests over the sources would still pass.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SNSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileOf, bundleFunctions } from '../../scripts/bundle.ts';
import { REPO_ROOT } from '../../scripts/functions.ts';
import type { ChatNotification } from '../../src/domain/alert.ts';
import type { SlackPayload } from '../../src/notify/slack-message.ts';
import { sampleEvent } from '../support/lambda.ts';
import { startHttpFake, startHttpsFake, TEST_CA_FILE, type FakeServer } from '../support/http-fake.ts';
import { ec2Api, eksApi, iamApi, slackWebhook, sqsApi, ssmApi } from './bundle-smoke/fakes.ts';

const CHILD = fileURLToPath(new URL('./bundle-smoke/invoke-bundle.ts', import.meta.url));
const EVENTS = path.join(REPO_ROOT, 'events');
/** What the child prints when the bundle tried to connect anywhere but 127.0.0.1. */
const NETWORK_GUARD = 'network guard';

const QUEUE_PATH = '/111122223333/karpenter-sentinel-scan';
const WEBHOOK_PARAMETER = '/karpenter-sentinel/slack-webhook';
const WEBHOOK_PATH = '/services/T000/B000/XXXX';
const TAGGED = 'prod-blue';
const UNTAGGED = 'sandbox';

interface ChildRun {
  code: number;
  stdout: string;
  stderr: string;
}

interface ChildOutput {
  logs: Record<string, unknown>[];
  /** The EMF documents (metrics) among the stdout lines. */
  emf: Record<string, unknown>[];
  result: unknown;
}

let workDir = '';
const fakes: FakeServer[] = [];

async function fake(start: Promise<FakeServer>): Promise<FakeServer> {
  const server = await start;
  fakes.push(server);
  return server;
}

/** A cold start and one invocation of a bundle; the environment holds nothing of this machine's AWS setup. */
function invokeBundle(name: string, event: string, env: Record<string, string>): Promise<ChildRun> {
  const eventFile = path.isAbsolute(event) ? event : path.join(EVENTS, `${event}.json`);
  const childEnv = {
    PATH: process.env.PATH ?? '',
    HOME: workDir,
    AWS_CONFIG_FILE: path.join(workDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(workDir, 'no-aws-credentials'),
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIABUNDLESMOKETEST0',
    AWS_SECRET_ACCESS_KEY: 'bundle-smoke-test-secret-key-not-real',
    AWS_EC2_METADATA_DISABLED: 'true',
    // Set by Lambda; Powertools reports cold_start only for on-demand environments.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    ...env,
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CHILD, bundleFileOf(name, workDir), eventFile],
      { cwd: workDir, env: childEnv, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Every stdout line is one JSON object (CloudWatch Logs reads them so); the last is the handler's
 * result. Powertools writes WARN and ERROR lines to stderr (Lambda sends both streams to the log):
 * they are taken from there, before the stdout ones.
 */
function outputOf(run: ChildRun): ChildOutput {
  const lines = [...jsonLinesOf(run.stderr), ...run.stdout.split('\n').filter((line) => line !== '')].map(
    (line) => JSON.parse(line) as Record<string, unknown>,
  );
  const last = lines.at(-1);
  return {
    logs: lines.filter((line) => !('result' in line) && !('_aws' in line)),
    emf: lines.filter((line) => '_aws' in line),
    result: last && 'result' in last ? last.result : undefined,
  };
}

const jsonLinesOf = (text: string) => text.split('\n').filter((line) => line.startsWith('{'));
/** What the child printed on stderr besides log lines: the handler's rejection. */
const errorLinesOf = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('{'));

/** SigV4 ran in the bundle, with the configured credentials and region, for the right service. */
function signedFor(service: string): unknown {
  return expect.stringMatching(
    new RegExp(`^AWS4-HMAC-SHA256 Credential=AKIABUNDLESMOKETEST0/\\d{8}/eu-west-1/${service}/aws4_request, `),
  );
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'karpenter-sentinel-bundle-smoke-'));
  await bundleFunctions({
    root: workDir,
    entriesDir: path.join(REPO_ROOT, 'functions'),
    only: ['scan-dispatch', 'slack-notify', 'cleanup'],
  });
}, 120_000);

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('built bundles run an invocation against fakes on 127.0.0.1', () => {
  it('scan-dispatch: lists clusters, queues one scan for the opted-in ACTIVE cluster, stamped with the tick', async () => {
    const eks = await fake(
      startHttpFake(
        eksApi([
          { name: TAGGED, status: 'ACTIVE', tags: { 'karpenter-sentinel/enabled': 'true', team: 'platform' } },
          { name: UNTAGGED, status: 'ACTIVE', tags: { team: 'data' } },
        ]),
      ),
    );
    const sqs = await fake(startHttpFake(sqsApi()));
    const tick = sampleEvent<{ time: string }>('scan-dispatch.schedule').time;

    const run = await invokeBundle('scan-dispatch', 'scan-dispatch.schedule', {
      AWS_ENDPOINT_URL_EKS: eks.url,
      AWS_ENDPOINT_URL_SQS: sqs.url,
      SCAN_QUEUE_URL: `${sqs.url}${QUEUE_PATH}`,
    });

    expect(run.stderr).not.toContain(NETWORK_GUARD);
    expect(run.code, run.stderr).toBe(0);
    const { result, logs, emf } = outputOf(run);
    expect(result).toEqual({
      requestedAt: tick,
      dispatched: [TAGGED],
      notFound: [],
      skipped: { optedOut: 1, notActive: 0, describeFailed: 0 },
    });
    expect(logs.filter((line) => line.level === 'ERROR')).toEqual([]);
    // Powertools' lines: the invocation's Lambda context on each; the configuration once, on the cold start.
    for (const line of logs) {
      expect(line).toMatchObject({
        service: 'karpenter-sentinel',
        cold_start: true,
        function_name: 'karpenter-sentinel-test',
        function_request_id: 'c0ffee00-0000-4000-8000-000000000001',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        level: expect.stringMatching(/^(INFO|WARN)$/),
      });
    }
    expect(logs.filter((line) => line.message === 'effective configuration')).toEqual([
      expect.objectContaining({ clusters: 'opt-in tag', optInTag: 'karpenter-sentinel/enabled=true', logLevel: 'INFO' }),
    ]);
    expect(logs.at(-1)).toMatchObject({ level: 'INFO', message: 'invocation done', function: 'scan-dispatch' });
    // The bundle's EKS calls measured and written as the invocation ended.
    expect(emf).toContainEqual(expect.objectContaining({ Api: 'eks:ListClusters', Outcome: 'ok', ApiCalls: 1 }));
    expect(emf).toContainEqual(expect.objectContaining({ Api: 'eks:DescribeCluster', Outcome: 'ok', ApiCalls: 2 }));
    expect(eks.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`).sort()).toEqual([
      'GET /clusters',
      `GET /clusters/${TAGGED}`,
      `GET /clusters/${UNTAGGED}`,
    ]);
    expect(eks.requests[0]?.headers.authorization).toEqual(signedFor('eks'));
    expect(sqs.requests).toHaveLength(1);
    const [send] = sqs.requests;
    expect(send?.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
    expect(send?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(send?.headers.authorization).toEqual(signedFor('sqs'));
    const batch = JSON.parse(send?.body ?? '{}') as { QueueUrl: string; Entries: { MessageBody: string }[] };
    expect(batch.QueueUrl).toBe(`${sqs.url}${QUEUE_PATH}`);
    expect(batch.Entries.map((e) => e.MessageBody)).toEqual([JSON.stringify({ cluster: TAGGED, requestedAt: tick })]);
  });

  describe('slack-notify', () => {
    const alertTitle = () => {
      const notification = JSON.parse(
        sampleEvent<SNSEvent>('slack-notify.alert').Records[0]?.Sns.Message ?? '{}',
      ) as ChatNotification;
      return notification.content.title ?? '';
    };

    async function slackSetup(status: number) {
      const slack = await fake(startHttpsFake(slackWebhook(() => status)));
      const ssm = await fake(startHttpFake(ssmApi(WEBHOOK_PARAMETER, `${slack.url}${WEBHOOK_PATH}`)));
      const env = {
        AWS_ENDPOINT_URL_SSM: ssm.url,
        SLACK_WEBHOOK_PARAMETER: WEBHOOK_PARAMETER,
        // fetch verifies the fake's certificate against the simulator's test CA; verification stays on.
        NODE_EXTRA_CA_CERTS: TEST_CA_FILE,
      };
      return { slack, ssm, env };
    }

    it('reads the webhook URL from SSM (decrypted) and posts one Block Kit message over verified TLS', async () => {
      const { slack, ssm, env } = await slackSetup(200);

      const run = await invokeBundle('slack-notify', 'slack-notify.alert', env);

      expect(run.stderr).not.toContain(NETWORK_GUARD);
      expect(run.code, run.stderr).toBe(0);
      expect(outputOf(run).result).toEqual({ posted: 1, attempts: 1 });
      expect(ssm.requests).toHaveLength(1);
      expect(ssm.requests[0]?.headers['x-amz-target']).toBe('AmazonSSM.GetParameter');
      expect(ssm.requests[0]?.headers['content-type']).toBe('application/x-amz-json-1.1');
      expect(ssm.requests[0]?.headers.authorization).toEqual(signedFor('ssm'));
      expect(JSON.parse(ssm.requests[0]?.body ?? '{}')).toEqual({ Name: WEBHOOK_PARAMETER, WithDecryption: true });
      expect(slack.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${WEBHOOK_PATH}`]);
      expect(slack.requests[0]?.headers['content-type']).toMatch(/^application\/json/);
      const payload = JSON.parse(slack.requests[0]?.body ?? '{}') as SlackPayload;
      const title = alertTitle();
      expect(payload.text).toBe(title);
      const header = payload.blocks?.find((block) => block.type === 'header');
      expect(header?.type === 'header' ? header.text.text : '').toContain(title.replace(/^\[critical\]\s+/, ''));
    });

    it('rejects after SLACK_MAX_ATTEMPTS posts when Slack keeps answering 500 (so Lambda sends the event to the DLQ)', async () => {
      const { slack, env } = await slackSetup(500);

      const run = await invokeBundle('slack-notify', 'slack-notify.alert', { ...env, SLACK_MAX_ATTEMPTS: '2' });

      expect(run.stderr).not.toContain(NETWORK_GUARD);
      expect(run.code).toBe(1);
      const errorLines = errorLinesOf(run.stderr);
      expect(errorLines).toHaveLength(1);
      expect(errorLines[0]).toMatch(
        /^SlackDeliveryError: 1 of 1 message\(s\) not posted to Slack: .*500 internal_error after 2 attempts/,
      );
      expect(slack.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
      // The webhook URL is the credential: neither the logs nor the error may show it.
      expect(`${run.stdout}${run.stderr}`).not.toContain(WEBHOOK_PATH);
    });
  });
  describe('cleanup', () => {
    const GONE = 'platform-eks-dev';
    const INSTANCE = 'i-0123456789abcdef0';
    const LAUNCH_TEMPLATE = 'lt-0e7a3c9f1d5b82460';
    const PROFILE = `${GONE}_11735620938465729301`;

    it('dry run of a cluster already gone: EKS, EC2 and IAM answered over their wire protocols, nothing changed', async () => {
      const eks = await fake(startHttpFake(eksApi([])));
      const ec2 = await fake(
        startHttpFake(
          ec2Api(
            [
              {
                id: INSTANCE,
                state: 'stopped',
                tags: {
                  'eks:eks-cluster-name': GONE,
                  'karpenter.sh/nodepool': 'default',
                  'karpenter.sh/nodeclaim': 'default-x7k2p',
                  'karpenter.k8s.aws/ec2nodeclass': 'default',
                  'aws:ec2:fleet-id': 'fleet-c88ab753-e548-4a52-a97e-a470a8d1237d',
                  'aws:ec2launchtemplate:id': LAUNCH_TEMPLATE,
                },
              },
            ],
            // Karpenter's launch template of the cluster: the proof that Karpenter launched the instance.
            [
              {
                id: LAUNCH_TEMPLATE,
                name: 'karpenter.k8s.aws/9870324818371625430',
                tags: { 'eks:eks-cluster-name': GONE, 'karpenter.k8s.aws/ec2nodeclass': 'default' },
              },
            ],
          ),
        ),
      );
      const iam = await fake(
        startHttpFake(
          iamApi([
            {
              name: PROFILE,
              path: `/karpenter/eu-west-1/${GONE}/3f6c2a9e-8b41-4d7a-9c05-e1b27d4f6a83/`,
              roles: [`KarpenterNodeRole-${GONE}`],
              tags: {
                'eks:eks-cluster-name': GONE,
                'karpenter.k8s.aws/ec2nodeclass': 'default',
                'topology.kubernetes.io/region': 'eu-west-1',
              },
            },
          ]),
        ),
      );

      const run = await invokeBundle('cleanup', 'cleanup.dry-run', {
        AWS_ENDPOINT_URL_EKS: eks.url,
        AWS_ENDPOINT_URL_EC2: ec2.url,
        AWS_ENDPOINT_URL_IAM: iam.url,
      });

      expect(run.stderr).not.toContain(NETWORK_GUARD);
      expect(run.code, run.stderr).toBe(0);
      const { result, logs, emf } = outputOf(run);
      expect(result).toEqual({
        cluster: GONE,
        dryRun: true,
        complete: true,
        nodePoolsDeleted: [],
        instancesTerminated: [INSTANCE],
        instancesNotProven: [],
        launchTemplatesDeleted: [LAUNCH_TEMPLATE],
        instanceProfilesDeleted: [PROFILE],
        errors: [],
        // What the caller (the Terraform hook) prints: EKS has no such cluster, only its leftovers were cleaned.
        notes: [
          expect.stringMatching(
            new RegExp(`^no cluster ${GONE} in [a-z0-9-]+ \\(deleted already, or a wrong name or region\\?\\)`),
          ),
        ],
      });
      expect(logs.at(-1)).toMatchObject({ message: 'invocation done', function: 'cleanup', complete: true });
      expect(emf).toContainEqual(expect.objectContaining({ Api: 'eks:DescribeCluster', Outcome: 'ok', ApiCalls: 1 }));
      expect(eks.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /clusters/${GONE}`]);
      const actions = (f: FakeServer) => f.requests.map((r) => new URLSearchParams(r.body).get('Action'));
      expect(new Set(actions(ec2))).toEqual(new Set(['DescribeInstances', 'DescribeLaunchTemplates']));
      expect(new Set(actions(iam))).toEqual(new Set(['ListInstanceProfiles', 'ListInstanceProfileTags']));
      expect(ec2.requests[0]?.headers.authorization).toEqual(signedFor('ec2'));
      expect(iam.requests[0]?.headers.authorization).toEqual(expect.stringMatching(/\/iam\/aws4_request, /));
    });

    it('an invalid request: one line on stderr, exit 1, no AWS call', async () => {
      const eks = await fake(startHttpFake(eksApi([])));

      const run = await invokeBundle('cleanup', path.join(REPO_ROOT, 'test/scripts/fixtures/cleanup.dryrun-typo.json'), {
        AWS_ENDPOINT_URL_EKS: eks.url,
      });

      expect(run.code).toBe(1);
      expect(outputOf(run).logs.filter((line) => line.level === 'ERROR')).toEqual([
        expect.objectContaining({ message: 'invocation failed', function: 'cleanup' }),
      ]);
      expect(errorLinesOf(run.stderr)).toEqual([
        'CleanupRequestError: invalid cleanup request: unknown field "dryrun" (did you mean "dryRun"?)',
      ]);
      expect(eks.requests).toEqual([]);
    });
  });
});
