/**
 * CONSOLIDATION_BLOCKED's steps a human pastes: the checks that tell causes apart first (the nodes'
 * Consolidatable condition, Karpenter's events), then the change the evidence points at
 * (consolidateAfter, the policy, the budgets, the annotations, the feature gate, the instance
 * types). The PDB steps and the annotation removal are shared (karpenter/pdb-steps.ts,
 * karpenter/disruption-steps.ts). Every value from the cluster is quoted. Nothing is automated.
 */
import { commandStep } from '../../domain/finding.ts';
import type { NodePool } from '../../domain/kube.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';
import type { DisruptionReason } from '../karpenter/disruption-budgets.ts';
import { budgetsAllowing, isV1beta1, removeDoNotDisrupt } from '../karpenter/disruption-steps.ts';
import { helmUpgrade, versionNote, type KarpenterRelease } from '../karpenter/helm.ts';

function nsName(text: string): { namespace: string; name: string } {
  const slash = text.indexOf('/');
  return slash < 0 ? { namespace: 'default', name: text } : { namespace: text.slice(0, slash), name: text.slice(slash + 1) };
}

/** The pool's NodeClaims: since when each is Consolidatable, its Node, type and capacity type. */
export function nodesStep(pool: string): string {
  const columns =
    'NAME:.metadata.name,NODE:.status.nodeName,' +
    'TYPE:.metadata.labels.node\\.kubernetes\\.io/instance-type,CAPACITY:.metadata.labels.karpenter\\.sh/capacity-type,' +
    'CONSOLIDATABLE:.status.conditions[?(@.type=="Consolidatable")].status,' +
    'SINCE:.status.conditions[?(@.type=="Consolidatable")].lastTransitionTime';
  return commandStep(
    `NodePool ${pool}'s NodeClaims: since when Karpenter could consolidate each, its type and capacity type`,
    `kubectl get nodeclaims -l ${shellQuote(`karpenter.sh/nodepool=${pool}`)} -o custom-columns=${shellQuote(columns)}`,
  );
}

/** Karpenter's Unconsolidatable and DisruptionBlocked events (in `default`: Nodes, NodeClaims and NodePools are cluster-scoped). */
export function eventsStep(): string {
  return commandStep(
    'Why Karpenter says it does not consolidate them (its events on Nodes, NodeClaims and NodePools; they expire after an hour)',
    'kubectl get events -A --sort-by=.lastTimestamp ' +
      '-o custom-columns=KIND:.involvedObject.kind,NAME:.involvedObject.name,REASON:.reason,COUNT:.count,MESSAGE:.message ' +
      '| grep -e Unconsolidatable -e DisruptionBlocked',
  );
}

export function consolidateAfterStep(pool: string): string {
  return commandStep(
    `If NodePool ${pool}'s idle nodes should go: let Karpenter consolidate them once they have been idle 30m (consolidateAfter: Never turns consolidation off)`,
    `kubectl patch nodepool ${shellQuote(pool)} --type=merge -p ${shellJson({ spec: { disruption: { consolidateAfter: '30m' } } })}`,
  );
}

/** The policy that also replaces underutilised nodes: `WhenEmptyOrUnderutilized` (v1), `WhenUnderutilized` (v1beta1, which takes no consolidateAfter). */
export function policyStep(pool: string, np: NodePool | undefined): string {
  const v1beta1 = isV1beta1(np);
  const disruption = v1beta1
    ? { consolidationPolicy: 'WhenUnderutilized', consolidateAfter: null }
    : { consolidationPolicy: 'WhenEmptyOrUnderutilized' };
  return commandStep(
    `If NodePool ${pool}'s underused nodes should be replaced or removed too, not only empty ones: change its consolidation policy`,
    `kubectl patch nodepool ${shellQuote(pool)} --type=merge -p ${shellJson({ spec: { disruption } })}`,
  );
}

export function disruptionViewStep(pool: string): string {
  return commandStep(
    `NodePool ${pool}'s disruption settings (consolidationPolicy, consolidateAfter, budgets)`,
    `kubectl get nodepool ${shellQuote(pool)} -o jsonpath='{.spec.disruption}'`,
  );
}

export function budgetsViewStep(pool: string): string {
  return commandStep(
    `NodePool ${pool}'s disruption budgets`,
    `kubectl get nodepool ${shellQuote(pool)} -o jsonpath='{.spec.disruption.budgets}'`,
  );
}

export function budgetPatchStep(
  pool: string,
  np: NodePool,
  reason: DisruptionReason,
  nodeCount: number,
  opensAt: string | undefined,
): string {
  const kept =
    np.spec?.disruption?.budgets === undefined
      ? "keeping Karpenter's default 10% for the other reasons"
      : 'keeping its other budgets (a merge patch replaces the whole list)';
  const wait = opensAt ? ` (or wait: the window opens at ${opensAt})` : '';
  const every = isV1beta1(np) ? '; v1beta1 budgets have no reasons, so this lets every disruption reason through, drift too' : '';
  return commandStep(
    `Let consolidation (${reason}) remove NodePool ${pool}'s nodes one at a time, ${kept}${every}${wait}`,
    `kubectl patch nodepool ${shellQuote(pool)} --type=merge -p ${shellJson({
      spec: { disruption: { budgets: budgetsAllowing(np, reason, nodeCount) } },
    })}`,
  );
}

