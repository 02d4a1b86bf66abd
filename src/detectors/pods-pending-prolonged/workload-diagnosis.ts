import type { EC2NodeClass, Pod } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import {
  karpenterLogFacts,
  limitsReached,
  nodeClassProblem,
  nodePoolIncompatibility,
  isNodePoolReady,
  type KarpenterLogFacts,
} from './nodepools.ts';
import {
  latestFailedScheduling,
  parseKarpenterMessage,
  type KarpenterSchedulingError,
} from '../scheduling/scheduler-messages.ts';
import { limitVerdict, nodeClassVerdict, noMatchVerdict, type PoolFacts, type WorkloadVerdict } from './workload-verdicts.ts';

export type { WorkloadCause, WorkloadVerdict } from './workload-verdicts.ts';
import { podRef } from '../scheduling/pending.ts';
import { describeCondition } from '../karpenter/readiness.ts';
import { conditionOf } from '../../domain/kube-helpers.ts';
import { awsRunsKarpenter } from '../../domain/auto-mode.ts';
import { shellQuote } from '../../domain/shell.ts';

/**
 * Why Karpenter has not given a pending workload pod a node. Karpenter's own words for the pod
 * (its FailedScheduling event or `could not schedule pod` log line) come first; the NodePools and
 * EC2NodeClasses as captured confirm or replace them. Work is shared by pods with the same
 * scheduling constraints and the same Karpenter message, so 2,000 pending replicas of one
 * Deployment cost one evaluation.
 */

export class WorkloadDiagnoser {
  readonly #index: SnapshotIndex;
  readonly #pools: PoolFacts[] | undefined;
  readonly #logs: KarpenterLogFacts;
  readonly #cache = new Map<string, WorkloadVerdict>();
  /** EKS Auto Mode without a controller of its own in the cluster: there are no controller logs to read. */
  readonly #onlyAwsKarpenter: boolean;

  constructor(snapshot: ClusterSnapshot, index: SnapshotIndex) {
    this.#index = index;
    this.#onlyAwsKarpenter = index.controllers.length === 0 && awsRunsKarpenter(snapshot);
    this.#logs = karpenterLogFacts(snapshot.logs);
    const nodeClasses: ReadonlyMap<string, EC2NodeClass> | undefined = snapshot.captured.has('ec2nodeclasses')
      ? index.nodeClassesByName
      : undefined;
    this.#pools = snapshot.captured.has('nodepools')
      ? snapshot.nodePools
          .filter((p) => !p.metadata?.deletionTimestamp)
          .map((pool) => {
            const name = pool.metadata?.name ?? '';
            const logged = this.#logs.notReadyPools.has(name)
              ? `Karpenter logged "ignoring nodepool, not ready" for NodePool ${name}`
              : undefined;
            return {
              pool,
              name,
              nodeClassProblem: nodeClassProblem(pool, nodeClasses),
              ready: isNodePoolReady(pool) && !logged,
              limits: limitsReached(pool),
            };
          })
      : undefined;
  }

  diagnose(pod: Pod): WorkloadVerdict {
    const events = this.#index.eventsFor('Pod', pod.metadata?.namespace, pod.metadata?.name);
    const event = latestFailedScheduling(events, 'karpenter');
    const logged = this.#logs.errorsByPod.get(podRef(pod));
    const karpenterSays = event?.message ?? logged?.error;
    const spec = pod.spec ?? {};
    const key = JSON.stringify([spec.nodeSelector, spec.affinity?.nodeAffinity, spec.tolerations, karpenterSays]);
    let verdict = this.#cache.get(key);
    if (!verdict) {
      verdict = this.#classify(pod, karpenterSays, event ? 'event' : 'log');
      this.#cache.set(key, verdict);
    }
    return verdict;
  }

