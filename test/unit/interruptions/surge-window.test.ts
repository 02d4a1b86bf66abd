import { describe, expect, it } from 'vitest';
import { surgeAlertKey, surgeCounterKey, windowExpiry, windowStartOf } from '../../../src/interruptions/surge-window.ts';

const NOW = new Date('2027-06-01T12:04:30Z');
const TEN_MINUTES = 600_000;

describe('surge windows', () => {
  it('puts an event in the tumbling window of its own time', () => {
    expect(windowStartOf('2027-06-01T11:59:59Z', NOW, TEN_MINUTES).toISOString()).toBe('2027-06-01T11:50:00.000Z');
    expect(windowStartOf('2027-06-01T12:00:00Z', NOW, TEN_MINUTES).toISOString()).toBe('2027-06-01T12:00:00.000Z');
  });

  it('never in a future window (a clock ahead of ours)', () => {
    expect(windowStartOf('2027-06-01T12:30:00Z', NOW, TEN_MINUTES).toISOString()).toBe('2027-06-01T12:00:00.000Z');
  });

  it('names the window in its keys', () => {
    const start = new Date('2027-06-01T12:00:00Z');

    expect(surgeCounterKey('prod-eu', 'spot-general', start)).toBe('surge#prod-eu#spot-general#2027-06-01T12:00:00Z');
    expect(surgeAlertKey('prod-eu', 'spot-general', start)).toBe('surge-alert#prod-eu#spot-general#2027-06-01T12:00:00Z');
  });

  it('keeps a counter one window past its end, and one window from now for late events', () => {
    expect(windowExpiry(new Date('2027-06-01T12:00:00Z'), NOW, TEN_MINUTES).toISOString()).toBe('2027-06-01T12:20:00.000Z');
    expect(windowExpiry(new Date('2027-06-01T10:00:00Z'), NOW, TEN_MINUTES).toISOString()).toBe('2027-06-01T12:14:30.000Z');
  });
});
