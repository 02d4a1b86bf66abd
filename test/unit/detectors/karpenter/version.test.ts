import { describe, expect, it } from 'vitest';
import { parseVersion, versionAtLeast } from '../../../../src/detectors/karpenter/version.ts';

describe("Karpenter's version, one parser for every version-dependent word", () => {
  it('reads chart and image versions, with or without the v, with or without a patch', () => {
    expect(parseVersion('1.7.2')).toEqual({ major: 1, minor: 7, patch: 2 });
    expect(parseVersion('v0.32.3')).toEqual({ major: 0, minor: 32, patch: 3 });
    expect(parseVersion('1.2')).toEqual({ major: 1, minor: 2, patch: 0 });
    expect(parseVersion('latest')).toBeUndefined();
  });

  it('compares down to the patch: the repair log left debug level in v1.7.2', () => {
    expect(versionAtLeast('1.7.1', 1, 7, 2)).toBe(false);
    expect(versionAtLeast('1.7.2', 1, 7, 2)).toBe(true);
    expect(versionAtLeast('1.8.0', 1, 7, 2)).toBe(true);
    expect(versionAtLeast('0.37.9', 1, 1)).toBe(false);
    expect(versionAtLeast('2.0.0', 1, 12)).toBe(true);
    expect(versionAtLeast(undefined, 1, 1)).toBeUndefined();
  });
});
