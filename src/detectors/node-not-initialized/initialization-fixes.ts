import type { NodePool } from '../../domain/kube.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';
import type { Diagnosis } from './diagnose.ts';
import { CNI_AGENTS } from './agents.ts';

/** What the steps and the detail need to know about the NodeClaim a diagnosis was made on. */
export interface Subject {
  claim: string;
  node: string | undefined;
  instanceId: string | undefined;
  pool: NodePool | undefined;
  cluster: string;
  /** The Karpenter controller's namespace, when found. */
  karpenterNamespace: string;
}

const CNI_LABEL_PREFIX: Record<string, string> = { 'aws-node': 'aws-node', cilium: 'cilium-agent', calico: 'calico-node' };

/** One sentence on why this NodeClaim is stuck: the cause's part of the finding's detail. */
export function explain(d: Diagnosis, s: Subject): string {
  const node = s.node ? `Node ${s.node}` : `the Node of NodeClaim ${s.claim}`;
  switch (d.cause) {
    case 'CNI_NOT_READY':
      return `${node} is NotReady because its network plugin never came up ("${d.message}"): the CNI, most likely ${CNI_AGENTS[d.cni].name} (${d.cniShownBy}), has not initialised on it.`;
    case 'STARTUP_TAINT_REMAINS': {
      const what =
        d.kind === 'startup'
          ? `startup taint ${d.taint} (one of the NodePool's startupTaints)`
          : `known ephemeral taint ${d.taint}`;
      const who = d.remover
        ? ` It is normally removed by ${d.remover.name}.`
        : ' Nothing in a default cluster removes it: the agent you added it for must.';
      const stuck = d.readyAgentPod
        ? ` Now: its pod ${d.readyAgentPod.namespace}/${d.readyAgentPod.name} runs Ready on the node, yet the taint stays: the agent itself failed to remove it (its log says why; a release of it may fix a known race).`
        : '';
      return `${node} still carries the ${what}, so Karpenter waits for it to go.${who}${d.agentNote ? ` Now: ${d.agentNote}.` : stuck}`;
    }
    case 'RESOURCE_NOT_REGISTERED':
      return d.dra
        ? `${node} waits on ${d.agent.name}, which has not published a complete ResourceSlice pool for it.`
        : `The node was launched for ${d.resource}, but ${node}'s allocatable has none: ${d.agent.name} has not registered it.${d.agentNote ? ` Now: ${d.agentNote}.` : ''}`;
    case 'NODE_NOT_READY':
      return `${node} is NotReady: "${d.message}".`;
    default:
      return `Karpenter has not initialised the node and the capture does not show why (${d.message}).`;
  }
}

