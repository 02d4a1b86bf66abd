import { describe, expect, it } from 'vitest';
import type { ResolvedEvent } from '../../../src/interruptions/owner.ts';
import {
  alertWanted,
  controllerUnavailable,
  scheduledMaintenanceAlert,
  surgeAlert,
  unattendedAlert,
} from '../../../src/notify/interruption-alerts.ts';
import { interruptionMetrics } from '../../../src/notify/interruption-metrics.ts';
import type { ClusterStatus } from '../../../src/ports/state.ts';
import { instance } from '../../factories/aws.ts';

const NOW = new Date('2027-06-01T12:00:30Z');

function resolved(instanceId: string, overrides: Partial<ResolvedEvent> = {}): ResolvedEvent {
  return {
    kind: 'SpotInterruption',
    eventId: `evt-${instanceId}`,
    instanceId,
    time: '2027-06-01T12:00:03Z',
    region: 'eu-west-1',
    action: 'terminate',
    cluster: 'prod-eu',
    nodePool: 'spot-general',
    karpenter: true,
    ...overrides,
  };
}

const status = (controller: ClusterStatus['controller'], observedAt: string): ClusterStatus => ({
  cluster: 'prod-eu',
  observedAt,
  controller,
  readyReplicas: 0,
  desiredReplicas: 2,
});

describe('controllerUnavailable', () => {
  it.each([
    ['unavailable, 10 min old', status('unavailable', '2027-06-01T11:50:30Z'), true],
    ['unavailable, 10 min 1 s old', status('unavailable', '2027-06-01T11:50:29Z'), false],
    ['available', status('available', '2027-06-01T12:00:00Z'), false],
    ['not found', status('not-found', '2027-06-01T12:00:00Z'), false],
    ['unavailable with an unreadable time', status('unavailable', 'soon'), false],
    ['missing', undefined, false],
  ])('%s → %s', (_, subject, expected) => {
    expect(controllerUnavailable(subject, NOW, 10 * 60_000)).toBe(expected);
  });
});

describe('alertWanted', () => {
  it('keeps the critical unattended alert at every minimum and drops warnings below a critical minimum', () => {
    expect(alertWanted('INTERRUPTION_UNATTENDED', 'critical')).toBe(true);
    expect(alertWanted('INTERRUPTION_SURGE', 'critical')).toBe(false);
    expect(alertWanted('SCHEDULED_MAINTENANCE', 'warning')).toBe(true);
  });
});

describe('unattendedAlert', () => {
  it('lists at most ten instances and says how many more; an instance without a DNS name gets a lookup step', () => {
    const events = Array.from({ length: 12 }, (_, n) => resolved(`i-0c5e8f1a2b3d4e5${n.toString(16).padStart(2, '0')}`));

    const alert = unattendedAlert({
      cluster: 'prod-eu',
      status: status('unavailable', '2027-06-01T11:59:30Z'),
      events,
      now: NOW,
    });

    expect(alert.title).toBe('Karpenter is down: 12 instances about to be interrupted with nobody to drain them');
    expect(alert.description).toContain('…and 2 more');
    expect(alert.nextSteps[2]).toBe(
      'kubectl get nodes -o custom-columns=NAME:.metadata.name,PROVIDER:.spec.providerID --no-headers | grep i-0c5e8f1a2b3d4e500',
    );
    expect(alert.nextSteps.at(-1)).toBe('…and 2 more');
  });

  it('puts an instance with two events (rebalance, then interruption) on one line', () => {
    const events = [
      resolved('i-0a4b7c9d2e1f30865', { kind: 'RebalanceRecommendation', time: '2027-06-01T11:59:41Z' }),
      resolved('i-0a4b7c9d2e1f30865'),
    ];
    delete events[0]?.action;

    const alert = unattendedAlert({
      cluster: 'prod-eu',
      status: status('unavailable', '2027-06-01T11:59:30Z'),
      events,
      now: NOW,
    });

    expect(alert.title).toContain('1 instance about');
    expect(alert.description).toContain(
      '- `i-0a4b7c9d2e1f30865` (NodePool `spot-general`): rebalance recommendation at 2027-06-01T11:59:41Z; ' +
        'Spot interruption warning (terminate) at 2027-06-01T12:00:03Z',
    );
  });
});

