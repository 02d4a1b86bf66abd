import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { consolidationChurn } from '../../../../src/detectors/consolidation-churn/detector.ts';
import type { KubeEvent, NodePoolDisruption } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, event, minutesAfter, node } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 60);
const SHORT = { consolidateAfter: '30s' } satisfies NodePoolDisruption;
const SETTLED = { consolidateAfter: '10m' } satisfies NodePoolDisruption;

function detect(snapshot: ClusterSnapshot, now = NOW, churnPerHour = DEFAULT_DETECTION.churnPerHour) {
  return consolidationChurn.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: { ...DEFAULT_DETECTION, churnPerHour },
    now: new Date(now),
  });
}

const karpenterEvent = (kind: string, name: string, reason: string, message: string, at: string, count = 1): KubeEvent =>
  event({ kind, name, reason, message, type: 'Normal', source: 'karpenter', firstTime: at, lastTime: at, count });

/** The two events Karpenter publishes for one disrupted node (v1.6+ wording). */
function disrupted(claim: string, nodeName: string, at: string, reason = 'Underutilized'): KubeEvent[] {
  return [
    karpenterEvent('Node', nodeName, 'DisruptionTerminating', `Disrupting Node: ${reason}`, at),
    karpenterEvent('NodeClaim', claim, 'DisruptionTerminating', `Disrupting NodeClaim: ${reason}`, at),
  ];
}

const SUFFIXES = ['k2x8p', 'm4n7q', 'b9c3d', 'f6g2h', 'j8l5r', 'p3s7t', 'v2w9x', 'z4y6a', 'c8e1g', 'h5k3m', 'n7q2s', 'r9t4v'];

/** `n` disruptions of `pool`'s nodes, one every 4 minutes, ending 2 minutes before NOW; both objects gone. */
function churn(pool: string, n: number, reason = 'Underutilized', startMinute = 58 - 4 * (n - 1), offset = 0): KubeEvent[] {
  return Array.from({ length: n }, (_, i) =>
    disrupted(
      `${pool}-${SUFFIXES[i + offset]}`,
      `ip-10-0-1-${10 + i + offset}.ec2.internal`,
      minutesAfter(T0, startMinute + 4 * i),
      reason,
    ),
  ).flat();
}

