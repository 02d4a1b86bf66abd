import { describe, expect, it } from 'vitest';
import { INTERRUPTION_KINDS } from '../../../src/interruptions/event.ts';
import { KIND_PARSERS } from '../../../src/interruptions/parse.ts';
import { eventBody, parsed, parseError } from './bodies.ts';

const spot = { detailType: 'EC2 Spot Instance Interruption Warning', detail: { 'instance-id': 'i-0c5e8f1a2b3d4e5f6' } };

describe('parseRecord', () => {
  it('registers exactly one parser per kind, each for a distinct source and detail-type', () => {
    expect(KIND_PARSERS.map((p) => p.kind).sort()).toEqual([...INTERRUPTION_KINDS].sort());
    expect(new Set(KIND_PARSERS.map((p) => `${p.source}/${p.detailType}`)).size).toBe(KIND_PARSERS.length);
  });

  it('fails a body that is not JSON with the parser message', () => {
    const error = parseError('{"version":"0","id":"6a7e8feb-b491-4cf7-a9f1-bf3703467718",');

    expect(error.code).toBe('bad-json');
    expect(error.message).toMatch(/^body is not JSON: /);
  });

  it.each([
    ['a JSON array', '[]', 'body is not an EventBridge event (not a JSON object)'],
    ['a JSON string', '"hello"', 'body is not an EventBridge event (not a JSON object)'],
    [
      'no id',
      JSON.stringify({ ...JSON.parse(eventBody(spot)), id: undefined }),
      'body is not an EventBridge event: "id" is missing',
    ],
    [
      'no detail-type',
      JSON.stringify({ ...JSON.parse(eventBody(spot)), 'detail-type': '' }),
      'body is not an EventBridge event: "detail-type" is missing',
    ],
    [
      'no detail',
      JSON.stringify({ ...JSON.parse(eventBody(spot)), detail: null }),
      'body is not an EventBridge event: "detail" is missing',
    ],
  ])('fails %s as not an event', (_, body, message) => {
    expect(parseError(body)).toEqual({ code: 'not-an-event', message });
  });

  it('fails an unknown detail-type, naming it and its source', () => {
    const error = parseError(eventBody({ detailType: 'EC2 AMI State Change', detail: { ImageId: 'ami-0a1b2c3d4e5f67890' } }));

    expect(error).toEqual({
      code: 'unknown-detail-type',
      message: 'unknown detail-type "EC2 AMI State Change" from source "aws.ec2"',
    });
  });

  it('fails a known detail-type from the wrong source', () => {
    expect(parseError(eventBody({ ...spot, source: 'aws.health' })).code).toBe('unknown-detail-type');
  });

  it('fails an event time that is not a date', () => {
    expect(parseError(eventBody({ ...spot, time: 'yesterday' }))).toEqual({
      code: 'invalid-field',
      message: '"time" "yesterday" is not a date',
    });
  });

  it('reads an event whatever extra top-level fields it carries', () => {
    const body = JSON.stringify({ ...JSON.parse(eventBody(spot)), code: 'x', message: 'y' });

    expect(parsed(body).events.map((e) => e.instanceId)).toEqual(['i-0c5e8f1a2b3d4e5f6']);
  });

  it('normalises the event time to ISO-8601 seconds', () => {
    expect(parsed(eventBody({ ...spot, time: '2027-06-01T12:00:03.250Z' })).events[0]?.time).toBe('2027-06-01T12:00:03Z');
  });
});
