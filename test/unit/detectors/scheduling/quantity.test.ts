import { describe, expect, it } from 'vitest';
import { formatQuantity, parseQuantity, parseResources } from '../../../../src/detectors/scheduling/quantity.ts';

describe('parseQuantity', () => {
  it.each([
    ['100m', 0.1],
    ['1930m', 1.93],
    ['2', 2],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['128Mi', 128 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['3388304Ki', 3388304 * 1024],
    ['200Gi', 200 * 2 ** 30],
    ['1G', 1e9],
    ['500k', 500_000],
    ['1e3', 1000],
    ['12E', 12e18],
    ['17', 17],
  ])('%s', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 9);
  });

  it.each(['', 'lots', '1Qi', '5 Gi', 'Gi'])('rejects %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });

  it('reads a resource list, skipping what it cannot parse', () => {
    expect(parseResources({ cpu: '1930m', memory: '3388304Ki', pods: '17', junk: 'x' })).toEqual({
      cpu: 1.93,
      memory: 3388304 * 1024,
      pods: 17,
    });
  });
});

describe('formatQuantity', () => {
  it('writes cpu in cores or millicores', () => {
    expect(formatQuantity('cpu', 2)).toBe('2');
    expect(formatQuantity('cpu', 0.25)).toBe('250m');
  });

  it('writes memory in binary units', () => {
    expect(formatQuantity('memory', 2 ** 30)).toBe('1Gi');
    expect(formatQuantity('memory', 128 * 2 ** 20)).toBe('128Mi');
    expect(formatQuantity('memory', 3388304 * 1024)).toBe('3388304Ki');
    expect(formatQuantity('memory', 1.5 * 2 ** 30 + 7)).toBe('1.5Gi');
  });
});
