import type { Node, Pod, Taint } from '../../domain/kube.ts';
import { isPodReady } from '../../domain/kube-helpers.ts';

/**
 * Who is expected to finish a node's initialisation: the CNI that makes it Ready, the agent that
 * removes a startup taint, the device plugin that registers an extended resource. Each names the
 * DaemonSet (or controller) to look at and how its pods are labelled.
 */
export interface Agent {
  /** What people call it: `the VPC CNI (aws-node)`, `cilium-operator`, `the NVIDIA device plugin`. */
  name: string;
  /** The DaemonSet whose pod on the node does the work, when there is one. */
  daemonSet?: { namespace: string; name: string; podLabel: string };
}

// --- CNI ---------------------------------------------------------------------------------------

export type CniName = 'aws-node' | 'cilium' | 'calico';

export const CNI_AGENTS: Readonly<Record<CniName, Agent>> = {
  'aws-node': {
    name: 'the Amazon VPC CNI (DaemonSet kube-system/aws-node)',
    daemonSet: { namespace: 'kube-system', name: 'aws-node', podLabel: 'k8s-app=aws-node' },
  },
  cilium: {
    name: 'Cilium (DaemonSet kube-system/cilium)',
    daemonSet: { namespace: 'kube-system', name: 'cilium', podLabel: 'k8s-app=cilium' },
  },
  calico: {
    name: 'Calico (DaemonSet calico-system/calico-node)',
    daemonSet: { namespace: 'calico-system', name: 'calico-node', podLabel: 'k8s-app=calico-node' },
  },
};

const CNI_POD_LABEL: Readonly<Record<string, CniName>> = { 'aws-node': 'aws-node', cilium: 'cilium', 'calico-node': 'calico' };

/** The Node's `Ready` message says the network plugin has not come up. */
export function isCniMessage(message: string | undefined): boolean {
  return /cni plugin not initiali[sz]ed|NetworkPluginNotReady/i.test(message ?? '');
}

/**
 * Which CNI the cluster runs: Cilium or Calico when the node's taints, labels or annotations, or
 * the captured pods, show it; else the VPC CNI (EKS's default).
 */
export function cniOf(node: Node | undefined, pods: readonly Pod[]): { cni: CniName; namespace: string; shownBy: string } {
  const keys = [
    ...(node?.spec?.taints ?? []).map((t) => t.key),
    ...Object.keys(node?.metadata?.labels ?? {}),
    ...Object.keys(node?.metadata?.annotations ?? {}),
  ];
  for (const pod of pods) {
    const cni = CNI_POD_LABEL[pod.metadata?.labels?.['k8s-app'] ?? ''];
    if (cni && cni !== 'aws-node')
      return {
        cni,
        namespace: pod.metadata?.namespace ?? 'kube-system',
        shownBy: `pod ${pod.metadata?.namespace}/${pod.metadata?.name}`,
      };
  }
  const cilium = keys.find((k) => k.includes('cilium'));
  if (cilium) return { cni: 'cilium', namespace: 'kube-system', shownBy: `node key ${cilium}` };
  const calico = keys.find((k) => k.includes('projectcalico.org'));
  if (calico) return { cni: 'calico', namespace: 'calico-system', shownBy: `node key ${calico}` };
  const awsNode = pods.find((p) => p.metadata?.labels?.['k8s-app'] === 'aws-node');
  return {
    cni: 'aws-node',
    namespace: 'kube-system',
    shownBy: awsNode ? `pod kube-system/${awsNode.metadata?.name}` : 'EKS default',
  };
}

// --- startup and ephemeral taints ---------------------------------------------------------------

/** Karpenter's KnownEphemeralTaints (core pkg/scheduling/taints.go, v1.0–v1.14). */
export function isKnownEphemeralTaint(taint: Taint): boolean {
  if (taint.key.startsWith('readiness.k8s.io/')) return true;
  switch (taint.key) {
    case 'node.kubernetes.io/not-ready':
      return taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
    case 'node.kubernetes.io/unreachable':
      return taint.effect === 'NoSchedule';
    case 'node.cloudprovider.kubernetes.io/uninitialized':
      return taint.effect === 'NoSchedule' && taint.value === 'true';
    case 'karpenter.sh/unregistered':
      return taint.effect === 'NoExecute';
    default:
      return false;
  }
}

interface TaintRemover extends Agent {
  /** Taint keys this agent removes. */
  keys: (key: string) => boolean;
}