describe('CONSOLIDATION_CHURN', () => {
  it('CONSOLIDATE_AFTER_TOO_SHORT: 10 Underutilized disruptions in the hour, consolidateAfter 30s', () => {
    // Prepare
    const snapshot = snapshotOf({ events: churn('default', 10), nodePools: [nodePool({ name: 'default', disruption: SHORT })] });

    // Act
    const [finding, ...rest] = detect(snapshot);

    // Assess
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      code: 'CONSOLIDATION_CHURN',
      severity: 'warning',
      resource: { kind: 'NodePool', name: 'default' },
      since: minutesAfter(T0, 22),
      cause: { code: 'CONSOLIDATE_AFTER_TOO_SHORT' },
      counts: { objects: 10, nodePool: 'default' },
      remediation: { action: 'MANUAL', status: 'manual' },
    });
    expect(finding?.evidence).toContain('10 consolidation disruptions in the last hour (Underutilized ×10); the threshold is 10');
    expect(finding?.evidence).toContain("NodePool default from the NodeClaim's name, default-xxxxx (10: the objects are gone)");
    expect(finding?.cause?.detail).toContain('consolidateAfter 30s');
    expect(finding?.cause?.detail).toContain('WhenEmpty');
    expect(finding?.cause?.detail).toContain('Balanced');
    expect(finding?.cause?.detail).toContain('karpenter.sh/do-not-disrupt');
    expect(finding?.remediation?.steps).toEqual([
      "# Karpenter's consolidation of NodePool default's NodeClaims, newest last\n" +
        'kubectl get events -A --field-selector reason=DisruptionTerminating,involvedObject.kind=NodeClaim ' +
        '--sort-by=.lastTimestamp -o custom-columns=LAST:.lastTimestamp,NODECLAIM:.involvedObject.name,MESSAGE:.message ' +
        '| grep -F -e default-',
      "# Let NodePool default's load settle 10m before Karpenter consolidates a node\n" +
        `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"consolidateAfter":"10m"}}}'`,
      "# Consolidate NodePool default's nodes one at a time (Underutilized), keeping Karpenter's default 10% for the other reasons\n" +
        `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"10%"},{"nodes":"1","reasons":["Underutilized"]}]}}}'`,
    ]);
  });

  it('CONSOLIDATE_AFTER_TOO_SHORT: consolidateAfter absent is 0s in v1', () => {
    // Prepare
    const snapshot = snapshotOf({ events: churn('default', 10), nodePools: [nodePool({ name: 'default' })] });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('CONSOLIDATE_AFTER_TOO_SHORT');
    expect(finding?.evidence).toContain(
      'consolidationPolicy: WhenEmptyOrUnderutilized (not set: the default), consolidateAfter: 0s (not set: the v1 default)',
    );
  });

  it('NO_DISRUPTION_BUDGET: consolidateAfter 10m, budgets only for Drifted; the patch keeps them', () => {
    // Prepare
    const budgets = [{ nodes: '20%' }, { nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' }];
    const snapshot = snapshotOf({
      events: churn('general-purpose', 12),
      nodePools: [nodePool({ name: 'general-purpose', disruption: { ...SETTLED, budgets } })],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('NO_DISRUPTION_BUDGET');
    expect(finding?.cause?.detail).toContain('not how many per hour');
    expect(finding?.evidence).toContain(
      'budgets: budgets[0] nodes: "20%"; budgets[1] nodes: "0" reasons [Drifted] schedule "0 9 * * mon-fri" for 8h',
    );
    expect(finding?.remediation?.steps).toHaveLength(2);
    expect(finding?.remediation?.steps[1]).toBe(
      "# Consolidate NodePool general-purpose's nodes one at a time (Underutilized), keeping its 2 budgets (a merge patch replaces the whole list)\n" +
        `kubectl patch nodepool general-purpose --type=merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"20%"},` +
        `{"nodes":"0","reasons":["Drifted"],"schedule":"0 9 * * mon-fri","duration":"8h"},{"nodes":"1","reasons":["Underutilized"]}]}}}'`,
    );
  });

  it('UNKNOWN: consolidateAfter 10m and a one-at-a-time budget for Underutilized', () => {
    // Prepare
    const snapshot = snapshotOf({
      events: churn('default', 10),
      nodePools: [
        nodePool({ name: 'default', disruption: { ...SETTLED, budgets: [{ nodes: '1', reasons: ['Underutilized'] }] } }),
      ],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.cause?.code).toBe('UNKNOWN');
    expect(finding?.remediation?.steps).toHaveLength(1);
  });

  it('Empty disruptions count too, and the budget patch names the reasons that churned', () => {
    // Prepare
    const events = [...churn('default', 6), ...churn('default', 4, 'Empty', 31, 6)];
    const snapshot = snapshotOf({ events, nodePools: [nodePool({ name: 'default', disruption: SETTLED })] });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.evidence[0]).toBe(
      '10 consolidation disruptions in the last hour (Underutilized ×6, Empty ×4); the threshold is 10',
    );
    expect(finding?.remediation?.steps[1]).toContain('"reasons":["Underutilized","Empty"]');
  });

  describe('threshold and window', () => {
    it('one below the threshold: nothing', () => {
      // Prepare
      const snapshot = snapshotOf({ events: churn('default', 9), nodePools: [nodePool({ name: 'default' })] });

      // Act / Assess
      expect(detect(snapshot)).toEqual([]);
    });

    it('the threshold is the setting', () => {
      // Prepare
      const snapshot = snapshotOf({ events: churn('default', 3), nodePools: [nodePool({ name: 'default' })] });

      // Act / Assess
      expect(detect(snapshot, NOW, 3)).toHaveLength(1);
      expect(detect(snapshot, NOW, 4)).toEqual([]);
    });

    it('disruptions older than an hour are not counted', () => {
      // Prepare: 10 disruptions, the first exactly an hour before now.
      const events = churn('default', 10, 'Underutilized', 0);
      const snapshot = snapshotOf({ events, nodePools: [nodePool({ name: 'default' })] });

      // Act / Assess
      expect(detect(snapshot)).toEqual([]);
      expect(detect(snapshot, minutesAfter(T0, 59))[0]?.counts?.objects).toBe(10);
    });

    it('an event repeated into the hour counts by its last time, once', () => {
      // Prepare: one node's events first seen 2 hours ago, last seen 10 minutes ago, count 3.
      const old = minutesAfter(T0, -60);
      const repeated = disrupted('default-q1w2e', 'ip-10-0-9-9.ec2.internal', minutesAfter(T0, 50)).map((e) => ({
        ...e,
        firstTime: old,
        count: 3,
      }));
      const snapshot = snapshotOf({ events: [...churn('default', 9), ...repeated], nodePools: [nodePool({ name: 'default' })] });

      // Act / Assess
      expect(detect(snapshot)[0]?.counts?.objects).toBe(10);
    });

    it("the Node's and the NodeClaim's event of one disruption count once, joined through the objects", () => {
      // Prepare: 5 disruptions whose objects are still captured, the Node event a few seconds later.
      const claims = SUFFIXES.slice(0, 5).map((s, i) =>
        nodeClaim({ name: `default-${s}`, nodeName: `ip-10-0-2-${i}.ec2.internal`, createdAt: minutesAfter(T0, 20) }),
      );
      const events = claims.flatMap((nc, i) => {
        const at = minutesAfter(T0, 40 + i);
        return [
          karpenterEvent(
            'NodeClaim',
            nc.metadata?.name ?? '',
            'DisruptionTerminating',
            'Disrupting NodeClaim: Underutilized',
            at,
          ),
          karpenterEvent('Node', nc.status?.nodeName ?? '', 'DisruptionTerminating', 'Disrupting Node: Underutilized', at),
        ];
      });
      const snapshot = snapshotOf({ events, nodeClaims: claims, nodePools: [nodePool({ name: 'default' })] });

      // Act
      const [finding] = detect(snapshot, NOW, 5);

      // Assess
      expect(finding?.counts?.objects).toBe(5);
      expect(finding?.evidence).toContain('NodePool default from the karpenter.sh/nodepool label of the Node or NodeClaim (5)');
      expect(finding?.evidence).toContain(
        'the disrupted nodes had lived 22m (median of 5 whose Node or NodeClaim is still captured)',
      );
    });

    it('a Node event alone is counted once, attributed by its label', () => {
      // Prepare
      const nodes = Array.from({ length: 3 }, (_, i) =>
        node({ name: `ip-10-0-3-${i}.ec2.internal`, labels: { 'karpenter.sh/nodepool': 'batch' } }),
      );
      const events = nodes.map((n, i) =>
        karpenterEvent(
          'Node',
          n.metadata?.name ?? '',
          'DisruptionTerminating',
          'Disrupting Node: Empty',
          minutesAfter(T0, 50 + i),
        ),
      );
      const snapshot = snapshotOf({ events, nodes, nodePools: [nodePool({ name: 'batch' })] });

      // Act / Assess
      expect(detect(snapshot, NOW, 3)[0]?.counts).toEqual({ objects: 3, nodePool: 'batch' });
    });
  });

  describe('wording across Karpenter versions', () => {
    it('v1.0–v1.5: "Disrupting Node: Underutilized/Replace" and ".../Delete" count', () => {
      // Prepare
      const events = churn('default', 10).map((e, i) => ({
        ...e,
        message: `${e.message ?? ''}/${i % 4 < 2 ? 'Replace' : 'Delete'}`,
      }));
      const snapshot = snapshotOf({ events, nodePools: [nodePool({ name: 'default' })] });

      // Act
      const [finding] = detect(snapshot);

      // Assess
      expect(finding?.counts?.objects).toBe(10);
      expect(finding?.evidence[1]).toContain('"Disrupting NodeClaim: Underutilized/Replace"');
    });

    it('Drifted disruptions and other reasons are not consolidation', () => {
      // Prepare
      const events = [
        ...churn('default', 10, 'Drifted'),
        karpenterEvent(
          'NodeClaim',
          'default-aaaaa',
          'DisruptionBlocked',
          'Disrupting NodeClaim: Underutilized',
          minutesAfter(T0, 50),
        ),
      ];
      const snapshot = snapshotOf({ events, nodePools: [nodePool({ name: 'default' })] });

      // Act / Assess
      expect(detect(snapshot)).toEqual([]);
    });
  });

  it('instance types: the replaced nodes and the NodeClaims launched for them', () => {
    // Prepare: 10 disrupted c6a.large nodes still captured, each replaced by a c6a.large launched a minute earlier.
    const typed = (name: string, nodeName: string | undefined, at: string) => {
      const nc = nodeClaim({ name, ...(nodeName ? { nodeName } : {}), createdAt: at });
      nc.metadata!.labels = { ...nc.metadata!.labels, 'node.kubernetes.io/instance-type': 'c6a.large' };
      return nc;
    };
    const claims = SUFFIXES.slice(0, 10).map((s, i) =>
      typed(`default-${s}`, `ip-10-0-1-${10 + i}.ec2.internal`, minutesAfter(T0, 5)),
    );
    const replacementsOf = SUFFIXES.slice(0, 10).map((s, i) =>
      typed(`default-r${s.slice(1)}`, undefined, minutesAfter(T0, 21 + 4 * i)),
    );
    const launches = replacementsOf.map((nc, i) =>
      karpenterEvent(
        'NodeClaim',
        nc.metadata?.name ?? '',
        'DisruptionLaunching',
        'Launching NodeClaim: Underutilized',
        minutesAfter(T0, 21 + 4 * i),
        4,
      ),
    );
    const snapshot = snapshotOf({
      events: [...churn('default', 10), ...launches],
      nodeClaims: [...claims, ...replacementsOf],
      nodePools: [nodePool({ name: 'default' })],
    });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(finding?.evidence).toContain('instance types: c6a.large replaced by c6a.large ×10 (the same type in 10 of 10)');
  });

  it('a hostile NodePool name reaches the steps quoted, and pasting them runs nothing', () => {
    // Prepare
    const pool = "x'; touch PWNED; echo '";
    const snapshot = snapshotOf({ events: [], nodePools: [nodePool({ name: pool })] });
    const claims = SUFFIXES.slice(0, 10).map((s, i) =>
      nodeClaim({ name: `${pool}-${s}`, nodePool: pool, nodeName: `ip-10-0-4-${i}.ec2.internal` }),
    );
    snapshot.nodeClaims = claims;
    snapshot.captured.add('nodeclaims');
    snapshot.events = claims.flatMap((nc, i) =>
      disrupted(nc.metadata?.name ?? '', nc.status?.nodeName ?? '', minutesAfter(T0, 30 + i)),
    );
    snapshot.captured.add('events');

    // Act
    const [finding] = detect(snapshot);
    const steps = finding?.remediation?.steps ?? [];

    // Assess
    expect(steps.length).toBe(3);
    for (const step of steps) {
      const run = spawnSync('/bin/sh', ['-n', '-c', step]);
      expect(run.status, step).toBe(0);
      const recorded = spawnSync('/bin/sh', [
        '-c',
        `kubectl() { printf '%s\\n' "$@"; }\ngrep() { printf '%s\\n' "$@"; }\n${step}`,
      ]);
      expect(String(recorded.stdout)).not.toContain('PWNED\n');
    }
    expect(steps[1]).toContain(`kubectl patch nodepool 'x'\\''; touch PWNED; echo '\\''' --type=merge`);
  });

  it('NodePools not captured: attributed by label, cause UNKNOWN, and the evidence says why', () => {
    // Prepare
    const nodes = Array.from({ length: 10 }, (_, i) =>
      node({ name: `ip-10-0-5-${i}.ec2.internal`, labels: { 'karpenter.sh/nodepool': 'web' } }),
    );
    const events = nodes.map((n, i) =>
      karpenterEvent(
        'Node',
        n.metadata?.name ?? '',
        'DisruptionTerminating',
        'Disrupting Node: Underutilized',
        minutesAfter(T0, 10 + i),
      ),
    );
    const snapshot = snapshotOf({ events, nodes });

    // Act
    const [finding] = detect(snapshot);

    // Assess
    expect(consolidationChurn.requires).toEqual(['events']);
    expect(finding?.cause?.code).toBe('UNKNOWN');
    expect(finding?.evidence).toContain('NodePool web is not in the capture: its disruption settings are unknown');
    expect(finding?.cause?.detail).toContain('kubectl get nodepools -o yaml');
    expect(finding?.remediation?.steps).toHaveLength(1);
  });

  it('not attributable to a NodePool: nothing', () => {
    // Prepare: NodeClaim names that fit no captured NodePool, objects gone.
    const snapshot = snapshotOf({ events: churn('ghost', 12), nodePools: [nodePool({ name: 'default' })] });

    // Act / Assess
    expect(detect(snapshot)).toEqual([]);
  });
});
