/** Regressions the handler fuzz (test/functions/handler-fuzz.test.ts) found: each was a TypeError. */
import { describe, expect, it } from 'vitest';
import { batchItemFailures, EventShapeError, eventTimeOf, snsRecordsOf, sqsRecordsOf } from '../../../src/service/event-shape.ts';
import { SentinelError } from '../../../src/domain/errors.ts';

describe('sqsRecordsOf', () => {
  it('reads each record’s id, body and receive count', () => {
    const event = { Records: [{ messageId: 'm1', body: '{}', attributes: { ApproximateReceiveCount: '3' } }] };

    expect(sqsRecordsOf(event)).toEqual([{ messageId: 'm1', body: '{}', receiveCount: 3 }]);
  });

  it('a record without attributes (was: reading ApproximateReceiveCount of undefined) counts as a first receive', () => {
    expect(sqsRecordsOf({ Records: [{ messageId: 'm1', body: 'x' }] })).toEqual([
      { messageId: 'm1', body: 'x', receiveCount: 1 },
    ]);
    expect(
      sqsRecordsOf({ Records: [{ messageId: 'm1', body: 'x', attributes: { ApproximateReceiveCount: '-2' } }] })[0]?.receiveCount,
    ).toBe(1);
  });

  it('a body that is not a string is an empty one: the record parses as malformed, the others go on', () => {
    expect(sqsRecordsOf({ Records: [{ messageId: 'm1', body: { cluster: 'x' } }] })[0]?.body).toBe('');
  });

  it.each([
    [null, 'not an SQS event: no Records list'],
    [[], 'not an SQS event: no Records list'],
    [{ Records: 'x' }, 'not an SQS event: no Records list'],
    [{ Records: [null] }, 'not an SQS event: Records[0] has no messageId'],
    [{ Records: [{ messageId: 'm1' }, { messageId: 7 }] }, 'not an SQS event: Records[1] has no messageId'],
  ])('%j (was: a TypeError) is refused with a typed error in one line', (event, message) => {
    const refusal = () => sqsRecordsOf(event);

    expect(refusal).toThrow(EventShapeError);
    expect(refusal).toThrow(SentinelError);
    expect(refusal).toThrow(message);
  });
});

describe('batchItemFailures', () => {
  it('names each message SQS is to deliver again, and none for a batch done', () => {
    expect(batchItemFailures(['m-1', 'm-3'])).toEqual({
      batchItemFailures: [{ itemIdentifier: 'm-1' }, { itemIdentifier: 'm-3' }],
    });
    expect(batchItemFailures([])).toEqual({ batchItemFailures: [] });
  });
});

describe('snsRecordsOf', () => {
  it('keeps string attributes only (was: reading Value of null)', () => {
    const event = {
      Records: [
        {
          Sns: {
            MessageId: 'm1',
            Message: 'hi',
            Subject: null,
            MessageAttributes: { a: null, b: { Value: 'x' }, c: { Value: 1 } },
          },
        },
      ],
    };

    expect(snsRecordsOf(event)).toEqual([{ messageId: 'm1', message: 'hi', subject: undefined, attributes: { b: 'x' } }]);
  });

  it('an event without Records has no messages; Records that is no list, or a record without Sns, is refused', () => {
    expect(snsRecordsOf({})).toEqual([]);
    expect(() => snsRecordsOf({ Records: '[]' })).toThrow('not an SNS event: no Records list');
    expect(() => snsRecordsOf({ Records: [{}] })).toThrow('not an SNS event: Records[0] has no Sns object');
    expect(() => snsRecordsOf(null)).toThrow(EventShapeError);
  });
});

describe('eventTimeOf', () => {
  it('the event’s time, or undefined for no event, no time or one that does not parse (was: reading time of null)', () => {
    expect(eventTimeOf({ time: '2026-01-01T01:00:00Z' })?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect([null, 'x', {}, { time: 5 }, { time: 'soon' }].map(eventTimeOf)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
