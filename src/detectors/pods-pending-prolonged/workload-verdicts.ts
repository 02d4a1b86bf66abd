import type { CauseCodeOf } from '../../domain/codes.ts';
import { commandStep } from '../../domain/finding.ts';
import type { NodePool } from '../../domain/kube.ts';
import type { LimitHit } from './nodepools.ts';
import { incompatibilitySubject } from '../scheduling/scheduler-messages.ts';
import { nodeClassKind } from '../../domain/auto-mode.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';

/** What a pending-workload cause means for the user: detail, evidence and the manual steps, from the data. */

export type WorkloadCause = CauseCodeOf<'PODS_PENDING_PROLONGED'>;

export interface WorkloadVerdict {
  cause: WorkloadCause;
  detail: string;
  evidence: string[];
  steps: string[];
}

export interface PoolFacts {
  pool: NodePool;
  name: string;
  nodeClassProblem: string | undefined;
  ready: boolean;
  limits: LimitHit[];
}

/**
 * `100` → `200`, `200Gi` → `400Gi`: a concrete next limit to start from. A quantity may come as a JSON
 * number (`limits: {cpu: 1000}` in YAML), whatever the type says.
 */
function doubled(limit: string | number): string {
  const text = String(limit);
  const m = /^(\d+(?:\.\d+)?)(.*)$/.exec(text.trim());
  return m ? `${Number(m[1]) * 2}${m[2] ?? ''}` : text;
}

export function limitVerdict(named: string[], pools: PoolFacts[], quoted: string[]): WorkloadVerdict {
  const names = named.length ? named : pools.map((p) => p.name);
  const evidence = [...quoted];
  const steps: string[] = [];
  for (const p of pools) {
    const hits = p.limits.length
      ? p.limits
      : Object.entries(p.pool.spec?.limits ?? {}).map(([resource, limit]) => ({
          resource,
          limit,
          usage: p.pool.status?.resources?.[resource] ?? '?',
        }));
    if (hits.length)
      evidence.push(`NodePool ${p.name}: ${hits.map((h) => `${h.resource} ${h.usage} in use of limit ${h.limit}`).join(', ')}`);
    const raised = Object.fromEntries(hits.map((h) => [h.resource, doubled(h.limit)]));
    steps.push(`kubectl get nodepool ${shellQuote(p.name)} -o jsonpath='{.spec.limits}{"\\n"}{.status.resources}{"\\n"}'`);
    if (hits.length)
      steps.push(
        commandStep(
          `raise the limit (for example to ${hits.map((h) => `${h.resource} ${raised[h.resource]}`).join(', ')})`,
          `kubectl patch nodepool ${shellQuote(p.name)} --type=merge -p ${shellJson({ spec: { limits: raised } })}`,
        ),
      );
    steps.push(
      commandStep(
        'or check what uses the capacity',
        `kubectl get nodeclaims -l ${shellQuote(`karpenter.sh/nodepool=${p.name}`)} -o wide`,
      ),
    );
  }
  for (const n of names.filter((n) => !pools.some((p) => p.name === n))) {
    steps.push(
      `kubectl get nodepool ${shellQuote(n)} -o jsonpath='{.spec.limits}{"\\n"}{.status.resources}{"\\n"}'`,
      commandStep(`raise spec.limits of NodePool ${n}`, `kubectl edit nodepool ${shellQuote(n)}`),
    );
  }
  if (steps.length === 0)
    steps.push(`kubectl get nodepools -o custom-columns=NAME:.metadata.name,LIMITS:.spec.limits,USED:.status.resources`);
  return {
    cause: 'NODEPOOL_LIMIT_REACHED',
    detail: `NodePool ${names.join(', ') || '(unnamed)'} reached its limits; Karpenter launches nothing that would exceed them.`,
    evidence,
    steps,
  };
}

export function nodeClassVerdict(pools: PoolFacts[], quoted: string[], loggedPools: string[] = []): WorkloadVerdict {
  const describe = [
    ...new Set(
      pools.flatMap((p) => {
        const ref = p.pool.spec?.template?.spec?.nodeClassRef;
        return ref?.name ? [`kubectl describe ${nodeClassKind(ref).resource} ${shellQuote(ref.name)}`] : [];
      }),
    ),
  ];
  const names = pools.length ? pools.map((p) => p.name) : loggedPools;
  const kinds = [...new Set(pools.map((p) => nodeClassKind(p.pool.spec?.template?.spec?.nodeClassRef).kind))];
  return {
    cause: 'NODECLASS_NOT_READY',
    detail: names.length
      ? `NodePool(s) ${names.join(', ')} could serve these pods but their ${kinds.join(' / ') || 'EC2NodeClass'} is not ready, so Karpenter ignores them.`
      : 'Karpenter reports the NodeClass as not ready, so it launches no nodes.',
    evidence: [...quoted, ...pools.map((p) => p.nodeClassProblem).filter((x): x is string => !!x)],
    steps: [
      ...describe,
      ...names.map(
        (n) =>
          `kubectl get nodepool ${shellQuote(n)} -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\\n"}{end}'`,
      ),
      `fix the ${kinds.join(' / ') || 'EC2NodeClass'} as its failing condition says (see the NODECLASS_NOT_READY and NODEPOOL_NOT_READY findings)`,
    ],
  };
}

export function noMatchVerdict(
  detail: string,
  quoted: string[],
  reasons: [string, string][],
  noPools: boolean,
  nodeSelector: Record<string, string> = {},
): WorkloadVerdict {
  const evidence = [...quoted, ...reasons.slice(0, 5).map(([pool, why]) => `NodePool ${pool}: ${why}`)];
  const steps: string[] = [];
  if (noPools) {
    steps.push(
      'kubectl get nodepools,ec2nodeclasses',
      'create a NodePool and an EC2NodeClass for these pods (https://karpenter.sh/docs/concepts/nodepools/)',
    );
  }
  for (const [pool, why] of reasons.slice(0, 5)) {
    const subject = incompatibilitySubject(why);
    if (subject.label) {
      steps.push(
        commandStep(
          `add label ${subject.label in nodeSelector ? `${subject.label}=${nodeSelector[subject.label]}` : subject.label} to NodePool ${pool} (spec.template.metadata.labels or spec.template.spec.requirements), or remove it from the pods' nodeSelector/affinity`,
          `kubectl edit nodepool ${shellQuote(pool)}`,
        ),
      );
    } else if (subject.taint) {
      steps.push(
        commandStep(
          `tolerate ${subject.taint} in the pods, or serve them from a NodePool without that taint`,
          `kubectl get nodepool ${shellQuote(pool)} -o yaml`,
        ),
      );
    } else {
      steps.push(
        commandStep(`compare the pods' requirements with NodePool ${pool}`, `kubectl get nodepool ${shellQuote(pool)} -o yaml`),
      );
    }
  }
  if (steps.length === 0) steps.push('kubectl get nodepools -o yaml');
  return { cause: 'NO_NODEPOOL_MATCH', detail, evidence, steps };
}
