import { describe, expect, it } from 'vitest';
import { spotInterruption } from '../../../src/interruptions/kinds/spot-interruption.ts';
import { eventBody, parsed, parseError } from './bodies.ts';

const DETAIL_TYPE = 'EC2 Spot Instance Interruption Warning';

describe('EC2 Spot Instance Interruption Warning', () => {
  it('gives one SpotInterruption event for detail.instance-id, with the instance-action', () => {
    const body = eventBody({
      detailType: DETAIL_TYPE,
      resources: ['arn:aws:ec2:eu-west-1a:instance/i-0c5e8f1a2b3d4e5f6'],
      detail: { 'instance-id': 'i-0c5e8f1a2b3d4e5f6', 'instance-action': 'terminate' },
    });

    const record = parsed(body);

    expect(record).toEqual({
      eventId: '1e5527d7-bb36-4607-3370-4164db56a40e',
      kind: 'SpotInterruption',
      events: [
        {
          kind: 'SpotInterruption',
          eventId: '1e5527d7-bb36-4607-3370-4164db56a40e',
          instanceId: 'i-0c5e8f1a2b3d4e5f6',
          time: '2027-06-01T12:00:03Z',
          region: 'eu-west-1',
          action: 'terminate',
        },
      ],
    });
  });

  it('accepts the short 8-digit instance ids and a stop action', () => {
    const record = parsed(
      eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-id': 'i-1234abcd', 'instance-action': 'stop' } }),
    );

    expect(record.events.map((e) => [e.instanceId, e.action])).toEqual([['i-1234abcd', 'stop']]);
  });

  it.each(['i-0123456789', 'i-01234567890123'])('accepts %s, an id length Karpenter’s own examples use', (id) => {
    const record = parsed(eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-id': id, 'instance-action': 'terminate' } }));

    expect(record.events.map((e) => e.instanceId)).toEqual([id]);
  });

  it.each([
    ['7 digits', 'i-1234abc'],
    ['18 digits', `i-${'0'.repeat(18)}`],
    ['upper case', 'i-0123456789ABCDEF0'],
    ['a shell substitution', 'i-0123456789$(reboot)'],
    ['a line break', 'i-0123456789\nkubectl delete nodes --all'],
  ])('rejects an id with %s', (_, id) => {
    const error = parseError(eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-id': id } }));

    expect(error.code).toBe('invalid-field');
  });

  it('is registered under aws.ec2 and its detail-type', () => {
    expect([spotInterruption.source, spotInterruption.detailType]).toEqual(['aws.ec2', DETAIL_TYPE]);
  });

  it('fails naming detail.instance-id when it is missing', () => {
    const error = parseError(eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-action': 'terminate' } }));

    expect(error).toEqual({ code: 'missing-instance-id', message: `${DETAIL_TYPE}: detail.instance-id is missing` });
  });

  it('fails when detail.instance-id is not an instance id', () => {
    const error = parseError(
      eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-id': 'ip-10-0-1-23.eu-west-1.compute.internal' } }),
    );

    expect(error.code).toBe('invalid-field');
    expect(error.message).toContain('"ip-10-0-1-23.eu-west-1.compute.internal" is not an EC2 instance id');
  });
});
