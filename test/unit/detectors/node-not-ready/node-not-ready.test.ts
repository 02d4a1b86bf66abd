import { describe, expect, it } from 'vitest';
import { nodeNotReady } from '../../../../src/detectors/node-not-ready/detector.ts';
import type { PriceBook } from '../../../../src/domain/cost.ts';
import type { Deployment, KubeEvent, Node, NodeClaim, Pod } from '../../../../src/domain/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { instance, snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, uninitializedConditions } from '../../../factories/karpenter.ts';
import { T0, condition, event, karpenterDeployment, minutesAfter, pod } from '../../../factories/kube.ts';
import {
  CNI_MESSAGE,
  chartGates,
  claimOf,
  controller,
  healthyConditions,
  kubeletSilent,
  memoryPressure,
  networkNotReady,
  poolNode,
  pressureOf,
} from './fixtures.ts';

/** The node fell over 20 minutes after T0; judged at T0 + 45 min: NotReady for 25 minutes. */
const FELL = minutesAfter(T0, 20);
const NOW = minutesAfter(T0, 45);
const NODE = 'ip-10-0-77-12.ec2.internal';
const CLAIM = 'default-fell1';

function detect(snapshot: ClusterSnapshot, now = NOW, prices: PriceBook = priceBookOf(snapshot)) {
  return nodeNotReady.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices,
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

interface Cluster {
  fell?: Node[];
  healthy?: number;
  deployment?: Deployment | null;
  events?: KubeEvent[];
  pods?: Pod[];
  claims?: NodeClaim[];
  instances?: ReturnType<typeof instance>[];
}

/** One pool `default`: the fallen nodes, `healthy` Ready ones, their NodeClaims, Karpenter v1.2.1 with NodeRepair off. */
function cluster(input: Cluster = {}): ClusterSnapshot {
  const fell = input.fell ?? [poolNode(NODE, 'default', kubeletSilent(FELL))];
  const healthy = Array.from({ length: input.healthy ?? 9 }, (_, i) =>
    poolNode(`ip-10-0-1-${i + 10}.ec2.internal`, 'default', healthyConditions()),
  );
  const nodes = [...fell, ...healthy];
  const claims = input.claims ?? nodes.map((n, i) => claimOf(n, i === 0 ? CLAIM : `default-ok${i}`));
  const deployment = input.deployment === undefined ? controller('v1.2.1', chartGates(false)) : input.deployment;
  return snapshotOf({
    nodes,
    nodeClaims: claims,
    deployments: deployment ? [deployment] : [],
    events: input.events ?? [],
    pods: input.pods ?? [],
    ...(input.instances ? { instances: input.instances } : {}),
  });
}

const steps = (f: { remediation: { steps: string[] } | null }) => (f.remediation?.steps ?? []).join('\n');

describe('NODE_NOT_READY: which nodes', () => {
  it('reports an initialised node NotReady past --not-ready, one finding for its NodePool', () => {
    const [f, ...rest] = detect(cluster());

    expect(rest).toEqual([]);
    expect(f).toMatchObject({
      code: 'NODE_NOT_READY',
      resource: { kind: 'NodePool', name: 'default' },
      since: FELL,
      counts: { objects: 1, nodePool: 'default' },
    });
    expect(f?.evidence.join('\n')).toContain(`Node ${NODE} (NodeClaim ${CLAIM}, m5.large on-demand us-east-1a)`);
  });

  it('waits for the threshold: NotReady for 5 minutes is not yet a finding', () => {
    expect(detect(cluster(), minutesAfter(FELL, 5))).toEqual([]);
  });

  it('leaves a node that never initialised to NODE_NOT_INITIALIZED', () => {
    const n = poolNode(NODE, 'default', kubeletSilent(FELL));
    const { 'karpenter.sh/initialized': _, ...labels } = n.metadata?.labels ?? {};
    const unlabelled = { ...n, metadata: { ...n.metadata, labels } };
    const claim = nodeClaim({
      name: CLAIM,
      nodeName: NODE,
      conditions: uninitializedConditions('NodeNotReady', 'Node status is NotReady'),
    });

    expect(detect(cluster({ fell: [unlabelled], claims: [claim] }))).toEqual([]);
  });

  it('leaves nodes Karpenter is terminating to NODE_TERMINATION_STUCK', () => {
    const n = poolNode(NODE, 'default', kubeletSilent(FELL));
    const deletingNode = { ...n, metadata: { ...n.metadata, deletionTimestamp: FELL } };
    const claim = claimOf(n, CLAIM);
    const deletingClaim = { ...claim, metadata: { ...claim.metadata, deletionTimestamp: FELL } };
    const tainted = { ...n, spec: { ...n.spec, taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] } };

    expect(detect(cluster({ fell: [deletingNode] }))).toEqual([]);
    expect(detect(cluster({ fell: [n], claims: [deletingClaim] }))).toEqual([]);
    expect(detect(cluster({ fell: [tainted] }))).toEqual([]);
  });

  it("ignores nodes that are not Karpenter's", () => {
    const n = poolNode(NODE, 'default', kubeletSilent(FELL));
    const { 'karpenter.sh/nodepool': _, ...labels } = n.metadata?.labels ?? {};

    expect(detect(cluster({ fell: [{ ...n, metadata: { ...n.metadata, labels } }], claims: [] }))).toEqual([]);
  });
});

