import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { disruptionBlocked } from '../../../../src/detectors/disruption-blocked/detector.ts';
import { budgetsAllowing } from '../../../../src/detectors/karpenter/disruption-steps.ts';
import { causeOfMessage } from '../../../../src/detectors/disruption-blocked/blocked-events.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { nodeClaim, unregisteredConditions } from '../../../factories/karpenter.ts';
import { T0, event, minutesAfter, pdb, withAnnotations } from '../../../factories/kube.ts';
import { beingDeleted, claimNode, poolWith, runningClaim, webPod } from './fixtures.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

/** Thursday 2026-01-01 05:00 UTC: five hours after the claims drifted at T0. */
const NOW = minutesAfter(T0, 5 * 60);

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return disruptionBlocked.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

const drifted = (name: string, reason = 'AMIDrift', at = T0) => runningClaim({ name, drift: { reason, at } });

/** One drifted NodeClaim with its Node and one web pod, the pool and the rest as given. */
function scenario(parts: Parameters<typeof snapshotOf>[0] = {}): ClusterSnapshot {
  return snapshotOf({
    nodeClaims: [drifted('default-a1b2c')],
    nodePools: [poolWith({})],
    nodes: [claimNode('default-a1b2c')],
    pods: [webPod('default-a1b2c')],
    pdbs: [],
    events: [],
    ...parts,
  });
}

describe('DISRUPTION_BLOCKED: which NodeClaims count', () => {
  it('reports one warning per NodePool with its blocked NodeClaims counted', () => {
    // Prepare
    const snapshot = scenario({
      nodeClaims: [drifted('default-a1b2c'), drifted('default-d3e4f'), runningClaim({ name: 'default-ok123' })],
      nodes: [claimNode('default-a1b2c'), claimNode('default-d3e4f'), claimNode('default-ok123')],
    });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings).toHaveLength(1);
    const f = findings[0];
    expect(f?.severity).toBe('warning');
    expect(f?.resource).toEqual({ kind: 'NodePool', name: 'default' });
    expect(f?.counts).toEqual({ objects: 2, nodePool: 'default' });
    expect(f?.since).toBe(T0);
    expect(f?.remediation?.action).toBe('MANUAL');
    expect(f?.title).toContain('2 NodeClaims of NodePool default drifted but not replaced');
  });

  it('counts a NodeClaim drifted exactly the threshold ago, not one a second short of it', () => {
    // Prepare
    const at = minutesAfter(NOW, -120);
    const justShort = new Date(Date.parse(at) + 1000).toISOString();
    const edge = scenario({ nodeClaims: [drifted('default-a1b2c', 'AMIDrift', at)] });
    const short = scenario({ nodeClaims: [drifted('default-a1b2c', 'AMIDrift', justShort)] });

    // Act + Assess
    expect(detect(edge)).toHaveLength(1);
    expect(detect(short)).toEqual([]);
  });

  it('leaves out a drifted NodeClaim that is already being deleted (NODE_TERMINATION_STUCK)', () => {
    const snapshot = scenario({ nodeClaims: [beingDeleted(drifted('default-a1b2c'))] });

    expect(detect(snapshot)).toEqual([]);
  });

  it('leaves out an expired NodeClaim that never registered a Node (NODECLAIM_NOT_REGISTERED)', () => {
    const createdAt = minutesAfter(NOW, -31 * 24 * 60);
    const claim = nodeClaim({ name: 'default-kb85v', createdAt, conditions: unregisteredConditions(createdAt) });
    const snapshot = scenario({ nodeClaims: [claim], nodePools: [poolWith({ expireAfter: '720h' })] });

    expect(detect(snapshot)).toEqual([]);
  });

  it('counts a NodeClaim older than expireAfter, from its creation plus expireAfter', () => {
    // Prepare: created 31 days before NOW, expireAfter 720h (30 days): expired a day ago.
    const createdAt = minutesAfter(NOW, -31 * 24 * 60);
    const snapshot = scenario({
      nodeClaims: [runningClaim({ name: 'default-a1b2c', createdAt })],
      nodePools: [poolWith({ expireAfter: '720h' })],
    });

    // Act
    const [f] = detect(snapshot);

    // Assess
    expect(f?.title).toContain('1 NodeClaim of NodePool default expired but not replaced');
    expect(f?.since).toBe(minutesAfter(NOW, -24 * 60));
    expect(f?.evidence).toContain("1 expired: older than the NodePool's expireAfter 720h");
  });

  it('never expires NodeClaims of a NodePool with expireAfter Never', () => {
    const createdAt = minutesAfter(NOW, -365 * 24 * 60);
    const snapshot = scenario({
      nodeClaims: [runningClaim({ name: 'default-a1b2c', createdAt })],
      nodePools: [poolWith({ expireAfter: 'Never' })],
    });

    expect(detect(snapshot)).toEqual([]);
  });

  it('counts the drift reasons', () => {
    // Prepare
    const snapshot = scenario({
      nodeClaims: [drifted('default-a'), drifted('default-b'), drifted('default-c', 'SubnetDrift'), drifted('default-d')],
    });

    // Act
    const [f] = detect(snapshot);

    // Assess
    expect(f?.evidence).toContain('drift reasons: AMIDrift ×3, SubnetDrift ×1');
    expect(f?.counts?.objects).toBe(4);
  });
});