describe('surgeAlert', () => {
  it('offers no Spot placement scores for capacity reservation interruptions', () => {
    const alert = surgeAlert({
      cluster: 'prod-eu',
      nodePool: 'gpu',
      total: 6,
      threshold: 5,
      windowStart: new Date('2027-06-01T12:00:00Z'),
      windowMs: 600_000,
      events: [resolved('i-0b3d5f7a9c1e2d4f6', { kind: 'CapacityReservationInterruption', nodePool: 'gpu' })],
      now: NOW,
    });

    expect(alert.nextSteps.some((s) => s.includes('get-spot-placement-scores'))).toBe(false);
    expect(alert.nextSteps).toContain("kubectl get nodepool gpu -o jsonpath='{.spec.template.spec.requirements}'");
  });
});

describe('scheduledMaintenanceAlert', () => {
  const change = {
    eventArn: 'arn:aws:health:eu-west-1::event/EC2/AWS_EC2_INSTANCE_STOP_SCHEDULED/AWS_EC2_INSTANCE_STOP_SCHEDULED_1',
    eventTypeCode: 'AWS_EC2_INSTANCE_STOP_SCHEDULED',
  };

  it('says so when the event gives no start time, and drains by node name without a NodeClaim tag', () => {
    const node = { ...instance({ id: 'i-0e9f1a3b5c7d2e4f8', cluster: 'prod-eu', nodePool: 'on-demand' }) };
    delete node.tags['karpenter.sh/nodeclaim'];
    node.privateDnsName = 'ip-10-20-3-52.eu-west-1.compute.internal';
    const events = [
      resolved('i-0e9f1a3b5c7d2e4f8', {
        kind: 'ScheduledChange',
        nodePool: 'on-demand',
        instance: node,
        scheduledChange: change,
      }),
    ];

    const alert = scheduledMaintenanceAlert({ cluster: 'prod-eu', change, events, now: NOW });

    expect(alert.title).toBe('Scheduled maintenance: AWS_EC2_INSTANCE_STOP_SCHEDULED for 1 instance');
    expect(alert.description).toContain('**Maintenance:** start not given');
    expect(alert.nextSteps).toContain(
      'kubectl drain ip-10-20-3-52.eu-west-1.compute.internal --ignore-daemonsets --delete-emptydir-data',
    );
    expect(alert.threadId).toBe(`SCHEDULED_MAINTENANCE#prod-eu#${change.eventArn}`);
  });

  it('says when the maintenance has already started', () => {
    const started = { ...change, startTime: '2027-06-01T11:00:00Z' };

    const alert = scheduledMaintenanceAlert({
      cluster: 'prod-eu',
      change: started,
      events: [resolved('i-0e9f1a3b5c7d2e4f8')],
      now: NOW,
    });

    expect(alert.description).toContain('**Maintenance:** from 2027-06-01T11:00:00Z (already started)');
  });
});

describe('interruptionMetrics', () => {
  it('sums events per Cluster, NodePool and Kind into one datum each', () => {
    const datums = interruptionMetrics([
      resolved('i-1'),
      resolved('i-2'),
      resolved('i-3', { kind: 'RebalanceRecommendation' }),
      resolved('i-4', { cluster: 'none', nodePool: 'none', karpenter: false }),
    ]);

    expect(datums).toEqual([
      {
        name: 'InterruptionEvents',
        unit: 'Count',
        value: 1,
        dimensions: { Cluster: 'none', NodePool: 'none', Kind: 'SpotInterruption' },
      },
      {
        name: 'InterruptionEvents',
        unit: 'Count',
        value: 1,
        dimensions: { Cluster: 'prod-eu', NodePool: 'spot-general', Kind: 'RebalanceRecommendation' },
      },
      {
        name: 'InterruptionEvents',
        unit: 'Count',
        value: 2,
        dimensions: { Cluster: 'prod-eu', NodePool: 'spot-general', Kind: 'SpotInterruption' },
      },
    ]);
  });

  it('gives nothing for nothing', () => {
    expect(interruptionMetrics([])).toEqual([]);
  });
});
