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
import { instanceTypeVerdict, topologyVerdict, type TopologySource } from './fit-verdicts.ts';
import { covers, podZoneWants, poolZones, unservedZones, type PoolZones } from './zones.ts';
import { parseTopologyConflict, typoHints, zonesOf } from '../scheduling/instance-type-messages.ts';
import { parseSchedulerMessage } from '../scheduling/scheduler-messages.ts';
import { schedulerMessageOf } from '../scheduling/pending.ts';
import type { Subnet } from '../../domain/aws.ts';
import {
  capacitySettings,
  instanceTypeCatalogue,
  vmMemoryOverhead,
  type InstanceTypeCatalogue,
  type OverheadSetting,
} from '../instance-types/catalogue.ts';
import type { CapacitySettings } from '../instance-types/capacity.ts';
import { parsePrintedRequirement } from '../instance-types/requirements.ts';
import { parseResources } from '../scheduling/quantity.ts';
import { podRequests } from '../scheduling/scheduling.ts';
import { conclusive, estimatePool, estimateWords, type PoolEstimate } from './type-estimate.ts';
import { unattributedErrorFor } from './unattributed-log.ts';
import { karpenterRelease } from '../karpenter/helm.ts';

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
  readonly #nodeClasses: ReadonlyMap<string, EC2NodeClass> | undefined;
  readonly #subnets: readonly Subnet[];
  readonly #zones = new Map<string, PoolZones>();
  readonly #logs: KarpenterLogFacts;
  readonly #cache = new Map<string, WorkloadVerdict>();
  /** EKS Auto Mode without a controller of its own in the cluster: there are no controller logs to read. */
  readonly #onlyAwsKarpenter: boolean;
  readonly #snapshot: ClusterSnapshot;
  #types: InstanceTypeCatalogue | undefined;
  #overhead: OverheadSetting | undefined;

  constructor(snapshot: ClusterSnapshot, index: SnapshotIndex) {
    this.#index = index;
    this.#snapshot = snapshot;
    this.#onlyAwsKarpenter = index.controllers.length === 0 && awsRunsKarpenter(snapshot);
    this.#logs = karpenterLogFacts(snapshot.logs);
    const nodeClasses: ReadonlyMap<string, EC2NodeClass> | undefined = snapshot.captured.has('ec2nodeclasses')
      ? index.nodeClassesByName
      : undefined;
    this.#nodeClasses = nodeClasses;
    this.#subnets = snapshot.subnets;
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
    const logged =
      this.#logs.errorsByPod.get(podRef(pod)) ?? (event ? undefined : unattributedErrorFor(pod, this.#logs.unattributed));
    const karpenterSays = event?.message ?? logged?.error;
    const spec = pod.spec ?? {};
    const scheduler = karpenterSays ? undefined : schedulerMessageOf(pod, events);
    const key = JSON.stringify([
      spec.nodeSelector,
      spec.affinity?.nodeAffinity,
      spec.tolerations,
      spec.topologySpreadConstraints,
      ...requestsKey(pod),
      karpenterSays,
      scheduler,
    ]);
    let verdict = this.#cache.get(key);
    if (!verdict) {
      verdict = this.#classify(pod, karpenterSays, event ? 'event' : 'log', scheduler);
      this.#cache.set(key, verdict);
    }
    return verdict;
  }

  #classify(pod: Pod, karpenterSays: string | undefined, from: 'event' | 'log', scheduler: string | undefined): WorkloadVerdict {
    const said = parseKarpenterMessage(karpenterSays);
    const quoted = karpenterSays ? [`karpenter (${from}): ${truncate(karpenterSays, 300)}`] : [];
    if (karpenterSays && from === 'log' && !this.#logs.errorsByPod.has(podRef(pod)))
      quoted.push("the log line names no pod: its resources less its daemonset overhead are exactly these pods' requests");
    if (said.limitsExceeded.length > 0) {
      const named = said.limitsExceeded.filter(Boolean);
      const pools = this.#pools?.filter((p) => named.includes(p.name)) ?? [];
      return limitVerdict(named, pools, quoted);
    }
    if (said.nodeClassNotReady) return nodeClassVerdict([], quoted);
    if (!this.#pools) return this.#withoutNodePools(pod, said, quoted, karpenterSays);

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
      const zoneOnly = this.#zoneOnlyRejection(pod, said, rejected, quoted);
      if (zoneOnly) return zoneOnly;
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
    const fit = this.#fitVerdict(pod, said, quoted, usable, karpenterSays);
    if (fit) return fit;
    if (said.incompatible.length > 0 && said.other.length === 0 && !said.noNodePools) {
      return incompatibleVerdict(pod, said, quoted);
    }
    return this.#schedulerTopology(pod, scheduler, quoted, usable) ?? this.#unknown(pod, quoted, usable);
  }

  #withoutNodePools(
    pod: Pod,
    said: KarpenterSchedulingError,
    quoted: string[],
    karpenterSays: string | undefined,
  ): WorkloadVerdict {
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
    const fit = this.#fitVerdict(pod, said, quoted, [], karpenterSays);
    if (fit) return fit;
    if (said.incompatible.length > 0) {
      return incompatibleVerdict(pod, said, quoted);
    }
    return this.#unknown(pod, quoted, []);
  }

  #coverage(p: PoolFacts): PoolZones {
    let zones = this.#zones.get(p.name);
    if (!zones) {
      zones = poolZones(p.pool, this.#nodeClasses, this.#subnets);
      this.#zones.set(p.name, zones);
    }
    return zones;
  }

  #topology(pod: Pod, source: TopologySource, key: string, zones: string[], pools: PoolFacts[], quoted: string[], said?: string) {
    return topologyVerdict({
      pod,
      source,
      key,
      zones,
      coverage: pools.map((p) => this.#coverage(p)),
      nodeClasses: this.#nodeClasses,
      vpcId: this.#subnets.find((s) => s.vpcId)?.vpcId,
      quoted,
      ...(said ? { said } : {}),
    });
  }

  /**
   * A NodePool matches, yet Karpenter cannot launch for the pods: no instance type fits
   * (NO_INSTANCE_TYPE_FITS), or their zone is one no NodePool reaches (TOPOLOGY_UNSATISFIABLE).
   * Undefined when neither Karpenter's words nor the capture say so.
   */
  #fitVerdict(
    pod: Pod,
    said: KarpenterSchedulingError,
    quoted: string[],
    usable: PoolFacts[],
    karpenterSays: string | undefined,
  ): WorkloadVerdict | undefined {
    const named = new Set(said.instanceTypes.flatMap((s) => (s.nodePool ? [s.nodePool] : [])));
    const pools = named.size ? usable.filter((p) => named.has(p.name)) : usable;
    const shortfalls = said.instanceTypes;
    if (shortfalls.length > 0) {
      // A zone in Karpenter's requirements that no NodePool's subnets reach is the real reason.
      const requirements = shortfalls.flatMap((s) => s.requirements);
      const text = requirements.join(', ');
      const zoneKey = requirements.find((r) => /^topology\.k8s\.aws\/zone-id /.test(r)) ? ZONE_ID : ZONE;
      const zones = zonesOf(text);
      const noZoneLeft = requirements.some((r) =>
        /^(?:topology\.kubernetes\.io\/zone|topology\.k8s\.aws\/zone-id) DoesNotExist/.test(r),
      );
      const coverage = pools.map((p) => this.#coverage(p));
      const unserved = zones.filter((z) => coverage.length > 0 && coverage.every((c) => covers(c, zoneKey, z) === false));
      if (noZoneLeft || (zones.length > 0 && unserved.length === zones.length))
        return this.#topology(pod, 'zone', zoneKey, unserved, pools, quoted);
    }
    const poolEvents = this.#noCompatibleInstanceTypes(usable);
    const everyPoolFiltered = usable.length > 0 && usable.every((p) => poolEvents.has(p.name));
    const controller = this.#index.controllers.find((c) => c.readyPods > 0) ?? this.#index.controllers[0];
    const release = karpenterRelease(controller);
    if (shortfalls.length > 0 || everyPoolFiltered) {
      const estimates = this.#explainShortfalls(pod, said).filter(conclusive);
      const namedPools = [...new Set(shortfalls.flatMap((s) => (s.nodePool ? [s.nodePool] : [])))];
      return instanceTypeVerdict({
        pod,
        shortfalls,
        pools: pools.length ? pools : usable,
        poolEvents,
        quoted,
        typos: typoHints(karpenterSays ?? ''),
        release,
        ...(estimates.length ? { estimate: estimateWords(estimates, this.#catalogue(), release) } : {}),
        ...(namedPools.length ? { namedPools } : {}),
      });
    }
    const conflict = said.topology[0];
    if (conflict) {
      const key = /topology\.k8s\.aws\/zone-id/.test(conflict.text) ? ZONE_ID : ZONE;
      return this.#topology(pod, conflict.kind, key, conflict.zones, usable, quoted, truncate(conflict.text, 200));
    }
    const wants = podZoneWants(pod);
    const unserved = wants
      ? unservedZones(
          wants,
          usable.map((p) => this.#coverage(p)),
        )
      : undefined;
    const first = unserved?.[0];
    if (first) return this.#topology(pod, 'selector', first.key, first.values, usable, quoted);
    if (karpenterSays !== undefined || usable.length === 0) return undefined;
    // Karpenter's word is not in the capture: evaluate the NodePools' requirements ourselves.
    const estimates = usable.map((p) => this.#estimateForPool(pod, p));
    if (!estimates.every(conclusive)) return undefined;
    return instanceTypeVerdict({
      pod,
      shortfalls: [],
      pools: usable,
      poolEvents,
      quoted,
      typos: [],
      release,
      estimate: estimateWords(estimates, this.#catalogue(), release),
    });
  }

  #catalogue(): InstanceTypeCatalogue {
    this.#types ??= instanceTypeCatalogue(this.#snapshot);
    return this.#types;
  }

  #settingsFor(poolName: string | undefined): { overhead: OverheadSetting; settings: CapacitySettings } {
    this.#overhead ??= vmMemoryOverhead(
      (this.#index.controllers.find((c) => c.readyPods > 0) ?? this.#index.controllers[0])?.deployment,
      this.#snapshot.configMaps,
    );
    const pool = this.#pools?.find((p) => p.name === poolName)?.pool;
    const ref = pool?.spec?.template?.spec?.nodeClassRef?.name;
    const nodeClass = ref ? this.#nodeClasses?.get(ref) : undefined;
    return { overhead: this.#overhead, settings: capacitySettings(this.#overhead, pool, nodeClass) };
  }

  /** Karpenter said no instance type fits: our estimate of the types its printed requirements allow. */
  #explainShortfalls(pod: Pod, said: KarpenterSchedulingError): PoolEstimate[] {
    return said.instanceTypes.slice(0, 3).flatMap((s) => {
      if (s.minValues || !s.requirements.length) return [];
      const requirements = s.requirements.flatMap(parsePrintedRequirement);
      const needed = s.resources ? parseResources(s.resources) : { ...podRequests(pod), pods: 1 };
      const { overhead, settings } = this.#settingsFor(s.nodePool);
      return [estimatePool(s.nodePool ?? '(unnamed)', requirements, needed, this.#catalogue(), overhead, settings)];
    });
  }

  /** The pool's requirements with the pod's own: the alternative (nodeSelectorTerm) that comes closest. */
  #estimateForPool(pod: Pod, p: PoolFacts): PoolEstimate {
    const { overhead, settings } = this.#settingsFor(p.name);
    const poolRequirements = p.pool.spec?.template?.spec?.requirements ?? [];
    const selector = Object.entries(pod.spec?.nodeSelector ?? {}).map(([key, v]) => ({ key, operator: 'In', values: [v] }));
    const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    const alternatives = terms.length ? terms.map((t) => [...selector, ...(t.matchExpressions ?? [])]) : [selector];
    const needed = { ...podRequests(pod), pods: 1 };
    const estimates = alternatives
      .slice(0, 5)
      .map((reqs) => estimatePool(p.name, [...poolRequirements, ...reqs], needed, this.#catalogue(), overhead, settings));
    // `alternatives` always holds one at least: the selector alone.
    return estimates.find((e) => !conclusive(e)) ?? (estimates[0] as PoolEstimate);
  }

  /** Every NodePool rejects the pods only over a zone key: a zone no NodePool serves, not a label mismatch. */
  #zoneOnlyRejection(
    pod: Pod,
    said: KarpenterSchedulingError,
    rejected: [string, string][],
    quoted: string[],
  ): WorkloadVerdict | undefined {
    if (said.incompatible.length > 0 || rejected.length === 0) return undefined;
    const conflicts = rejected.map(([, why]) => parseTopologyConflict(why));
    if (!conflicts.every((c) => c?.kind === 'zone')) return undefined;
    const wants = podZoneWants(pod);
    const want = wants?.[0]?.[0];
    const pools = (this.#pools ?? []).filter((p) => rejected.some(([name]) => name === p.name));
    const key = want?.key ?? ZONE;
    const zones = want?.values ?? conflicts[0]?.zones ?? [];
    return this.#topology(pod, 'selector', key, zones, pools, [
      ...quoted,
      ...rejected.slice(0, 5).map(([pool, why]) => `NodePool ${pool}: ${why}`),
    ]);
  }

  /** kube-scheduler's word when Karpenter's is missing: a topology spread or volume node affinity conflict. */
  #schedulerTopology(
    pod: Pod,
    scheduler: string | undefined,
    quoted: string[],
    usable: PoolFacts[],
  ): WorkloadVerdict | undefined {
    const reasons = parseSchedulerMessage(scheduler).reasons.filter(
      (r) => r.kind === 'topology-spread' || (r.kind === 'volume' && /volume node affinity conflict/.test(r.text)),
    );
    const reason = reasons[0];
    if (!reason || !scheduler) return undefined;
    return this.#topology(
      pod,
      reason.kind === 'volume' ? 'volume' : 'spread',
      ZONE,
      [],
      usable,
      [...quoted, `kube-scheduler: ${truncate(scheduler, 300)}`],
      `kube-scheduler: ${reason.count} ${reason.text}`,
    );
  }

  /** NodePool → the message of its `NoCompatibleInstanceTypes` event (its requirements leave no instance type). */
  #noCompatibleInstanceTypes(pools: PoolFacts[]): Map<string, string> {
    const found = new Map<string, string>();
    for (const p of pools) {
      const events = [
        ...this.#index.eventsFor('NodePool', undefined, p.name),
        ...this.#index.eventsFor('NodePool', 'default', p.name),
      ];
      const e = events.find((x) => x.reason === 'NoCompatibleInstanceTypes');
      if (e) found.set(p.name, e.message ?? 'NodePool requirements filtered out all compatible available instance types');
    }
    return found;
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

const ZONE = 'topology.kubernetes.io/zone';
const ZONE_ID = 'topology.k8s.aws/zone-id';

/** The pod's requests, so pods with different sizes are not diagnosed as one (part of the key, stringified with it). */
function requestsKey(pod: Pod): unknown[] {
  return [
    (pod.spec?.containers ?? []).map((c) => c.resources?.requests),
    (pod.spec?.initContainers ?? []).map((c) => c.resources?.requests),
    (pod.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName),
  ];
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
