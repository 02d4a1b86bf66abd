import type { CauseCodeOf } from '../../domain/codes.ts';
import type { Finding } from '../../domain/finding.ts';
import { commandStep, manualRemediation, newFinding } from '../../domain/finding.ts';
import type { EC2NodeClass, NodePool } from '../../domain/kube.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { nodeClassFailures, unhealthyConditions } from '../karpenter/nodeclass-status.ts';
import { conditionText, describeCondition, notReady } from '../karpenter/readiness.ts';
import { AUTO_MODE_GROUP, EC2NODECLASS_GROUP, isEc2NodeClassRef, nodeClassKind } from '../../domain/auto-mode.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';

type Cause = CauseCodeOf<'NODEPOOL_NOT_READY'>;
interface Explained {
  code: Cause;
  title: string;
  detail: string;
  evidence: string[];
  steps: string[];
}

/** Reasons karpenter (core) writes on NodeClassReady itself; any other reason is copied from the node class's Ready. */
const NODECLASS_NOT_FOUND_REASON = 'NodeClassNotFound';

/**
 * NODEPOOL_NOT_READY: a NodePool whose `Ready` is not True. Ready depends on NodeClassReady and
 * ValidationSucceeded (karpenter core); the cause follows the chain NodePool → EC2NodeClass →
 * the node class's own failing condition, so users land on the object that needs fixing.
 * A missing node class is decided from the captured EC2NodeClasses when there are any, else from
 * Karpenter's `NodeClassNotFound` reason. Steps cover every cause found, the cause is the first.
 */
export const nodePoolNotReady: Detector<'NODEPOOL_NOT_READY'> = {
  code: 'NODEPOOL_NOT_READY',
  requires: ['nodepools'],
  refinedBy: ['ec2nodeclasses', 'pods', 'deployments'],
  detect(ctx) {
    const findings: Finding<'NODEPOOL_NOT_READY'>[] = [];
    for (const np of ctx.snapshot.nodePools) {
      const verdict = notReady(np, ctx.now);
      if (!verdict) continue;
      const name = np.metadata?.name ?? '?';
      const causes = [nodeClassMissing(np, ctx), nodeClassUnready(np, ctx), validationFailed(np)].filter(
        (c): c is Explained => !!c,
      );
      if (causes.length === 0) causes.push(unknown(np, ctx));
      const primary = causes[0]!;
      const ref = np.spec?.template?.spec?.nodeClassRef;
      findings.push(
        newFinding({
          code: 'NODEPOOL_NOT_READY',
          severity: 'warning',
          title: `NodePool ${name} is not ready: ${primary.title}`,
          resource: { kind: 'NodePool', name },
          since: verdict.since,
          cause: { code: primary.code, detail: causes.map((c) => c.detail).join(' ') },
          evidence: [
            verdict.ready ? `NodePool ${name}: ${describeCondition(verdict.ready)}` : `NodePool ${name} has no Ready condition`,
            `nodeClassRef: ${JSON.stringify(ref ?? null)}`,
            ...causes.flatMap((c) => c.evidence),
          ],
          remediation: manualRemediation(causes.flatMap((c) => c.steps)),
        }),
      );
    }
    return findings;
  },
};

function refName(np: NodePool): string | undefined {
  return np.spec?.template?.spec?.nodeClassRef?.name;
}

function nodeClassMissing(np: NodePool, ctx: DetectContext): Explained | undefined {
  const name = np.metadata?.name ?? '?';
  const ref = np.spec?.template?.spec?.nodeClassRef;
  const target = refName(np);
  const cond = conditionOf(np, 'NodeClassReady');
  // Only EC2NodeClasses are captured: an EKS Auto Mode NodeClass is missing only when Karpenter says so.
  const isEc2 = isEc2NodeClassRef(ref);
  const captured = isEc2 && ctx.snapshot.captured.has('ec2nodeclasses');
  const absent = captured ? !!target && !ctx.index.nodeClassesByName.has(target) : cond?.reason === NODECLASS_NOT_FOUND_REASON;
  if (!absent) return undefined;
  const existing = ctx.snapshot.nodeClasses.map((c) => c.metadata?.name ?? '?');
  const { kind, resource } = nodeClassKind(ref);
  const replacement = !isEc2
    ? 'default'
    : existing.length === 1
      ? existing[0]!
      : existing.length
        ? `<one of: ${existing.join(', ')}>`
        : '<name>';
  const group = isEc2 ? EC2NODECLASS_GROUP : AUTO_MODE_GROUP;
  const patch = { spec: { template: { spec: { nodeClassRef: { group, kind, name: replacement } } } } };
  return {
    code: 'NODECLASS_NOT_FOUND',
    title: `${kind} ${target ?? '?'} does not exist`,
    detail:
      `NodePool ${name} references ${kind} ${target ?? '(no name)'}, which does not exist` +
      (captured
        ? ` (existing: ${existing.join(', ') || 'none'}).`
        : ` (${cond ? describeCondition(cond) : 'NodeClassNotFound'}).`),
    evidence: cond && cond.status !== 'True' ? [describeCondition(cond)] : [],
    steps: [
      `kubectl get ${resource}`,
      commandStep(
        `Point NodePool ${name} at an existing ${kind}${isEc2 ? '' : " (EKS Auto Mode's built-in one is default)"}`,
        `kubectl patch nodepool ${shellQuote(name)} --type=merge -p ${shellJson(patch)}`,
      ),
      commandStep(`Or create ${kind} ${target ?? '<name>'} from its manifest`, 'kubectl apply -f <its manifest>'),
    ],
  };
}

