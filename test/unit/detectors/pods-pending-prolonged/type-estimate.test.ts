import { describe, expect, it } from 'vitest';
import { podsPendingProlonged } from '../../../../src/detectors/pods-pending-prolonged/detector.ts';
import type { InstanceTypeInfo } from '../../../../src/domain/instance-types.ts';
import type { NodeSelectorRequirementWithMinValues, Pod } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { logLine, snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass, nodePool } from '../../../factories/karpenter.ts';
import { T0, karpenterPod, minutesAfter, pod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

/**
 * NO_INSTANCE_TYPE_FITS from our own evaluation of instance types (docs/instance-types.md): when
 * Karpenter's words are missing, and to explain them when they are there.
 */

const NOW = minutesAfter(T0, 30);
const CONTROLLER = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'ip-10-59-127-151.ec2.internal' });
const SMALL_CPU: NodeSelectorRequirementWithMinValues = {
  key: 'karpenter.k8s.aws/instance-cpu',
  operator: 'In',
  values: ['2', '4'],
};

function detect(snapshot: ClusterSnapshot) {
  return podsPendingProlonged.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  });
}

function requesting(requests: Record<string, string>, name = 'train-1', spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return pod({
    name,
    namespace: 'ml',
    unschedulableMessage: '0/3 nodes are available: 3 Insufficient cpu.',
    spec: { containers: [{ name: 'main', resources: { requests } }], ...spec },
  });
}

function cluster(
  pods: Pod[],
  requirements: NodeSelectorRequirementWithMinValues[],
  extra: Parameters<typeof snapshotOf>[0] = {},
) {
  return snapshotOf({
    pods: [CONTROLLER, ...pods],
    nodePools: [nodePool({ name: 'small', requirements })],
    nodeClasses: [ec2NodeClass({ name: 'default' })],
    events: [],
    ...extra,
  });
}

function text(f: { cause?: { detail: string } | null; evidence: string[]; remediation?: { steps: string[] } | null }): string {
  return [f.cause?.detail, ...f.evidence, ...(f.remediation?.steps ?? [])].join('\n');
}

describe('PODS_PENDING_PROLONGED / NO_INSTANCE_TYPE_FITS without a word from Karpenter', () => {
  it('evaluates the NodePool against instance types: a 16-CPU pod and an instance-cpu In [2 4] pool', () => {
    // Act
    const [f] = detect(cluster([requesting({ cpu: '16', memory: '8Gi' })], [SMALL_CPU]));

    // Assess
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.cause?.detail).toMatch(/NodePool small allows \d+ instance types/);
    expect(f?.cause?.detail).toMatch(
      /the closest, \S+ \(4 vCPU, \d+ MiB\), holds by Karpenter's estimate cpu 3920m for pods, short of the cpu 16 needed/,
    );
    expect(f?.evidence.join('\n')).toMatch(/the bundled table of \d+ instance types \(\d{4}-\d{2}-\d{2}/);
    expect(f?.remediation?.steps.join('\n')).toContain(
      'widen requirement karpenter.k8s.aws/instance-cpu In [2 4] of NodePool small',
    );
    expect(text(f!)).not.toMatch(/vmMemoryOverheadPercent|offering/);
  });

  it('names the GPU the allowed categories lack', () => {
    const gpuPod = requesting({ cpu: '2', 'nvidia.com/gpu': '1' });

    const [f] = detect(
      cluster([gpuPod], [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] }]),
    );

    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.cause?.detail).toContain('nvidia.com/gpu');
  });

  it('says nothing of instance types when one fits: the cause stays UNKNOWN and no widen step is printed', () => {
    const [f] = detect(cluster([requesting({ cpu: '2', memory: '2Gi' })], [SMALL_CPU]));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(text(f!)).not.toMatch(/widen|instance types:/);
  });

  it('concludes nothing from the bundled table when the NodePool names a family it does not hold', () => {
    const [f] = detect(
      cluster(
        [requesting({ cpu: '16' })],
        [SMALL_CPU, { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m6a', 'q99z'] }],
      ),
    );

    expect(f?.cause?.code).toBe('UNKNOWN');
  });

  it("uses the account's captured instance types over the bundled table", () => {
    const huge: InstanceTypeInfo = {
      name: 'm6a.2xlarge',
      vcpus: 4,
      memoryMiB: 8192,
      architectures: ['x86_64'],
      usageClasses: ['on-demand'],
      hypervisor: 'nitro',
      maxNetworkInterfaces: 4,
      ipv4PerInterface: 15,
      bareMetal: false,
    };
    const p = requesting({ cpu: '3' });

    const own = detect(cluster([p], [SMALL_CPU], { instanceTypes: [{ ...huge, vcpus: 2 }] }));
    const bundled = detect(cluster([p], [SMALL_CPU]));

    expect(own[0]?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(own[0]?.evidence.join('\n')).toContain("the 1 instance types of the account's DescribeInstanceTypes");
    expect(bundled[0]?.cause?.code).toBe('UNKNOWN');
  });

  it("adds the pod's own selector to the NodePool's requirements: an NVIDIA GPU from general-purpose types is none", () => {
    const p = requesting({ cpu: '1' }, 'gpu-1', { nodeSelector: { 'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia' } });

    const [f] = detect(cluster([p], [{ key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] }]));

    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.cause?.detail).toContain('NodePool small: its requirements allow no instance type at all');
  });
});

