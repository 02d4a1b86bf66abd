import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { Ec2Adapter } from '../../src/adapters/aws/ec2.ts';
import { InMemoryStateStore } from '../../src/adapters/memory/state.ts';
import type { MetricDatum } from '../../src/domain/metric.ts';
import { EmfMetricsSink } from '../../src/adapters/aws/emf-metrics.ts';
import { METRICS_NAMESPACE } from '../../src/config.ts';
import type { ClusterStatus } from '../../src/ports/state.ts';
import { ec2Client } from '../adapters/aws/sdk-fixtures.ts';
import { sampleEvent } from '../support/lambda.ts';
import { batchOf, harness, NOW, SAMPLES, variant } from './interruptions-support.ts';
import { KARPENTER_SPOT_INTERRUPTED, sqsRecord } from './karpenter-fixtures.ts';
import { redrive } from '../support/sqs-redrive.ts';

const SPOT = 'i-0c5e8f1a2b3d4e5f6';

function count(cluster: string, nodePool: string, kind: string, value = 1): MetricDatum {
  return { name: 'InterruptionEvents', unit: 'Count', value, dimensions: { Cluster: cluster, NodePool: nodePool, Kind: kind } };
}

function messageIds(sample: string): string[] {
  return sampleEvent<SQSEvent>(`interruptions.${sample}`).Records.map((r) => r.messageId);
}

function record(sample: string, index = 0): SQSEvent['Records'][number] {
  const found = sampleEvent<SQSEvent>(`interruptions.${sample}`).Records[index];
  if (!found) throw new Error(`no record ${index} in ${sample}`);
  return found;
}

describe('interruptions handler: every sample event', () => {
  it.each(SAMPLES)('events/interruptions.%s.json: one DescribeInstances and one metrics write for the batch', async (sample) => {
    const h = harness();

    await h.invokeSample(sample);

    expect(h.aws.callsTo('DescribeInstances')).toHaveLength(1);
    expect(h.metrics.calls).toHaveLength(1);
    expect(h.metrics.calls[0]?.timestamp).toEqual(NOW);
  });

  it.each([
    ['spot-interruption', count('prod-eu', 'spot-general', 'SpotInterruption')],
    ['rebalance-recommendation', count('prod-eu', 'spot-general', 'RebalanceRecommendation')],
    ['state-change', count('prod-eu', 'on-demand', 'StateChange')],
    ['capacity-reservation-interruption', count('prod-eu', 'gpu', 'CapacityReservationInterruption')],
  ])('%s: counted under its cluster, NodePool and kind; nothing fails', async (sample, datum) => {
    const h = harness();

    const response = await h.invokeSample(sample);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(h.metrics.datums).toEqual([datum]);
    expect(h.alerts.published).toEqual([]);
  });

  it('batch: ten records of five kinds resolved with ONE DescribeInstances of every instance, counted in one payload', async () => {
    const h = harness();

    const response = await h.invokeSample('batch');

    expect(response.batchItemFailures).toEqual([]);
    const [describe] = h.aws.callsTo('DescribeInstances');
    expect((describe?.input.query as { instanceIds: string[] }).instanceIds.sort()).toEqual(
      [
        'i-0d1c2b3a495867f70',
        'i-06f5e4d3c2b1a0918',
        'i-0a9b8c7d6e5f40312',
        'i-03c4d5e6f7a8b9c0d',
        SPOT,
        'i-0ffe1d2c3b4a59687',
        'i-0a4b7c9d2e1f30865',
        'i-07d2e4f6a8b0c1d39',
        'i-0b3d5f7a9c1e2d4f6',
        'i-0e9f1a3b5c7d2e4f8',
      ].sort(),
    );
    expect(h.metrics.calls).toHaveLength(1);
    expect(h.metrics.datums).toEqual(
      expect.arrayContaining([
        count('prod-eu', 'spot-general', 'SpotInterruption', 5),
        count('none', 'none', 'SpotInterruption'),
        count('prod-eu', 'spot-general', 'RebalanceRecommendation'),
        count('prod-eu', 'on-demand', 'StateChange'),
        count('prod-eu', 'gpu', 'CapacityReservationInterruption'),
        count('prod-eu', 'on-demand', 'ScheduledChange'),
      ]),
    );
    expect(h.metrics.datums).toHaveLength(6);
    // Five Spot interruptions of spot-general reach the default threshold; the Health event gets its own alert.
    expect(h.alerts.published.map((a) => [a.code, a.cluster]).sort()).toEqual([
      ['INTERRUPTION_SURGE', 'prod-eu'],
      ['SCHEDULED_MAINTENANCE', 'prod-eu'],
    ]);
  });
});

