import { describe, expect, it } from 'vitest';
import { controllerPending } from '../../../../src/detectors/karpenter-controller-pending/detector.ts';
import type { Pod, PodSpec } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { fargateProfile, snapshotOf } from '../../../factories/aws.ts';
import { T0, event, karpenterDeployment, karpenterPod, minutesAfter, node, pod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 30);
const SYSTEM_NODE = 'ip-10-59-127-151.ec2.internal';

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return controllerPending.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

/** The Karpenter Helm chart's scheduling defaults (charts/karpenter/values.yaml and deployment template). */
const CHART_SPEC: Partial<PodSpec> = {
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }],
      },
    },
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          topologyKey: 'kubernetes.io/hostname',
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' } },
        },
      ],
    },
  },
};

function pendingController(
  name: string,
  spec: Partial<PodSpec> = CHART_SPEC,
  message = 'no nodes available to schedule pods',
): Pod {
  return karpenterPod({ name, spec, unschedulableMessage: message });
}

function runningController(name: string, nodeName: string, spec: Partial<PodSpec> = CHART_SPEC): Pod {
  return karpenterPod({ name, nodeName, spec });
}

describe('KARPENTER_CONTROLLER_PENDING', () => {
  describe('Fargate', () => {
    it('FARGATE_SCHEDULER_RACE: ACTIVE profile selects the pods but they kept default-scheduler (seed 000)', () => {
      // Prepare
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp'), pendingController('karpenter-5697769d6c-cdwct')],
        deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 0 })],
        nodes: [],
        fargateProfiles: [fargateProfile({ name: 'karpenter', selectors: [{ namespace: 'karpenter' }] })],
      });
      // Act
      const [finding, ...rest] = detect(snapshot);
      // Assess
      expect(rest).toEqual([]);
      expect(finding?.code).toBe('KARPENTER_CONTROLLER_PENDING');
      expect(finding?.severity).toBe('critical');
      expect(finding?.resource).toEqual({ kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' });
      expect(finding?.since).toBe(T0);
      expect(finding?.cause?.code).toBe('FARGATE_SCHEDULER_RACE');
      expect(finding?.cause?.detail).toContain('karpenter');
      expect(finding?.remediation).toEqual({
        action: 'ROLLOUT_RESTART',
        status: 'planned',
        reason: '',
        steps: ['kubectl rollout restart deployment -n karpenter karpenter'],
      });
      expect(finding?.evidence.join('\n')).toContain(
        'Fargate profile karpenter (ACTIVE) selects karpenter/karpenter-5697769d6c-7lglp',
      );
      expect(finding?.evidence.join('\n')).toContain('no nodes available to schedule pods');
    });

    it('FARGATE_PROFILE_NOT_ACTIVE: the selecting profile is still CREATING', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp')],
        fargateProfiles: [fargateProfile({ name: 'karpenter', status: 'CREATING', selectors: [{ namespace: 'karpenter' }] })],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('FARGATE_PROFILE_NOT_ACTIVE');
      expect(finding?.cause?.detail).toContain('karpenter is CREATING');
      expect(finding?.remediation?.action).toBe('MANUAL');
      expect(finding?.remediation?.steps).toContain(
        'aws eks wait fargate-profile-active --cluster-name demo --fargate-profile-name karpenter',
      );
      expect(finding?.remediation?.steps.at(-1)).toMatch(
        /^# then restart.*\nkubectl rollout restart deployment -n karpenter karpenter$/,
      );
    });

    it('FARGATE_PROFILE_NOT_ACTIVE: CREATE_FAILED gets a recreate with the same role and subnets', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp')],
        fargateProfiles: [
          fargateProfile({ name: 'karpenter', status: 'CREATE_FAILED', selectors: [{ namespace: 'karpenter' }] }),
        ],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('FARGATE_PROFILE_NOT_ACTIVE');
      expect(finding?.remediation?.steps).toContain(
        'aws eks create-fargate-profile --cluster-name demo --fargate-profile-name karpenter --pod-execution-role-arn arn:aws:iam::069057294951:role/eks-fargate-pod-execution --subnets subnet-0a1b2c3d4e5f60001 subnet-0a1b2c3d4e5f60002 --selectors namespace=karpenter',
      );
    });

    it('NO_FARGATE_PROFILE_MATCH: profile selects kube-system + label, Karpenter runs in namespace karpenter (seed 002)', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp')],
        nodes: [],
        fargateProfiles: [
          fargateProfile({
            name: 'karpenter-profile',
            selectors: [{ namespace: 'kube-system', labels: { 'app.kubernetes.io/name': 'karpenter' } }],
          }),
        ],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('NO_FARGATE_PROFILE_MATCH');
      expect(finding?.evidence).toContain(
        'Fargate profile karpenter-profile: [namespace=kube-system, labels={app.kubernetes.io/name=karpenter}]: namespace is not karpenter',
      );
      expect(finding?.remediation?.action).toBe('MANUAL');
      expect(finding?.remediation?.steps[0]).toBe(
        'aws eks create-fargate-profile --cluster-name demo --fargate-profile-name karpenter --pod-execution-role-arn arn:aws:iam::069057294951:role/eks-fargate-pod-execution --subnets subnet-0a1b2c3d4e5f60001 subnet-0a1b2c3d4e5f60002 --selectors namespace=karpenter',
      );
      expect(finding?.remediation?.steps.join('\n')).toContain('kubectl rollout restart deployment -n karpenter karpenter');
    });

    it('NO_FARGATE_PROFILE_MATCH: pod bound to fargate-scheduler but the profile is gone', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp', { ...CHART_SPEC, schedulerName: 'fargate-scheduler' })],
        fargateProfiles: [],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('NO_FARGATE_PROFILE_MATCH');
      expect(finding?.evidence.join('\n')).toContain('no Fargate profile exists');
    });

    it('does not blame Fargate when a node can run the pod', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp')],
        nodes: [node({ name: SYSTEM_NODE })],
        fargateProfiles: [fargateProfile({ name: 'coredns', selectors: [{ namespace: 'kube-system' }] })],
      });
      expect(detect(snapshot)[0]?.cause?.code).toBe('STALE_SCHEDULING');
    });

    it('blames the node, not Fargate, when the profiles serve other pods and a system node exists', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp', { ...CHART_SPEC, tolerations: [] })],
        nodes: [node({ name: SYSTEM_NODE, taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }] })],
        fargateProfiles: [
          fargateProfile({ name: 'coredns', selectors: [{ namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }] }),
        ],
      });
      expect(detect(snapshot)[0]?.cause?.code).toBe('UNTOLERATED_TAINT');
    });

    it('UNKNOWN: on fargate-scheduler under an ACTIVE profile but no Fargate node came (seed 002: private subnets with NAT)', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp', { ...CHART_SPEC, schedulerName: 'fargate-scheduler' }, '')],
        fargateProfiles: [fargateProfile({ name: 'karpenter', selectors: [{ namespace: 'karpenter' }] })],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('UNKNOWN');
      expect(finding?.cause?.detail).toContain('NAT');
      expect(finding?.remediation?.steps).toContain(
        "aws ec2 describe-route-tables --filters Name=association.subnet-id,Values=subnet-0a1b2c3d4e5f60001,subnet-0a1b2c3d4e5f60002 --query 'RouteTables[*].Routes'".replace(
          /^/,
          '# check the subnets are private and route 0.0.0.0/0 to a NAT gateway\n',
        ),
      );
    });
  });

  describe('nodes', () => {
    it('STALE_SCHEDULING: a Ready node fits now though the last word was "no nodes available"', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp'), pendingController('karpenter-5697769d6c-cdwct')],
        nodes: [
          node({ name: SYSTEM_NODE, createdAt: minutesAfter(T0, 10) }),
          node({ name: 'ip-10-59-42-222.ec2.internal', createdAt: minutesAfter(T0, 10) }),
        ],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('STALE_SCHEDULING');
      expect(finding?.cause?.detail).toContain(SYSTEM_NODE);
      expect(finding?.remediation).toMatchObject({
        action: 'ROLLOUT_RESTART',
        steps: ['kubectl rollout restart deployment -n karpenter karpenter'],
      });
    });

    it('ANTI_AFFINITY_TOO_FEW_NODES: 2 replicas, required hostname anti-affinity, 1 eligible node (seed 004 #8)', () => {
      const system = node({
        name: SYSTEM_NODE,
        labels: { role: 'system', 'eks.amazonaws.com/nodegroup': 'system' },
        taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }],
      });
      const snapshot = snapshotOf({
        pods: [
          runningController('karpenter-5697769d6c-cdwct', SYSTEM_NODE),
          pendingController(
            'karpenter-5697769d6c-7lglp',
            CHART_SPEC,
            "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
          ),
        ],
        deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 1 })],
        nodes: [system],
      });
      const [finding] = detect(snapshot);
      expect(finding?.severity).toBe('warning');
      expect(finding?.cause?.code).toBe('ANTI_AFFINITY_TOO_FEW_NODES');
      expect(finding?.evidence.join('\n')).toContain('karpenter/karpenter-5697769d6c-cdwct already runs on this node');
      expect(finding?.remediation?.action).toBe('MANUAL');
      expect(finding?.remediation?.steps[0]).toBe('kubectl scale deployment -n karpenter karpenter --replicas=1');
      expect(finding?.remediation?.steps.join('\n')).toContain(
        'aws eks update-nodegroup-config --cluster-name demo --nodegroup-name system --scaling-config minSize=2,desiredSize=2',
      );
    });

    it('ANTI_AFFINITY_TOO_FEW_NODES from the scheduler message alone when nodes were not captured', () => {
      const snapshot = snapshotOf({
        pods: [
          runningController('karpenter-5697769d6c-cdwct', SYSTEM_NODE),
          pendingController(
            'karpenter-5697769d6c-7lglp',
            CHART_SPEC,
            "0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 node(s) had untolerated taint {workload-type: system}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
          ),
        ],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('ANTI_AFFINITY_TOO_FEW_NODES');
      expect(finding?.remediation?.steps[0]).toBe('kubectl scale deployment -n karpenter karpenter --replicas=1');
    });

    it('UNTOLERATED_TAINT: system node group tainted workload-type=system:NoSchedule, controller lacks the toleration (seed 003)', () => {
      const spec: Partial<PodSpec> = { ...CHART_SPEC, nodeSelector: { 'workload-type': 'system' }, tolerations: [] };
      const snapshot = snapshotOf({
        pods: [
          pendingController(
            'karpenter-5697769d6c-7lglp',
            spec,
            '0/1 nodes are available: 1 node(s) had untolerated taint {workload-type: system}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
          ),
        ],
        deployments: [karpenterDeployment({ replicas: 1, spec })],
        nodes: [
          node({
            name: SYSTEM_NODE,
            labels: { 'workload-type': 'system' },
            taints: [{ key: 'workload-type', value: 'system', effect: 'NoSchedule' }],
          }),
        ],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('UNTOLERATED_TAINT');
      expect(finding?.cause?.detail).toContain('taint workload-type=system:NoSchedule');
      const steps = finding?.remediation?.steps.join('\n') ?? '';
      expect(steps).toContain('{"key":"workload-type","operator":"Equal","value":"system","effect":"NoSchedule"}');
      expect(steps).toContain(
        `kubectl patch deployment -n karpenter karpenter --type=merge -p '{"spec":{"template":{"spec":{"tolerations":[{"key":"workload-type","operator":"Equal","value":"system","effect":"NoSchedule"}]}}}}'`,
      );
      expect(steps).toContain(
        `helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n karpenter --reuse-values --set-json 'tolerations=[{"key":"workload-type","operator":"Equal","value":"system","effect":"NoSchedule"}]'`,
      );
    });

    it('UNTOLERATED_TAINT: CriticalAddonsOnly node group and a controller without the chart toleration (seed 004); keeps existing tolerations', () => {
      const spec: Partial<PodSpec> = {
        ...CHART_SPEC,
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'ops', effect: 'NoSchedule' }],
      };
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp', spec, '')],
        nodes: [
          node({
            name: SYSTEM_NODE,
            labels: { role: 'system' },
            taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' }],
          }),
        ],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('UNTOLERATED_TAINT');
      expect(finding?.remediation?.steps.join('\n')).toContain(
        '"tolerations":[{"key":"dedicated","operator":"Equal","value":"ops","effect":"NoSchedule"},{"key":"CriticalAddonsOnly","operator":"Equal","value":"true","effect":"NoSchedule"}]',
      );
    });

    it('NODE_SELECTOR_MISMATCH: nodeSelector role=system but the node has no role label', () => {
      const spec: Partial<PodSpec> = { ...CHART_SPEC, nodeSelector: { role: 'system' } };
      const snapshot = snapshotOf({
        pods: [
          pendingController(
            'karpenter-5697769d6c-7lglp',
            spec,
            "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
          ),
        ],
        nodes: [node({ name: SYSTEM_NODE })],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('NODE_SELECTOR_MISMATCH');
      expect(finding?.cause?.detail).toContain('nodeSelector role=system: node has no role label');
      expect(finding?.remediation?.steps[0]).toContain(`kubectl label node ${SYSTEM_NODE} role=system`);
      expect(finding?.remediation?.steps[1]).toContain('"path":"/spec/template/spec/nodeSelector/role"');
    });

    it('NODE_SELECTOR_MISMATCH from the scheduler message when nodes were not captured', () => {
      const snapshot = snapshotOf({
        pods: [
          pendingController(
            'karpenter-5697769d6c-7lglp',
            CHART_SPEC,
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
          ),
        ],
      });
      expect(detect(snapshot)[0]?.cause?.code).toBe('NODE_SELECTOR_MISMATCH');
    });

    it('UNKNOWN: no nodes and no Fargate, Karpenter needs a system node group or a Fargate profile', () => {
      const snapshot = snapshotOf({ pods: [pendingController('karpenter-5697769d6c-7lglp')], nodes: [] });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('UNKNOWN');
      expect(finding?.cause?.detail).toContain('system node group or a Fargate profile');
      expect(finding?.remediation?.steps.join('\n')).toContain(
        'aws eks create-nodegroup --cluster-name demo --nodegroup-name system',
      );
    });

    it('no nodes, Fargate profiles not captured: the first step lists the profiles, creating one comes only if none selects it', () => {
      const snapshot = snapshotOf({ pods: [pendingController('karpenter-5697769d6c-7lglp')], nodes: [] });

      const steps = detect(snapshot)[0]?.remediation?.steps ?? [];

      expect(steps[0]).toBe(
        '# Fargate profiles were not captured: list them first; if one selects namespace karpenter, this is a Fargate problem (describe that profile), not a missing place to run\naws eks list-fargate-profiles --cluster-name demo',
      );
      expect(steps.find((s) => s.includes('create-fargate-profile'))).toMatch(/^# or, if none does, a Fargate profile/);
    });

    it('no nodes and no Fargate profile captured as none: creating one is offered outright', () => {
      const snapshot = snapshotOf({ pods: [pendingController('karpenter-5697769d6c-7lglp')], nodes: [], fargateProfiles: [] });

      const steps = detect(snapshot)[0]?.remediation?.steps ?? [];

      expect(steps.join('\n')).not.toContain('list-fargate-profiles');
      expect(steps.join('\n')).toContain('aws eks create-fargate-profile');
    });

    it('UNKNOWN: nodes accept the controller but lack free cpu (all pods captured)', () => {
      const small = node({ name: SYSTEM_NODE, allocatable: { cpu: '1930m', memory: '3388304Ki', pods: '17' } });
      const hog = pod({
        name: 'hog',
        namespace: 'apps',
        nodeName: SYSTEM_NODE,
        spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1800m' } } }] },
      });
      const spec: Partial<PodSpec> = {
        ...CHART_SPEC,
        containers: [{ name: 'controller', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
      };
      const snapshot = snapshotOf({
        pods: [hog, pendingController('karpenter-5697769d6c-7lglp', spec, '0/1 nodes are available: 1 Insufficient cpu.')],
        nodes: [small],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('UNKNOWN');
      expect(finding?.evidence.join('\n')).toContain(
        `Insufficient cpu on ${SYSTEM_NODE}: requests 1, free 130m of 1930m allocatable`,
      );
    });
  });

  describe('negatives, thresholds and severity', () => {
    it('reports nothing for a healthy controller', () => {
      const snapshot = snapshotOf({
        pods: [
          runningController('karpenter-5697769d6c-cdwct', SYSTEM_NODE),
          runningController('karpenter-5697769d6c-7lglp', 'ip-10-59-42-222.ec2.internal'),
        ],
        deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 2 })],
        nodes: [node({ name: SYSTEM_NODE }), node({ name: 'ip-10-59-42-222.ec2.internal' })],
      });
      expect(detect(snapshot)).toEqual([]);
    });

    it('ignores workload pods', () => {
      expect(detect(snapshotOf({ pods: [pod({ name: 'web-1', namespace: 'shop' })] }))).toEqual([]);
    });

    it('counts a pod Pending exactly the threshold, not one a minute less', () => {
      const snapshot = snapshotOf({ pods: [pendingController('karpenter-5697769d6c-7lglp')], nodes: [] });
      expect(detect(snapshot, minutesAfter(T0, 5))).toHaveLength(1);
      expect(detect(snapshot, minutesAfter(T0, 4))).toEqual([]);
    });

    it('is critical when no replica is Ready, a warning when one is', () => {
      const pending = pendingController('karpenter-5697769d6c-7lglp');
      expect(detect(snapshotOf({ pods: [pending], nodes: [] }))[0]?.severity).toBe('critical');
      const withRunning = snapshotOf({
        pods: [pending, runningController('karpenter-5697769d6c-cdwct', SYSTEM_NODE)],
        nodes: [],
      });
      expect(detect(withRunning)[0]?.severity).toBe('warning');
    });

    it('names the Deployment from the pods when Deployments were not captured, in any namespace', () => {
      const p = karpenterPod({
        name: 'karpenter-7d4c9b8f5-x2x9k',
        namespace: 'kube-system',
        ownerReplicaSet: 'karpenter-7d4c9b8f5',
        unschedulableMessage: 'no nodes available to schedule pods',
      });
      const [finding] = detect(snapshotOf({ pods: [p] }));
      expect(finding?.resource).toEqual({ kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' });
    });

    it('uses one finding per Deployment with the earliest pending pod as since', () => {
      const early = karpenterPod({
        name: 'karpenter-5697769d6c-aaaaa',
        createdAt: minutesAfter(T0, 2),
        unschedulableMessage: 'no nodes available to schedule pods',
      });
      const late = karpenterPod({
        name: 'karpenter-5697769d6c-bbbbb',
        createdAt: minutesAfter(T0, 8),
        unschedulableMessage: 'no nodes available to schedule pods',
      });
      const findings = detect(snapshotOf({ pods: [late, early], nodes: [] }));
      expect(findings).toHaveLength(1);
      expect(findings[0]?.since).toBe(minutesAfter(T0, 2));
      expect(findings[0]?.evidence[0]).toBe(
        'Pending: karpenter/karpenter-5697769d6c-bbbbb, karpenter/karpenter-5697769d6c-aaaaa',
      );
    });
  });

  describe('no restart where a restart cannot help', () => {
    const TOPOLOGY =
      "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";

    it('UNKNOWN, not STALE_SCHEDULING, when kube-scheduler still names a reason not modelled here (topology spread)', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp', CHART_SPEC, TOPOLOGY)],
        nodes: [node({ name: SYSTEM_NODE })],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('UNKNOWN');
      expect(finding?.cause?.detail).toContain("2 node(s) didn't match pod topology spread constraints");
      expect(finding?.remediation?.action).toBe('MANUAL');
    });

    it('UNKNOWN when the scheduler says Insufficient cpu and free capacity could not be checked (controller namespace only)', () => {
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp', CHART_SPEC, '0/1 nodes are available: 1 Insufficient cpu.')],
        nodes: [node({ name: SYSTEM_NODE })],
      });
      const [finding] = detect(snapshot);
      expect(finding?.cause?.code).toBe('UNKNOWN');
      expect(finding?.remediation?.steps).toContain(`kubectl describe node ${SYSTEM_NODE}`);
    });

    it('still STALE_SCHEDULING when the fitting node came after the scheduler last spoke', () => {
      const said = event({
        kind: 'Pod',
        namespace: 'karpenter',
        name: 'karpenter-5697769d6c-7lglp',
        reason: 'FailedScheduling',
        message: TOPOLOGY,
        lastTime: minutesAfter(T0, 5),
      });
      const snapshot = snapshotOf({
        pods: [pendingController('karpenter-5697769d6c-7lglp', CHART_SPEC, TOPOLOGY)],
        nodes: [node({ name: SYSTEM_NODE, createdAt: minutesAfter(T0, 12) })],
        events: [said],
      });
      expect(detect(snapshot)[0]?.cause?.code).toBe('STALE_SCHEDULING');
    });
  });

  describe('healthy controllers on real clusters', () => {
    it('Karpenter in kube-system running on Fargate: nothing', () => {
      const onFargate = karpenterPod({
        name: 'karpenter-5697769d6c-cdwct',
        namespace: 'kube-system',
        nodeName: 'fargate-ip-10-59-127-151.ec2.internal',
        spec: { ...CHART_SPEC, schedulerName: 'fargate-scheduler' },
      });
      const snapshot = snapshotOf({
        pods: [onFargate],
        fargateProfiles: [
          fargateProfile({
            name: 'karpenter',
            selectors: [{ namespace: 'kube-system', labels: { 'app.kubernetes.io/name': 'karpenter' } }],
          }),
        ],
      });
      expect(detect(snapshot)).toEqual([]);
    });

    it('a new ReplicaSet pod Pending 2 minutes in a rollout while the old replicas are Ready: nothing', () => {
      const surge = karpenterPod({
        name: 'karpenter-7f8b9c6d5e-q8w2z',
        ownerReplicaSet: 'karpenter-7f8b9c6d5e',
        createdAt: minutesAfter(NOW, -2),
        spec: CHART_SPEC,
      });
      const snapshot = snapshotOf({
        pods: [
          runningController('karpenter-5697769d6c-cdwct', SYSTEM_NODE),
          runningController('karpenter-5697769d6c-7lglp', 'ip-10-59-42-222.ec2.internal'),
          surge,
        ],
        nodes: [node({ name: SYSTEM_NODE }), node({ name: 'ip-10-59-42-222.ec2.internal' })],
      });
      expect(detect(snapshot)).toEqual([]);
    });

    it('a controller pod being deleted is ignored', () => {
      const leaving = pendingController('karpenter-5697769d6c-7lglp');
      leaving.metadata = { ...leaving.metadata, deletionTimestamp: minutesAfter(T0, 20) };
      expect(detect(snapshotOf({ pods: [leaving, runningController('karpenter-5697769d6c-cdwct', SYSTEM_NODE)] }))).toEqual([]);
    });

    it('a Deployment scaled to 0 has no pods and no finding here', () => {
      expect(detect(snapshotOf({ pods: [], deployments: [karpenterDeployment({ replicas: 0 })] }))).toEqual([]);
    });
  });

  it('uses the latest FailedScheduling event as the scheduler evidence', () => {
    const p = pendingController('karpenter-5697769d6c-7lglp');
    const e = event({
      kind: 'Pod',
      namespace: 'karpenter',
      name: 'karpenter-5697769d6c-7lglp',
      reason: 'FailedScheduling',
      message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
      lastTime: minutesAfter(T0, 20),
    });
    const [finding] = detect(snapshotOf({ pods: [p], events: [e] }));
    expect(finding?.cause?.code).toBe('NODE_SELECTOR_MISMATCH');
    expect(finding?.evidence).toContain(
      "kube-scheduler: 0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
    );
  });
});
