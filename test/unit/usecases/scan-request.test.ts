import { describe, expect, it } from 'vitest';
import { parseScanRequest, scanDeliveryKey } from '../../../src/usecases/scan-request.ts';

describe('parseScanRequest', () => {
  it('reads a request and normalises requestedAt to ISO seconds, so every spelling of a tick is one key', () => {
    const a = parseScanRequest('{"cluster":"shop-prod","requestedAt":"2026-01-01T01:00:00Z"}');
    const b = parseScanRequest('{"cluster":"shop-prod","requestedAt":"2026-01-01T01:00:00.000Z"}');
    const c = parseScanRequest('{"cluster":"shop-prod","requestedAt":"2026-01-01T02:00:00+01:00"}');

    expect(a).toEqual({ ok: true, request: { cluster: 'shop-prod', requestedAt: '2026-01-01T01:00:00Z' } });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(a.ok && scanDeliveryKey(a.request)).toBe('scan#shop-prod#2026-01-01T01:00:00Z');
  });

  it.each([
    ['{"cluster": "shop-prod"', /^body is not JSON \(/],
    ['["shop-prod"]', /^body is not a JSON object/],
    ['null', /^body is not a JSON object/],
    ['{"requestedAt":"2026-01-01T01:00:00Z"}', /^body has no "cluster"/],
    ['{"cluster":"","requestedAt":"2026-01-01T01:00:00Z"}', /^body has no "cluster"/],
    [
      '{"cluster":"shop prod; rm -rf","requestedAt":"2026-01-01T01:00:00Z"}',
      /^"cluster" "shop prod; rm -rf" is not an EKS cluster name/,
    ],
    ['{"cluster":"shop-prod"}', /^"requestedAt" null is not an ISO-8601 time/],
    ['{"cluster":"shop-prod","requestedAt":"yesterday"}', /^"requestedAt" "yesterday" is not an ISO-8601 time/],
    ['{"cluster":"shop-prod","requestedAt":"2026-13-45T99:00:00Z"}', /is not an ISO-8601 time/],
    ['{"cluster":"shop-prod","requestedAt":1767229200000}', /is not an ISO-8601 time/],
  ])('%s → a problem naming what is wrong', (body, problem) => {
    const parsed = parseScanRequest(body);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toMatch(problem);
  });

  it('accepts the longest EKS cluster name and refuses one longer', () => {
    const name = `a${'b'.repeat(99)}`;
    expect(parseScanRequest(JSON.stringify({ cluster: name, requestedAt: '2026-01-01T01:00:00Z' })).ok).toBe(true);
    expect(parseScanRequest(JSON.stringify({ cluster: `${name}c`, requestedAt: '2026-01-01T01:00:00Z' })).ok).toBe(false);
  });
});