/** Pasteable steps for this cause, every name from the cluster quoted. */
export function stepsFor(d: Diagnosis, s: Subject): string[] {
  const node = s.node ? shellQuote(s.node) : undefined;
  const describe = node ? [`kubectl describe node ${node}`] : [`kubectl describe nodeclaim ${shellQuote(s.claim)}`];
  const podsOnNode = node ? [`kubectl get pods -A -o wide --field-selector spec.nodeName=${node}`] : [];
  switch (d.cause) {
    case 'CNI_NOT_READY': {
      const ds = CNI_AGENTS[d.cni].daemonSet;
      const ns = shellQuote(d.cniNamespace);
      const steps = [
        ...describe,
        `kubectl get ds -n ${ns} ${ds?.name ?? 'aws-node'}`,
        `kubectl logs -n ${ns} -l ${ds?.podLabel ?? 'k8s-app=aws-node'} --tail=100 -c ${CNI_LABEL_PREFIX[d.cni] ?? 'aws-node'}`,
        ...podsOnNode,
      ];
      if (d.cni === 'aws-node')
        steps.push(
          `# the IAM role aws-node uses (IRSA or Pod Identity) needs AmazonEKS_CNI_Policy\nkubectl get serviceaccount aws-node -n kube-system -o jsonpath='{.metadata.annotations.eks\\.amazonaws\\.com/role-arn}'`,
          `aws eks describe-addon --cluster-name ${shellQuote(s.cluster)} --addon-name vpc-cni --query 'addon.[addonVersion,status,serviceAccountRoleArn]'`,
        );
      return steps;
    }
    case 'STARTUP_TAINT_REMAINS': {
      const steps = [...describe];
      const ds = d.remover?.daemonSet;
      const ready = d.readyAgentPod;
      if (ready) {
        const ns = shellQuote(ready.namespace);
        const pod = shellQuote(ready.name);
        steps.push(
          `# its pod runs Ready on the node: why did it not remove ${oneLine(d.taint)}?\nkubectl logs -n ${ns} ${pod} --all-containers --tail=300 | grep -iE 'taint|error'`,
          `# the image of the agent: compare with its release notes for a taint-removal fix\nkubectl get pod -n ${ns} ${pod} -o jsonpath='{range .spec.containers[*]}{.name}{"\\t"}{.image}{"\\n"}{end}'`,
          `# restart it: the DaemonSet recreates the pod, which tries again\nkubectl delete pod -n ${ns} ${pod}`,
        );
      } else if (podsOnNode[0])
        steps.push(`# is the pod that removes ${oneLine(d.taint)} scheduled on the node, and Ready?\n${podsOnNode[0]}`);
      if (ds && !ready)
        steps.push(
          `# its DaemonSet must tolerate the taint and select the node\nkubectl get ds -n ${ds.namespace} ${ds.name} -o jsonpath='{.spec.template.spec.tolerations}{"\\n"}{.spec.template.spec.nodeSelector}{"\\n"}{.spec.template.spec.affinity}'`,
        );
      const taint = d.parsed;
      const index = taint ? startupTaintIndex(s.pool, taint.key, taint.effect) : -1;
      const poolName = s.pool?.metadata?.name;
      if (d.kind === 'startup' && poolName)
        steps.push(
          index >= 0
            ? `# if nothing will ever remove it, take it out of the NodePool's startupTaints (applies to new nodes)\nkubectl patch nodepool ${shellQuote(poolName)} --type json -p ${shellJson([{ op: 'remove', path: `/spec/template/spec/startupTaints/${index}` }])}`
            : `# if nothing will ever remove it, take it out of the NodePool's startupTaints (applies to new nodes)\nkubectl edit nodepool ${shellQuote(poolName)}`,
        );
      if (node && taint)
        steps.push(
          `# once you know why, unblock this node by hand\nkubectl taint node ${node} ${shellQuote(`${taint.key}:${taint.effect}-`)}`,
        );
      return steps;
    }
    case 'RESOURCE_NOT_REGISTERED': {
      if (d.dra)
        return [
          ...describe,
          ...(node ? [`kubectl get resourceslices --field-selector spec.nodeName=${node}`] : ['kubectl get resourceslices']),
          `kubectl get ds -A | grep -i ${shellQuote(d.grep)}`,
        ];
      const steps = [
        ...describe,
        `# is ${oneLine(d.resource)}'s device plugin installed, and is its pod on the node?\nkubectl get ds -A | grep -i ${shellQuote(d.grep)}`,
        ...podsOnNode,
      ];
      if (d.resource === 'vpc.amazonaws.com/pod-eni')
        steps.push(
          'kubectl set env daemonset aws-node -n kube-system ENABLE_POD_ENI=true',
          `# the cluster IAM role needs AmazonEKSVPCResourceController for pod ENIs\naws eks describe-cluster --name ${shellQuote(s.cluster)} --query cluster.roleArn`,
        );
      else if (d.resource.startsWith('nvidia.com/'))
        steps.push(
          'helm repo add nvdp https://nvidia.github.io/k8s-device-plugin',
          '# or the GPU Operator; Bottlerocket NVIDIA AMIs ship the plugin\nhelm upgrade -i nvdp nvdp/nvidia-device-plugin --namespace nvidia-device-plugin --create-namespace',
        );
      else if (d.resource.startsWith('aws.amazon.com/neuron'))
        steps.push(
          '# the Neuron device plugin: https://awsdocs-neuron.readthedocs-hosted.com (Kubernetes setup)\nkubectl get ds -A | grep -i neuron',
        );
      return steps;
    }
    case 'NODE_NOT_READY':
      return [
        ...describe,
        ...podsOnNode,
        ...(s.instanceId
          ? [
              `aws ec2 get-console-output --instance-id ${shellQuote(s.instanceId)} --latest   # kubelet and container runtime errors`,
            ]
          : []),
      ];
    default:
      return [
        `kubectl describe nodeclaim ${shellQuote(s.claim)}`,
        ...(node ? [`kubectl describe node ${node}`] : []),
        `kubectl logs -n ${shellQuote(s.karpenterNamespace)} -l app.kubernetes.io/name=karpenter --tail=500 | grep -F ${shellQuote(s.claim)}`,
      ];
  }
}

function startupTaintIndex(pool: NodePool | undefined, key: string, effect: string): number {
  return (pool?.spec?.template?.spec?.startupTaints ?? []).findIndex((t) => t.key === key && t.effect === effect);
}

/** Text from the cluster inside a `# comment` line: one line, so nothing after it becomes a command. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
