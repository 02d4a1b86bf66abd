import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { shellQuote } from '../../domain/shell.ts';
import { chartVersionFrom } from '../../domain/controller-image.ts';

/**
 * `helm upgrade` of the Karpenter release, as every finding prints it: the release and chart
 * version come from the controller's labels, because `--reuse-values` without `--version` would
 * also upgrade Karpenter to the newest chart.
 */

export interface KarpenterRelease {
  /** The Helm release (`app.kubernetes.io/instance`, `meta.helm.sh/release-name`), `karpenter` when unlabelled. */
  release: string;
  namespace: string;
  /** The installed chart version (`helm.sh/chart: karpenter-1.8.1`, else `app.kubernetes.io/version`), when labelled. */
  chartVersion: string | undefined;
}

/** The chart version an object's Helm labels give. */
export function chartVersionOf(labels: Readonly<Record<string, string>> | undefined): string | undefined {
  return chartVersionFrom(labels?.['helm.sh/chart'], labels?.['app.kubernetes.io/version']);
}

function labelOf(info: Pick<ControllerInfo, 'deployment' | 'pods'>, key: string): string | undefined {
  return info.deployment?.metadata?.labels?.[key] ?? info.pods.find((p) => p.metadata?.labels?.[key])?.metadata?.labels?.[key];
}

/** The release a controller was installed by, from its Deployment's labels or else its pods'. */
export function karpenterRelease(
  info: Pick<ControllerInfo, 'namespace' | 'deployment' | 'pods'> | undefined,
  fallbackNamespace = 'karpenter',
): KarpenterRelease {
  if (!info) return { release: 'karpenter', namespace: fallbackNamespace, chartVersion: undefined };
  return {
    release: labelOf(info, 'app.kubernetes.io/instance') ?? 'karpenter',
    namespace: info.namespace,
    chartVersion: chartVersionFrom(labelOf(info, 'helm.sh/chart'), labelOf(info, 'app.kubernetes.io/version')),
  };
}

/** `helm upgrade RELEASE oci://… -n NS [--version V] --reuse-values --set a=b …` (or `--set-json`). */
export function helmUpgrade(r: KarpenterRelease, sets: readonly string[], flag: '--set' | '--set-json' = '--set'): string {
  const version = r.chartVersion ? ` --version ${shellQuote(r.chartVersion)}` : '';
  return `helm upgrade ${shellQuote(r.release)} oci://public.ecr.aws/karpenter/karpenter -n ${shellQuote(r.namespace)}${version} --reuse-values ${sets.map((s) => `${flag} ${shellQuote(s)}`).join(' ')}`;
}

/** Said beside a `helm upgrade` whose chart version is unknown. */
export function versionNote(r: KarpenterRelease): string {
  return r.chartVersion
    ? ''
    : ' (add --version with the installed chart version, `helm list -n NAMESPACE`, or Helm upgrades Karpenter too)';
}
