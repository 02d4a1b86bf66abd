/**
 * The steps of NODE_NOT_READY: the checks that tell the causes apart first, then what the repair
 * verdict calls for, then the replacement (docs/findings.md#node_not_ready). Replacing a NotReady
 * node is deleting its NodeClaim: Karpenter drains what it can (it does not wait on pods stuck
 * Terminating for over a minute), terminates the instance and launches capacity for the pods that
 * go Pending. Cordoning is moot: the node already carries the `node.kubernetes.io/not-ready` or
 * `unreachable` taints. Force-deleting a pod is printed only when pods are stuck Terminating, after
 * the check that the instance is gone, because a StatefulSet pod or a pod holding a ReadWriteOnce
 * volume may still run on a live instance. Every value from the cluster is quoted (src/domain/shell.ts).
 */
import { commandStep } from '../../domain/finding.ts';
import type { Pod } from '../../domain/kube.ts';
import { formatDuration } from '../../domain/settings.ts';
import { shellQuote } from '../../domain/shell.ts';
import { NODEPOOL_LABEL } from '../../domain/tags.ts';
import { regionFlag } from '../aws-iam/iam-arn.ts';
import type { ControllerInfo } from '../../domain/snapshot-index.ts';
import { helmUpgrade, karpenterRelease, versionNote } from '../karpenter/helm.ts';
import { versionAtLeast } from '../karpenter/version.ts';
import type { Diagnosis } from './cause.ts';
import type { NotReadyNode } from './not-ready-nodes.ts';
import type { RepairVerdict } from './repair.ts';

const q = shellQuote;
const MAX_NODES = 5;
const MAX_PODS = 5;

export interface StepContext {
  /** The NodePool of the nodes; undefined for NodeClaims without one. */
  pool: string | undefined;
  region: string | undefined;
  controller: ControllerInfo | undefined;
  podsCaptured: boolean;
  now: Date;
}

/** The checks for a node's cause: what tells a starved kubelet, a dead instance and a broken network apart. */
export function causeChecks(n: NotReadyNode, d: Diagnosis, s: StepContext): string[] {
  const describe = commandStep('its conditions and recent events', `kubectl describe node ${q(n.name)}`);
  const console = n.instanceId
    ? [
        commandStep(
          'the instance console: an `oom-kill` or kernel panic there says why the kubelet stopped',
          `aws ec2 get-console-output --instance-id ${q(n.instanceId)} --latest --output text${regionFlag(s.region)}`,
        ),
      ]
    : [];
  switch (d.cause) {
    case 'KUBELET_UNRESPONSIVE':
      return [
        ...(n.instanceId
          ? [
              commandStep(
                'is the instance still running, and do its EC2 status checks pass (a stopped or impaired instance is not a kubelet problem)',
                `aws ec2 describe-instance-status --include-all-instances --instance-ids ${q(n.instanceId)}${regionFlag(s.region)}`,
              ),
            ]
          : []),
        ...console,
        describe,
      ];
    case 'RESOURCE_PRESSURE':
      return [describe, ...d.pressure.flatMap((p) => pressureChecks(n, p)), ...console];
    case 'NETWORK_NOT_READY':
      return [
        describe,
        commandStep(
          "the network plugin's pods on the node (aws-node for the VPC CNI): not Running, or restarting",
          `kubectl get pods -n kube-system -o wide --field-selector ${q(`spec.nodeName=${n.name}`)}`,
        ),
      ];
    case 'UNKNOWN':
      return [describe, ...console];
  }
}

/** The check for one pressure condition: memory and PIDs are used by pods, disk is sized by the EC2NodeClass. */
function pressureChecks(n: NotReadyNode, pressure: string): string[] {
  const pods = `kubectl get pods -A -o wide --field-selector ${q(`spec.nodeName=${n.name}`)}`;
  switch (pressure) {
    case 'MemoryPressure':
      return [commandStep('what uses the node: pods without requests (BestEffort) are the first to starve the kubelet', pods)];
    case 'DiskPressure': {
      const nodeClass = n.claim?.spec?.nodeClassRef?.name;
      return [
        nodeClass
          ? commandStep(
              "the node's volumes as its EC2NodeClass sizes them (blockDeviceMappings; none set is the AMI's default root volume)",
              `kubectl get ec2nodeclass ${q(nodeClass)} -o jsonpath='{.spec.blockDeviceMappings}{"\\n"}'`,
            )
          : commandStep(
              'the volumes each EC2NodeClass gives its nodes (blockDeviceMappings; none set is the AMI default root volume)',
              `kubectl get ec2nodeclasses -o custom-columns='NAME:.metadata.name,VOLUMES:.spec.blockDeviceMappings'`,
            ),
      ];
    }
    case 'PIDPressure':
      return [
        commandStep(
          "which pod runs away with process IDs: the kubelet's podPidsLimit (set through the EC2NodeClass userData) caps each pod",
          pods,
        ),
      ];
    default:
      return [];
  }
}

