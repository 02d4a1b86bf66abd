import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../src/domain/settings.ts';
import { findingId, newFinding } from '../../../src/domain/finding.ts';
import { isKubeObjectName } from '../../../src/domain/kube-helpers.ts';

describe('durations', () => {
  it.each([
    ['300', 300_000],
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['2h', 7_200_000],
    ['500ms', 500],
    ['1d2h3m4s5ms', 93_784_005],
    ['1.5h', 5_400_000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', ' ', 'five', '5x', '-5m', '5m junk', '5 m', '5m5m', '1h1h', '30s1m', '30m1h', '1m1s1m', `${'9'.repeat(400)}`])(
    'rejects %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it('formats for humans', () => {
    expect(formatDuration(47 * 60_000)).toBe('47m');
    expect(formatDuration(3_725_000)).toBe('1h2m');
  });
});

describe('finding ids', () => {
  it('are stable for the same code and resource and differ otherwise', () => {
    const a = findingId('ORPHANED_INSTANCE', { kind: 'Instance', id: 'i-1' });

    expect(findingId('ORPHANED_INSTANCE', { kind: 'Instance', id: 'i-1' })).toBe(a);
    expect(findingId('ORPHANED_INSTANCE', { kind: 'Instance', id: 'i-2' })).not.toBe(a);
    expect(findingId('ORPHANED_INSTANCE', { kind: 'Instance', id: 'i-1' }, 'x')).not.toBe(a);
  });
});

describe('newFinding', () => {
  it('lays out the report keys in the documented order, whatever order the detector wrote', () => {
    const f = newFinding({
      remediation: null,
      evidence: [],
      cause: null,
      since: null,
      resource: { kind: 'Instance', id: 'i-1' },
      title: 't',
      severity: 'warning',
      code: 'ORPHANED_INSTANCE',
      discriminator: 'x',
    });

    expect(Object.keys(f)).toEqual(['id', 'code', 'severity', 'title', 'resource', 'since', 'cause', 'evidence', 'remediation']);
  });
});

describe('Kubernetes object names (DNS-1123 subdomains)', () => {
  it.each(['spot-pool', 'a', 'pool.v2', '0-gpu', 'x'.repeat(253)])('%j is a name', (name) => {
    expect(isKubeObjectName(name)).toBe(true);
  });

  it.each(['', 'Spot', 'spot_pool', '-spot', 'spot-', 'a..b', 'a.-b', 'spot pool', 'x'.repeat(254)])('%j is not', (name) => {
    expect(isKubeObjectName(name)).toBe(false);
  });
});
