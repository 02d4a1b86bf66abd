/**
 * Karpenter's version as the detectors read it (`1.2.3`, from the chart label or the image tag, a
 * leading `v` allowed): the one parser the version-dependent wording and steps share.
 */
export interface KarpenterVersion {
  major: number;
  minor: number;
  /** 0 when the text has no patch part. */
  patch: number;
}

/** `1.2.3`, `v0.32.3`, `1.2` → its numbers; undefined for text that does not start with major.minor. */
export function parseVersion(version: string | undefined): KarpenterVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version ?? '');
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/** Whether the version is at least major.minor.patch; undefined for a version it cannot read. */
export function versionAtLeast(version: string | undefined, major: number, minor: number, patch = 0): boolean | undefined {
  const v = parseVersion(version);
  if (!v) return undefined;
  if (v.major !== major) return v.major > major;
  if (v.minor !== minor) return v.minor > minor;
  return v.patch >= patch;
}