const TAINT_REMOVERS: readonly TaintRemover[] = [
  {
    keys: (k) => k === 'node.cilium.io/agent-not-ready',
    name: 'cilium-operator, once the Cilium agent pod on the node is Ready',
    daemonSet: { namespace: 'kube-system', name: 'cilium', podLabel: 'k8s-app=cilium' },
  },
  {
    keys: (k) => k === 'ebs.csi.aws.com/agent-not-ready',
    name: 'the EBS CSI node pod (DaemonSet kube-system/ebs-csi-node), once the driver registered',
    daemonSet: { namespace: 'kube-system', name: 'ebs-csi-node', podLabel: 'app=ebs-csi-node' },
  },
  {
    keys: (k) => k === 'efs.csi.aws.com/agent-not-ready',
    name: 'the EFS CSI node pod (DaemonSet kube-system/efs-csi-node), once the driver registered',
    daemonSet: { namespace: 'kube-system', name: 'efs-csi-node', podLabel: 'app=efs-csi-node' },
  },
  {
    keys: (k) => k === 'cni.istio.io/not-ready',
    name: 'the Istio CNI node agent (DaemonSet istio-system/istio-cni-node)',
    daemonSet: { namespace: 'istio-system', name: 'istio-cni-node', podLabel: 'k8s-app=istio-cni-node' },
  },
  {
    keys: (k) => k === 'node.cloudprovider.kubernetes.io/uninitialized',
    name: 'the cloud controller manager (the kubelet runs with --cloud-provider=external, so a cloud-controller-manager must initialise the Node)',
  },
  {
    keys: (k) => k === 'node.kubernetes.io/not-ready' || k === 'node.kubernetes.io/unreachable',
    name: "the node lifecycle controller, as soon as the Node's kubelet reports Ready",
  },
  {
    keys: (k) => k === 'karpenter.sh/unregistered',
    name: 'Karpenter itself, when it registers the Node',
  },
  {
    keys: (k) => k.startsWith('readiness.k8s.io/'),
    name: 'the Node Readiness Controller, once its rule for this taint is satisfied',
  },
];

/** Who normally removes this taint, when it is a well-known one. */
export function removerOf(taint: Taint): Agent | undefined {
  const found = TAINT_REMOVERS.find((r) => r.keys(taint.key));
  return found ? { name: found.name, ...(found.daemonSet ? { daemonSet: found.daemonSet } : {}) } : undefined;
}

/** `key=value:effect` as Karpenter prints a taint, parsed back. */
export function parseTaint(text: string): Taint | undefined {
  const m = /^([^=:\s]+)(?:=([^:\s]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(text.trim());
  if (!m) return undefined;
  return { key: m[1] ?? '', ...(m[2] ? { value: m[2] } : {}), effect: m[3] ?? '' };
}

// --- extended resources ------------------------------------------------------------------------

const DEVICE_PLUGINS: readonly { match: (r: string) => boolean; agent: Agent; grep: string }[] = [
  {
    match: (r) => r === 'nvidia.com/gpu' || r.startsWith('nvidia.com/'),
    agent: { name: 'the NVIDIA device plugin (DaemonSet nvidia-device-plugin, or the GPU Operator)' },
    grep: 'nvidia',
  },
  {
    match: (r) => r === 'vpc.amazonaws.com/pod-eni',
    agent: {
      name: 'the VPC CNI with ENABLE_POD_ENI=true (security groups for pods); aws-node advertises vpc.amazonaws.com/pod-eni only then',
      daemonSet: { namespace: 'kube-system', name: 'aws-node', podLabel: 'k8s-app=aws-node' },
    },
    grep: 'aws-node',
  },
  {
    match: (r) => r.startsWith('aws.amazon.com/neuron'),
    agent: { name: 'the AWS Neuron device plugin (DaemonSet neuron-device-plugin)' },
    grep: 'neuron',
  },
  {
    match: (r) => r === 'vpc.amazonaws.com/efa',
    agent: { name: 'the EFA device plugin (DaemonSet aws-efa-k8s-device-plugin)' },
    grep: 'efa',
  },
  {
    match: (r) => r.startsWith('smarter-devices/') || r.startsWith('devices.kubevirt.io/'),
    agent: { name: 'the device plugin advertising it' },
    grep: 'device-plugin',
  },
];

/** The device plugin expected to advertise an extended resource, and a word to grep its DaemonSet by. */
export function devicePluginOf(resource: string): { agent: Agent; grep: string } {
  const found = DEVICE_PLUGINS.find((d) => d.match(resource));
  return found ?? { agent: { name: `the device plugin that advertises ${resource}` }, grep: 'device-plugin' };
}

/** Requests Kubernetes itself accounts for: the rest are extended resources a device plugin registers. */
const NATIVE_RESOURCE = /^(cpu|memory|pods|ephemeral-storage|storage|hugepages-.+|attachable-volumes-.+)$/;

export function isExtendedResource(name: string): boolean {
  return !NATIVE_RESOURCE.test(name) && name.includes('/') && !name.startsWith('requests.');
}

/** The agent's pods on the node, and whether any is Ready: what to say about the one that should act. */
export function agentPodsOn(agent: Agent, podsOnNode: readonly Pod[]): { pods: Pod[]; ready: boolean } {
  const ds = agent.daemonSet;
  if (!ds) return { pods: [], ready: false };
  const [key = '', value = ''] = ds.podLabel.split('=');
  const pods = podsOnNode.filter(
    (p) =>
      p.metadata?.labels?.[key] === value ||
      (p.metadata?.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' && o.name === ds.name),
  );
  return { pods, ready: pods.some(isPodReady) };
}