function nodeClassUnready(np: NodePool, ctx: DetectContext): Explained | undefined {
  const name = np.metadata?.name ?? '?';
  const ref = np.spec?.template?.spec?.nodeClassRef;
  const target = refName(np) ?? '?';
  const cond = conditionOf(np, 'NodeClassReady');
  const isEc2 = isEc2NodeClassRef(ref);
  const nodeClass = isEc2 ? ctx.index.nodeClassesByName.get(target) : undefined;
  const classReady = nodeClass ? conditionOf(nodeClass, 'Ready') : undefined;
  const condUnready = !!cond && cond.status !== 'True' && cond.reason !== NODECLASS_NOT_FOUND_REASON;
  // The captured node class is the truth when there is one; NodeClassReady may lag behind it.
  const classCaptured = isEc2 && ctx.snapshot.captured.has('ec2nodeclasses');
  if (nodeClass ? classReady?.status === 'True' : classCaptured || !condUnready) return undefined;
  const { kind, resource } = nodeClassKind(ref);
  const link = nodeClass ? chainLink(nodeClass) : cond ? describeCondition(cond) : 'not ready';
  const terminating = cond?.reason === 'NodeClassTerminating' || !!nodeClass?.metadata?.deletionTimestamp;
  return {
    code: 'NODECLASS_NOT_READY',
    title: `${kind} ${target} is not ready`,
    detail: `NodePool ${name} → ${kind} ${target} → ${link}.${terminating ? ` ${kind} ${target} is being deleted.` : ''}`,
    evidence: [
      ...(cond && cond.status !== 'True' ? [`NodePool ${name}: ${describeCondition(cond)}`] : []),
      ...(nodeClass ? unhealthyConditions(nodeClass).map((c) => `${kind} ${target}: ${describeCondition(c)}`) : []),
    ],
    steps: terminating
      ? [
          commandStep(
            `${kind} ${target} is terminating: point NodePool ${name} at another ${kind}, or recreate ${target}`,
            `kubectl edit nodepool ${shellQuote(name)}`,
          ),
        ]
      : [
          `kubectl describe ${resource} ${shellQuote(target)}`,
          isEc2
            ? `Fix EC2NodeClass ${visibleLine(target)} (see its NODECLASS_NOT_READY finding); NodePool ${visibleLine(name)} turns Ready by itself once it is.`
            : commandStep(
                `Fix NodeClass ${target} as its conditions say; NodePool ${name} turns Ready by itself once it is`,
                `kubectl get ${resource} ${shellQuote(target)} -o yaml`,
              ),
        ],
  };
}

/** The node class's own first failing condition, else its Ready. */
function chainLink(nc: EC2NodeClass): string {
  const first = nodeClassFailures(nc)[0]?.condition ?? unhealthyConditions(nc)[0] ?? conditionOf(nc, 'Ready');
  return first ? describeCondition(first) : 'no status (never reconciled)';
}

function validationFailed(np: NodePool): Explained | undefined {
  const cond = conditionOf(np, 'ValidationSucceeded');
  if (cond?.status !== 'False') return undefined;
  const name = np.metadata?.name ?? '?';
  const ref = np.spec?.template?.spec?.nodeClassRef;
  const hints: string[] = [];
  const steps = [`kubectl get nodepool ${shellQuote(name)} -o yaml`];
  if (ref?.apiVersion && !ref.group) {
    hints.push(`nodeClassRef uses the v1beta1 form (apiVersion: ${ref.apiVersion}); karpenter.sh/v1 needs group and kind`);
    const fixed = { group: EC2NODECLASS_GROUP, kind: ref.kind ?? 'EC2NodeClass', name: ref.name ?? '<name>' };
    steps.push(
      `kubectl patch nodepool ${shellQuote(name)} --type=merge -p ${shellJson({ spec: { template: { spec: { nodeClassRef: fixed } } } })}`,
    );
  }
  if (np.spec?.disruption?.consolidationPolicy === 'WhenUnderutilized') {
    hints.push('consolidationPolicy WhenUnderutilized is the v1beta1 name; v1 calls it WhenEmptyOrUnderutilized');
    steps.push(
      `kubectl patch nodepool ${shellQuote(name)} --type=merge -p ${shellJson({ spec: { disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized' } } })}`,
    );
  }
  steps.push(
    commandStep('Fix the field the message names; Karpenter re-validates on save', `kubectl edit nodepool ${shellQuote(name)}`),
  );
  return {
    code: 'VALIDATION_FAILED',
    title: 'its spec failed validation',
    detail: `NodePool ${name} failed Karpenter's validation: ${conditionText(cond)}.${hints.length ? ` ${hints.join('; ')}.` : ''}`,
    evidence: [`NodePool ${name}: ${describeCondition(cond)}`, ...hints],
    steps,
  };
}

function unknown(np: NodePool, ctx: DetectContext): Explained {
  const name = np.metadata?.name ?? '?';
  const ns = ctx.index.controllers[0]?.namespace ?? 'karpenter';
  return {
    code: 'UNKNOWN',
    title: 'Karpenter has not resolved it',
    detail: np.status?.conditions?.length
      ? `NodePool ${name} is not ready and neither NodeClassReady nor ValidationSucceeded says why.`
      : `NodePool ${name} has no status: Karpenter never reconciled it. Is the controller running?`,
    evidence: (np.status?.conditions ?? [])
      .filter((c) => c.status !== 'True')
      .map((c) => `NodePool ${name}: ${describeCondition(c)}`),
    steps: [
      `kubectl describe nodepool ${shellQuote(name)}`,
      `kubectl logs -n ${shellQuote(ns)} -l app.kubernetes.io/name=karpenter --tail=200 | grep -i ${shellQuote(name)}`,
    ],
  };
}