describe('interruptions handler: EC2 API calls per batch', () => {
  it('the real EC2 adapter sends ONE DescribeInstances request for the ten records of a batch', async () => {
    const client = ec2Client();
    const ec2 = mockClient(client);
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [
        {
          Instances: [
            {
              InstanceId: SPOT,
              InstanceType: 'm6i.large',
              State: { Code: 16, Name: 'running' },
              Tags: [
                { Key: 'eks:eks-cluster-name', Value: 'prod-eu' },
                { Key: 'karpenter.sh/nodepool', Value: 'spot-general' },
              ],
            },
          ],
        },
      ],
    });
    const h = harness({ ec2: new Ec2Adapter(client) });

    const response = await h.invokeSample('batch');

    expect(response.batchItemFailures).toEqual([]);
    const requests = ec2.commandCalls(DescribeInstancesCommand).map((c) => c.args[0].input);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.Filters).toEqual([{ Name: 'instance-id', Values: expect.arrayContaining([SPOT]) }]);
    expect(requests[0]?.Filters?.[0]?.Values).toHaveLength(10);
    expect(h.metrics.datums).toContainEqual(count('prod-eu', 'spot-general', 'SpotInterruption'));
    expect(h.metrics.datums).toContainEqual(count('none', 'none', 'SpotInterruption', 5));
  });
});

describe('interruptions handler: nobody will drain (INTERRUPTION_UNATTENDED)', () => {
  it('alerts when the last scan saw the controller unavailable, with the drain steps for the real node', async () => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable', 2 * 60_000);

    await h.invokeSample('spot-interruption');

    expect(h.alerts.published).toHaveLength(1);
    const [alert] = h.alerts.published;
    expect(alert).toMatchObject({
      event: 'interruption-unattended',
      code: 'INTERRUPTION_UNATTENDED',
      severity: 'critical',
      cluster: 'prod-eu',
      threadId: 'INTERRUPTION_UNATTENDED#prod-eu',
    });
    expect(alert?.title).toBe('Karpenter is down: 1 instance about to be interrupted with nobody to drain it');
    expect(alert?.description).toContain('found the Karpenter controller unavailable: 0/2 replicas ready');
    expect(alert?.description).toContain(
      '`i-0c5e8f1a2b3d4e5f6` (NodePool `spot-general`, m6i.large in eu-west-1a, node `ip-10-20-1-17.eu-west-1.compute.internal`): ' +
        'Spot interruption warning (terminate) at 2027-06-01T12:00:03Z',
    );
    expect(alert?.nextSteps).toEqual([
      'aws eks update-kubeconfig --region eu-west-1 --name prod-eu',
      'kubectl get deployments --all-namespaces -l app.kubernetes.io/name=karpenter',
      'kubectl drain ip-10-20-1-17.eu-west-1.compute.internal --ignore-daemonsets --delete-emptydir-data',
    ]);
  });

  it.each([
    ['available', 'available' as const, 60_000],
    ['unavailable but stale (older than controllerStatusMaxAge)', 'unavailable' as const, 10 * 60_000 + 1_000],
    ['managed by EKS Auto Mode', 'managed' as const, 60_000],
  ])('does not alert when the saved status is %s', async (_, controller: ClusterStatus['controller'], ageMs) => {
    const h = harness();
    await h.saveStatus('prod-eu', controller, ageMs);

    await h.invokeSample('spot-interruption');

    expect(h.alerts.published).toEqual([]);
    expect(h.metrics.datums).toEqual([count('prod-eu', 'spot-general', 'SpotInterruption')]);
  });

  it('still alerts at exactly controllerStatusMaxAge', async () => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable', 10 * 60_000);

    await h.invokeSample('rebalance-recommendation');

    expect(h.alerts.published.map((a) => a.code)).toEqual(['INTERRUPTION_UNATTENDED']);
  });

  it('does not alert on a state change: it reports what already happened', async () => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable');

    await h.invokeSample('state-change');

    expect(h.alerts.published).toEqual([]);
  });

  it('does not alert without any saved status', async () => {
    const h = harness();

    await h.invokeSample('capacity-reservation-interruption');

    expect(h.alerts.published).toEqual([]);
  });
});

