import type { LogLine } from '../../domain/aws.ts';
import type { Container, CustomResourceDefinition } from '../../domain/kube.ts';
import { logText } from '../cloud-errors/cloud-errors.ts';
import { parseVersion } from '../karpenter/version.ts';

/**
 * Start-up errors the rest of the capture explains (docs/findings.md, KARPENTER_CONTROLLER_UNHEALTHY):
 * the controller refuses to start because its cluster name is unset, or because a CRD its version
 * needs is not installed. Each needs the error in the log AND the capture's own fact agreeing (the
 * container's env, the captured CRDs); a capture that contradicts the error leaves the crash a CRASH_LOOP.
 */

/**
 * The option parser's words for an unset cluster name: `CLUSTER_NAME is required` (v0.16,
 * pkg/utils/options/options.go) and `missing field, cluster-name` (v1, pkg/operator/options/options_validation.go).
 */
const CLUSTER_NAME_REQUIRED = /CLUSTER_NAME is required|missing field, cluster-name/;
/** The same parser on an unset endpoint (v0.16): `"" not a valid CLUSTER_ENDPOINT URL`. */
const ENDPOINT_EMPTY = /"" not a valid CLUSTER_ENDPOINT URL/;
/** The API server's discovery answer for a group/version no CRD serves (client-go), e.g. `karpenter.sh/v1alpha5`. */
const GROUP_VERSION_NOT_FOUND =
  /([a-z0-9.-]+\.[a-z]+)\/(v\d+(?:(?:alpha|beta)\d+)?): the server could not find the requested resource/;

export interface ClusterNameMissing {
  /** `""` when set to an empty string, undefined when not set at all. */
  clusterName: '' | undefined;
  /** The endpoint is empty too (the panic says so, or the env holds `""`). */
  endpointEmpty: boolean;
}

/** The cluster name is unset: the log says the parser wants it, and the container's env and args agree. */
export function clusterNameMissing(error: LogLine | undefined, container: Container | undefined): ClusterNameMissing | undefined {
  if (!error || !container) return undefined;
  const text = logText(error);
  if (!CLUSTER_NAME_REQUIRED.test(text)) return undefined;
  // A name passed as a flag, or from a Secret or ConfigMap, is one the capture cannot see: not proven unset.
  if (container.args?.some((a) => a.startsWith('--cluster-name'))) return undefined;
  const name = container.env?.find((e) => e.name === 'CLUSTER_NAME');
  if (name?.valueFrom || (name?.value ?? '') !== '') return undefined;
  const endpoint = container.env?.find((e) => e.name === 'CLUSTER_ENDPOINT');
  return {
    clusterName: name ? '' : undefined,
    endpointEmpty: ENDPOINT_EMPTY.test(text) || (endpoint !== undefined && !endpoint.valueFrom && endpoint.value === ''),
  };
}

/**
 * The CRDs each Karpenter version installs, by API group/version (pkg/apis/crds at the release
 * tags of aws/karpenter-provider-aws): v0.32 serves v1alpha5 and v1beta1 side by side, v0.33 to
 * v0.37 only v1beta1, v1 serves v1 (v1.0 also v1beta1).
 */
const CRDS_BY_RELEASE: readonly { test: (minor: [number, number]) => boolean; crds: Record<string, readonly string[]> }[] = [
  {
    test: ([major, minor]) => major === 0 && minor === 32,
    crds: {
      'karpenter.sh/v1alpha5': ['machines.karpenter.sh', 'provisioners.karpenter.sh'],
      'karpenter.k8s.aws/v1alpha1': ['awsnodetemplates.karpenter.k8s.aws'],
      'karpenter.sh/v1beta1': ['nodepools.karpenter.sh', 'nodeclaims.karpenter.sh'],
      'karpenter.k8s.aws/v1beta1': ['ec2nodeclasses.karpenter.k8s.aws'],
    },
  },
  {
    test: ([major, minor]) => major === 0 && minor >= 33 && minor <= 37,
    crds: {
      'karpenter.sh/v1beta1': ['nodepools.karpenter.sh', 'nodeclaims.karpenter.sh'],
      'karpenter.k8s.aws/v1beta1': ['ec2nodeclasses.karpenter.k8s.aws'],
    },
  },
  {
    test: ([major]) => major === 1,
    crds: {
      'karpenter.sh/v1': ['nodepools.karpenter.sh', 'nodeclaims.karpenter.sh'],
      'karpenter.k8s.aws/v1': ['ec2nodeclasses.karpenter.k8s.aws'],
    },
  },
];

export interface CrdMissing {
  /** `karpenter.sh/v1alpha5`: the group/version the API server does not serve. */
  groupVersion: string;
  /** The CRDs of that group/version the controller's version installs, none of them captured; empty when the version is unknown. */
  crds: string[];
  /** The controller's version (`0.32.3`), when its image tag or chart label says it. */
  version: string | undefined;
}

/**
 * A CRD the controller needs is not installed: the API server says it serves no such group/version,
 * and no captured CRD serves it. Only with the CRDs captured: without them the error alone cannot
 * tell a missing CRD from one that stopped serving the version.
 */
export function crdMissing(
  error: LogLine | undefined,
  crds: readonly CustomResourceDefinition[] | undefined,
  version: string | undefined,
): CrdMissing | undefined {
  if (!error || !crds) return undefined;
  const m = GROUP_VERSION_NOT_FOUND.exec(logText(error));
  if (!m) return undefined;
  const [, group, apiVersion] = m as unknown as [string, string, string];
  const serves = (c: CustomResourceDefinition) =>
    c.spec?.group === group && (c.spec.versions ?? []).some((v) => v.name === apiVersion && v.served !== false);
  if (crds.some(serves)) return undefined;
  const groupVersion = `${group}/${apiVersion}`;
  const names = new Set(crds.map((c) => c.metadata?.name));
  const release = version ? CRDS_BY_RELEASE.find((r) => r.test(majorMinor(version))) : undefined;
  return { groupVersion, crds: (release?.crds[groupVersion] ?? []).filter((n) => !names.has(n)), version };
}

/** [major, minor]; [-1, -1] for a version that does not read as one. */
function majorMinor(version: string): [number, number] {
  const v = parseVersion(version);
  return v ? [v.major, v.minor] : [-1, -1];
}

/**
 * The Helm values that set the cluster name and endpoint, by chart version (charts/karpenter/values.yaml
 * at each tag): top-level `clusterName` up to v0.18, `settings.aws.clusterName` from v0.19 to v0.31,
 * `settings.clusterName` from v0.32. Undefined when the version is unknown.
 */
export function clusterNameValues(version: string | undefined): { name: string; endpoint: string } | undefined {
  if (!version) return undefined;
  const [major, minor] = majorMinor(version);
  if (major === 0 && minor <= 18) return { name: 'clusterName', endpoint: 'clusterEndpoint' };
  if (major === 0 && minor <= 31) return { name: 'settings.aws.clusterName', endpoint: 'settings.aws.clusterEndpoint' };
  return { name: 'settings.clusterName', endpoint: 'settings.clusterEndpoint' };
}
