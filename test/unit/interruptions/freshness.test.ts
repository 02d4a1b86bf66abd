import { describe, expect, it } from 'vitest';
import { STALE_AFTER_MS, staleness } from '../../../src/interruptions/freshness.ts';
import { interruptionQueueLastReceiveAfterMs } from '../../infra/queue-settings.ts';
import { eventBody, parsed } from './bodies.ts';

const NOW = new Date('2027-06-01T12:00:30Z');
const spot = (time: string) =>
  parsed(eventBody({ detailType: 'EC2 Spot Instance Interruption Warning', time, detail: { 'instance-id': 'i-1234abcd' } }));

describe('staleness', () => {
  it('never cuts off a real retry: the queue delivers a failing record for the last time before the cut-off', () => {
    expect(interruptionQueueLastReceiveAfterMs()).toBeLessThan(STALE_AFTER_MS - 60_000);
  });

  it.each([
    ['2027-06-01T12:00:03Z', undefined],
    ['2027-06-01T11:30:30Z', undefined],
    ['2027-06-01T11:30:29Z', 'stale'],
    ['1970-01-01T00:00:00Z', 'stale'],
    ['2027-06-01T12:05:30Z', undefined],
    ['2027-06-01T12:05:31Z', 'future'],
  ])('an event of %s is %s', (time, reason) => {
    expect(staleness(spot(time), NOW)?.reason).toBe(reason);
  });

  it('judges the age at the first receive: a retry of a record fresh then is still news', () => {
    const old = spot('2027-06-01T11:20:00Z');

    expect(staleness(old, NOW)?.reason).toBe('stale');
    expect(staleness(old, NOW, new Date('2027-06-01T11:20:05Z'))).toBeUndefined();
    expect(staleness(old, NOW, new Date('2027-06-01T11:50:01Z'))).toEqual({ reason: 'stale', ageMs: 1_801_000 });
    // A first receive stamped after the function's clock (skew) counts as now.
    expect(staleness(old, NOW, new Date('2027-06-02T00:00:00Z'))?.reason).toBe('stale');
  });

  it('judges a scheduled change by the end of its maintenance, else its start', () => {
    const health = (detail: Record<string, unknown>) =>
      parsed(
        eventBody({
          detailType: 'AWS Health Event',
          source: 'aws.health',
          time: '2027-05-01T00:00:00Z',
          detail: {
            eventArn: 'arn:aws:health:eu-west-1::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/x',
            service: 'EC2',
            eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
            eventTypeCategory: 'scheduledChange',
            affectedEntities: [{ entityValue: 'i-1234abcd' }],
            ...detail,
          },
        }),
      );

    expect(staleness(health({ startTime: 'Sat, 05 Jun 2027 17:00:00 GMT' }), NOW)).toBeUndefined();
    expect(
      staleness(health({ startTime: 'Mon, 31 May 2027 17:00:00 GMT', endTime: 'Tue, 01 Jun 2027 11:45:00 GMT' }), NOW),
    ).toBeUndefined();
    expect(
      staleness(health({ startTime: 'Mon, 31 May 2027 17:00:00 GMT', endTime: 'Mon, 31 May 2027 19:00:00 GMT' }), NOW)?.reason,
    ).toBe('stale');
    expect(staleness(health({}), NOW)?.reason).toBe('stale');
  });
});