describe('NODE_NOT_READY: causes', () => {
  it('KUBELET_UNRESPONSIVE: quotes the node lifecycle controller and leads with the instance checks, not pressure', () => {
    const [f] = detect(cluster());

    expect(f?.cause?.code).toBe('KUBELET_UNRESPONSIVE');
    expect(f?.cause?.detail).toContain('Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting node status.)');
    // The pressure conditions are Unknown with it: they say nothing, so no pressure claim.
    expect(f?.cause?.detail).not.toContain('kubelet reports MemoryPressure');
    expect(f?.remediation?.steps[0]).toContain('aws ec2 describe-instance-status --include-all-instances --instance-ids');
    expect(steps(f!)).toContain('aws ec2 get-console-output');
  });

  it('KUBELET_UNRESPONSIVE: a SystemOOM event before the silence names memory exhaustion', () => {
    const oom = event({
      kind: 'Node',
      name: NODE,
      reason: 'SystemOOM',
      message: 'System OOM encountered, victim process: java, pid: 17173',
      source: 'kubelet',
    });
    const [f] = detect(cluster({ events: [oom] }));

    expect(f?.cause?.detail).toContain('SystemOOM (System OOM encountered, victim process: java, pid: 17173)');
  });

  it('KUBELET_UNRESPONSIVE: an instance EC2 says is terminated is said to be gone, not starved', () => {
    const n = poolNode(NODE, 'default', kubeletSilent(FELL), { instanceId: 'i-0123456789abcdef0' });
    const [f] = detect(cluster({ fell: [n], instances: [instance({ id: 'i-0123456789abcdef0', state: 'terminated' })] }));

    expect(f?.cause?.detail).toContain('EC2 says its instance i-0123456789abcdef0 is terminated');
    expect(f?.cause?.detail).not.toContain('starved');
  });

  it('KUBELET_UNRESPONSIVE: a stopped instance is not said to be gone for good', () => {
    const n = poolNode(NODE, 'default', kubeletSilent(FELL), { instanceId: 'i-0123456789abcdef0' });
    const [f] = detect(cluster({ fell: [n], instances: [instance({ id: 'i-0123456789abcdef0', state: 'stopped' })] }));

    expect(f?.cause?.detail).toContain('EC2 says its instance i-0123456789abcdef0 is stopped');
    expect(f?.cause?.detail).toContain('Starting the instance again could bring the node back');
    expect(f?.cause?.detail).not.toContain('nothing will bring the node back');
  });

  it('RESOURCE_PRESSURE: names the pressure and the BestEffort pods, not the network plugin', () => {
    const besteffort = pod({
      name: 'batch-7d9f-x2k',
      namespace: 'jobs',
      nodeName: NODE,
      spec: { containers: [{ name: 'batch' }] },
    });
    const requested = pod({
      name: 'web-1',
      namespace: 'shop',
      nodeName: NODE,
      spec: { containers: [{ name: 'web', resources: { requests: { memory: '256Mi' } } }] },
    });
    const [f] = detect(cluster({ fell: [poolNode(NODE, 'default', memoryPressure(FELL))], pods: [besteffort, requested] }));

    expect(f?.cause?.code).toBe('RESOURCE_PRESSURE');
    expect(f?.cause?.detail).toContain(
      'MemoryPressure=True (KubeletHasInsufficientMemory: kubelet has insufficient memory available)',
    );
    expect(f?.cause?.detail).toContain('request nothing (BestEffort): jobs/batch-7d9f-x2k.');
    expect(f?.cause?.detail).not.toContain('shop/web-1');
    expect(steps(f!)).not.toContain('network plugin');
  });

  it('RESOURCE_PRESSURE, DiskPressure: quotes the image GC failure and checks the EC2NodeClass volumes, not BestEffort pods', () => {
    const gc = event({
      kind: 'Node',
      name: NODE,
      reason: 'ImageGCFailed',
      message:
        'Failed to garbage collect required amount of images. Attempted to free 4054802841 bytes, but only found 0 bytes eligible to free.',
      source: 'kubelet',
      lastTime: minutesAfter(FELL, -2),
    });
    const besteffort = pod({
      name: 'batch-7d9f-x2k',
      namespace: 'jobs',
      nodeName: NODE,
      spec: { containers: [{ name: 'batch' }] },
    });
    const [f] = detect(
      cluster({ fell: [poolNode(NODE, 'default', pressureOf('DiskPressure', FELL))], events: [gc], pods: [besteffort] }),
    );

    expect(f?.cause?.code).toBe('RESOURCE_PRESSURE');
    expect(f?.cause?.detail).toContain(
      'The kubelet reported ImageGCFailed: Failed to garbage collect required amount of images.',
    );
    expect(f?.cause?.detail).toContain('blockDeviceMappings');
    expect(f?.cause?.detail).not.toContain('BestEffort');
    expect(f?.cause?.detail).not.toContain('kubeReserved');
    expect(steps(f!)).toContain("kubectl get ec2nodeclass default -o jsonpath='{.spec.blockDeviceMappings}");
    expect(steps(f!)).not.toContain('BestEffort');
  });

  it('RESOURCE_PRESSURE, PIDPressure: points at podPidsLimit, not BestEffort pods or the disk', () => {
    const [f] = detect(cluster({ fell: [poolNode(NODE, 'default', pressureOf('PIDPressure', FELL))] }));

    expect(f?.cause?.detail).toContain('PIDPressure=True (KubeletHasInsufficientPID: kubelet has insufficient PID available)');
    expect(f?.cause?.detail).toContain('podPidsLimit');
    expect(f?.cause?.detail).not.toContain('BestEffort');
    expect(steps(f!)).toContain('podPidsLimit');
    expect(steps(f!)).not.toContain('BestEffort');
    expect(steps(f!)).not.toContain('blockDeviceMappings');
  });

  it("UNKNOWN: the node monitoring agent's AcceleratedHardwareReady=False is named, with its 10-minute repair toleration", () => {
    const ready = memoryPressure(FELL).filter((c) => c.type === 'Ready');
    const gpu = condition('AcceleratedHardwareReady', 'False', { lastTransitionTime: minutesAfter(FELL, 18) });
    const [f] = detect(
      cluster({ fell: [poolNode(NODE, 'default', [...ready, gpu])], deployment: controller('v1.2.1', chartGates(true)) }),
    );

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('The EKS node monitoring agent reports AcceleratedHardwareReady False');
    expect(f?.cause?.detail).toContain('AcceleratedHardwareReady=False after 10 minutes');
    expect(f?.cause?.detail).toContain('when its 10-minute toleration of AcceleratedHardwareReady=False ends');
    expect(f?.cause?.detail).not.toContain('Its conditions do not say why');
    expect(f?.cause?.detail).not.toContain('30-minute toleration');
  });

  it('UNKNOWN: KernelReady=False is tolerated 30 minutes', () => {
    const ready = memoryPressure(FELL).filter((c) => c.type === 'Ready');
    const kernel = condition('KernelReady', 'False', { lastTransitionTime: FELL });
    const [f] = detect(cluster({ fell: [poolNode(NODE, 'default', [...ready, kernel])] }));

    expect(f?.cause?.detail).toContain('KernelReady=False after 30 minutes');
    expect(f?.cause?.detail).not.toContain('after 10 minutes');
  });

  it("NETWORK_NOT_READY: the kubelet's network-not-ready message", () => {
    const [f] = detect(cluster({ fell: [poolNode(NODE, 'default', networkNotReady(FELL))] }));

    expect(f?.cause?.code).toBe('NETWORK_NOT_READY');
    expect(f?.cause?.detail).toContain(CNI_MESSAGE);
    expect(steps(f!)).toContain(`kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=${NODE}`);
  });

  it('NETWORK_NOT_READY: NetworkUnavailable=True though Ready says nothing of the network', () => {
    const conditions = [
      condition('Ready', 'False', { reason: 'KubeletNotReady', message: 'node is not ready', lastTransitionTime: FELL }),
      condition('NetworkUnavailable', 'True', { reason: 'NoRouteCreated', message: 'RouteController failed to create a route' }),
    ];
    const [f] = detect(cluster({ fell: [poolNode(NODE, 'default', conditions)] }));

    expect(f?.cause?.code).toBe('NETWORK_NOT_READY');
  });

  it('UNKNOWN: quotes Ready and prints no cause-specific fix', () => {
    const conditions = [
      condition('Ready', 'False', {
        reason: 'KubeletNotReady',
        message: 'PLEG is not healthy: pleg was last seen active 3m5.1s ago; threshold is 3m0s',
        lastTransitionTime: FELL,
      }),
    ];
    const [f] = detect(cluster({ fell: [poolNode(NODE, 'default', conditions)] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('PLEG is not healthy');
    expect(steps(f!)).not.toContain('describe-instance-status');
    expect(steps(f!)).not.toContain('kube-system');
  });
});

describe('NODE_NOT_READY: the repair verdict', () => {
  it('gate off: says so and prints the helm upgrade that enables it at the installed chart version', () => {
    const [f] = detect(cluster());

    expect(f?.cause?.detail).toContain(
      'its NodeRepair feature gate is off (env FEATURE_GATES=SpotToSpotConsolidation=false,NodeRepair=false',
    );
    expect(steps(f!)).toContain(
      'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n karpenter --version 1.2.1 --reuse-values --set settings.featureGates.nodeRepair=true',
    );
    expect(steps(f!)).toContain(`kubectl delete nodeclaim ${CLAIM} --wait=false`);
  });

  it("gate off on a Deployment Helm does not own: kubectl set env keeps the other gates and the container's name", () => {
    const d = karpenterDeployment({
      spec: {
        containers: [
          {
            name: 'karpenter',
            image: 'public.ecr.aws/karpenter/controller:1.3.2',
            env: [{ name: 'FEATURE_GATES', value: 'SpotToSpotConsolidation=true,NodeRepair=false' }],
          },
        ],
      },
    });
    const [f] = detect(cluster({ deployment: d }));

    expect(steps(f!)).toContain(
      'kubectl set env deployment/karpenter -n karpenter -c karpenter FEATURE_GATES=SpotToSpotConsolidation=true,NodeRepair=true',
    );
    expect(steps(f!)).not.toContain('helm upgrade');
  });

  it('gate on: prints no step enabling it', () => {
    const [f] = detect(cluster({ deployment: controller('v1.2.1', chartGates(true)) }));

    expect(steps(f!)).not.toContain('nodeRepair=true');
    expect(f?.cause?.detail).not.toContain('gate is off');
  });

  it('the --feature-gates arg wins over the env, as the controller reads it', () => {
    const d = controller('v1.2.1', chartGates(false), ['--feature-gates=NodeRepair=true']);
    const [f] = detect(cluster({ deployment: d }));

    expect(f?.cause?.detail).toContain('NodeRepair is on');
  });

  it('waiting: within the 30-minute toleration it says when Karpenter acts', () => {
    const [f] = detect(cluster({ deployment: controller('v1.2.1', chartGates(true)) }));

    expect(f?.cause?.detail).toContain(`replaces the first of them at ${minutesAfter(FELL, 30).replace('Z', '.000Z')}`);
    expect(f?.severity).toBe('warning');
  });

  it('overdue: past the toleration and not blocked, it reads the controller log instead', () => {
    const [f] = detect(cluster({ deployment: controller('v1.2.1', chartGates(true)) }), minutesAfter(FELL, 45));

    expect(f?.cause?.detail).toContain('its toleration ended at');
    expect(steps(f!)).toContain("grep -E 'node.health|unhealthy'");
  });

  it('overdue: reads every controller pod by label, and says the repair log is debug-only before v1.7.2', () => {
    const [v12] = detect(cluster({ deployment: controller('v1.2.1', chartGates(true)) }), minutesAfter(FELL, 45));
    const [v172] = detect(cluster({ deployment: controller('v1.7.2', chartGates(true)) }), minutesAfter(FELL, 45));

    expect(steps(v12!)).toContain(
      "kubectl logs -n karpenter -l app.kubernetes.io/name=karpenter --tail=500 | grep -E 'node.health|unhealthy'",
    );
    expect(steps(v12!)).not.toContain('deployment/');
    expect(steps(v12!)).toContain('before v1.7.2 it logs `deleting unhealthy node` at debug level only');
    expect(steps(v172!)).not.toContain('debug level');
  });

  it('v1.1.x repairs Ready=False only: a silent kubelet is never repaired there, so upgrade', () => {
    const [f] = detect(cluster({ deployment: controller('v1.1.5', chartGates(true)) }), minutesAfter(FELL, 45));

    expect(f?.cause?.detail).toContain('Ready=Unknown is repaired from v1.2.0');
    expect(steps(f!)).not.toContain('node.health');
  });

  it('v1.1.x with the gate off and a silent kubelet: upgrade to v1.2+ with the gate, not the gate at 1.1.x', () => {
    const [f] = detect(cluster({ deployment: controller('v1.1.5', chartGates(false)) }));

    expect(f?.cause?.detail).toContain('Ready=Unknown from v1.2.0');
    expect(steps(f!)).toContain('Upgrade Karpenter to v1.2.0 or later');
    expect(steps(f!)).not.toContain('featureGates.nodeRepair=true');
  });

  it('v1.1.x with the gate off and Ready=False: enabling the gate at the installed version does cover it', () => {
    const [f] = detect(
      cluster({ fell: [poolNode(NODE, 'default', memoryPressure(FELL))], deployment: controller('v1.1.5', chartGates(false)) }),
    );

    expect(steps(f!)).toContain('--version 1.1.5 --reuse-values --set settings.featureGates.nodeRepair=true');
    expect(steps(f!)).not.toContain('Upgrade Karpenter to v1.2.0');
  });

  it('before v1.1.0 there is no node repair: no gate to enable', () => {
    const [f] = detect(cluster({ deployment: controller('v1.0.8', 'SpotToSpotConsolidation=false') }));

    expect(f?.cause?.detail).toContain('has no node repair (it came in v1.1.0)');
    expect(steps(f!)).not.toContain('--set settings.featureGates.nodeRepair=true');
  });

  it('no controller captured but v1beta1 NodeClaims: a release before v1.1.0, so no node repair, not unknown', () => {
    const fell = poolNode(NODE, 'default', kubeletSilent(FELL));
    const claim = { ...claimOf(fell, CLAIM), apiVersion: 'karpenter.sh/v1beta1' };
    const [f] = detect(cluster({ fell: [fell], claims: [claim], deployment: null }));

    expect(f?.cause?.detail).toContain('Karpenter v1.0 or older has no node repair (it came in v1.1.0)');
    expect(f?.cause?.detail).toContain(`NodeClaim ${CLAIM} is karpenter.sh/v1beta1`);
    expect(f?.cause?.detail).not.toContain('unknown');
    expect(steps(f!)).not.toContain('FEATURE_GATES');
    expect(steps(f!)).not.toContain('--set settings.featureGates.nodeRepair=true');
  });

  it('v1 NodeClaims prove nothing about node repair: still unknown without the controller', () => {
    const fell = poolNode(NODE, 'default', kubeletSilent(FELL));
    const claim = { ...claimOf(fell, CLAIM), apiVersion: 'karpenter.sh/v1' };
    const [f] = detect(cluster({ fell: [fell], claims: [claim], deployment: null }));

    expect(f?.cause?.detail).toContain('unknown');
  });

  it('unknown without the controller: the step reads its gates', () => {
    const [f] = detect(cluster({ deployment: null }));

    expect(f?.cause?.detail).toContain('unknown');
    expect(steps(f!)).toContain('FEATURE_GATES');
    expect(steps(f!)).not.toContain('helm upgrade');
  });

  it("blocked: more unhealthy nodes than 20% rounded up, critical, Karpenter's text as this version writes it", () => {
    const fell = ['a', 'b'].map((x) => poolNode(`ip-10-0-77-1${x === 'a' ? 1 : 2}.ec2.internal`, 'default', kubeletSilent(FELL)));
    const [v12] = detect(cluster({ fell, healthy: 3, deployment: controller('v1.2.1', chartGates(true)) }));
    const [v13] = detect(cluster({ fell, healthy: 3, deployment: controller('v1.3.0', chartGates(true)) }));

    expect(v12?.severity).toBe('critical');
    expect(v12?.cause?.detail).toContain('2 of 5 nodes match a repair condition, more than the 1 it allows');
    expect(v12?.cause?.detail).toContain('"more then 20% nodes are unhealthy in the nodepool"');
    expect(v13?.cause?.detail).toContain('"more than 20% nodes are unhealthy in the nodepool"');
    expect(steps(v12!)).toContain('replace them by hand');
  });

  it("blocked: Karpenter's NodeRepairBlocked event is quoted, and proves the gate on though the spec says off", () => {
    const blocked = event({
      kind: 'Node',
      name: NODE,
      reason: 'NodeRepairBlocked',
      message: 'more then 20% nodes are unhealthy in the nodepool',
      source: 'karpenter',
      count: 19,
      // Re-emitted every 5 minutes while blocked: last seen 5 minutes before now.
      lastTime: minutesAfter(NOW, -5),
    });
    const [f] = detect(cluster({ events: [blocked] }));

    expect(f?.severity).toBe('critical');
    expect(f?.cause?.detail).toContain('NodeRepairBlocked "more then 20% nodes are unhealthy in the nodepool"');
    expect(steps(f!)).not.toContain('nodeRepair=true');
  });

  it("blocked by Karpenter's event while the captured pool is within the rule: says both, not a false 'more than'", () => {
    const blocked = event({
      kind: 'Node',
      name: NODE,
      reason: 'NodeRepairBlocked',
      message: 'more then 20% nodes are unhealthy in the nodepool',
      source: 'karpenter',
      count: 19,
      // Recent: an event older than 20 minutes is history, and the captured count decides alone.
      lastTime: minutesAfter(NOW, -5),
    });
    const [f] = detect(cluster({ healthy: 2, events: [blocked], deployment: controller('v1.2.1', chartGates(true)) }));

    expect(f?.severity).toBe('critical');
    expect(f?.cause?.detail).toContain('NodeRepairBlocked "more then 20% nodes are unhealthy in the nodepool"');
    expect(f?.cause?.detail).toContain('the capture shows 1 of 3 nodes matching a repair condition now, within the 1 it allows');
    expect(f?.cause?.detail).not.toContain('more than the 1 it allows');
    expect(steps(f!)).not.toContain('until at most 1 is');
    expect(steps(f!)).toContain('kubectl get nodes -l karpenter.sh/nodepool=default -o wide');
  });

  it('one NotReady node of three is within the rule (1 allowed) but a third of the pool: critical, repair waits', () => {
    const [f] = detect(cluster({ healthy: 2, deployment: controller('v1.2.1', chartGates(true)) }));

    expect(f?.severity).toBe('critical');
    expect(f?.cause?.detail).toContain('1 of the pool');
    expect(f?.cause?.detail).toContain('replaces the first of them at');
  });
});

describe('NODE_NOT_READY: a likely shared cause', () => {
  const SHARED_CHECK = 'kubectl get nodes -l karpenter.sh/nodepool=default -L topology.kubernetes.io/zone -o wide';
  const twoFell = (secondAt: string) => [
    poolNode('ip-10-0-77-11.ec2.internal', 'default', kubeletSilent(FELL)),
    poolNode('ip-10-0-77-12.ec2.internal', 'default', kubeletSilent(secondAt)),
  ];

  it('blocked: leads with the shared-cause check and replaces ONE node, waiting for it, before the rest', () => {
    const [f] = detect(cluster({ fell: twoFell(FELL), healthy: 3, deployment: controller('v1.2.1', chartGates(true)) }));
    const all = f?.remediation?.steps ?? [];
    const at = (text: string) => all.findIndex((step) => step.includes(text));

    expect(all[0]).toContain(SHARED_CHECK);
    expect(at('kubectl delete nodeclaim default-fell1')).toBeLessThan(at('--watch'));
    expect(at('--watch')).toBeLessThan(at('kubectl delete nodeclaim default-ok1'));
    expect(all[at('--watch')]).toContain('ONE node first');
  });

  it('not blocked, two nodes NotReady within the same minute: the same shared-cause lead', () => {
    const [f] = detect(cluster({ fell: twoFell(minutesAfter(FELL, 0.5)) }));

    expect(f?.remediation?.steps[0]).toContain(SHARED_CHECK);
    expect(steps(f!)).toContain('ONE node first');
  });

  it('two nodes NotReady 10 minutes apart and repair not blocked: each replaced, no shared-cause lead', () => {
    const [f] = detect(cluster({ fell: twoFell(minutesAfter(FELL, -10)) }));

    expect(steps(f!)).not.toContain(SHARED_CHECK);
    expect(steps(f!)).not.toContain('ONE node first');
  });
});

describe('NODE_NOT_READY: pods stuck Terminating and replacing the node', () => {
  const stuckPod = (name: string, owner?: string): Pod => {
    const p = pod({ name, namespace: 'shop', nodeName: NODE, ...(owner ? { ownerKind: owner } : {}) });
    return { ...p, metadata: { ...p.metadata, deletionTimestamp: minutesAfter(FELL, 5) } };
  };

  it('names the pods stuck Terminating and gates each force delete behind the instance check', () => {
    const n = poolNode(NODE, 'default', kubeletSilent(FELL), { instanceId: 'i-0123456789abcdef0' });
    const running = pod({ name: 'web-2', namespace: 'shop', nodeName: NODE });
    const [f] = detect(cluster({ fell: [n], pods: [stuckPod('web-1'), running] }));
    const text = steps(f!);

    expect(f?.evidence.join('\n')).toContain(
      `pods stuck Terminating on node ${NODE}: shop/web-1 (deletionTimestamp ${minutesAfter(FELL, 5)})`,
    );
    expect(f?.evidence.join('\n')).not.toContain('shop/web-2');
    expect(
      text.indexOf(
        "aws ec2 describe-instances --instance-ids i-0123456789abcdef0 --query 'Reservations[].Instances[].State.Name'",
      ),
    ).toBeLessThan(text.indexOf('kubectl delete pod -n shop web-1 --grace-period=0 --force'));
    expect(text).not.toContain('kubectl delete pod -n shop web-2');
    expect(text).not.toMatch(/cordon/);
  });

  it('no pod stuck Terminating: no force delete at all', () => {
    const [f] = detect(cluster({ pods: [pod({ name: 'web-2', namespace: 'shop', nodeName: NODE })] }));

    expect(steps(f!)).not.toContain('--force');
  });

  it("warns that a StatefulSet's pod would run twice", () => {
    const [f] = detect(cluster({ pods: [stuckPod('db-0', 'StatefulSet')] }));

    expect(steps(f!)).toContain('a StatefulSet pod: on a live instance its replacement would run beside it');
  });
});

describe('NODE_NOT_READY: cost', () => {
  it('prices the NotReady nodes by type, capacity type and zone', () => {
    const seen: unknown[] = [];
    const prices: PriceBook = {
      hourly(i) {
        seen.push(i);
        return { usd: 0.096, source: 'test table' };
      },
    };
    const [f] = detect(cluster(), NOW, prices);

    expect(seen).toEqual([expect.objectContaining({ instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-east-1a' })]);
    expect(f?.cost).toEqual({ perDayUsd: 2.3, basis: '1 × m5.large on-demand at $0.0960/h (test table); × 24 h' });
  });
});

describe('NODE_NOT_READY: cost, from what EC2 bills', () => {
  const anyType: PriceBook = { hourly: () => ({ usd: 0.1, source: 'test table' }) };

  it('a forged instance-type label never reaches the basis: the node counts as not priced', () => {
    const forged = poolNode('ip-10-0-77-13.ec2.internal', 'default', kubeletSilent(FELL));
    const labels = { ...forged.metadata?.labels, 'node.kubernetes.io/instance-type': 'm5.large\u001b[2J$(rm -rf ~)' };
    const node = { ...forged, metadata: { ...forged.metadata, labels } };
    const fell = [poolNode(NODE, 'default', kubeletSilent(FELL)), node];
    const [f] = detect(cluster({ fell, claims: [] }), NOW, anyType);

    expect(f?.cost?.basis).not.toContain('rm -rf');
    expect(f?.cost?.basis).not.toContain('\u001b');
    expect(f?.cost).toEqual({
      perDayUsd: 2.4,
      basis: '1 × m5.large on-demand at $0.1000/h (test table); 1 not priced (instance type unknown); × 24 h',
    });
  });

  it('a node whose captured instance EC2 says is terminated costs nothing', () => {
    const n = poolNode(NODE, 'default', kubeletSilent(FELL), { instanceId: 'i-0123456789abcdef0' });
    const [f] = detect(
      cluster({ fell: [n], instances: [instance({ id: 'i-0123456789abcdef0', state: 'terminated' })] }),
      NOW,
      anyType,
    );

    expect(f?.cost).toBeUndefined();
  });
});