describe('interruptions handler: surges (INTERRUPTION_SURGE)', () => {
  const spotIds = ['i-0d1c2b3a495867f70', 'i-06f5e4d3c2b1a0918', 'i-0a9b8c7d6e5f40312', 'i-03c4d5e6f7a8b9c0d', SPOT];
  const spotBatch = (ids: string[], time = '2027-06-01T12:00:03Z') =>
    batchOf(...ids.map((instanceId) => variant('spot-interruption', { eventId: `evt-${instanceId}-${time}`, instanceId, time })));

  it('alerts exactly once when the count crosses the threshold over several batches', async () => {
    const h = harness({ settings: { surgeThreshold: 3 } });

    await h.invoke(spotBatch(spotIds.slice(0, 2)));
    expect(h.alerts.published).toEqual([]);

    await h.invoke(spotBatch(spotIds.slice(2, 4)));
    expect(h.alerts.published).toHaveLength(1);

    await h.invoke(spotBatch(spotIds.slice(4)));
    expect(h.alerts.published).toHaveLength(1);
    const [alert] = h.alerts.published;
    expect(alert).toMatchObject({
      event: 'interruption-surge',
      code: 'INTERRUPTION_SURGE',
      severity: 'warning',
      cluster: 'prod-eu',
      title: 'Interruption surge: 4 interruptions of NodePool spot-general within 10m',
      threadId: 'INTERRUPTION_SURGE#prod-eu#spot-general',
    });
    expect(alert?.description).toContain('since 2027-06-01T12:00:00Z (threshold: 3 per 10m window)');
    expect(alert?.nextSteps).toContain(
      'aws ec2 get-spot-placement-scores --region eu-west-1 --region-names eu-west-1 --single-availability-zone --target-capacity 4 --instance-types m6i.large',
    );
    expect(alert?.nextSteps).toContain('kubectl get nodeclaims -l karpenter.sh/nodepool=spot-general -o wide');
  });

  it('does not alert below the threshold', async () => {
    const h = harness();

    await h.invoke(spotBatch(spotIds.slice(0, 2)));
    await h.invoke(spotBatch(spotIds.slice(2, 4)));

    expect(h.alerts.published).toEqual([]);
    expect(h.metrics.datums.map((d) => d.value)).toEqual([2, 2]);
  });

  it('counts each window on its own: a new window starts from zero', async () => {
    const h = harness({ settings: { surgeThreshold: 3 } });

    await h.invoke(spotBatch(spotIds.slice(0, 2), '2027-06-01T12:09:50Z'));
    h.clock.set('2027-06-01T12:10:30Z');
    await h.invoke(spotBatch(spotIds.slice(2, 4), '2027-06-01T12:10:05Z'));

    expect(h.alerts.published).toEqual([]);
  });

  it('does not count rebalance recommendations or state changes towards a surge', async () => {
    const h = harness({ settings: { surgeThreshold: 1 } });

    await h.invoke(batchOf(record('rebalance-recommendation'), record('state-change')));

    expect(h.alerts.published).toEqual([]);
  });
});

