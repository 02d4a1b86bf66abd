/**
 * Which Karpenter a controller is, from what its Deployment or pods say: read by the detectors
 * (src/detectors/karpenter/) and by the simulator (which controller answers a webhook's Service),
 * declared here, below both.
 */
import type { Container } from './kube.ts';

/** `public.ecr.aws/karpenter/controller:v0.32.3@sha256:…` → `0.32.3`; undefined for a tag that is not a version. */
export function imageVersion(image: string | undefined): string | undefined {
  return /:v?(\d+\.\d+\.\d+)(?:[@-]|$)/.exec(image ?? '')?.[1];
}

/** The controller's container among these: the one named `name` (when given), else `controller` (the chart's), else the first. */
export function pickControllerContainer(containers: readonly Container[] | undefined, name?: string): Container | undefined {
  return (
    (name !== undefined ? containers?.find((c) => c.name === name) : undefined) ??
    containers?.find((c) => c.name === 'controller') ??
    containers?.[0]
  );
}

/** `helm.sh/chart: karpenter-1.8.1` → `1.8.1` (`karpenter-v0.33.1` → `v0.33.1`: charts before v0.35 carry the v), else the `app.kubernetes.io/version` label. */
export function chartVersionFrom(chart: string | undefined, appVersion: string | undefined): string | undefined {
  return /^karpenter-(v?\d+\.\d+\.\d+\S*)$/.exec(chart ?? '')?.[1] ?? appVersion;
}
