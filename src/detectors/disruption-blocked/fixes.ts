/**
 * DISRUPTION_BLOCKED's words and the steps a human pastes: the blocked NodeClaims and their drift
 * reasons, the events, the NodePool budget patch (a JSON merge patch replaces the whole list, so it
 * prints the full new list with the other budgets kept), the PDBs and pods to look at, the
 * annotations to remove, and `terminationGracePeriod`. Nothing here is automated.
 */
import { commandStep } from '../../domain/finding.ts';
import type { DisruptionBudget, NodePool, Pod } from '../../domain/kube.ts';
import { shellJson, shellQuote, shellWords } from '../../domain/shell.ts';
import { DEFAULT_BUDGET, budgetCap } from '../karpenter/disruption-budgets.ts';
import type { PdbHold } from './pod-blockers.ts';

export const BUDGET_SEMANTICS =
  'A budget caps how many of the NodePool’s nodes may be disrupting at once (not how many per hour); the most ' +
  'restrictive active budget wins; a `schedule` (cron, UTC) opens a budget for its `duration`; expiry is not budgeted in v1.';

const REASONS_BUT_DRIFT = ['Underutilized', 'Empty'];

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

/**
 * The NodePool's budgets with drift let through one node at a time: every budget that caps Drifted
 * at 0 no longer applies to Drifted (it keeps gating the other reasons), and a budget
 * `{nodes: "1", reasons: [Drifted]}` is added unless an unscheduled one for Drifted alone is kept.
 */
