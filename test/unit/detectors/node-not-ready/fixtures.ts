/**
 * Nodes that initialised and went NotReady, their NodeClaims and Karpenter's controller, as the
 * API server returns them (Kubernetes' node lifecycle controller and kubelet strings verbatim).
 */
import type { Condition, Deployment, Node, NodeClaim } from '../../../../src/domain/kube.ts';
import { nodeClaim } from '../../../factories/karpenter.ts';
import { T0, condition, karpenterDeployment, node } from '../../../factories/kube.ts';

/** What the node lifecycle controller writes on every kubelet condition when the kubelet goes silent. */
export function kubeletSilent(at: string): Condition[] {
  return ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) =>
    condition(type, 'Unknown', {
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastTransitionTime: at,
    }),
  );
}

/** The kubelet's own conditions on a node whose memory ran out: Ready False and MemoryPressure True. */
export function memoryPressure(at: string): Condition[] {
  return [
    condition('Ready', 'False', {
      reason: 'KubeletNotReady',
      message: 'PLEG is not healthy: pleg was last seen active 3m5.1s ago; threshold is 3m0s',
      lastTransitionTime: at,
    }),
    condition('MemoryPressure', 'True', {
      reason: 'KubeletHasInsufficientMemory',
      message: 'kubelet has insufficient memory available',
      lastTransitionTime: at,
    }),
    condition('DiskPressure', 'False', { reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' }),
    condition('PIDPressure', 'False', { reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' }),
  ];
}

export const CNI_MESSAGE =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

export function networkNotReady(at: string): Condition[] {
  return [condition('Ready', 'False', { reason: 'KubeletNotReady', message: CNI_MESSAGE, lastTransitionTime: at })];
}

export function healthyConditions(): Condition[] {
  return [condition('Ready', 'True', { reason: 'KubeletReady', message: 'kubelet is posting ready status' })];
}

/** A Karpenter node of `pool` (labelled as Karpenter labels its nodes), with these conditions. */
export function poolNode(name: string, pool: string, conditions: Condition[], extra: { instanceId?: string } = {}): Node {
  const instanceId =
    extra.instanceId ??
    `i-0${name
      .replace(/[^a-f0-9]/g, '')
      .padEnd(16, '0')
      .slice(0, 16)}`;
  const base = node({
    name,
    providerID: `aws:///us-east-1a/${instanceId}`,
    labels: {
      'karpenter.sh/nodepool': pool,
      'karpenter.sh/initialized': 'true',
      'karpenter.sh/registered': 'true',
      'karpenter.sh/capacity-type': 'on-demand',
      'node.kubernetes.io/instance-type': 'm5.large',
      'topology.kubernetes.io/zone': 'us-east-1a',
    },
  });
  return { ...base, status: { ...base.status, conditions } };
}

/** The initialised NodeClaim of a pool node. */
export function claimOf(n: Node, claimName: string): NodeClaim {
  const labels = n.metadata?.labels ?? {};
  const instanceId = /\/(i-[0-9a-f]+)$/.exec(n.spec?.providerID ?? '')?.[1];
  return nodeClaim({
    name: claimName,
    nodePool: labels['karpenter.sh/nodepool'],
    nodeName: n.metadata?.name,
    ...(instanceId ? { instanceId } : {}),
    createdAt: T0,
  });
}

/** Karpenter's controller as the chart renders it: image tag, FEATURE_GATES env, Helm labels. */
export function controller(version: string, featureGates: string | undefined, args?: string[]): Deployment {
  const d = karpenterDeployment({
    spec: {
      containers: [
        {
          name: 'controller',
          image: `public.ecr.aws/karpenter/controller:${version}@sha256:6f0c9c5a3d1e8b7a2f4e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a`,
          ...(featureGates !== undefined ? { env: [{ name: 'FEATURE_GATES', value: featureGates }] } : {}),
          ...(args ? { args } : {}),
        },
      ],
    },
  });
  const labels = {
    ...d.metadata?.labels,
    'helm.sh/chart': `karpenter-${version.replace(/^v/, '')}`,
    'app.kubernetes.io/managed-by': 'Helm',
  };
  return { ...d, metadata: { ...d.metadata, labels } };
}

/** The chart's FEATURE_GATES, as v1.2's chart renders it. */
export function chartGates(nodeRepair: boolean): string {
  return `SpotToSpotConsolidation=false,NodeRepair=${nodeRepair}`;
}

/** The kubelet's words for each pressure condition when True (pkg/kubelet/nodestatus). */
const PRESSURE_TRUE: Record<string, { reason: string; message: string }> = {
  DiskPressure: { reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure' },
  PIDPressure: { reason: 'KubeletHasInsufficientPID', message: 'kubelet has insufficient PID available' },
};

/** Ready False (PLEG, as in memoryPressure) with one pressure condition True, the others False. */
export function pressureOf(type: 'DiskPressure' | 'PIDPressure', at: string): Condition[] {
  const ready = memoryPressure(at).filter((c) => c.type === 'Ready' || (c.type !== 'MemoryPressure' && c.type !== type));
  const memory = condition('MemoryPressure', 'False', {
    reason: 'KubeletHasSufficientMemory',
    message: 'kubelet has sufficient memory available',
  });
  return [...ready, memory, condition(type, 'True', { ...PRESSURE_TRUE[type], lastTransitionTime: at })];
}