describe('interruptions handler: scheduled maintenance (SCHEDULED_MAINTENANCE)', () => {
  it('alerts once per Health event and cluster, with the start time and the instances', async () => {
    const h = harness();

    await h.invokeSample('health-scheduled-change');

    expect(h.metrics.datums).toEqual(
      expect.arrayContaining([
        count('prod-eu', 'on-demand', 'ScheduledChange', 2),
        count('staging', 'default', 'ScheduledChange'),
      ]),
    );
    expect(h.alerts.published.map((a) => [a.cluster, a.title])).toEqual([
      ['prod-eu', 'Scheduled maintenance: AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED for 2 instances from 2027-06-05T17:00:00Z'],
      ['staging', 'Scheduled maintenance: AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED for 1 instance from 2027-06-05T17:00:00Z'],
    ]);
    const [prod] = h.alerts.published;
    expect(prod).toMatchObject({ event: 'scheduled-maintenance', code: 'SCHEDULED_MAINTENANCE', severity: 'warning' });
    expect(prod?.description).toContain('**Maintenance:** from 2027-06-05T17:00:00Z (in 4d4h) to 2027-06-05T19:00:00Z');
    expect(prod?.description).toContain('`i-0e9f1a3b5c7d2e4f8` (NodePool `on-demand`');
    expect(prod?.nextSteps).toEqual([
      'aws eks update-kubeconfig --region eu-west-1 --name prod-eu',
      'kubectl delete nodeclaim on-demand-c3j9s',
      'kubectl delete nodeclaim on-demand-q8v2l',
      expect.stringMatching(
        /^aws health describe-event-details --region us-east-1 --event-arns arn:aws:health:eu-west-1::event\/EC2\//,
      ),
    ]);
  });

  it('with Karpenter down, the unattended alert gives the maintenance window, not the time of the announcement', async () => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable');

    await h.invokeSample('health-scheduled-change');

    const unattended = h.alerts.published.find((a) => a.code === 'INTERRUPTION_UNATTENDED');
    expect(unattended?.description).toContain(
      '`i-0e9f1a3b5c7d2e4f8` (NodePool `on-demand`, m6i.xlarge in eu-west-1c, node `ip-10-20-3-52.eu-west-1.compute.internal`): ' +
        'scheduled change (AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED) from 2027-06-05T17:00:00Z (in 4d4h) to 2027-06-05T19:00:00Z, ' +
        'announced 2027-06-01T11:58:12Z',
    );
    expect(unattended?.description).not.toContain('SCHEDULED) at ');
  });

  it('is not sent when alerts start at critical; the unattended alert still is', async () => {
    const h = harness({ settings: { minSeverity: 'critical' } });
    await h.saveStatus('prod-eu', 'unavailable');

    await h.invokeSample('health-scheduled-change');

    expect(h.alerts.published.map((a) => [a.code, a.cluster])).toEqual([['INTERRUPTION_UNATTENDED', 'prod-eu']]);
  });
});

describe('interruptions handler: instances of no Karpenter cluster', () => {
  it('are counted under Cluster none and never alerted', async () => {
    const h = harness({ settings: { surgeThreshold: 1 } });
    await h.saveStatus('prod-eu', 'unavailable');

    const response = await h.invokeSample('no-karpenter');

    expect(response.batchItemFailures).toEqual([]);
    expect(h.metrics.datums).toEqual([count('none', 'none', 'SpotInterruption'), count('none', 'none', 'StateChange')]);
    expect(h.alerts.published).toEqual([]);
  });
});

describe('interruptions handler: duplicate deliveries', () => {
  it('counts the same event delivered twice in one batch once; both records succeed', async () => {
    const h = harness();

    const response = await h.invokeSample('duplicate');

    expect(response.batchItemFailures).toEqual([]);
    expect(h.metrics.datums).toEqual([count('prod-eu', 'spot-general', 'SpotInterruption')]);
  });

  it('counts and alerts once when the same event comes in two invocations; the second calls nothing', async () => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable');

    await h.invokeSample('spot-interruption');
    const response = await h.invokeSample('spot-interruption');

    expect(response.batchItemFailures).toEqual([]);
    expect(h.metrics.calls).toHaveLength(1);
    expect(h.alerts.published).toHaveLength(1);
    expect(h.aws.callsTo('DescribeInstances')).toHaveLength(1);
  });

  it('fails a record another invocation is still processing, so it is retried, not lost', async () => {
    const state = new InMemoryStateStore();
    const h = harness({ state });
    const body = JSON.parse(record('spot-interruption').body) as { id: string };
    await state.claimDelivery(`event#${body.id}`, NOW, 60_000);

    const response = await h.invokeSample('spot-interruption');

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record('spot-interruption').messageId }]);
    expect(h.metrics.calls).toEqual([]);
  });
});

