import { describe, expect, it } from 'vitest';
import { controllerUnhealthy } from '../../../../src/detectors/karpenter-controller-unhealthy/detector.ts';
import type { LogLine } from '../../../../src/domain/aws.ts';
import type { Container, CustomResourceDefinition } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { logLine, snapshotOf } from '../../../factories/aws.ts';
import { T0, containerStatus, crd, karpenterDeployment, karpenterPod, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

/**
 * Start-up errors the capture explains: the cluster name left unset
 * (test/incidents/cluster-name-empty-wrong-values-key) and a CRD the version needs not installed
 * (test/incidents/crd-machine-missing-v032). The log lines are those incidents' own.
 */
const NOW = minutesAfter(T0, 60);
const CLUSTER_NAME_PANIC = 'panic: "" not a valid CLUSTER_ENDPOINT URL; CLUSTER_NAME is required';
const V1ALPHA5_PANIC =
  'panic: failed to setup machine provider id indexer: failed to get API group resources: unable to retrieve the complete list of server APIs: karpenter.sh/v1alpha5: the server could not find the requested resource';

function crashing(container: Container, message: string, parts: { crds?: CustomResourceDefinition[] } = {}): ClusterSnapshot {
  const line: LogLine = { ...logLine({ level: 'ERROR', message }, 'karpenter-previous.log:1'), previous: true };
  return snapshotOf({
    pods: [
      karpenterPod({
        name: 'karpenter-5697769d6c-7lglp',
        nodeName: 'ip-10-59-127-151.ec2.internal',
        ready: false,
        spec: { containers: [container] },
        containerStatuses: [
          containerStatus({
            restarts: 11,
            waiting: 'CrashLoopBackOff',
            lastTerminated: { reason: 'Error', exitCode: 2, finishedAt: minutesAfter(T0, 57) },
          }),
        ],
      }),
    ],
    deployments: [karpenterDeployment({ replicas: 1, readyReplicas: 0 })],
    logs: [line],
    ...parts,
  });
}

function detect(snapshot: ClusterSnapshot) {
  const [finding] = controllerUnhealthy.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  });
  return { finding, text: JSON.stringify(finding) };
}

const v016 = (env: Container['env']): Container => ({
  name: 'controller',
  image: 'public.ecr.aws/karpenter/controller:v0.16.3',
  env,
});

