import { describe, expect, it } from 'vitest';
import { healthTime } from '../../../src/interruptions/kinds/scheduled-change.ts';
import { eventBody, parsed, parseError } from './bodies.ts';

const ARN =
  'arn:aws:health:eu-west-1::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED_af31ad4e-e029-4b89-983d-fe5f55b6dfbc';

function healthEvent(detail: Record<string, unknown>): string {
  return eventBody({
    detailType: 'AWS Health Event',
    source: 'aws.health',
    time: '2027-06-01T11:58:12Z',
    detail: {
      eventArn: ARN,
      service: 'EC2',
      eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
      eventTypeCategory: 'scheduledChange',
      startTime: 'Sat, 05 Jun 2027 17:00:00 GMT',
      endTime: 'Sat, 05 Jun 2027 19:00:00 GMT',
      statusCode: 'upcoming',
      affectedEntities: [{ entityValue: 'i-0e9f1a3b5c7d2e4f8' }, { entityValue: 'i-07d2e4f6a8b0c1d39' }],
      ...detail,
    },
  });
}

describe('AWS Health Event (EC2 scheduledChange)', () => {
  it('gives one ScheduledChange event per affected instance, times in ISO-8601', () => {
    const record = parsed(healthEvent({}));

    const change = {
      eventArn: ARN,
      eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
      startTime: '2027-06-05T17:00:00Z',
      endTime: '2027-06-05T19:00:00Z',
      statusCode: 'upcoming',
    };
    expect(record.kind).toBe('ScheduledChange');
    expect(record.events).toEqual([
      {
        kind: 'ScheduledChange',
        eventId: record.eventId,
        instanceId: 'i-0e9f1a3b5c7d2e4f8',
        time: '2027-06-01T11:58:12Z',
        region: 'eu-west-1',
        action: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
        scheduledChange: change,
      },
      expect.objectContaining({ instanceId: 'i-07d2e4f6a8b0c1d39', scheduledChange: change }),
    ]);
  });

  it('accepts ISO-8601 start and end times too', () => {
    const record = parsed(healthEvent({ startTime: '2027-06-05T17:00:00Z', endTime: '2027-06-05T19:00:00.000+00:00' }));

    expect(record.events[0]?.scheduledChange).toMatchObject({
      startTime: '2027-06-05T17:00:00Z',
      endTime: '2027-06-05T19:00:00Z',
    });
  });

  it('has no start time when the event gives none', () => {
    const record = parsed(healthEvent({ startTime: undefined, endTime: undefined }));

    expect(record.events[0]?.scheduledChange).toEqual({
      eventArn: ARN,
      eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
      statusCode: 'upcoming',
    });
  });

  it('skips entities that are not instances (a Dedicated Host) and repeated ones', () => {
    const record = parsed(
      healthEvent({
        affectedEntities: [
          { entityValue: 'h-0b1c2d3e4f5a6b7c8' },
          { entityValue: 'i-0e9f1a3b5c7d2e4f8' },
          { entityValue: 'i-0e9f1a3b5c7d2e4f8' },
        ],
      }),
    );

    expect(record.events.map((e) => e.instanceId)).toEqual(['i-0e9f1a3b5c7d2e4f8']);
  });

  it.each([
    ['another service', { service: 'RDS' }],
    ['another category', { eventTypeCategory: 'issue', eventTypeCode: 'AWS_EC2_OPERATIONAL_ISSUE' }],
  ])('ignores Health events of %s, as Karpenter does', (_, detail) => {
    expect(parsed(healthEvent(detail)).events).toEqual([]);
  });

  it('fails naming detail.affectedEntities when it is missing', () => {
    expect(parseError(healthEvent({ affectedEntities: undefined }))).toEqual({
      code: 'missing-instance-id',
      message: 'AWS Health Event: detail.affectedEntities is missing',
    });
  });

  it('fails naming the field when the start time is not a date', () => {
    expect(parseError(healthEvent({ startTime: 'next Saturday' }))).toEqual({
      code: 'invalid-field',
      message: 'AWS Health Event: detail.startTime "next Saturday" is not a date',
    });
  });

  it('fails when detail.eventArn is missing', () => {
    expect(parseError(healthEvent({ eventArn: undefined })).message).toBe('AWS Health Event: detail.eventArn is missing');
  });
});

describe('healthTime', () => {
  it.each([
    ['Sat, 05 Jun 2027 17:00:00 GMT', '2027-06-05T17:00:00Z'],
    ['5 Jun 2027 17:00 GMT', '2027-06-05T17:00:00Z'],
    ['2027-06-05T17:00:00Z', '2027-06-05T17:00:00Z'],
    ['2027-06-05T19:00:00+02:00', '2027-06-05T17:00:00Z'],
  ])('reads %s', (text, iso) => {
    expect(healthTime(text)).toBe(iso);
  });

  it.each(['2027', 'June 5', 'Sat, 05 Jun 2027', '', 'Sat, 45 Jun 2027 17:00:00 GMT'])('refuses %j', (text) => {
    expect(healthTime(text)).toBeUndefined();
  });
});
