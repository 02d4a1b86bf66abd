import { describe, expect, it } from 'vitest';
import { podsPendingProlonged } from '../../../../src/detectors/pods-pending-prolonged/detector.ts';
import type { Pod } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { cluster, logLine, snapshotOf } from '../../../factories/aws.ts';
import { autoModeNodePool, ec2NodeClass, nodePool } from '../../../factories/karpenter.ts';
import {
  T0,
  condition,
  event,
  karpenterDeployment,
  karpenterPod,
  minutesAfter,
  pod,
  type PodInput,
} from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 30);
const RUNNING_CONTROLLER = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'ip-10-59-127-151.ec2.internal' });
/** Any cluster-wide capture of a non-Auto-Mode cluster holds kube-system pods. */
const COREDNS = pod({ name: 'coredns-6b9575c64c-4xk2p', namespace: 'kube-system', nodeName: 'ip-10-59-127-151.ec2.internal' });

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return podsPendingProlonged.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

function workload(name: string, extra: Partial<PodInput> = {}): Pod {
  return pod({ name, namespace: 'shop', unschedulableMessage: '0/1 nodes are available: 1 Insufficient cpu.', ...extra });
}

function karpenterSays(p: Pod, message: string) {
  return event({
    kind: 'Pod',
    namespace: p.metadata?.namespace,
    name: p.metadata?.name ?? '',
    reason: 'FailedScheduling',
    source: 'karpenter',
    message,
    lastTime: minutesAfter(T0, 25),
  });
}

