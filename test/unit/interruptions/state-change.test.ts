import { describe, expect, it } from 'vitest';
import { eventBody, parsed, parseError } from './bodies.ts';

const DETAIL_TYPE = 'EC2 Instance State-change Notification';
const stateEvent = (state: unknown) =>
  eventBody({ detailType: DETAIL_TYPE, detail: { 'instance-id': 'i-07d2e4f6a8b0c1d39', state } });

describe('EC2 Instance State-change Notification', () => {
  it.each(['stopping', 'stopped', 'shutting-down', 'terminated'])(
    'counts %s as an interruption, with the state as its action',
    (state) => {
      const record = parsed(stateEvent(state));

      expect(record.events).toEqual([
        expect.objectContaining({ kind: 'StateChange', instanceId: 'i-07d2e4f6a8b0c1d39', action: state }),
      ]);
    },
  );

  it('reads the state case-insensitively, as Karpenter does', () => {
    expect(parsed(stateEvent('Shutting-Down')).events[0]?.action).toBe('shutting-down');
  });

  it.each(['pending', 'running'])('ignores %s: parsed, no event, no error', (state) => {
    const record = parsed(stateEvent(state));

    expect(record).toMatchObject({ kind: 'StateChange', events: [] });
  });

  it('fails when detail.state is missing', () => {
    expect(parseError(stateEvent(undefined))).toEqual({
      code: 'invalid-field',
      message: `${DETAIL_TYPE}: detail.state is missing`,
    });
  });

  it('fails when detail.instance-id is missing', () => {
    expect(parseError(eventBody({ detailType: DETAIL_TYPE, detail: { state: 'terminated' } })).code).toBe('missing-instance-id');
  });
});
