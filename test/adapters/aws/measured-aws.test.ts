/**
 * The measured AWS ports over the real SDK v3 clients and real HTTP on 127.0.0.1: moto_server for the
 * calls that succeed, a fake answering EC2's own error documents for the throttled and the refused
 * ones. Each call is counted under its API and outcome, and reaches the EMF lines the function writes.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ec2Adapter } from '../../../src/adapters/aws/ec2.ts';
import { EksAdapter } from '../../../src/adapters/aws/eks.ts';
import { EmfMetricsSink, type EmfDocument } from '../../../src/adapters/aws/emf-metrics.ts';
import { IamAdapter } from '../../../src/adapters/aws/iam.ts';
import { InstanceTypeCache } from '../../../src/adapters/aws/instance-type-cache.ts';
import { abortable, retriesNoted } from '../../../src/adapters/calls/sdk-config.ts';
import { ApiCallMeter, withApiCallMetrics } from '../../../src/adapters/calls/api-call-metrics.ts';
import { measuredAwsPorts, measuredEc2 } from '../../../src/adapters/aws/measured-aws.ts';
import type { MetricDatum } from '../../../src/domain/metric.ts';
import { startHttpFake, type FakeServer } from '../../support/http-fake.ts';
import { startMoto, type Moto } from '../../support/moto.ts';
import { EKSClient } from '@aws-sdk/client-eks';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { InterruptionQueueAdapter } from '../../../src/adapters/aws/interruption-queue.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' };
const AT = new Date('2026-03-01T12:00:00Z');

let moto: Moto;
let fake: FakeServer;

/** The interruption-queue reads against `endpoint`; each request's failure noted like the composed clients' (retriesNoted). */
function queueAdapter(endpoint: string): InterruptionQueueAdapter {
  const config = { region: 'us-east-1', endpoint, credentials: CREDENTIALS };
  return new InterruptionQueueAdapter({
    sqs: retriesNoted(new SQSClient(config)),
    events: retriesNoted(new EventBridgeClient(config)),
    cloudwatch: retriesNoted(new CloudWatchClient(config)),
  });
}

