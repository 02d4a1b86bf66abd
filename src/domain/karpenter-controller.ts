/**
 * What Karpenter's controller Deployment (or pod) says about itself, read the same way by the live
 * scan, the capture script's rules, the detectors and the simulator (which controller answers a
 * webhook's Service): which container is the controller, and its
 * version (`1.2.3`, from the chart label or the image tag, a leading `v` allowed).
 */
import type { Container, Deployment } from './kube.ts';

interface KarpenterVersion {
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

/** `helm.sh/chart: karpenter-1.8.1` → `1.8.1` (`karpenter-v0.33.1` → `v0.33.1`: charts before v0.35 carry the v), else the `app.kubernetes.io/version` label. */
export function chartVersionFrom(chart: string | undefined, appVersion: string | undefined): string | undefined {
  return /^karpenter-(v?\d+\.\d+\.\d+\S*)$/.exec(chart ?? '')?.[1] ?? appVersion;
}

/** `public.ecr.aws/karpenter/controller:v0.32.3@sha256:…` → `0.32.3`; undefined for a tag that is not a version. */
export function imageVersion(image: string | undefined): string | undefined {
  return /:v?(\d+\.\d+\.\d+)(?:[@-]|$)/.exec(image ?? '')?.[1];
}

/**
 * The controller's container among these: the one named `name` (when given), else `controller` (the
 * chart's), else the first. Anything but a list (a hand-edited capture) holds none.
 */
export function pickControllerContainer(containers: unknown, name?: string): Container | undefined {
  if (!Array.isArray(containers)) return undefined;
  const list = (containers as unknown[]).filter((c): c is Container => typeof c === 'object' && c !== null);
  return (
    (name !== undefined ? list.find((c) => c.name === name) : undefined) ?? list.find((c) => c.name === 'controller') ?? list[0]
  );
}

/** A controller Deployment's version: its chart label, else its controller container's image tag, without the `v`. */
export function deploymentVersion(deployment: Deployment): string | undefined {
  const labels = deployment.metadata?.labels;
  const chart = chartVersionFrom(labels?.['helm.sh/chart'], labels?.['app.kubernetes.io/version']);
  return chart?.replace(/^v/, '') ?? imageVersion(pickControllerContainer(deployment.spec?.template?.spec?.containers)?.image);
}