describe('PODS_PENDING_PROLONGED', () => {
  describe('causes', () => {
    it('CONTROLLER_UNAVAILABLE: the only controller pod is Pending itself; its pod is not listed as a workload', () => {
      // Prepare
      const pending = [workload('web-1'), workload('web-2'), workload('web-3')];
      const controller = karpenterPod({ name: 'karpenter-5697769d6c-7lglp' });
      // Act
      const findings = detect(snapshotOf({ pods: [controller, ...pending] }));
      // Assess
      expect(findings).toHaveLength(1);
      const [f] = findings;
      expect(f?.code).toBe('PODS_PENDING_PROLONGED');
      expect(f?.severity).toBe('warning');
      expect(f?.resource).toEqual({ kind: 'Cluster', name: 'demo' });
      expect(f?.cause?.code).toBe('CONTROLLER_UNAVAILABLE');
      expect(f?.evidence[0]).toBe('Pending: shop/web-1, shop/web-2, shop/web-3');
      expect(f?.remediation?.action).toBe('MANUAL');
      expect(f?.remediation?.steps).toContain('kubectl logs -n karpenter deployment/karpenter --tail=100');
    });

    it('trusts a Deployment reporting ready replicas when its pods were not captured', () => {
      const snapshot = snapshotOf({
        pods: [workload('web-1')],
        deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 2 })],
        nodePools: [],
      });
      expect(detect(snapshot)[0]?.cause?.code).toBe('NO_NODEPOOL_MATCH');
    });

    it('CONTROLLER_UNAVAILABLE: no controller pod exists anywhere', () => {
      const [f] = detect(snapshotOf({ pods: [COREDNS, workload('web-1')] }));
      expect(f?.cause?.code).toBe('CONTROLLER_UNAVAILABLE');
      expect(f?.cause?.detail).toContain('No Karpenter controller pod');
    });

    it('NODECLASS_NOT_READY: the only NodePool references an EC2NodeClass whose AMIs are not found', () => {
      const broken = ec2NodeClass({
        name: 'default',
        conditions: [
          condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
          condition('Ready', 'False', { reason: 'UnhealthyDependents', message: 'AMIsReady=False' }),
        ],
      });
      const snapshot = snapshotOf({
        pods: [RUNNING_CONTROLLER, workload('web-1')],
        nodePools: [nodePool({ name: 'default' })],
        nodeClasses: [broken],
      });
      const [f] = detect(snapshot);
      expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
      expect(f?.evidence).toContain('EC2NodeClass default: Ready=False (UnhealthyDependents: AMIsReady=False)');
      expect(f?.remediation?.steps).toContain('kubectl describe ec2nodeclass default');
    });

    it('NODECLASS_NOT_READY: from the NodePool NodeClassReady condition alone', () => {
      const pool = nodePool({
        name: 'spot-pool',
        nodeClass: 'spot',
        conditions: [
          condition('NodeClassReady', 'False', { reason: 'NodeClassNotFound', message: 'NodeClass not found on cluster' }),
          condition('Ready', 'False'),
        ],
      });
      const [f] = detect(snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-1')], nodePools: [pool] }));
      expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
      expect(f?.cause?.detail).toContain('spot-pool');
      expect(f?.remediation?.steps).toContain('kubectl describe ec2nodeclass spot');
    });

    it('NODECLASS_NOT_READY: from Karpenter logs when NodePools were not captured', () => {
      const logs = [
        logLine({ level: 'ERROR', message: 'ignoring nodepool, not ready', NodePool: { name: 'default' } }),
        logLine({ level: 'INFO', message: 'no nodepools found' }),
      ];
      const [f] = detect(snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-1')], logs }));
      expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
      expect(f?.cause?.detail).toContain('default');
    });

    it('NODEPOOL_LIMIT_REACHED: Karpenter event names the NodePool; steps carry its limit and usage', () => {
      const p = workload('web-1');
      const pool = nodePool({
        name: 'default',
        limits: { cpu: '100', memory: '200Gi' },
        resources: { cpu: '100', memory: '180Gi' },
      });
      const snapshot = snapshotOf({
        pods: [RUNNING_CONTROLLER, p],
        nodePools: [pool],
        events: [karpenterSays(p, 'Failed to schedule pod, all available instance types exceed limits for nodepool: "default"')],
      });
      const [f] = detect(snapshot);
      expect(f?.cause?.code).toBe('NODEPOOL_LIMIT_REACHED');
      expect(f?.evidence).toContain('NodePool default: cpu 100 in use of limit 100');
      expect(f?.remediation?.steps.join('\n')).toContain(
        `kubectl patch nodepool default --type=merge -p '{"spec":{"limits":{"cpu":"200"}}}'`,
      );
    });

    it('NODEPOOL_LIMIT_REACHED: a limit written as a YAML number (cpu: 100) is doubled like a string one', () => {
      const p = workload('web-1');
      const pool = nodePool({ name: 'default', resources: { cpu: '100' } });
      // `limits: {cpu: 100}` in YAML reaches the API (and the capture) as a JSON number.
      pool.spec = { ...pool.spec, limits: { cpu: 100 as unknown as string } };
      const snapshot = snapshotOf({
        pods: [RUNNING_CONTROLLER, p],
        nodePools: [pool],
        events: [karpenterSays(p, 'Failed to schedule pod, all available instance types exceed limits for nodepool: "default"')],
      });
      const [f] = detect(snapshot);
      expect(f?.cause?.code).toBe('NODEPOOL_LIMIT_REACHED');
      expect(f?.remediation?.steps.join('\n')).toContain(`-p '{"spec":{"limits":{"cpu":"200"}}}'`);
    });

    it('NODEPOOL_LIMIT_REACHED: from NodePool status when no event was captured', () => {
      const pool = nodePool({ name: 'default', limits: { cpu: '8' }, resources: { cpu: '8' } });
      const [f] = detect(snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-1')], nodePools: [pool] }));
      expect(f?.cause?.code).toBe('NODEPOOL_LIMIT_REACHED');
      expect(f?.cause?.detail).toContain('NodePool default');
    });

    it('NO_NODEPOOL_MATCH: Karpenter says the NodePool lacks the label the pods select (seed 004: role)', () => {
      const p = workload('api-1', { spec: { nodeSelector: { role: 'system' } } });
      const snapshot = snapshotOf({
        pods: [RUNNING_CONTROLLER, p],
        nodePools: [nodePool({ name: 'default' })],
        events: [
          karpenterSays(
            p,
            'Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"150m","memory":"120Mi","pods":"3"}, incompatible requirements, label "role" does not have known values',
          ),
        ],
      });
      const [f] = detect(snapshot);
      expect(f?.cause?.code).toBe('NO_NODEPOOL_MATCH');
      expect(f?.evidence).toContain('NodePool default: incompatible requirements, label "role" does not have known values');
      expect(f?.remediation?.steps[0]).toContain('add label role=system to NodePool default');
    });

    it('NO_NODEPOOL_MATCH: from the NodePools alone, and when none exists', () => {
      const arm = workload('arm-1', { spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } } });
      const [f] = detect(snapshotOf({ pods: [RUNNING_CONTROLLER, arm], nodePools: [nodePool({ name: 'default' })] }));
      expect(f?.cause?.code).toBe('NO_NODEPOOL_MATCH');
      expect(f?.evidence.join('\n')).toContain('kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]');
      const [none] = detect(snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-1')], nodePools: [] }));
      expect(none?.cause?.code).toBe('NO_NODEPOOL_MATCH');
      expect(none?.cause?.detail).toContain('No NodePool exists');
    });

    it('UNKNOWN: a Ready NodePool under its limits could serve them and Karpenter said nothing', () => {
      const [f] = detect(
        snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-1')], nodePools: [nodePool({ name: 'default' })] }),
      );
      expect(f?.cause?.code).toBe('UNKNOWN');
      expect(f?.remediation?.steps).toContain('kubectl describe pod -n shop web-1');
    });
  });

  describe('grouping', () => {
    it('groups 3 pods with one cause into one finding, and two causes into two', () => {
      const limited = [workload('web-1'), workload('web-2'), workload('web-3')];
      const odd = workload('arm-1', { spec: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } } });
      const pool = nodePool({ name: 'default', limits: { cpu: '8' }, resources: { cpu: '8' } });
      const findings = detect(snapshotOf({ pods: [RUNNING_CONTROLLER, ...limited, odd], nodePools: [pool] }));
      expect(findings.map((f) => f.cause?.code).sort()).toEqual(['NODEPOOL_LIMIT_REACHED', 'NO_NODEPOOL_MATCH']);
      const limit = findings.find((f) => f.cause?.code === 'NODEPOOL_LIMIT_REACHED');
      expect(limit?.evidence[0]).toBe('Pending: shop/web-1, shop/web-2, shop/web-3');
      expect(limit?.title).toBe('3 pod(s) Pending over 10m: NodePool limits reached');
      expect(new Set(findings.map((f) => f.id)).size).toBe(2);
    });

    it('caps the pod list at 10', () => {
      const pods = Array.from({ length: 13 }, (_, i) => workload(`web-${String(i).padStart(2, '0')}`));
      const [f] = detect(snapshotOf({ pods: [RUNNING_CONTROLLER, ...pods], nodePools: [] }));
      expect(f?.evidence[0]).toMatch(/^Pending: shop\/web-00, .*shop\/web-09 and 3 more$/);
    });

    it('keeps the finding id stable across scans', () => {
      const snapshot = snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-1')], nodePools: [] });
      expect(detect(snapshot)[0]?.id).toBe(
        detect(snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-2')], nodePools: [] }))[0]?.id,
      );
    });
  });

  describe('negatives and thresholds', () => {
    it('does not count controller, DaemonSet, Fargate or bound pods', () => {
      const daemon = workload('node-exporter-abcde', { ownerKind: 'DaemonSet' });
      const fargate = workload('batch-1', { spec: { schedulerName: 'fargate-scheduler' } });
      const bound = workload('web-bound', { nodeName: 'ip-10-59-42-222.ec2.internal', phase: 'Pending' });
      const pendingController = karpenterPod({ name: 'karpenter-5697769d6c-7lglp' });
      expect(
        detect(snapshotOf({ pods: [RUNNING_CONTROLLER, pendingController, daemon, fargate, bound], nodePools: [] })),
      ).toEqual([]);
    });

    it('counts a pod Pending exactly the threshold, not one a minute less', () => {
      const snapshot = snapshotOf({ pods: [RUNNING_CONTROLLER, workload('web-1')], nodePools: [] });
      expect(detect(snapshot, minutesAfter(T0, 10))).toHaveLength(1);
      expect(detect(snapshot, minutesAfter(T0, 9))).toEqual([]);
    });

    it('reports since as the earliest pending pod', () => {
      const [f] = detect(
        snapshotOf({
          pods: [
            RUNNING_CONTROLLER,
            workload('b', { createdAt: minutesAfter(T0, 5) }),
            workload('a', { createdAt: minutesAfter(T0, 1) }),
          ],
          nodePools: [],
        }),
      );
      expect(f?.since).toBe(minutesAfter(T0, 1));
    });
  });

  describe('pods that do not wait on Karpenter (real clusters)', () => {
    const pools = { nodePools: [nodePool({ name: 'default' })] };

    it('a pod with spec.schedulingGates is Pending by design, even without a SchedulingGated condition', () => {
      const gated = workload('gated-1');
      gated.spec = { ...gated.spec, schedulingGates: [{ name: 'example.com/quota' }] };
      gated.status = { phase: 'Pending' };
      expect(detect(snapshotOf({ pods: [RUNNING_CONTROLLER, gated], ...pools }))).toEqual([]);
    });

    it('a nominated pod counts only after the workload plus the registration threshold (20 min by default)', () => {
      const nominated = workload('web-1');
      nominated.status = { ...nominated.status, nominatedNodeName: 'ip-10-59-42-222.ec2.internal' };
      const snapshot = snapshotOf({ pods: [RUNNING_CONTROLLER, nominated], ...pools });
      expect(detect(snapshot, minutesAfter(T0, 19))).toEqual([]);
      const [f] = detect(snapshot, minutesAfter(T0, 20));
      expect(f?.evidence.join('\n')).toContain('shop/web-1 nominated to ip-10-59-42-222.ec2.internal');
    });

    it("Karpenter's Nominated event (capacity launched for the pod) holds the pod back the same way", () => {
      const p = workload('web-1');
      const nominated = event({
        kind: 'Pod',
        namespace: 'shop',
        name: 'web-1',
        reason: 'Nominated',
        type: 'Normal',
        source: 'karpenter',
        message: 'Pod should schedule on: nodeclaim/default-8xk2q',
      });
      const snapshot = snapshotOf({ pods: [RUNNING_CONTROLLER, p], events: [nominated], ...pools });
      expect(detect(snapshot, minutesAfter(T0, 15))).toEqual([]);
      expect(detect(snapshot, minutesAfter(T0, 20))[0]?.evidence.join('\n')).toContain('nominated to nodeclaim/default-8xk2q');
    });

    it('static (mirror) pods are not Karpenter workload', () => {
      const mirror = workload('kube-proxy-ip-10-59-42-222', { ownerKind: 'Node' });
      mirror.metadata = { ...mirror.metadata, annotations: { 'kubernetes.io/config.mirror': '3f5a' } };
      expect(detect(snapshotOf({ pods: [RUNNING_CONTROLLER, mirror], ...pools }))).toEqual([]);
    });

    it('pods waiting on an unbound or missing PersistentVolumeClaim are the storage layer, not Karpenter', () => {
      const unbound = workload('db-0', {
        unschedulableMessage:
          '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
      });
      const missing = workload('db-1', { unschedulableMessage: 'persistentvolumeclaim "data-db-1" not found' });
      expect(detect(snapshotOf({ pods: [RUNNING_CONTROLLER, unbound, missing], ...pools }))).toEqual([]);
      // A volume pinned to a zone no NodePool serves is Karpenter's concern, and still counts.
      const zonal = workload('db-2', {
        unschedulableMessage: '0/3 nodes are available: 3 node(s) had volume node affinity conflict.',
      });
      expect(detect(snapshotOf({ pods: [RUNNING_CONTROLLER, zonal], ...pools }))).toHaveLength(1);
    });

    it('Succeeded and Failed Job pods are not Pending', () => {
      const done = [workload('job-a', { phase: 'Succeeded' }), workload('job-b', { phase: 'Failed' })];
      expect(detect(snapshotOf({ pods: [RUNNING_CONTROLLER, ...done], ...pools }))).toEqual([]);
    });
  });

  describe('EKS Auto Mode (Karpenter runs AWS-side, no controller pod)', () => {
    it('is not CONTROLLER_UNAVAILABLE when describe-cluster says Auto Mode', () => {
      const snapshot = snapshotOf({
        pods: [workload('web-1')],
        nodePools: [autoModeNodePool({ name: 'general-purpose' })],
        cluster: cluster({ autoMode: true, authenticationMode: 'API' }),
      });
      const [f] = detect(snapshot);
      expect(f?.cause?.code).toBe('UNKNOWN');
      expect(f?.remediation?.steps.join('\n')).not.toContain('kubectl logs -n karpenter');
    });

    it("is not CONTROLLER_UNAVAILABLE when only the NodePools' eks.amazonaws.com nodeClassRef tells", () => {
      const snapshot = snapshotOf({
        pods: [COREDNS, workload('web-1')],
        nodePools: [autoModeNodePool({ name: 'general-purpose' })],
      });
      expect(detect(snapshot)[0]?.cause?.code).not.toBe('CONTROLLER_UNAVAILABLE');
    });

    it('does not look for an EC2NodeClass behind an Auto Mode NodeClass (nor take a same-named one for it)', () => {
      const brokenEc2 = ec2NodeClass({
        name: 'default',
        conditions: [condition('AMIsReady', 'False', { reason: 'AMINotFound' }), condition('Ready', 'False')],
      });
      const withBroken = snapshotOf({
        pods: [workload('web-1')],
        nodePools: [autoModeNodePool({ name: 'general-purpose' })],
        nodeClasses: [brokenEc2],
        cluster: cluster({ autoMode: true }),
      });
      expect(detect(withBroken)[0]?.cause?.code).toBe('UNKNOWN');
      const withoutAny = snapshotOf({
        pods: [workload('web-1')],
        nodePools: [autoModeNodePool({ name: 'general-purpose' })],
        nodeClasses: [],
        cluster: cluster({ autoMode: true }),
      });
      expect(detect(withoutAny)[0]?.cause?.code).toBe('UNKNOWN');
    });

    it("reads the Auto Mode NodeClass's state from the NodePool's NodeClassReady condition", () => {
      const pool = autoModeNodePool({
        name: 'general-purpose',
        conditions: [condition('NodeClassReady', 'False', { reason: 'NodeClassNotReady' }), condition('Ready', 'False')],
      });
      const [f] = detect(snapshotOf({ pods: [workload('web-1')], nodePools: [pool], cluster: cluster({ autoMode: true }) }));
      expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
      expect(f?.remediation?.steps).toContain('kubectl describe nodeclasses.eks.amazonaws.com default');
    });

    it('Auto Mode labels (eks.amazonaws.com/compute-type) are known to an Auto Mode NodePool, not to a self-managed one', () => {
      const auto = workload('web-1', { spec: { nodeSelector: { 'eks.amazonaws.com/compute-type': 'auto' } } });
      const onAuto = snapshotOf({ pods: [auto], nodePools: [autoModeNodePool({ name: 'general-purpose' })] });
      expect(detect(onAuto)[0]?.cause?.code).toBe('UNKNOWN');
      const onSelfManaged = snapshotOf({ pods: [RUNNING_CONTROLLER, auto], nodePools: [nodePool({ name: 'default' })] });
      expect(detect(onSelfManaged)[0]?.cause?.code).toBe('NO_NODEPOOL_MATCH');
    });
  });

  describe('the controller', () => {
    it('scaled to 0 on purpose: still CONTROLLER_UNAVAILABLE (nothing provisions), saying so and how to scale back', () => {
      const snapshot = snapshotOf({
        pods: [COREDNS, workload('web-1')],
        deployments: [karpenterDeployment({ replicas: 0, readyReplicas: 0 })],
      });
      const [f] = detect(snapshot);
      expect(f?.cause?.code).toBe('CONTROLLER_UNAVAILABLE');
      expect(f?.cause?.detail).toContain('karpenter/karpenter: scaled to 0 replicas');
      expect(f?.evidence).toContain('Deployment karpenter/karpenter has spec.replicas 0');
      expect(f?.remediation?.steps[0]).toMatch(/^kubectl scale deployment -n karpenter karpenter --replicas=2 /);
    });

    it('a capture of one workload namespace cannot tell that no controller runs', () => {
      const [f] = detect(snapshotOf({ pods: [workload('web-1')], nodePools: [nodePool({ name: 'default' })] }));
      expect(f?.cause?.code).toBe('UNKNOWN');
      expect(f?.evidence.join('\n')).toContain('capture all namespaces');
    });
  });

  // Speed and linearity are measured by `npm run bench`, not asserted here.
  it('groups 2,000 pending pods of 50,000 into one finding with a capped list', () => {
    const pods: Pod[] = [RUNNING_CONTROLLER];
    for (let i = 0; i < 48_000; i++) pods.push(pod({ name: `run-${i}`, namespace: 'shop', nodeName: `node-${i % 500}` }));
    for (let i = 0; i < 2_000; i++) pods.push(workload(`web-${i}`));
    const snapshot = snapshotOf({
      pods,
      nodePools: [nodePool({ name: 'default', limits: { cpu: '8' }, resources: { cpu: '8' } })],
    });
    const findings = detect(snapshot);

    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence[0]).toContain('and 1990 more');
  });
});