export function budgetsAllowingDrift(np: NodePool | undefined, nodeCount: number): DisruptionBudget[] {
  const own = np?.spec?.disruption?.budgets ?? [{ ...DEFAULT_BUDGET }];
  const kept: DisruptionBudget[] = [];
  for (const b of own) {
    const appliesToDrift = b.reasons === undefined || b.reasons.includes('Drifted');
    if (!appliesToDrift || budgetCap(b.nodes, nodeCount) !== 0) {
      kept.push({ ...b });
      continue;
    }
    const reasons = (b.reasons ?? REASONS_BUT_DRIFT).filter((r) => r !== 'Drifted');
    if (reasons.length > 0) kept.push({ ...b, reasons });
  }
  const driftOnly = kept.some((b) => b.reasons?.length === 1 && b.reasons[0] === 'Drifted' && b.schedule === undefined);
  return driftOnly ? kept : [...kept, { nodes: '1', reasons: ['Drifted'] }];
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
      spec: { disruption: { budgets: budgetsAllowingDrift(np, nodeCount) } },
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

function ownerDeployment(pod: Pod | undefined): string | undefined {
  const rs = pod?.metadata?.ownerReferences?.find((o) => o.kind === 'ReplicaSet')?.name;
  const hash = pod?.metadata?.labels?.['pod-template-hash'];
  if (!rs) return undefined;
  return hash && rs.endsWith(`-${hash}`) ? rs.slice(0, -(hash.length + 1)) : undefined;
}

export function pdbSteps(holds: readonly PdbHold[], podsByKey: ReadonlyMap<string, Pod>): string[] {
  const steps: string[] = [];
  for (const h of holds.slice(0, 3)) {
    const ns = shellQuote(h.namespace);
    steps.push(
      commandStep(
        `PodDisruptionBudget ${h.namespace}/${h.name} allows 0 disruptions: its pods and how many must stay available`,
        `kubectl describe pdb -n ${ns} ${shellQuote(h.name)}`,
      ),
    );
    const pods = h.pods.map((p) => nsName(p).name);
    steps.push(
      commandStep(`The pods it holds on the blocked nodes`, `kubectl get pods -n ${ns} ${shellWords(pods.slice(0, 20))} -o wide`),
    );
    const deployment = h.pods.map((p) => ownerDeployment(podsByKey.get(p))).find((d) => d !== undefined);
    if (deployment) {
      const replicas = Math.max(2, (h.pdb.status?.expectedPods ?? 1) + 1);
      steps.push(
        commandStep(
          `Give Deployment ${h.namespace}/${deployment} a spare replica so one pod can be evicted`,
          `kubectl scale deployment -n ${ns} ${shellQuote(deployment)} --replicas=${replicas}`,
        ),
      );
    }
    steps.push(
      commandStep(
        `Or let the PDB allow one pod down at a time (a minAvailable equal to the replicas never allows any)`,
        `kubectl patch pdb -n ${ns} ${shellQuote(h.name)} --type=merge -p ${shellJson({ spec: { minAvailable: null, maxUnavailable: 1 } })}`,
      ),
    );
  }
  return steps;
}

/** A PDB Karpenter's event names (v1.0–v1.4) when the PDBs were not captured. */
export function namedPdbSteps(named: string): string[] {
  const { namespace, name } = nsName(named);
  const ns = shellQuote(namespace);
  return [
    commandStep(
      `PodDisruptionBudget ${named}: the pods it selects and how many must stay available`,
      `kubectl describe pdb -n ${ns} ${shellQuote(name)}`,
    ),
    commandStep(
      `Let it allow one pod down at a time (or scale its workload up)`,
      `kubectl patch pdb -n ${ns} ${shellQuote(name)} --type=merge -p ${shellJson({ spec: { minAvailable: null, maxUnavailable: 1 } })}`,
    ),
  ];
}

export function allPdbsStep(): string {
  return commandStep('The PodDisruptionBudgets that allow no disruption now (ALLOWED DISRUPTIONS 0)', 'kubectl get pdb -A');
}

export function multiplePdbSteps(multiple: readonly { pod: string; pdbs: string[] }[]): string[] {
  const steps: string[] = [];
  for (const m of multiple.slice(0, 3)) {
    const { namespace, name } = nsName(m.pod);
    const pdbNames = m.pdbs.map((p) => nsName(p).name);
    steps.push(
      commandStep(
        `Pod ${m.pod} is selected by ${m.pdbs.length} PodDisruptionBudgets: the eviction API refuses it. Merge them or narrow their selectors to one each`,
        `kubectl get pdb -n ${shellQuote(namespace)} ${shellWords(pdbNames)} -o yaml`,
      ),
    );
    steps.push(commandStep(`The pod's labels`, `kubectl get pod -n ${shellQuote(namespace)} ${shellQuote(name)} --show-labels`));
  }
  return steps;
}

export function podAnnotationSteps(pods: readonly string[]): string[] {
  return pods.slice(0, 5).map((p) => {
    const { namespace, name } = nsName(p);
    return commandStep(
      `Pod ${p} opts out of disruption. Remove the annotation (or time-box it in its workload's template, e.g. "2h")`,
      `kubectl annotate pod -n ${shellQuote(namespace)} ${shellQuote(name)} karpenter.sh/do-not-disrupt-`,
    );
  });
}

export function nodeAnnotationSteps(objects: readonly { kind: 'Node' | 'NodeClaim'; name: string }[]): string[] {
  return objects
    .slice(0, 10)
    .map((o) =>
      commandStep(
        `${o.kind} ${o.name} is annotated karpenter.sh/do-not-disrupt: "true": remove it once the node may be replaced`,
        `kubectl annotate ${o.kind.toLowerCase()} ${shellQuote(o.name)} karpenter.sh/do-not-disrupt-`,
      ),
    );
}

export function terminationGracePeriodStep(pool: string): string {
  return commandStep(
    `Make drift and expiry of NodePool ${pool}'s future nodes forceful after 24h (pods still blocking are then deleted; this drifts its current nodes)`,
    `kubectl patch nodepool ${shellQuote(pool)} --type=merge -p ${shellJson({
      spec: { template: { spec: { terminationGracePeriod: '24h' } } },
    })}`,
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