/** What the repair verdict calls for: enabling the gate, an upgrade, or nothing but waiting. */
export function repairSteps(v: RepairVerdict, s: StepContext): string[] {
  const ns = s.controller?.namespace ?? 'karpenter';
  const deployment = s.controller?.deploymentName ?? 'karpenter';
  switch (v.kind) {
    case 'unknown':
      return [
        commandStep(
          'whether Karpenter repairs NotReady nodes: NodeRepair=true in the FEATURE_GATES env or the --feature-gates arg',
          `kubectl get deployment -n ${q(ns)} ${q(deployment)} -o jsonpath='{.spec.template.spec.containers[*].env[?(@.name=="FEATURE_GATES")].value}{"\\n"}{.spec.template.spec.containers[*].args}{"\\n"}'`,
        ),
      ];
    case 'no-repair-in-version':
      return [
        `Karpenter ${v.version} has no node repair (it came in v1.1.0, alpha): upgrade, then enable it with settings.featureGates.nodeRepair=true`,
      ];
    case 'gate-off':
      return gateOnSteps(v, s, ns, deployment);
    case 'not-covered':
      return [
        `Karpenter ${v.version ?? ''} repairs Ready=False only; Ready=Unknown (the kubelet stopped posting status) is repaired from v1.2.0: upgrade Karpenter`,
      ];
    case 'blocked':
      if (v.event && v.rule.unhealthy <= v.rule.allowed)
        return [
          commandStep(
            `Karpenter's NodeRepairBlocked says more than ${v.rule.allowed} of the pool's nodes were unhealthy when it checked, the capture shows ${v.rule.unhealthy} of ${v.rule.total} now: ${v.pool ? "the pool's nodes" : 'the nodes'} as Karpenter counts them (one not Ready counts)`,
            v.pool ? `kubectl get nodes -l ${q(`${NODEPOOL_LABEL}=${v.pool}`)} -o wide` : 'kubectl get nodes -o wide',
          ),
        ];
      return [
        `Karpenter repairs none of them while more than ${v.rule.allowed} of the ${v.rule.total} nodes are unhealthy: replace them by hand (below) until at most ${v.rule.allowed} ${v.rule.allowed === 1 ? 'is' : 'are'}`,
      ];
    case 'waiting':
      return [
        `Nothing to do if it can wait: Karpenter's node repair replaces it at ${v.at.toISOString()} (in ${formatDuration(v.at.getTime() - s.now.getTime())}), forcefully (no drain, no grace period); or replace it now (below)`,
      ];
    case 'overdue':
      return [
        commandStep(
          `Karpenter's node repair should have replaced it at ${v.at.toISOString()}: its node.health controller's word, from every controller pod (the leader acts)${debugNote(v.version)}`,
          `kubectl logs -n ${q(ns)} -l app.kubernetes.io/name=karpenter --tail=500 | grep -E 'node.health|unhealthy'`,
        ),
      ];
  }
}

/**
 * Before v1.7.2 Karpenter logged `deleting unhealthy node` at debug level (V(1)); said unless the
 * version is known to be v1.7.2 or later.
 */
function debugNote(version: string | undefined): string {
  return versionAtLeast(version, 1, 7, 2) === true
    ? ''
    : `; before v1.7.2 it logs \`deleting unhealthy node\` at debug level only (set logLevel=debug to see it)`;
}

function gateOnSteps(v: Extract<RepairVerdict, { kind: 'gate-off' }>, s: StepContext, ns: string, deployment: string): string[] {
  if (!v.covered)
    return [
      `Karpenter ${v.version ?? ''} repairs Ready=False only: with the NodeRepair gate on it would still never replace a node at Ready=Unknown (the kubelet stopped posting status). Upgrade Karpenter to v1.2.0 or later (its upgrade guide first), then enable node repair there (the NodeRepair feature gate)`,
    ];
  const why =
    'enable node repair (alpha; Ready=Unknown is covered from v1.2.0): Karpenter then replaces a node NotReady for 30 minutes';
  if (v.gates.from === 'arg --feature-gates')
    return [
      commandStep(
        `${why}; the gates are set by the --feature-gates arg, so add NodeRepair=true there`,
        `kubectl edit deployment -n ${q(ns)} ${q(deployment)}`,
      ),
    ];
  const labels = s.controller?.deployment?.metadata?.labels ?? {};
  const helm = labels['helm.sh/chart'] !== undefined || labels['app.kubernetes.io/managed-by'] === 'Helm';
  if (!helm && v.gates.specFrom === 'deployment') {
    const others = (v.gates.text ?? '').split(',').filter((g) => g.trim() !== '' && !/^\s*NodeRepair\s*=/.test(g));
    const value = [...others, 'NodeRepair=true'].join(',');
    return [
      commandStep(
        `${why} (the Deployment is not Helm's: set the env where it is managed, or here)`,
        `kubectl set env ${q(`deployment/${deployment}`)} -n ${q(ns)} -c ${q(v.gates.container ?? 'controller')} ${q(`FEATURE_GATES=${value}`)}`,
      ),
    ];
  }
  const release = karpenterRelease(s.controller);
  return [commandStep(`${why}${versionNote(release)}`, helmUpgrade(release, ['settings.featureGates.nodeRepair=true']))];
}