  #classify(pod: Pod, karpenterSays: string | undefined, from: 'event' | 'log'): WorkloadVerdict {
    const said = parseKarpenterMessage(karpenterSays);
    const quoted = karpenterSays ? [`karpenter (${from}): ${truncate(karpenterSays, 300)}`] : [];
    if (said.limitsExceeded.length > 0) {
      const named = said.limitsExceeded.filter(Boolean);
      const pools = this.#pools?.filter((p) => named.includes(p.name)) ?? [];
      return limitVerdict(named, pools, quoted);
    }
    if (said.nodeClassNotReady) return nodeClassVerdict([], quoted);
    if (!this.#pools) return this.#withoutNodePools(pod, said, quoted);

    if (this.#pools.length === 0)
      return noMatchVerdict('No NodePool exists, so Karpenter has nothing to launch nodes from.', quoted, [], true);
    const compatible: PoolFacts[] = [];
    const rejected: [string, string][] = [];
    for (const p of this.#pools) {
      const why = nodePoolIncompatibility(pod, p.pool);
      if (why === undefined) compatible.push(p);
      else rejected.push([p.name, why]);
    }
    if (compatible.length === 0) {
      const reasons = said.incompatible.length
        ? said.incompatible.map((i) => [i.nodePool, i.detail] as [string, string])
        : rejected;
      return noMatchVerdict('No NodePool can launch a node these pods accept.', quoted, reasons, false, pod.spec?.nodeSelector);
    }
    const usable = compatible.filter((p) => p.ready && !p.nodeClassProblem);
    if (usable.length === 0) {
      const blocked = compatible.filter((p) => p.nodeClassProblem);
      if (blocked.length > 0) return nodeClassVerdict(blocked, quoted);
      return {
        cause: 'UNKNOWN',
        detail: `Every NodePool that fits these pods is not Ready, so Karpenter ignores it: ${compatible.map((p) => p.name).join(', ')}.`,
        evidence: [...quoted, ...compatible.map((p) => notReadyLine(p))],
        steps: compatible.map((p) => `kubectl describe nodepool ${shellQuote(p.name)}`),
      };
    }
    if (usable.every((p) => p.limits.length > 0))
      return limitVerdict(
        usable.map((p) => p.name),
        usable,
        quoted,
      );
    if (said.incompatible.length > 0 && said.other.length === 0 && !said.noNodePools) {
      return incompatibleVerdict(pod, said, quoted);
    }
    return this.#unknown(pod, quoted, usable);
  }

  #withoutNodePools(pod: Pod, said: KarpenterSchedulingError, quoted: string[]): WorkloadVerdict {
    const notReady = [...this.#logs.notReadyPools];
    if ((said.noNodePools || this.#logs.noNodePools) && notReady.length > 0) {
      return nodeClassVerdict(
        [],
        [...quoted, `Karpenter logged "ignoring nodepool, not ready" for ${notReady.join(', ')} and "no nodepools found"`],
        notReady,
      );
    }
    if (said.noNodePools || this.#logs.noNodePools) {
      return noMatchVerdict(
        'Karpenter reports no NodePools to launch nodes from.',
        [...quoted, 'Karpenter logged "no nodepools found"'],
        [],
        true,
      );
    }
    if (said.incompatible.length > 0) {
      return incompatibleVerdict(pod, said, quoted);
    }
    return this.#unknown(pod, quoted, []);
  }

  #unknown(pod: Pod, quoted: string[], usable: PoolFacts[]): WorkloadVerdict {
    const controller = this.#index.controllers.find((c) => c.readyPods > 0) ?? this.#index.controllers[0];
    const ns = controller?.namespace ?? 'karpenter';
    const name = controller?.deploymentName ?? 'karpenter';
    return {
      cause: 'UNKNOWN',
      detail: usable.length
        ? `NodePool(s) ${usable.map((p) => p.name).join(', ')} could serve these pods and are Ready and under their limits; the captured data does not say why no node came.`
        : 'Nothing captured explains why Karpenter has not provisioned a node for these pods.',
      evidence: quoted,
      steps: [
        `kubectl describe pod -n ${shellQuote(pod.metadata?.namespace ?? 'default')} ${shellQuote(pod.metadata?.name ?? '')}`,
        this.#onlyAwsKarpenter
          ? "EKS Auto Mode runs Karpenter outside the cluster: its word is in the pod's events (see the describe step above) and in the NodeClaims"
          : `kubectl logs -n ${shellQuote(ns)} ${shellQuote(`deployment/${name}`)} --tail=200 | grep -iE 'could not schedule|nodeclaim|error'`,
        'kubectl get nodeclaims -o wide',
      ],
    };
  }
}

function truncate(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function notReadyLine(p: PoolFacts): string {
  const ready = conditionOf(p.pool, 'Ready');
  return `NodePool ${p.name}: ${ready ? describeCondition(ready) : 'not Ready'}`;
}

function incompatibleVerdict(pod: Pod, said: KarpenterSchedulingError, quoted: string[]): WorkloadVerdict {
  return noMatchVerdict(
    'Karpenter finds no NodePool compatible with these pods.',
    quoted,
    said.incompatible.map((i) => [i.nodePool, i.detail]),
    false,
    pod.spec?.nodeSelector,
  );
}