describe('interruptions handler: malformed records', () => {
  it('fails only the malformed records, each with a one-line log naming what was wrong', async () => {
    const h = harness();
    const [badJson, unknownType, noInstance, valid] = messageIds('malformed');

    const response = await h.invokeSample('malformed');

    expect(response.batchItemFailures).toEqual([badJson, unknownType, noInstance].map((itemIdentifier) => ({ itemIdentifier })));
    expect(valid).toBeDefined();
    expect(h.metrics.datums).toEqual([count('prod-eu', 'spot-general', 'SpotInterruption')]);
    const problems = h.logs.filter((l) => l.message === 'malformed record');
    expect(problems.map((l) => [l.messageId, l.code])).toEqual([
      [badJson, 'bad-json'],
      [unknownType, 'unknown-detail-type'],
      [noInstance, 'missing-instance-id'],
    ]);
    expect(problems[1]?.problem).toBe('unknown detail-type "EC2 AMI State Change" from source "aws.ec2"');
    expect(problems[2]?.problem).toBe('EC2 Spot Instance Interruption Warning: detail.instance-id is missing');
  });
});

describe('interruptions handler: stale and future-dated events are acknowledged, not acted on', () => {
  const notActedOn = (h: ReturnType<typeof harness>) => h.logs.filter((l) => String(l.message).endsWith('event not acted on'));

  it.each([
    ['a Spot warning from 1970', '1970-01-01T00:00:00Z', 'stale event not acted on', 'stale'],
    ['a Spot warning 30 min 1 s old', '2027-06-01T11:29:29Z', 'stale event not acted on', 'stale'],
    ['a Spot warning dated a day ahead', '2027-06-02T12:00:30Z', 'future-dated event not acted on', 'future'],
    ['a Spot warning dated 5 min 1 s ahead', '2027-06-01T12:05:31Z', 'future-dated event not acted on', 'future'],
  ])(
    '%s: acknowledged with one warning; no DescribeInstances, no count, no alert even with Karpenter down',
    async (_, time, message, reason) => {
      const h = harness();
      await h.saveStatus('prod-eu', 'unavailable');

      const response = await h.invoke(batchOf(variant('spot-interruption', { eventId: 'old', time, messageId: 'm-old' })));

      expect(response).toEqual({ batchItemFailures: [] });
      expect(h.aws.callsTo('DescribeInstances')).toEqual([]);
      expect(h.metrics.datums).toEqual([]);
      expect(h.alerts.published).toEqual([]);
      expect(notActedOn(h)).toEqual([
        expect.objectContaining({ message, messageId: 'm-old', eventId: 'old', kind: 'SpotInterruption', time }),
      ]);
      expect(String(notActedOn(h)[0]?.level).toUpperCase()).toBe('WARN');
      expect(h.logs.find((l) => l.message === 'interruptions handled')).toMatchObject({ [reason]: 1, counted: 0, failed: 0 });
    },
  );

  it.each([
    ['30 min old', '2027-06-01T11:30:30Z'],
    ['5 min ahead', '2027-06-01T12:05:30Z'],
  ])('a Spot warning %s is still counted and alerted', async (_, time) => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable');

    await h.invoke(batchOf(variant('spot-interruption', { eventId: 'edge', time })));

    expect(h.metrics.datums).toEqual([count('prod-eu', 'spot-general', 'SpotInterruption')]);
    expect(h.alerts.published.map((a) => a.code)).toEqual(['INTERRUPTION_UNATTENDED']);
    expect(notActedOn(h)).toEqual([]);
  });

  it.each([
    [
      'fresh at its first receive 40 min ago, retried now (throttling, the cap): counted and alerted',
      '2027-06-01T11:20:05Z',
      'counted',
    ],
    ['already 30 min 1 s old at its first receive: stale', '2027-06-01T11:50:01Z', 'stale'],
  ])('a Spot warning of 11:20:00 %s', async (_, firstReceive, outcome) => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable');
    const record = variant('spot-interruption', { eventId: 'retried', time: '2027-06-01T11:20:00Z', messageId: 'm-retried' });
    record.attributes = {
      ...record.attributes,
      ApproximateReceiveCount: '5',
      ApproximateFirstReceiveTimestamp: String(Date.parse(firstReceive)),
    };

    const response = await h.invoke(batchOf(record));

    expect(response).toEqual({ batchItemFailures: [] });
    if (outcome === 'counted') {
      expect(h.metrics.datums).toEqual([count('prod-eu', 'spot-general', 'SpotInterruption')]);
      expect(h.alerts.published.map((a) => a.code)).toEqual(['INTERRUPTION_UNATTENDED']);
      expect(notActedOn(h)).toEqual([]);
    } else {
      expect(h.alerts.published).toEqual([]);
      expect(notActedOn(h)).toEqual([
        expect.objectContaining({
          message: 'stale event not acted on',
          ageSeconds: 1801,
          firstReceivedAt: '2027-06-01T11:50:01.000Z',
        }),
      ]);
    }
  });

  it('a scheduled change announced days ago is news until its maintenance has ended', async () => {
    const ahead = harness();
    ahead.clock.set('2027-06-04T12:00:00Z'); // 3 days after the announcement, a day before the start

    await ahead.invokeSample('health-scheduled-change');

    expect(ahead.alerts.published.map((a) => a.code)).toEqual(['SCHEDULED_MAINTENANCE', 'SCHEDULED_MAINTENANCE']);
    const over = harness();
    over.clock.set('2027-06-05T19:30:01Z'); // 30 min 1 s after its end

    await over.invokeSample('health-scheduled-change');

    expect(over.alerts.published).toEqual([]);
    expect(over.metrics.datums).toEqual([]);
    expect(notActedOn(over).map((l) => [l.message, l.kind])).toEqual([['stale event not acted on', 'ScheduledChange']]);
  });
});