/** EC2's error document (Query protocol), as EC2 sends it. */
function ec2ErrorBody(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>5f1a3c0e-0000-4000-8000-000000000000</RequestID></Response>`;
}

/** IAM's answers (Query protocol): one profile of the name Karpenter gives its profiles, and a denied tags read. */
const IAM_ONE_PROFILE = `<ListInstanceProfilesResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><ListInstanceProfilesResult><IsTruncated>false</IsTruncated><InstanceProfiles><member><InstanceProfileName>prod_1234567890</InstanceProfileName><InstanceProfileId>AIPAEXAMPLE0000000001</InstanceProfileId><Arn>arn:aws:iam::123456789012:instance-profile/prod_1234567890</Arn><Path>/</Path><CreateDate>2026-01-01T00:00:00Z</CreateDate><Roles/></member></InstanceProfiles></ListInstanceProfilesResult><ResponseMetadata><RequestId>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</RequestId></ResponseMetadata></ListInstanceProfilesResponse>`;
const IAM_TAGS_DENIED = `<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: arn:aws:iam::123456789012:user/sentinel is not authorized to perform: iam:ListInstanceProfileTags on resource: instance profile prod_1234567890</Message></Error><RequestId>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</RequestId></ErrorResponse>`;

beforeAll(async () => {
  moto = await startMoto();
  fake = await startHttpFake((request) =>
    request.body.includes('Action=DescribeSubnets')
      ? { status: 503, contentType: 'text/xml', body: ec2ErrorBody('RequestLimitExceeded', 'Request limit exceeded.') }
      : {
          status: 403,
          contentType: 'text/xml',
          body: ec2ErrorBody('UnauthorizedOperation', 'You are not authorized to perform this operation.'),
        },
  );
}, 20_000);

afterAll(async () => {
  moto?.close();
  await fake?.close();
});

/** One attempt per call: the SDK's retries would only slow the test (the port sees the last attempt's error). */
function ec2(endpoint: string, signal?: () => AbortSignal | undefined): EC2Client {
  return abortable(new EC2Client({ region: 'us-east-1', endpoint, credentials: CREDENTIALS, maxAttempts: 1 }), signal);
}

/** The meter's datums, as `Api/Outcome` → count, and the durations per API. */
function summary(datums: readonly MetricDatum[]) {
  const calls: Record<string, number> = {};
  const durations: Record<string, number> = {};
  for (const d of datums) {
    if (d.name === 'ApiCalls') calls[`${d.dimensions.Api}/${d.dimensions.Outcome}`] = d.value;
    if (d.name === 'ApiCallDurationMs') durations[d.dimensions.Api!] = (durations[d.dimensions.Api!] ?? 0) + 1;
  }
  return { calls, durations };
}

describe('the measured AWS ports over real SDK clients', () => {
  it('counts and times the calls moto answers as ok, each under its IAM action', async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const aws = measuredAwsPorts(
      {
        ec2: new Ec2Adapter(ec2(moto.endpoint), { instanceTypeCache: new InstanceTypeCache() }),
        eks: new EksAdapter(new EKSClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: CREDENTIALS })),
        iam: new IamAdapter(new IAMClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: CREDENTIALS })),
        queue: queueAdapter(moto.endpoint),
        region: 'us-east-1',
      },
      meter,
    );

    // Act
    await aws.ec2.describeInstances({ clusterName: 'prod' });
    await aws.ec2.describeInstances({ clusterName: 'staging' });
    const gone = await aws.eks.describeCluster('no-such-cluster');
    await aws.iam.listInstanceProfiles();

    // Assess
    expect(gone).toEqual({ name: 'no-such-cluster', gone: true });
    expect(summary(meter.drain())).toEqual({
      // A cluster EKS does not know is an answer the adapter reads (gone: true), not a failed call.
      calls: {
        'ec2:DescribeInstances/ok': 2,
        'eks:DescribeCluster/ok': 1,
        'iam:ListInstanceProfiles+ListInstanceProfileTags/ok': 1,
      },
      durations: {
        'ec2:DescribeInstances': 2,
        'eks:DescribeCluster': 1,
        'iam:ListInstanceProfiles+ListInstanceProfileTags': 1,
      },
    });
    expect(meter.drain()).toEqual([]);
  });

  it("counts EC2's RequestLimitExceeded as throttled and UnauthorizedOperation as access-denied, the error still thrown", async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const port = measuredEc2(new Ec2Adapter(ec2(fake.url)), meter);

    // Act
    const throttled = await port.describeSubnets(['subnet-0abc']).catch((e: unknown) => e);
    const denied = await port.describeInstances({ clusterName: 'prod' }).catch((e: unknown) => e);

    // Assess
    expect(String(throttled)).toContain('DescribeSubnets failed: RequestLimitExceeded: Request limit exceeded.');
    expect(String(denied)).toContain('DescribeInstances failed: UnauthorizedOperation');
    expect(summary(meter.drain()).calls).toEqual({
      'ec2:DescribeSubnets/throttled': 1,
      'ec2:DescribeInstances/access-denied': 1,
    });
  });

  it('counts the attempts the SDK retried inside a call that ended ok (throttling its retries absorbed)', async () => {
    // Prepare: EC2 throttles the first two attempts, answers the third.
    let attempts = 0;
    const flaky = await startHttpFake(() =>
      ++attempts <= 2
        ? { status: 503, contentType: 'text/xml', body: ec2ErrorBody('RequestLimitExceeded', 'Request limit exceeded.') }
        : {
            status: 200,
            contentType: 'text/xml',
            body: '<DescribeSubnetsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId><subnetSet/></DescribeSubnetsResponse>',
          },
    );
    const meter = new ApiCallMeter();
    const client = retriesNoted(
      new EC2Client({ region: 'us-east-1', endpoint: flaky.url, credentials: CREDENTIALS, maxAttempts: 3 }),
    );
    const port = measuredEc2(new Ec2Adapter(client), meter);

    // Act
    const subnets = await port.describeSubnets(['subnet-0abc']);
    await flaky.close();

    // Assess
    expect(subnets).toEqual([]);
    const datums = meter.drain();
    expect(summary(datums).calls).toEqual({ 'ec2:DescribeSubnets/ok': 1 });
    expect(datums.filter((d) => d.name === 'ApiCallRetries')).toEqual([
      { name: 'ApiCallRetries', unit: 'Count', value: 2, dimensions: { Api: 'ec2:DescribeSubnets' } },
    ]);
  });

  it("counts a call the invocation's deadline aborted as timeout, and a refused connection as network", async () => {
    // Prepare: a port nothing listens on (the fake's, once closed).
    const closed = await startHttpFake(() => ({ status: 200, body: '' }));
    await closed.close();
    const meter = new ApiCallMeter();
    const aborted = measuredEc2(new Ec2Adapter(ec2(moto.endpoint, () => AbortSignal.abort())), meter);
    const unreachable = measuredEc2(new Ec2Adapter(ec2(closed.url)), meter);

    // Act
    await expect(aborted.describeInstances({ clusterName: 'prod' })).rejects.toThrow(/deadline/);
    await expect(unreachable.describeInstances({ clusterName: 'prod' })).rejects.toThrow(/ECONNREFUSED/);

    // Assess
    expect(summary(meter.drain()).calls).toEqual({
      'ec2:DescribeInstances/timeout': 1,
      'ec2:DescribeInstances/network': 1,
    });
  });

  it('writes the calls as EMF lines along with the datums the function puts, one count per API and outcome', async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const port = measuredEc2(new Ec2Adapter(ec2(fake.url)), meter);
    await port.describeSubnets(['subnet-0abc']).catch(() => undefined);
    await port.describeSubnets(['subnet-0def']).catch(() => undefined);
    const lines: string[] = [];
    const sink = withApiCallMetrics(new EmfMetricsSink('KarpenterSentinel', { write: (line) => lines.push(line) }), meter);

    // Act
    await sink.put([{ name: 'ScanDurationMs', unit: 'Milliseconds', value: 1200, dimensions: { Cluster: 'prod' } }], AT);

    // Assess
    const documents = lines.map((line) => JSON.parse(line) as EmfDocument);
    expect(documents.find((d) => d.Cluster === 'prod')).toMatchObject({ ScanDurationMs: 1200 });
    const calls = documents.find((d) => d.Api === 'ec2:DescribeSubnets' && d.Outcome === 'throttled');
    expect(calls).toMatchObject({
      _aws: {
        Timestamp: AT.getTime(),
        CloudWatchMetrics: [
          { Namespace: 'KarpenterSentinel', Dimensions: [['Api', 'Outcome']], Metrics: [{ Name: 'ApiCalls', Unit: 'Count' }] },
        ],
      },
      ApiCalls: 2,
    });
    const durations = documents.find((d) => d.Api === 'ec2:DescribeSubnets' && d.Outcome === undefined);
    expect(durations?._aws.CloudWatchMetrics[0]).toMatchObject({
      Dimensions: [['Api']],
      Metrics: [{ Name: 'ApiCallDurationMs', Unit: 'Milliseconds' }],
    });
    expect(durations?.ApiCallDurationMs).toHaveLength(2);
  });
});

describe('the outcome of a call is the outcome of its requests, not whether its port resolved', () => {
  /** Built as createAwsClients builds the deployed functions' clients: the SDK middleware notes each request. */
  const notedEc2 = (endpoint: string) => retriesNoted(ec2(endpoint));

  it('counts a TerminateInstances EC2 denies as access-denied, though the port resolves with per-instance errors', async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const port = measuredEc2(new Ec2Adapter(notedEc2(fake.url)), meter);

    // Act
    const results = await port.terminateInstances(['i-0aaa1111bbbb2222c']);

    // Assess
    expect(results).toEqual([{ instanceId: 'i-0aaa1111bbbb2222c', error: expect.stringContaining('UnauthorizedOperation') }]);
    expect(summary(meter.drain()).calls).toEqual({ 'ec2:TerminateInstances/access-denied': 1 });
  });

  it('counts an instance profile listing whose tags IAM denies as access-denied, though the port resolves', async () => {
    // Prepare: IAM lists one profile of Karpenter's path and refuses to read its tags.
    const iam = await startHttpFake((request) =>
      request.body.includes('Action=ListInstanceProfileTags')
        ? { status: 403, contentType: 'text/xml', body: IAM_TAGS_DENIED }
        : { status: 200, contentType: 'text/xml', body: IAM_ONE_PROFILE },
    );
    const meter = new ApiCallMeter();
    const port = measuredAwsPorts(
      {
        ec2: new Ec2Adapter(notedEc2(iam.url)),
        eks: new EksAdapter(new EKSClient({ region: 'us-east-1', endpoint: iam.url, credentials: CREDENTIALS })),
        iam: new IamAdapter(
          retriesNoted(new IAMClient({ region: 'us-east-1', endpoint: iam.url, credentials: CREDENTIALS, maxAttempts: 1 })),
        ),
        queue: queueAdapter(iam.url),
        region: 'us-east-1',
      },
      meter,
    ).iam;

    // Act
    const profiles = await port.listInstanceProfiles().finally(() => iam.close());

    // Assess
    expect(profiles).toEqual([
      expect.objectContaining({ name: 'prod_1234567890', tagsUnreadable: expect.stringContaining('AccessDenied') }),
    ]);
    expect(summary(meter.drain()).calls).toEqual({ 'iam:ListInstanceProfiles+ListInstanceProfileTags/access-denied': 1 });
  });

  it('counts a thing EC2, EKS or SQS says is gone, where the port expects it, as ok', async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const ports = measuredAwsPorts(
      {
        ec2: new Ec2Adapter(notedEc2(moto.endpoint)),
        eks: new EksAdapter(
          retriesNoted(new EKSClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: CREDENTIALS })),
        ),
        iam: new IamAdapter(new IAMClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: CREDENTIALS })),
        queue: queueAdapter(moto.endpoint),
        region: 'us-east-1',
      },
      meter,
    );

    // Act
    const gone = await ports.eks.describeCluster('no-such-cluster');
    // SQS's NonExistentQueue for Karpenter's queue setting is the answer a typo'd setting gets.
    const missingQueue = await ports.queue.describeQueue('no-such-queue');

    // Assess
    expect(gone).toEqual({ name: 'no-such-cluster', gone: true });
    expect(missingQueue).toEqual({ name: 'no-such-queue', exists: false });
    expect(summary(meter.drain()).calls).toEqual({
      'eks:DescribeCluster/ok': 1,
      'sqs:GetQueueUrl+GetQueueAttributes/ok': 1,
    });
  });

  it("counts no call for instance types answered from the process's cache, and one for the listing that filled it", async () => {
    // Prepare
    const meter = new ApiCallMeter();
    const port = measuredEc2(new Ec2Adapter(notedEc2(moto.endpoint), { instanceTypeCache: new InstanceTypeCache() }), meter);
    await port.describeInstanceTypes();
    expect(summary(meter.drain())).toEqual({
      calls: { 'ec2:DescribeInstanceTypes/ok': 1 },
      durations: { 'ec2:DescribeInstanceTypes': 1 },
    });

    // Act
    const cached = await port.describeInstanceTypes();

    // Assess
    expect(cached.instanceTypes.length).toBeGreaterThan(0);
    expect(meter.drain()).toEqual([]);
  });
});