describe('DISRUPTION_BLOCKED: causes', () => {
  it('BUDGET_BLOCKS: an unscheduled budget of 0 for Drifted, which never opens; the patch keeps the other budgets', () => {
    // Prepare
    const budgets = [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }];
    const snapshot = scenario({ nodePools: [poolWith({ disruption: { budgets } })] });

    // Act
    const [f] = detect(snapshot);

    // Assess
    expect(f?.cause?.code).toBe('BUDGET_BLOCKS');
    expect(f?.cause?.detail).toContain('budgets[1] nodes: "0" reasons [Drifted]');
    expect(f?.cause?.detail).toContain('never opens');
    const patch = f?.remediation?.steps.find((s) => s.includes('kubectl patch nodepool'));
    expect(patch).toContain(`'{"spec":{"disruption":{"budgets":[{"nodes":"10%"},{"nodes":"1","reasons":["Drifted"]}]}}}'`);
  });

  it('BUDGET_BLOCKS: a business-hours window blocks now and says when it opens', () => {
    // Prepare: Thursday 2026-01-01 12:00 UTC, inside 09:00-17:00 Monday-Friday.
    const budgets = [{ nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' }];
    const snapshot = scenario({ nodePools: [poolWith({ disruption: { budgets } })] });

    // Act
    const [f] = detect(snapshot, '2026-01-01T12:00:00Z');

    // Assess
    expect(f?.cause?.code).toBe('BUDGET_BLOCKS');
    expect(f?.cause?.detail).toContain('schedule "0 9 * * mon-fri" for 8h');
    expect(f?.cause?.detail).toContain('next opens at 2026-01-01T17:00:00Z (in 5h)');
  });

  it('a budget for Underutilized only does not block drift', () => {
    const budgets = [{ nodes: '0', reasons: ['Underutilized'] }];
    const snapshot = scenario({ nodePools: [poolWith({ disruption: { budgets } })] });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('UNKNOWN');
  });

  it('a budget of 0 does not explain NodeClaims that only expired: expiry is not budgeted', () => {
    const createdAt = minutesAfter(NOW, -31 * 24 * 60);
    const snapshot = scenario({
      nodeClaims: [runningClaim({ name: 'default-a1b2c', createdAt })],
      nodePools: [poolWith({ expireAfter: '720h', disruption: { budgets: [{ nodes: '0' }] } })],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('deletes an expired NodeClaim without asking budgets');
  });

  it("BUDGET_BLOCKS from the NodePool's DisruptionBlocked event when the budgets allow drift at this instant", () => {
    const snapshot = scenario({
      events: [
        event({
          kind: 'NodePool',
          name: 'default',
          reason: 'DisruptionBlocked',
          type: 'Normal',
          source: 'karpenter',
          message: 'No allowed disruptions for disruption reason Drifted due to blocking budget',
          count: 14,
        }),
      ],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('BUDGET_BLOCKS');
    expect(f?.evidence).toContain(
      'DisruptionBlocked ×14 on NodePool default: "No allowed disruptions for disruption reason Drifted due to blocking budget"',
    );
  });

  it('BUDGET_BLOCKS: the budget is used up by nodes already being disrupted', () => {
    // Prepare: one node at a time, and another node of the pool is being deleted.
    const stuck = beingDeleted(runningClaim({ name: 'default-zz999' }));
    const snapshot = scenario({
      nodeClaims: [drifted('default-a1b2c'), stuck],
      nodePools: [poolWith({ disruption: { budgets: [{ nodes: '1' }] } })],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('BUDGET_BLOCKS');
    expect(f?.cause?.detail).toContain('and 1 already are (default-zz999');
    expect(f?.counts?.objects).toBe(1);
  });

  it('PDB_BLOCKS_EVICTION names the PDB and the pods it holds', () => {
    const snapshot = scenario({
      pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0 })],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    expect(f?.cause?.detail).toContain('shop/web (holding shop/web-7d4b9c8f6d-x2x9k)');
    expect(f?.remediation?.steps.join('\n')).toContain('kubectl get pdb -n shop web -o yaml');
    expect(f?.remediation?.steps.join('\n')).toContain('kubectl scale deployment -n shop web --replicas=');
  });

  it('PDB_BLOCKS_EVICTION on an operator-managed PDB: names its owner, never patches the PDB nor tells to', () => {
    // Prepare: the PDB is owned by a custom resource whose operator reconciles it.
    const owned = pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0 });
    owned.metadata = {
      ...owned.metadata,
      ownerReferences: [{ apiVersion: 'apps.example.io/v1', kind: 'WebApp', name: 'web', controller: true }],
    };
    const snapshot = scenario({ pdbs: [owned] });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    expect(f?.cause?.detail).toContain('shop/web is managed by WebApp web (apps.example.io)');
    expect(f?.cause?.detail).not.toContain('let the PDB allow one pod down');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain('kubectl get webapp.apps.example.io -n shop web -o yaml');
    expect(steps).not.toMatch(/kubectl (patch|edit|delete) pdb/);
    expect(steps).not.toContain('kubectl scale');
  });

  it('a drifted NodeClaim with its own terminationGracePeriod is not held by its pods', () => {
    const claim = drifted('default-a1b2c');
    if (claim.spec) claim.spec.terminationGracePeriod = '24h';
    const snapshot = scenario({
      nodeClaims: [claim],
      pdbs: [pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' }, disruptionsAllowed: 0 })],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('UNKNOWN');
  });

  it('MULTIPLE_PDBS: a pod selected by two PDBs', () => {
    const snapshot = scenario({
      pdbs: [
        pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' } }),
        pdb({ name: 'web-canary', namespace: 'shop', matchLabels: { app: 'web' } }),
      ],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('MULTIPLE_PDBS');
    expect(f?.cause?.detail).toContain('pod shop/web-7d4b9c8f6d-x2x9k is selected by shop/web and shop/web-canary');
  });

  it('DO_NOT_DISRUPT_POD: a pod annotated karpenter.sh/do-not-disrupt', () => {
    const snapshot = scenario({ pods: [webPod('default-a1b2c', 'batch-job-8x7k2', { 'karpenter.sh/do-not-disrupt': 'true' })] });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('DO_NOT_DISRUPT_POD');
    expect(f?.remediation?.steps.join('\n')).toContain(
      'kubectl annotate pod -n shop batch-job-8x7k2 karpenter.sh/do-not-disrupt-',
    );
  });

  it('NODE_NOT_INITIALIZED: the NodeClaim never initialised; no do-not-disrupt or PDB advice for it', () => {
    // Prepare: a do-not-disrupt pod on the node too — Karpenter would not get that far.
    const claim = drifted('default-a1b2c');
    const initialized = claim.status!.conditions!.find((c) => c.type === 'Initialized')!;
    Object.assign(initialized, {
      status: 'Unknown',
      reason: 'StartupTaintsExist',
      message: 'StartupTaint "example.com/agent:NoSchedule" still exists',
    });
    const snapshot = scenario({
      nodeClaims: [claim],
      pods: [webPod('default-a1b2c', 'batch-job-8x7k2', { 'karpenter.sh/do-not-disrupt': 'true' })],
    });

    // Act
    const [f] = detect(snapshot);

    // Assess
    expect(f?.cause?.code).toBe('NODE_NOT_INITIALIZED');
    expect(f?.cause?.detail).toContain('NodeClaim default-a1b2c (Initialized=Unknown (StartupTaintsExist');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain('kubectl delete nodeclaim default-a1b2c');
    expect(steps).not.toContain('do-not-disrupt-');
  });

  it("reads Karpenter's uninitialized-node message of every version", () => {
    for (const message of [
      "Cannot disrupt Node: state node isn't initialized",
      "node isn't initialized",
      "Node isn't initialized",
    ])
      expect(causeOfMessage(message).cause).toBe('NODE_NOT_INITIALIZED');
  });

  it('DO_NOT_DISRUPT_NODE: the Node itself is annotated', () => {
    const snapshot = scenario({
      nodes: [withAnnotations(claimNode('default-a1b2c'), { 'karpenter.sh/do-not-disrupt': 'true' })],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('DO_NOT_DISRUPT_NODE');
    expect(f?.remediation?.steps.join('\n')).toContain(
      'kubectl annotate node node-of-default-a1b2c karpenter.sh/do-not-disrupt-',
    );
  });

  it('UNKNOWN quotes what Karpenter says when no cause is known, e.g. pods that would not schedule', () => {
    const message =
      'Not all pods would schedule, default/web-7d4b9c8f6d-x2x9k => would schedule against uninitialized nodeclaim/default-q2w3e';
    const snapshot = scenario({
      events: [
        event({ kind: 'NodeClaim', name: 'default-a1b2c', reason: 'DisruptionBlocked', type: 'Normal', message, count: 6 }),
      ],
    });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain(`Karpenter says "${message}" (×6)`);
  });

  it('UNKNOWN when nothing captured explains it, with the steps to look further', () => {
    const [f] = detect(scenario());

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.remediation?.steps.join('\n')).toContain('terminationGracePeriod');
  });
});

describe('DISRUPTION_BLOCKED: pods not captured, the events say', () => {
  /** Nodes captured too, unless the event speaks of the Node's own annotation (the Node would say). */
  const withEvent = (message: string, nodes = true) =>
    snapshotOf({
      nodeClaims: [drifted('default-a1b2c')],
      nodePools: [poolWith({})],
      ...(nodes ? { nodes: [claimNode('default-a1b2c')] } : {}),
      events: [
        event({ kind: 'Node', name: 'node-of-default-a1b2c', reason: 'DisruptionBlocked', type: 'Normal', message, count: 3 }),
      ],
    });

  it.each([
    ['Cannot disrupt Node: pdb "shop/web" prevents pod evictions', 'PDB_BLOCKS_EVICTION', 'PodDisruptionBudget shop/web'],
    ['Pdb "shop/web" prevents pod evictions', 'PDB_BLOCKS_EVICTION', 'PodDisruptionBudget shop/web'],
    ['Pdb prevents pod evictions', 'PDB_BLOCKS_EVICTION', 'does not name the PDB'],
    ['Eviction does not support multiple PDBs', 'MULTIPLE_PDBS', 'more than one PodDisruptionBudget'],
    ['pod "shop/batch" has "karpenter.sh/do-not-disrupt" annotation', 'DO_NOT_DISRUPT_POD', 'pod shop/batch'],
    ['Pod has "karpenter.sh/do-not-disrupt" annotation', 'DO_NOT_DISRUPT_POD', 'a pod on the node'],
    ['Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation', 'DO_NOT_DISRUPT_NODE', 'Karpenter reports'],
  ])('%s → %s', (message, cause, named) => {
    const [f] = detect(withEvent(message, cause !== 'DO_NOT_DISRUPT_NODE'));

    expect(f?.cause?.code).toBe(cause);
    expect(f?.cause?.detail).toContain(named);
    expect(f?.evidence).toContain(`DisruptionBlocked ×3 on Node node-of-default-a1b2c: "${message}"`);
    expect(f?.evidence.join('\n')).toContain('the pods on these nodes were not captured');
  });

  it('an old node-annotation event is quoted, not taken as the cause, when the captured Node has no annotation', () => {
    const message = 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation';

    const [f] = detect(withEvent(message, true));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.evidence).toContain(`DisruptionBlocked ×3 on Node node-of-default-a1b2c: "${message}"`);
  });

  it('reads the NodePool budget messages of every version', () => {
    expect(causeOfMessage('No allowed disruptions due to blocking budget').cause).toBe('BUDGET_BLOCKS');
    expect(causeOfMessage('No allowed disruptions for disruption reason Drifted due to blocking budget')).toEqual({
      cause: 'BUDGET_BLOCKS',
      named: undefined,
      reason: 'Drifted',
    });
    expect(causeOfMessage('Cannot disrupt NodeClaim: state node is nominated for a pending pod').cause).toBeUndefined();
  });
});

describe('DISRUPTION_BLOCKED: the budget patch', () => {
  it('takes Drifted out of an all-reasons budget of 0 and adds one node at a time for Drifted', () => {
    const np = poolWith({ disruption: { budgets: [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }] } });

    expect(budgetsAllowing(np, 'Drifted', 10)).toEqual([
      { nodes: '0', reasons: ['Underutilized', 'Empty'], schedule: '0 9 * * mon-fri', duration: '8h' },
      { nodes: '1', reasons: ['Drifted'] },
    ]);
  });

  it('a v1beta1 NodePool (budgets without reasons): the budgets capping at 0 go and {nodes: "1"} is added, no reasons field', () => {
    const np = {
      ...poolWith({ disruption: { budgets: [{ nodes: '20%' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }] } }),
      apiVersion: 'karpenter.sh/v1beta1',
    };

    expect(budgetsAllowing(np, 'Drifted', 10)).toEqual([{ nodes: '20%' }]);
    expect(budgetsAllowing({ ...np, spec: { ...np.spec, disruption: { budgets: [{ nodes: '0' }] } } }, 'Drifted', 10)).toEqual([
      { nodes: '1' },
    ]);
  });

  it("keeps Karpenter's default when the NodePool has no budgets", () => {
    expect(budgetsAllowing(poolWith({}), 'Drifted', 10)).toEqual([{ nodes: '10%' }, { nodes: '1', reasons: ['Drifted'] }]);
  });
});

describe('DISRUPTION_BLOCKED: hostile names', () => {
  const PLANTED = "x-$(touch PWNED)`touch PWNED`';touch PWNED;'\"";

  it('quotes every name in its steps: pasted, they run nothing planted and pass each name as one argument', () => {
    // Prepare: the NodePool, NodeClaim, Node, pod, namespace and PDB all carry shell syntax.
    const pool = `pool${PLANTED}`;
    const claimName = `claim${PLANTED}`;
    const claim = runningClaim({ name: claimName, pool, drift: { reason: 'AMIDrift' } });
    const pod = {
      ...webPod(claimName, `pod${PLANTED}`),
      metadata: { ...webPod(claimName, `pod${PLANTED}`).metadata, namespace: `ns${PLANTED}` },
    };
    const zero = pdb({ name: `pdb${PLANTED}`, namespace: `ns${PLANTED}`, matchLabels: { app: 'web' }, disruptionsAllowed: 0 });
    const cases = [
      scenario({
        nodeClaims: [claim],
        nodePools: [poolWith({ name: pool, disruption: { budgets: [{ nodes: '0' }] } })],
        nodes: [claimNode(claimName, pool)],
      }),
      scenario({
        nodeClaims: [claim],
        nodePools: [poolWith({ name: pool })],
        nodes: [claimNode(claimName, pool)],
        pods: [pod],
        pdbs: [zero],
      }),
      scenario({
        nodeClaims: [claim],
        nodePools: [poolWith({ name: pool })],
        nodes: [withAnnotations(claimNode(claimName, pool), { 'karpenter.sh/do-not-disrupt': 'true' })],
      }),
    ];
    const steps = cases.flatMap((s) => detect(s).flatMap((f) => f.remediation?.steps ?? []));
    const sandbox = mkdtempSync(join(tmpdir(), 'disruption-blocked-'));
    try {
      // Act: each step pasted into /bin/sh, kubectl recording its arguments one per line.
      const args = new Set<string>();
      for (const step of steps) {
        const out = spawnSync('/bin/sh', ['-c', `kubectl() { printf '%s\\n' "$@"; }\n${step}\n`], {
          cwd: sandbox,
          encoding: 'utf8',
        });
        expect(existsSync(join(sandbox, 'PWNED')), step).toBe(false);
        for (const arg of out.stdout.split('\n')) args.add(arg);
      }

      // Assess: nothing ran, and each name arrived whole, as one argument.
      expect(steps.filter((s) => s.includes('PWNED')).length).toBeGreaterThan(5);
      for (const name of [
        pool,
        `karpenter.sh/nodepool=${pool}`,
        `ns${PLANTED}`,
        `pdb${PLANTED}`,
        `pod${PLANTED}`,
        `node-of-${claimName}`,
      ])
        expect(args.has(name), name).toBe(true);
    } finally {
      rmSync(sandbox, { recursive: true, force: true });
    }
  });
});