describe('interruptions handler: Karpenter’s own spot_interrupted example (i-0123456789)', () => {
  const at = (body: string, id: string) => body.replace('1e5527d7-bb36-4607-3370-4164db56a40e', id);

  it('is resolved and counted, never dead-lettered; the same message with a hostile instance id still is', async () => {
    const h = harness();
    h.clock.set('2022-08-11T14:00:05Z');
    const hostile = at(KARPENTER_SPOT_INTERRUPTED, 'hostile-1').replace(
      '"instance-id": "i-0123456789"',
      `"instance-id": ${JSON.stringify('i-0123456789$(reboot)')}`,
    );
    const tooLong = at(KARPENTER_SPOT_INTERRUPTED, 'hostile-2').replace(
      '"instance-id": "i-0123456789"',
      `"instance-id": "i-${'0'.repeat(18)}"`,
    );

    const result = await redrive(
      h.invoke,
      [sqsRecord('karpenter', KARPENTER_SPOT_INTERRUPTED), sqsRecord('hostile', hostile), sqsRecord('too-long', tooLong)],
      { maxReceiveCount: 5 },
    );

    expect(result.processed).toEqual(['karpenter']);
    expect(result.dlq.map((r) => r.messageId).sort()).toEqual(['hostile', 'too-long']);
    const described = h.aws.callsTo('DescribeInstances').map((c) => (c.input.query as { instanceIds: string[] }).instanceIds);
    expect(described[0]).toEqual(['i-0123456789']);
    expect(described.flat().every((id) => id === 'i-0123456789')).toBe(true);
    expect(h.metrics.datums).toEqual([count('none', 'none', 'SpotInterruption')]);
    const problems = h.logs.filter((l) => l.message === 'malformed record').map((l) => l.problem);
    expect(problems).toContain(
      'EC2 Spot Instance Interruption Warning: detail.instance-id "i-0123456789$(reboot)" is not an EC2 instance id',
    );
  });
});

