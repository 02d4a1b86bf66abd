import { describe, expect, it } from 'vitest';
import { DEFAULT_KUBE_READ_LIMITS, parseKubeReadLimits, raiseHint } from '../../../src/domain/kube-read-limits.ts';

describe('parseKubeReadLimits', () => {
  it('reads sizes, counts and durations by name; the rest keep their defaults', () => {
    expect(parseKubeReadLimits('response-size=64MiB, list-items=500000,list-time=3m,log-size=8MiB')).toEqual({
      responseBytes: 64 * 1024 ** 2,
      listItems: 500_000,
      listMs: 180_000,
      logBytes: 8 * 1024 ** 2,
    });
  });

  it('names an unknown limit and lists the known ones', () => {
    expect(parseKubeReadLimits('pages=10')).toEqual({
      problem:
        "'pages=10' is not NAME=VALUE with NAME one of response-size, list-size, list-items, list-pages, list-time, log-size",
    });
  });

  it('names a value of the wrong kind', () => {
    expect(parseKubeReadLimits('list-pages=lots')).toEqual({
      problem: "list-pages must be a whole number, 1 or more (got 'lots')",
    });
    expect(parseKubeReadLimits('list-size=0')).toEqual({ problem: "list-size must be a size such as 64MiB (got '0')" });
  });
});

describe('raiseHint', () => {
  it('suggests twice the limit, in the syntax the flag and the variable take', () => {
    expect(raiseHint('responseBytes', DEFAULT_KUBE_READ_LIMITS.responseBytes)).toBe(
      'the response-size limit; raise it with --kube-read-limits response-size=64MiB or KUBE_READ_LIMITS',
    );
  });
});
