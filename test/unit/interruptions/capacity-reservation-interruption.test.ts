import { describe, expect, it } from 'vitest';
import { eventBody, parsed, parseError } from './bodies.ts';

const DETAIL_TYPE = 'EC2 Capacity Reservation Instance Interruption Warning';

describe('EC2 Capacity Reservation Instance Interruption Warning', () => {
  it('gives one CapacityReservationInterruption event with the instance-action', () => {
    const record = parsed(
      eventBody({
        detailType: DETAIL_TYPE,
        detail: {
          'instance-id': 'i-0b3d5f7a9c1e2d4f6',
          'instance-action': 'terminate',
          'instance-termination-time': '2027-06-01T12:02:04Z',
          azId: 'euw1-az3',
        },
      }),
    );

    expect(record.events).toEqual([
      expect.objectContaining({
        kind: 'CapacityReservationInterruption',
        instanceId: 'i-0b3d5f7a9c1e2d4f6',
        action: 'terminate',
      }),
    ]);
  });

  it('fails when detail.instance-id is missing', () => {
    const error = parseError(
      eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-action': 'terminate', azId: 'euw1-az3' } }),
    );

    expect(error).toEqual({ code: 'missing-instance-id', message: `${DETAIL_TYPE}: detail.instance-id is missing` });
  });
});