describe('interruptions handler: failing calls fail the records they affect, and release them', () => {
  it('a DescribeInstances failure fails every record; the retry counts them once', async () => {
    const h = harness();
    h.aws.faults.fail('DescribeInstances', { error: { code: 'RequestLimitExceeded', message: 'Request limit exceeded.' } });

    const failed = await h.invokeSample('batch');

    expect(failed.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(messageIds('batch'));
    expect(h.metrics.calls).toEqual([]);
    expect(h.logs.find((l) => l.message === 'records failed')?.reason).toMatch(
      /^DescribeInstances failed: .*RequestLimitExceeded/,
    );

    const retried = await h.invokeSample('batch');

    expect(retried.batchItemFailures).toEqual([]);
    expect(h.metrics.calls).toHaveLength(1);
    expect(h.metrics.datums.reduce((sum, d) => sum + d.value, 0)).toBe(10);
  });

  it('a failing status read fails only the records that needed it', async () => {
    class FailingStatuses extends InMemoryStateStore {
      override async clusterStatuses(): Promise<Map<string, ClusterStatus>> {
        throw new Error('ProvisionedThroughputExceededException: Rate of requests exceeds the allowed throughput.');
      }
    }
    const h = harness({ state: new FailingStatuses() });

    const response = await h.invoke(batchOf(record('spot-interruption'), record('state-change')));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record('spot-interruption').messageId }]);
    expect(h.metrics.datums).toEqual([count('prod-eu', 'on-demand', 'StateChange')]);
  });

  it('a metrics failure fails no record: a warning, the alerts still go out, the events are done', async () => {
    // Prepare
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable');
    h.metrics.failNext = new Error('EPIPE: broken pipe, write');

    // Act
    const response = await h.invoke(batchOf(record('spot-interruption'), record('state-change')));
    const again = await h.invokeSample('spot-interruption');

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(h.logs.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({ message: 'metrics not written', datums: 2, error: 'Error: EPIPE: broken pipe, write' }),
    ]);
    expect(h.logs.filter((l) => l.level === 'error' && l.message !== 'invocation failed')).toEqual([]);
    expect(h.alerts.published.map((a) => a.code)).toContain('INTERRUPTION_UNATTENDED');
    expect(again.batchItemFailures).toEqual([]);
    expect(h.metrics.datums).toEqual([]); // the redelivery is a duplicate: counted once (here: the lost once)
  });

  it('a metrics sink that throws synchronously fails no record either', async () => {
    // Prepare
    const h = harness({
      metrics: {
        put: () => {
          throw new RangeError('Invalid string length');
        },
      },
    });

    // Act
    const response = await h.invoke(batchOf(record('spot-interruption'), record('state-change')));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(h.logs).toContainEqual(expect.objectContaining({ level: 'warn', message: 'metrics not written' }));
  });

  it('writes the batch counts as EMF lines: InterruptionEvents, Count, by Cluster, Kind and NodePool', async () => {
    // Prepare
    const lines: string[] = [];
    const h = harness({ metrics: new EmfMetricsSink(METRICS_NAMESPACE, { write: (line) => lines.push(line) }) });

    // Act
    const response = await h.invoke(batchOf(record('spot-interruption'), record('state-change')));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const documents = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(documents).toEqual([
      {
        _aws: {
          Timestamp: NOW.getTime(),
          CloudWatchMetrics: [
            {
              Namespace: 'KarpenterSentinel',
              Dimensions: [['Cluster', 'Kind', 'NodePool']],
              Metrics: [{ Name: 'InterruptionEvents', Unit: 'Count' }],
            },
          ],
        },
        Cluster: 'prod-eu',
        Kind: 'StateChange',
        NodePool: 'on-demand',
        InterruptionEvents: 1,
      },
      expect.objectContaining({ Cluster: 'prod-eu', Kind: 'SpotInterruption', NodePool: 'spot-general', InterruptionEvents: 1 }),
    ]);
  });

  it('a publish failure fails the records behind the alerts only; the retry alerts', async () => {
    const h = harness();
    await h.saveStatus('prod-eu', 'unavailable');
    h.alerts.failNext = new Error('AuthorizationError: not authorized to perform SNS:Publish');

    const failed = await h.invoke(batchOf(record('spot-interruption'), record('state-change')));
    const retried = await h.invokeSample('spot-interruption');

    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: record('spot-interruption').messageId }]);
    expect(retried.batchItemFailures).toEqual([]);
    expect(h.alerts.published.map((a) => a.code)).toEqual(['INTERRUPTION_UNATTENDED']);
  });

  it('a surge alert that failed to publish is sent by the retry', async () => {
    const h = harness({ settings: { surgeThreshold: 5 } });
    h.alerts.failNext = new Error('KMS.ThrottlingException: Rate exceeded');

    await h.invokeSample('batch');
    const retried = await h.invokeSample('batch');

    expect(retried.batchItemFailures).toEqual([]);
    expect(h.alerts.published.filter((a) => a.code === 'INTERRUPTION_SURGE')).toHaveLength(1);
  });
});

describe('the interruptions bundle', () => {
  it('loads no Kubernetes code and no EKS or IAM client', async () => {
    const result = await build({
      entryPoints: [new URL('../../functions/interruptions.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });

    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.endsWith('src/usecases/handle-interruptions.ts'))).toBe(true);
    expect(inputs.filter((i) => /src\/adapters\/kubernetes|@kubernetes\/|client-eks|client-iam/.test(i))).toEqual([]);
  });
});