/**
 * Whether the nodes more likely share a cause than each have their own: Karpenter's 20% rule blocks
 * repair, or two of them went NotReady within the same minute. Then a zone's network, the AMI or the
 * node configuration is the suspect, and replacing every node at once only repeats the failure.
 */
export function likelySharedCause(nodes: readonly NotReadyNode[], blocked: boolean): boolean {
  if (blocked) return true;
  const times = nodes
    .map((n) => Date.parse(n.since))
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => a - b);
  return times.some((t, i) => i > 0 && t - (times[i - 1] as number) < 60_000);
}

function poolSelector(s: StepContext): string {
  return s.pool ? ` -l ${q(`${NODEPOOL_LABEL}=${s.pool}`)}` : '';
}

/** The check that leads when the cause is likely shared: are the NotReady nodes in one zone, on one AMI, of one age? */
export function sharedCauseCheck(s: StepContext): string {
  return commandStep(
    `the ${s.pool ? "pool's" : "cluster's"} nodes side by side: NotReady ones sharing a zone, an OS image or a kernel point at a shared cause, not the nodes`,
    `kubectl get nodes${poolSelector(s)} -L topology.kubernetes.io/zone -o wide`,
  );
}

/**
 * The NodeClaims to delete (Karpenter drains and replaces each), then the stuck pods' way out. With
 * `oneFirst` (a likely shared cause), one node is replaced and its replacement watched to Ready
 * before the rest: if the new node goes NotReady too, deleting the others would only churn them.
 */
export function replaceSteps(
  nodes: readonly NotReadyNode[],
  stuck: ReadonlyMap<string, Pod[]>,
  s: StepContext,
  oneFirst = false,
): string[] {
  const listed = nodes.slice(0, MAX_NODES);
  const deletes = listed.map((n) =>
    n.claim?.metadata?.name
      ? commandStep(
          `replace node ${n.name}: Karpenter drains it (pods stuck Terminating are not waited on), terminates the instance and launches what the pods need`,
          `kubectl delete nodeclaim ${q(n.claim.metadata.name)} --wait=false`,
        )
      : commandStep(
          `replace node ${n.name}: deleting the Node makes Karpenter terminate it like its NodeClaim (no NodeClaim was captured)`,
          `kubectl delete node ${q(n.name)} --wait=false`,
        ),
  );
  const more = nodes.length > MAX_NODES ? [`... and ${nodes.length - MAX_NODES} more NotReady nodes the same way`] : [];
  const [first, ...rest] = deletes;
  const wait =
    oneFirst && first !== undefined && nodes.length > 1
      ? [
          commandStep(
            'ONE node first: wait until its replacement is Ready (Ctrl-C then); if it goes NotReady too the cause is shared, fix that before replacing the rest',
            `kubectl get nodes${poolSelector(s)} -L topology.kubernetes.io/zone --watch`,
          ),
        ]
      : [];
  return [...(first !== undefined ? [first] : []), ...wait, ...rest, ...more, ...forceDeleteSteps(listed, stuck, s)];
}

function forceDeleteSteps(nodes: readonly NotReadyNode[], stuck: ReadonlyMap<string, Pod[]>, s: StepContext): string[] {
  const withStuck = nodes.filter((n) => (stuck.get(n.name) ?? []).length > 0);
  if (withStuck.length === 0) {
    return s.podsCaptured
      ? []
      : nodes
          .slice(0, 1)
          .map((n) =>
            commandStep(
              'the pods on the node (the capture holds none): any stuck Terminating go with the node once it is deleted',
              `kubectl get pods -A -o wide --field-selector ${q(`spec.nodeName=${n.name}`)}`,
            ),
          );
  }
  return withStuck.flatMap((n) => {
    const pods = (stuck.get(n.name) ?? []).slice(0, MAX_PODS);
    const check = n.instanceId
      ? commandStep(
          `pods stuck Terminating on ${n.name} go once the Node is gone; if one must go sooner, FIRST check the instance is terminated`,
          `aws ec2 describe-instances --instance-ids ${q(n.instanceId)} --query 'Reservations[].Instances[].State.Name' --output text${regionFlag(s.region)}`,
        )
      : `Pods stuck Terminating on ${n.name} go once the Node is gone; force-delete one sooner only when its instance is confirmed terminated`;
    const forced = pods.map((p) => {
      const ns = p.metadata?.namespace ?? 'default';
      const name = p.metadata?.name ?? '?';
      const risk = riskOf(p);
      return commandStep(
        `only once terminated${risk}: force-delete pod ${ns}/${name}`,
        `kubectl delete pod -n ${q(ns)} ${q(name)} --grace-period=0 --force`,
      );
    });
    return [check, ...forced];
  });
}

/** Why force-deleting this pod early could harm: a StatefulSet's pod might run twice, a volume be attached twice. */
function riskOf(pod: Pod): string {
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller)?.kind;
  if (owner === 'StatefulSet') return ' (a StatefulSet pod: on a live instance its replacement would run beside it)';
  const claims = (pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim);
  return claims ? ' (it holds a PersistentVolumeClaim: a ReadWriteOnce volume stays attached to a live instance)' : '';
}