describe('KARPENTER_CONTROLLER_UNHEALTHY / CLUSTER_NAME_MISSING', () => {
  it('an empty CLUSTER_NAME and the parser asking for it: names both settings and the value key of the chart v0.16', () => {
    // Prepare
    const snapshot = crashing(
      v016([
        { name: 'CLUSTER_NAME', value: '' },
        { name: 'CLUSTER_ENDPOINT', value: '' },
      ]),
      CLUSTER_NAME_PANIC,
    );
    // Act
    const { finding, text } = detect(snapshot);
    // Assess
    expect(finding?.cause?.code).toBe('CLUSTER_NAME_MISSING');
    expect(finding?.evidence).toContain(
      'karpenter/karpenter-5697769d6c-7lglp container controller: CLUSTER_NAME="", CLUSTER_ENDPOINT=""',
    );
    expect(text).toContain('top-level `clusterName` and `clusterEndpoint`');
    // The OCI chart did not exist for v0.16: no upgrade from it.
    expect(text).not.toContain('oci://public.ecr.aws/karpenter/karpenter');
  });

  it('v1 with no CLUSTER_NAME at all: `settings.clusterName` in a Helm upgrade of the installed version', () => {
    // Prepare
    const snapshot = crashing(
      { name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.8.1', env: [] },
      // The option parser's error as Parse wraps it (pkg/operator/options/options.go at v1.0.0).
      'validating options, missing field, cluster-name',
    );
    // Act
    const { finding } = detect(snapshot);
    // Assess
    expect(finding?.cause?.code).toBe('CLUSTER_NAME_MISSING');
    expect(finding?.remediation?.steps).toContainEqual(
      expect.stringContaining('--version 1.8.1 --reuse-values --set settings.clusterName=demo'),
    );
  });

  it('an unknown version: names the key of every chart generation, and guesses no upgrade command', () => {
    // Prepare
    const snapshot = crashing({ name: 'controller', image: 'example.com/karpenter:latest', env: [] }, CLUSTER_NAME_PANIC);
    // Act
    const { finding, text } = detect(snapshot);
    // Assess
    expect(finding?.cause?.code).toBe('CLUSTER_NAME_MISSING');
    expect(text).toContain('v0.19 to v0.31 `settings.aws.clusterName`');
    expect(text).not.toContain('helm upgrade');
  });

  it('a CLUSTER_NAME the container does set contradicts the log: no step tells to set it', () => {
    // Prepare: the pod captured has a name; the log is from another run.
    const snapshot = crashing(v016([{ name: 'CLUSTER_NAME', value: 'prod' }]), CLUSTER_NAME_PANIC);
    // Act
    const { finding, text } = detect(snapshot);
    // Assess
    expect(finding?.cause?.code).toBe('CRASH_LOOP');
    expect(text).not.toContain('clusterName');
  });

  it('a name passed as --cluster-name is not proven unset', () => {
    // Prepare
    const container = { ...v016([]), args: ['--cluster-name=prod'] };
    // Act
    const { finding } = detect(crashing(container, CLUSTER_NAME_PANIC));
    // Assess
    expect(finding?.cause?.code).toBe('CRASH_LOOP');
  });
});

const V032: Container = { name: 'controller', image: 'public.ecr.aws/karpenter/controller:v0.32.3@sha256:afa0d0fd' };
const v1beta1 = [
  crd({ plural: 'nodepools', group: 'karpenter.sh', kind: 'NodePool' }),
  crd({ plural: 'nodeclaims', group: 'karpenter.sh', kind: 'NodeClaim' }),
].map((c) => ({ ...c, spec: { ...c.spec, versions: [{ name: 'v1beta1', served: true, storage: true }] } }));
const machines = (() => {
  const c = crd({ plural: 'machines', group: 'karpenter.sh', kind: 'Machine' });
  return { ...c, spec: { ...c.spec, versions: [{ name: 'v1alpha5', served: true, storage: true }] } };
})();

describe('KARPENTER_CONTROLLER_UNHEALTHY / CRD_MISSING', () => {
  it('v0.32 without the v1alpha5 CRDs: names machines.karpenter.sh and installs that release’s CRDs', () => {
    // Prepare
    const snapshot = crashing(V032, V1ALPHA5_PANIC, { crds: v1beta1 });
    // Act
    const { finding, text } = detect(snapshot);
    // Assess
    expect(finding?.cause?.code).toBe('CRD_MISSING');
    expect(finding?.cause?.detail).toContain('machines.karpenter.sh, provisioners.karpenter.sh (karpenter.sh/v1alpha5)');
    expect(text).toContain('pkg/apis/crds/karpenter.sh_machines.yaml');
    expect(text).toContain('karpenter-crd --version v0.32.3');
  });

  it('an image tag that is not a version: the group/version alone, and no CRD file of a guessed release', () => {
    // Prepare
    const snapshot = crashing({ ...V032, image: 'registry.example.com/karpenter/controller:latest' }, V1ALPHA5_PANIC, {
      crds: v1beta1,
    });
    // Act
    const { finding, text } = detect(snapshot);
    // Assess
    expect(finding?.cause?.code).toBe('CRD_MISSING');
    expect(finding?.cause?.detail).toContain('no captured CRD serves karpenter.sh/v1alpha5');
    expect(text).not.toContain('raw.githubusercontent.com');
  });

  it('a captured CRD that serves the version contradicts the error: no CRD is said to be missing', () => {
    // Prepare
    const snapshot = crashing(V032, V1ALPHA5_PANIC, { crds: [...v1beta1, machines] });
    // Act
    const { finding, text } = detect(snapshot);
    // Assess
    expect(finding?.cause?.code).toBe('CRASH_LOOP');
    expect(text).not.toContain('karpenter-crd');
  });

  it('without captured CRDs the error alone stays a CRASH_LOOP', () => {
    // Act
    const { finding } = detect(crashing(V032, V1ALPHA5_PANIC));
    // Assess
    expect(finding?.cause?.code).toBe('CRASH_LOOP');
  });
});
