/**
 * DISRUPTION_BLOCKED's words and the steps a human pastes: the blocked NodeClaims and their drift
 * reasons, the events, the NodePool budget patch (a JSON merge patch replaces the whole list, so it
 * prints the full new list with the other budgets kept), the annotations to remove, and
 * `terminationGracePeriod` (the PDB steps, the grace period patch and the annotation removal are
 * shared with NODE_TERMINATION_STUCK: karpenter/pdb-steps.ts, karpenter/disruption-steps.ts).
 * Nothing here is automated.
 */
import { commandStep } from '../../domain/finding.ts';
import type { NodePool } from '../../domain/kube.ts';
import { shellJson, shellQuote, shellWords } from '../../domain/shell.ts';
import { budgetsAllowing, removeDoNotDisrupt, terminationGracePeriodPatch } from '../karpenter/disruption-steps.ts';

export const BUDGET_SEMANTICS =
  'A budget caps how many of the NodePool’s nodes may be disrupting at once (not how many per hour); the most ' +
  'restrictive active budget wins; a `schedule` (cron, UTC) opens a budget for its `duration`; expiry is not budgeted in v1.';

function nsName(text: string): { namespace: string; name: string } {
  const slash = text.indexOf('/');
  return slash < 0 ? { namespace: 'default', name: text } : { namespace: text.slice(0, slash), name: text.slice(slash + 1) };
}

/** The blocked NodeClaims of the pool, with their drift reason, drift time and age. */
export function claimsStep(pool: string): string {
  const columns =
    'NAME:.metadata.name,NODE:.status.nodeName,' +
    'DRIFTED:.status.conditions[?(@.type=="Drifted")].reason,' +
    'SINCE:.status.conditions[?(@.type=="Drifted")].lastTransitionTime,' +
    'CREATED:.metadata.creationTimestamp';
  return commandStep(
    `NodePool ${pool}'s NodeClaims: drift reason, when they drifted, when they were created (expiry counts from then)`,
    `kubectl get nodeclaims -l ${shellQuote(`karpenter.sh/nodepool=${pool}`)} -o custom-columns=${shellQuote(columns)}`,
  );
}

/** Karpenter's DisruptionBlocked events (NodePool, Node, NodeClaim), newest last. */
export function eventsStep(pool: string): string {
  return commandStep(
    `Why Karpenter says it does not disrupt NodePool ${pool}'s nodes`,
    'kubectl get events -A --field-selector reason=DisruptionBlocked --sort-by=.lastTimestamp ' +
      '-o custom-columns=KIND:.involvedObject.kind,NAME:.involvedObject.name,COUNT:.count,MESSAGE:.message',
  );
}

export function budgetsViewStep(pool: string): string {
  return commandStep(
    `NodePool ${pool}'s disruption budgets`,
    `kubectl get nodepool ${shellQuote(pool)} -o jsonpath='{.spec.disruption.budgets}'`,
  );
}

export function budgetPatchStep(pool: string, np: NodePool | undefined, nodeCount: number, opensAt: string | undefined): string {
  const own = np?.spec?.disruption?.budgets;
  const kept =
    own === undefined
      ? "keeping Karpenter's default 10% for the other reasons"
      : `keeping its other budgets (a merge patch replaces the whole list)`;
  const wait = opensAt ? ` (or wait: the window opens at ${opensAt})` : '';
  return commandStep(
    `Let drift replace NodePool ${pool}'s nodes one at a time, ${kept}${wait}`,
    `kubectl patch nodepool ${shellQuote(pool)} --type=merge -p ${shellJson({
      spec: { disruption: { budgets: budgetsAllowing(np, 'Drifted', nodeCount) } },
    })}`,
  );
}

/** The NodeClaims already disrupting, which use up the budget. */
export function disruptingStep(names: readonly string[]): string {
  return commandStep(
    'The NodeClaims already being disrupted, which use up the budget: once they finish, drift continues (a stuck one is NODE_TERMINATION_STUCK)',
    `kubectl get nodeclaims ${shellWords(names.slice(0, 20))} -o wide`,
  );
}

export function podAnnotationSteps(pods: readonly string[]): string[] {
  return pods.slice(0, 5).map((p) => {
    const { namespace, name } = nsName(p);
    return commandStep(
      `Pod ${p} opts out of disruption. Remove the annotation (or time-box it in its workload's template, e.g. "2h")`,
      removeDoNotDisrupt('pod', name, namespace),
    );
  });
}

export function nodeAnnotationSteps(objects: readonly { kind: 'Node' | 'NodeClaim'; name: string }[]): string[] {
  return objects
    .slice(0, 10)
    .map((o) =>
      commandStep(
        `${o.kind} ${o.name} is annotated karpenter.sh/do-not-disrupt: "true": remove it once the node may be replaced`,
        removeDoNotDisrupt(o.kind === 'Node' ? 'node' : 'nodeclaim', o.name),
      ),
    );
}

export function terminationGracePeriodStep(pool: string): string {
  return commandStep(
    `Make drift and expiry of NodePool ${pool}'s future nodes forceful after 24h (pods still blocking are then deleted; this drifts its current nodes)`,
    terminationGracePeriodPatch(pool, '--type=merge'),
  );
}

export function unknownSteps(claims: readonly string[], controllerNamespace: string | undefined): string[] {
  const ns = shellQuote(controllerNamespace ?? 'kube-system');
  return [
    commandStep(
      `The first blocked NodeClaim: its conditions and events`,
      `kubectl describe nodeclaim ${shellQuote(claims[0] ?? '')}`,
    ),
    commandStep(
      `What Karpenter's disruption controller says about them`,
      `kubectl logs -n ${ns} -l app.kubernetes.io/name=karpenter --tail=2000 | grep -i -e disrupt -e drift -e expir`,
    ),
  ];
}

/** NodeClaims that never initialised: Karpenter will not disrupt them until they do; the cause is on the node. */
export function uninitializedSteps(claims: readonly { name: string; nodeName: string | undefined }[]): string[] {
  const first = claims[0];
  if (!first) return [];
  return [
    commandStep(
      `NodeClaim ${first.name}: why it has not initialised (its Initialized condition; the NODE_NOT_INITIALIZED finding names the taint or resource it waits for)`,
      `kubectl get nodeclaim ${shellQuote(first.name)} -o jsonpath='{range .status.conditions[?(@.type=="Initialized")]}{.status}{"\\t"}{.reason}{"\\t"}{.message}{"\\n"}{end}'`,
    ),
    ...(first.nodeName ? [`kubectl describe node ${shellQuote(first.nodeName)}`] : []),
    commandStep(
      `once new nodes initialise, replace the stuck ones by hand: Karpenter drains each (respecting PDBs) and terminates its instance`,
      claims
        .slice(0, 10)
        .map((c) => `kubectl delete nodeclaim ${shellQuote(c.name)}`)
        .join('\n'),
    ),
  ];
}