export function podAnnotationSteps(pods: readonly string[]): string[] {
  return pods.slice(0, 5).map((p) => {
    const { namespace, name } = nsName(p);
    return commandStep(
      `Pod ${p} opts out of disruption, so its node is never consolidated. Remove the annotation (or time-box it in its workload's template, e.g. "2h")`,
      removeDoNotDisrupt('pod', name, namespace),
    );
  });
}

export function nodeAnnotationSteps(objects: readonly { kind: 'Node' | 'NodeClaim'; name: string; key: string }[]): string[] {
  return objects
    .slice(0, 10)
    .map((o) =>
      commandStep(
        `${o.kind} ${o.name} is annotated ${o.key}: "true": remove it once the node may be consolidated`,
        o.key === 'karpenter.sh/do-not-disrupt'
          ? removeDoNotDisrupt(o.kind === 'Node' ? 'node' : 'nodeclaim', o.name)
          : `kubectl annotate ${o.kind === 'Node' ? 'node' : 'nodeclaim'} ${shellQuote(o.name)} ${o.key}-`,
      ),
    );
}

export function spotToSpotStep(release: KarpenterRelease): string {
  return commandStep(
    `Let Karpenter replace a Spot node with a cheaper Spot node (the SpotToSpotConsolidation feature gate; it then needs 15 cheaper instance types)${versionNote(release)}`,
    helmUpgrade(release, ['settings.featureGates.spotToSpotConsolidation=true']),
  );
}

/**
 * Karpenter v0.32–v0.33 never replaces a Spot node with a Spot node and has no gate for it (the
 * SpotToSpotConsolidation gate came in v0.34): the fix is an upgrade, one minor version at a time
 * as Karpenter's upgrade guide asks (CRDs first), with the gate on. Chart versions before v0.35 carry
 * a `v`; `--reset-then-reuse-values` (Helm 3.14+) keeps the values set but takes the new chart's defaults.
 */
export function spotToSpotUpgradeStep(release: KarpenterRelease, installed: string | undefined): string {
  return commandStep(
    `Karpenter ${installed ? `${installed} ` : 'before v0.34 (its text says so) '}has no spot-to-spot consolidation: ` +
      'upgrade to v0.34 or later (https://karpenter.sh/docs/upgrading/upgrade-guide/, CRDs first, one minor version at a time) ' +
      'with the SpotToSpotConsolidation feature gate on (it then needs 15 cheaper instance types)',
    `helm upgrade ${shellQuote(release.release)} oci://public.ecr.aws/karpenter/karpenter -n ${shellQuote(release.namespace)} ` +
      `--version v0.34.0 --reset-then-reuse-values --set ${shellQuote('settings.featureGates.spotToSpotConsolidation=true')}`,
  );
}

export function requirementsStep(pool: string, why: string): string {
  return commandStep(why, `kubectl get nodepool ${shellQuote(pool)} -o jsonpath='{.spec.template.spec.requirements}'`);
}

/** Requests against allocatable on the first nodes: whether a smaller or fewer nodes would hold their pods. */
export function allocatedStep(nodes: readonly string[]): string {
  return commandStep(
    'What the pods on these nodes request against what each node offers (Karpenter replaces one only with a cheaper node that holds all its pods)',
    nodes
      .slice(0, 3)
      .map((n) => `kubectl describe node ${shellQuote(n)} | grep -A 12 'Allocated resources'`)
      .join('\n'),
  );
}

export function podStep(ref: string): string {
  const { namespace, name } = nsName(ref);
  return commandStep(
    `Pod ${ref}: the constraints that keep it from moving (anti-affinity, topology spread, hostPort, node selector, tolerations)`,
    `kubectl get pod -n ${shellQuote(namespace)} ${shellQuote(name)} -o jsonpath=${shellQuote('{.spec.affinity}{"\\n"}{.spec.topologySpreadConstraints}{"\\n"}{.spec.nodeSelector}{"\\n"}{.spec.containers[*].ports}')}`,
  );
}

/** The part of a pod's spec that confirms the constraint Karpenter's scheduling simulation named. */
export function constraintStep(ref: string, constraint: string, jsonpath: string): string {
  const { namespace, name } = nsName(ref);
  return commandStep(
    `Pod ${ref}: Karpenter says it would not schedule elsewhere (${constraint}); its spec for that`,
    `kubectl get pod -n ${shellQuote(namespace)} ${shellQuote(name)} -o jsonpath=${shellQuote(jsonpath)}`,
  );
}

export function controllerLogStep(namespace: string | undefined): string {
  return commandStep(
    "What Karpenter's disruption controller logged about consolidation",
    `kubectl logs -n ${shellQuote(namespace ?? 'kube-system')} -l app.kubernetes.io/name=karpenter --tail=2000 | grep -i consolidat`,
  );
}

/** The first idle NodeClaim's conditions and events (its Node's, when no NodeClaim was captured for it). */
export function describeStep(first: { claimName: string | undefined; nodeName: string | undefined } | undefined): string {
  return first?.claimName
    ? commandStep(
        'The first idle NodeClaim: its conditions and events',
        `kubectl describe nodeclaim ${shellQuote(first.claimName)}`,
      )
    : commandStep('The first idle node: its conditions and events', `kubectl describe node ${shellQuote(first?.nodeName ?? '')}`);
}