describe("PODS_PENDING_PROLONGED / NO_INSTANCE_TYPE_FITS explaining Karpenter's own message", () => {
  // The v0.32 line of aws/karpenter-provider-aws#5676, with a pod field it lacked there.
  const LINE =
    'incompatible with nodepool "master", daemonset overhead={"cpu":"480m","memory":"812700032","pods":"5"}, no instance type satisfied resources {"cpu":"6480m","memory":"30877471104","pods":"6"} and requirements karpenter.k8s.aws/instance-cpu In [8], karpenter.k8s.aws/instance-family In [m6a], karpenter.sh/capacity-type In [on-demand], karpenter.sh/nodepool In [master], kubernetes.io/arch In [amd64], kubernetes.io/os In [linux] (no instance type which had enough resources and the required offering met the scheduling requirements)';

  function logged(withPod: boolean) {
    return logLine({
      level: 'ERROR',
      time: minutesAfter(T0, 20),
      message: `Could not schedule pod, ${LINE}`,
      ...(withPod ? { pod: 'ml/train-1' } : {}),
    });
  }

  it("puts numbers on it: the one type allowed, Karpenter's memory estimate, and the overhead that decides it", () => {
    // Prepare
    const p = requesting({ cpu: '6', memory: '28Gi' });

    // Act
    const [f] = detect(snapshotOf({ pods: [CONTROLLER, p], events: [], logs: [logged(true)] }));

    // Assess
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.cause?.detail).toContain('NodePool master allows 1 instance type (m6a.2xlarge)');
    const steps = f?.remediation?.steps ?? [];
    expect(steps[0]).toContain('capacity.memory');
    expect(steps.join('\n')).toContain('--set settings.vmMemoryOverheadPercent=0.071');
    expect(steps.findIndex((s) => s.includes('widen NodePool master'))).toBeLessThan(
      steps.findIndex((s) => s.includes('vmMemoryOverheadPercent=')),
    );
    expect(text(f!)).not.toContain('InsufficientCapacityError');
  });

  it('never prints a helm upgrade that would also upgrade Karpenter: --version from the chart label, else a warning', () => {
    const p = requesting({ cpu: '6', memory: '28Gi' });
    const labelled = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'ip-10-59-127-151.ec2.internal' });
    labelled.metadata!.labels = {
      ...labelled.metadata!.labels,
      'helm.sh/chart': 'karpenter-0.32.7',
      'app.kubernetes.io/instance': 'kp',
    };

    const unlabelled = detect(snapshotOf({ pods: [CONTROLLER, p], events: [], logs: [logged(true)] }))[0];
    const known = detect(snapshotOf({ pods: [labelled, p], events: [], logs: [logged(true)] }))[0];

    expect(unlabelled?.remediation?.steps.join('\n')).toContain('or Helm upgrades Karpenter too');
    expect(known?.remediation?.steps.join('\n')).toContain(
      'helm upgrade kp oci://public.ecr.aws/karpenter/karpenter -n karpenter --version 0.32.7 --reuse-values --set settings.vmMemoryOverheadPercent=0.071',
    );
  });

  it('ties a line without a pod field to the pod whose requests it carries, and to no other', () => {
    const mine = requesting({ cpu: '6', memory: '28Gi' });
    const other = requesting({ cpu: '6', memory: '27Gi' }, 'train-2');

    const mineFinding = detect(snapshotOf({ pods: [CONTROLLER, mine], events: [], logs: [logged(false)] }))[0];
    const otherFinding = detect(snapshotOf({ pods: [CONTROLLER, other], events: [], logs: [logged(false)] }))[0];

    expect(mineFinding?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(mineFinding?.evidence.join('\n')).toContain('the log line names no pod');
    expect(otherFinding?.cause?.code).toBe('UNKNOWN');
  });

  it('prints no overhead advice when cpu is short too', () => {
    const p = requesting({ cpu: '6', memory: '28Gi' });
    const cpuShort = LINE.replace('"cpu":"6480m"', '"cpu":"9000m"');

    const [f] = detect(
      snapshotOf({
        pods: [CONTROLLER, p],
        events: [],
        logs: [logLine({ level: 'ERROR', message: `Could not schedule pod, ${cpuShort}`, pod: 'ml/train-1' })],
      }),
    );

    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(text(f!)).not.toContain('vmMemoryOverheadPercent');
  });
});
