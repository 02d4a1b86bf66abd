import { describe, expect, it } from 'vitest';
import { eventBody, parsed, parseError } from './bodies.ts';

const DETAIL_TYPE = 'EC2 Instance Rebalance Recommendation';

describe('EC2 Instance Rebalance Recommendation', () => {
  it('gives one RebalanceRecommendation event with no action', () => {
    const record = parsed(
      eventBody({
        detailType: DETAIL_TYPE,
        resources: ['arn:aws:ec2:eu-west-1b:instance/i-0a4b7c9d2e1f30865'],
        detail: { 'instance-id': 'i-0a4b7c9d2e1f30865' },
      }),
    );

    expect(record.kind).toBe('RebalanceRecommendation');
    expect(record.events).toEqual([
      {
        kind: 'RebalanceRecommendation',
        eventId: record.eventId,
        instanceId: 'i-0a4b7c9d2e1f30865',
        time: '2027-06-01T12:00:03Z',
        region: 'eu-west-1',
      },
    ]);
  });

  it('fails when detail.instance-id is missing', () => {
    expect(parseError(eventBody({ detailType: DETAIL_TYPE, detail: {} })).code).toBe('missing-instance-id');
  });

  it('fails when detail.instance-id is not a string', () => {
    expect(parseError(eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-id': 42 } })).code).toBe('invalid-field');
  });
});
