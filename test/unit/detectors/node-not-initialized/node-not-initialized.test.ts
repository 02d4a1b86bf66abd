import { describe, expect, it } from 'vitest';
import { nodeNotInitialized } from '../../../../src/detectors/node-not-initialized/detector.ts';
import type { NodeClaim, Taint } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, nodePool, uninitializedConditions } from '../../../factories/karpenter.ts';
import { T0, condition, event, minutesAfter, node, pod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 30);
const NODE = 'ip-10-0-12-34.ec2.internal';
const CILIUM_TAINT: Taint = { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' };
const CNI_MESSAGE =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return nodeNotInitialized.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

function stuck(
  input: { name?: string; pool?: string; reason?: string; message?: string; registeredAt?: string; nodeName?: string } = {},
): NodeClaim {
  return nodeClaim({
    name: input.name ?? 'default-x7k2p',
    nodePool: input.pool ?? 'default',
    instanceId: 'i-0abc123def4567890',
    nodeName: input.nodeName ?? NODE,
    conditions: uninitializedConditions(
      input.reason ?? 'NodeNotReady',
      input.message ?? 'Node status is NotReady',
      input.registeredAt,
    ),
  });
}

describe('NODE_NOT_INITIALIZED', () => {
  it('CNI_NOT_READY from the Node: quotes the kubelet message and names aws-node', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [stuck()],
      nodes: [node({ name: NODE, ready: false, notReady: { reason: 'KubeletNotReady', message: CNI_MESSAGE } })],
    });

    // Act
    const [finding, ...rest] = detect(snapshot);

    // Assess
    expect(rest).toEqual([]);
    expect(finding?.cause?.code).toBe('CNI_NOT_READY');
    expect(finding?.cause?.detail).toContain('cni plugin not initialized');
    expect(finding?.cause?.detail).toContain('aws-node');
    expect(finding?.cause?.detail).toContain('never consolidates, expires');
    expect(finding?.severity).toBe('warning');
    expect(finding?.resource).toEqual({ kind: 'NodePool', name: 'default' });
    expect(finding?.counts).toEqual({ objects: 1, nodePool: 'default' });
    expect(finding?.remediation?.action).toBe('MANUAL');
    expect(finding?.remediation?.steps).toContain('kubectl logs -n kube-system -l k8s-app=aws-node --tail=100 -c aws-node');
    expect(finding?.remediation?.steps).toContain('kubectl get ds -n kube-system aws-node');
    expect(finding?.remediation?.steps).toContain(`kubectl describe node ${NODE}`);
  });

  it('CNI_NOT_READY names Cilium when a cilium pod runs in the cluster', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [stuck()],
      nodes: [node({ name: NODE, ready: false, notReady: { message: CNI_MESSAGE } })],
      pods: [pod({ name: 'cilium-4hx8z', namespace: 'kube-system', nodeName: 'other', labels: { 'k8s-app': 'cilium' } })],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('CNI_NOT_READY');
    expect(finding?.cause?.detail).toContain('Cilium');
    expect(finding?.remediation?.steps).toContain('kubectl logs -n kube-system -l k8s-app=cilium --tail=100 -c cilium-agent');
  });

  it('STARTUP_TAINT_REMAINS from the Node: the NodePool startup taint, who removes it, and that its pod is missing', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [
        stuck({
          reason: 'StartupTaintsExist',
          message: 'StartupTaint "node.cilium.io/agent-not-ready=true:NoExecute" still exists',
        }),
      ],
      nodes: [node({ name: NODE, taints: [CILIUM_TAINT] })],
      nodePools: [nodePool({ name: 'default', startupTaints: [CILIUM_TAINT] })],
      pods: [
        pod({
          name: 'cilium-4hx8z',
          namespace: 'kube-system',
          nodeName: 'ip-10-0-1-1.ec2.internal',
          labels: { 'k8s-app': 'cilium' },
          spec: { tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }] },
        }),
      ],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('STARTUP_TAINT_REMAINS');
    expect(finding?.cause?.detail).toContain('node.cilium.io/agent-not-ready=true:NoExecute');
    expect(finding?.cause?.detail).toContain("NodePool's startupTaints");
    expect(finding?.cause?.detail).toContain('cilium-operator');
    expect(finding?.cause?.detail).toContain(
      `no cilium pod runs on node ${NODE}: its DaemonSet must tolerate node.cilium.io/agent-not-ready=true:NoExecute`,
    );
    expect(finding?.remediation?.steps).toContain(
      `# is the pod that removes node.cilium.io/agent-not-ready=true:NoExecute scheduled on the node, and Ready?\nkubectl get pods -A -o wide --field-selector spec.nodeName=${NODE}`,
    );
    expect(finding?.remediation?.steps.join('\n')).toContain(
      `kubectl patch nodepool default --type json -p '[{"op":"remove","path":"/spec/template/spec/startupTaints/0"}]'`,
    );
  });

  it('STARTUP_TAINT_REMAINS with the remover Ready on the node: the agent failed to remove it; no toleration check', () => {
    // Prepare: the shape of test/incidents/efs-startup-taint-not-removed-gpu-node.
    const snapshot = snapshotOf({
      nodeClaims: [
        stuck({
          reason: 'StartupTaintsExist',
          message: 'StartupTaint "node.cilium.io/agent-not-ready=true:NoExecute" still exists',
        }),
      ],
      nodes: [node({ name: NODE, taints: [CILIUM_TAINT] })],
      nodePools: [nodePool({ name: 'default', startupTaints: [CILIUM_TAINT] })],
      pods: [
        pod({ name: 'cilium-q8v4t', namespace: 'kube-system', nodeName: NODE, labels: { 'k8s-app': 'cilium' }, ready: true }),
      ],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.detail).toContain('its pod kube-system/cilium-q8v4t runs Ready on the node, yet the taint stays');
    const steps = finding?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain('kubectl logs -n kube-system cilium-q8v4t --all-containers');
    expect(steps).toContain('kubectl delete pod -n kube-system cilium-q8v4t');
    expect(steps).not.toContain('must tolerate the taint');
    expect(steps).not.toContain('scheduled on the node, and Ready?');
  });

  it('STARTUP_TAINT_REMAINS from a known ephemeral taint on the Node: the cloud controller manager', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [stuck()],
      nodes: [
        node({
          name: NODE,
          taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }],
        }),
      ],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('STARTUP_TAINT_REMAINS');
    expect(finding?.cause?.detail).toContain(
      'known ephemeral taint node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule',
    );
    expect(finding?.cause?.detail).toContain('cloud controller manager');
  });

  it.each([
    [
      'StartupTaintsExist',
      'StartupTaint "ebs.csi.aws.com/agent-not-ready:NoExecute" still exists',
      'ebs.csi.aws.com/agent-not-ready:NoExecute',
      'ebs-csi-node',
    ],
    [
      'KnownEphemeralTaintsExist',
      'KnownEphemeralTaint "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule" still exists',
      'node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule',
      'cloud controller manager',
    ],
  ])('STARTUP_TAINT_REMAINS from the NodeClaim reason %s alone (Node not captured)', (reason, message, taint, remover) => {
    // Prepare
    const snapshot = snapshotOf({ nodeClaims: [stuck({ reason, message })] });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('STARTUP_TAINT_REMAINS');
    expect(finding?.cause?.detail).toContain(taint);
    expect(finding?.cause?.detail).toContain(remover);
    expect(finding?.evidence.join('\n')).toContain(`Initialized=Unknown (${reason}: ${message})`);
  });

  it('RESOURCE_NOT_REGISTERED from the Node: a GPU pod on it, no nvidia.com/gpu in allocatable', () => {
    // Prepare
    const gpuPod = pod({
      name: 'trainer-0',
      namespace: 'ml',
      nodeName: NODE,
      phase: 'Pending',
      spec: { containers: [{ name: 'main', resources: { requests: { cpu: '4', 'nvidia.com/gpu': '1' } } }] },
    });
    const snapshot = snapshotOf({ nodeClaims: [stuck()], nodes: [node({ name: NODE })], pods: [gpuPod] });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('RESOURCE_NOT_REGISTERED');
    expect(finding?.cause?.detail).toContain('nvidia.com/gpu');
    expect(finding?.cause?.detail).toContain('NVIDIA device plugin');
    expect(finding?.remediation?.steps.join('\n')).toContain('kubectl get ds -A | grep -i nvidia');
  });

  it('RESOURCE_NOT_REGISTERED from the NodeClaim requests against the Node allocatable', () => {
    // Prepare
    const nc = stuck();
    if (nc.spec) nc.spec.resources = { requests: { cpu: '1', 'vpc.amazonaws.com/pod-eni': '1' } };
    const snapshot = snapshotOf({
      nodeClaims: [nc],
      nodes: [node({ name: NODE, allocatable: { cpu: '3920m', 'vpc.amazonaws.com/pod-eni': '0' } })],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('RESOURCE_NOT_REGISTERED');
    expect(finding?.remediation?.steps).toContain('kubectl set env daemonset aws-node -n kube-system ENABLE_POD_ENI=true');
  });

  it('RESOURCE_NOT_REGISTERED from the NodeClaim reason alone (Node not captured)', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [
        stuck({ reason: 'ResourceNotRegistered', message: 'Resource "aws.amazon.com/neuron" was requested but not registered' }),
      ],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('RESOURCE_NOT_REGISTERED');
    expect(finding?.cause?.detail).toContain('aws.amazon.com/neuron');
    expect(finding?.cause?.detail).toContain('Neuron device plugin');
  });

  it('NODE_NOT_READY from the Node quotes its message; from the reason alone it quotes Karpenter', () => {
    // Prepare
    const withNode = snapshotOf({
      nodeClaims: [stuck()],
      nodes: [
        node({
          name: NODE,
          ready: false,
          notReady: { reason: 'KubeletNotReady', message: 'PLEG is not healthy: pleg was last seen active 3m0s ago' },
        }),
      ],
    });
    const withoutNode = snapshotOf({ nodeClaims: [stuck()] });

    // Act
    const [fromNode] = detect(withNode);
    const [fromReason] = detect(withoutNode);

    // Assess
    expect(fromNode?.cause?.code).toBe('NODE_NOT_READY');
    expect(fromNode?.cause?.detail).toContain('"PLEG is not healthy');
    expect(fromReason?.cause?.code).toBe('NODE_NOT_READY');
    expect(fromReason?.cause?.detail).toContain('"Node status is NotReady"');
    expect(fromReason?.remediation?.steps).toContain(
      'aws ec2 get-console-output --instance-id i-0abc123def4567890 --latest   # kubelet and container runtime errors',
    );
  });

  it('CNI_NOT_READY needs the Node: Karpenter only says NodeNotReady', () => {
    // Prepare: a Node object captured but its Ready message is the CNI's
    const snapshot = snapshotOf({
      nodeClaims: [stuck()],
      nodes: [node({ name: NODE, ready: false, notReady: { message: CNI_MESSAGE } })],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('CNI_NOT_READY');
  });

  it('UNKNOWN when neither the Node nor the reason tells', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [stuck({ reason: 'SomethingNew', message: 'a future Karpenter' })],
      nodes: [node({ name: NODE })],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('UNKNOWN');
    expect(finding?.cause?.detail).toContain('SomethingNew: a future Karpenter');
    expect(finding?.remediation?.steps).toContain('kubectl describe nodeclaim default-x7k2p');
  });

  it.each([
    [10, 1],
    [9, 0],
  ])('threshold edge: registered %i minutes ago gives %i finding', (minutes, expected) => {
    // Prepare
    const snapshot = snapshotOf({ nodeClaims: [stuck({ registeredAt: T0 })] });

    // Act
    const findings = detect(snapshot, minutesAfter(T0, minutes));

    // Assess
    expect(findings).toHaveLength(expected);
  });

  it('a NodeClaim registered a minute ago, an initialised one, a deleting one, an unregistered one: nothing', () => {
    // Prepare
    const deleting = stuck({ name: 'default-dddd' });
    if (deleting.metadata) deleting.metadata.deletionTimestamp = minutesAfter(T0, 20);
    const snapshot = snapshotOf({
      nodeClaims: [
        stuck({ name: 'default-young', registeredAt: minutesAfter(NOW, -1) }),
        nodeClaim({ name: 'default-fine', nodeName: 'ip-10-0-0-9.ec2.internal' }),
        deleting,
        nodeClaim({
          name: 'default-unreg',
          conditions: [condition('Launched', 'True'), condition('Registered', 'Unknown', { reason: 'NodeNotFound' })],
        }),
      ],
    });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings).toEqual([]);
  });

  it('skips a Node Karpenter already labelled initialised: the NodeClaim status lags', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [stuck()],
      nodes: [node({ name: NODE, labels: { 'karpenter.sh/initialized': 'true' } })],
    });

    // Act / Assess
    expect(detect(snapshot)).toEqual([]);
  });

  it('one finding per NodePool; mixed causes in a pool: the commonest leads, the others follow in the detail and steps', () => {
    // Prepare
    const snapshot = snapshotOf({
      nodeClaims: [
        stuck({
          name: 'gpu-a',
          pool: 'gpu',
          nodeName: 'n-a',
          reason: 'ResourceNotRegistered',
          message: 'Resource "nvidia.com/gpu" was requested but not registered',
        }),
        stuck({
          name: 'gpu-b',
          pool: 'gpu',
          nodeName: 'n-b',
          reason: 'ResourceNotRegistered',
          message: 'Resource "nvidia.com/gpu" was requested but not registered',
        }),
        stuck({
          name: 'gpu-c',
          pool: 'gpu',
          nodeName: 'n-c',
          reason: 'StartupTaintsExist',
          message: 'StartupTaint "node.cilium.io/agent-not-ready=true:NoExecute" still exists',
        }),
        stuck({ name: 'default-a', pool: 'default', nodeName: 'n-d' }),
      ],
      events: [
        event({ kind: 'Node', name: 'n-d', reason: 'Unconsolidatable', message: "node isn't initialized", type: 'Warning' }),
      ],
    });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings.map((f) => [f.resource.name, f.cause?.code, f.counts])).toEqual([
      ['gpu', 'RESOURCE_NOT_REGISTERED', { objects: 3, nodePool: 'gpu' }],
      ['default', 'NODE_NOT_READY', { objects: 1, nodePool: 'default' }],
    ]);
    const gpu = findings[0];
    expect(gpu?.cause?.detail).toContain('Also 1 NodeClaim STARTUP_TAINT_REMAINS');
    expect(gpu?.remediation?.steps.join('\n')).toContain('kubectl describe node n-c');
    expect(gpu?.evidence.filter((e) => e.startsWith('NodeClaim '))).toHaveLength(3);
    expect(findings[1]?.evidence).toContain("event on Node n-d: Unconsolidatable: node isn't initialized");
  });

  it('leads with the NodeClaim stuck longest, then by name, however the NodeClaims were listed', () => {
    // Prepare: a file lists them as captured, the API server by name
    const later = stuck({ name: 'default-a', nodeName: 'n-a', registeredAt: minutesAfter(T0, 5) });
    const earlier = stuck({ name: 'default-z', nodeName: 'n-z' });
    const twin = stuck({ name: 'default-m', nodeName: 'n-m' });

    // Act
    const orders = [
      [later, earlier, twin],
      [twin, later, earlier],
    ].map((nodeClaims) => detect(snapshotOf({ nodeClaims }))[0]);

    // Assess
    for (const finding of orders) {
      expect(finding?.remediation?.steps[0]).toBe('kubectl describe node n-m');
      expect(finding?.evidence.filter((e) => e.startsWith('NodeClaim ')).map((e) => e.split(' ')[1])).toEqual([
        'default-m',
        'default-z',
        'default-a',
      ]);
    }
    expect(orders[0]).toEqual(orders[1]);
  });

  it('lists at most 10 NodeClaims in the evidence', () => {
    // Prepare
    const claims = Array.from({ length: 12 }, (_, i) => stuck({ name: `default-${i}`, nodeName: `n-${i}` }));

    // Act
    const [finding] = detect(snapshotOf({ nodeClaims: claims }));

    // Assess
    expect(finding?.counts?.objects).toBe(12);
    expect(finding?.evidence).toContain('... and 2 more NodeClaims');
  });

  it('quotes hostile node, pool and taint names in its steps', () => {
    // Prepare
    const evil = "x'; touch PWNED; echo '";
    const taint: Taint = { key: 'example.com/not-ready', value: evil, effect: 'NoSchedule' };
    const snapshot = snapshotOf({
      nodeClaims: [stuck({ pool: evil, nodeName: evil, name: evil })],
      nodes: [node({ name: evil, taints: [taint] })],
      nodePools: [nodePool({ name: evil, startupTaints: [taint] })],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('STARTUP_TAINT_REMAINS');
    const steps = finding?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain(String.raw`kubectl describe node 'x'\''; touch PWNED; echo '\'''`);
    expect(steps).toContain(String.raw`kubectl patch nodepool 'x'\''; touch PWNED; echo '\''' --type json`);
    expect(steps).toContain(String.raw`kubectl taint node 'x'\''; touch PWNED; echo '\''' example.com/not-ready:NoSchedule-`);
    const commands = steps.split('\n').filter((line) => !line.startsWith('#'));
    expect(commands.filter((line) => /[^']x'; touch PWNED/.test(line))).toEqual([]);
  });
});
