import { describe, expect, it } from 'vitest';
import { nodeTerminationStuck } from '../../../../src/detectors/node-termination-stuck/detector.ts';
import type { Node, NodeClaim, Pod } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { autoModeNodeClaim, nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import {
  T0,
  event,
  karpenterDeployment,
  karpenterPod,
  minutesAfter,
  node,
  pdb,
  pod,
  volumeAttachment,
  withAnnotations,
} from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NODE = 'ip-10-0-1-23.ec2.internal';
const CLAIM = 'default-x7k2p';
const INSTANCE = 'i-0a1b2c3d4e5f60718';
const SYSTEM_NODE = 'ip-10-0-9-9.ec2.internal';
const NOW = new Date(minutesAfter(T0, 60));

const controller = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: SYSTEM_NODE });
const coredns = pod({ name: 'coredns-6b9575c64c-4xk2p', namespace: 'kube-system', nodeName: SYSTEM_NODE });
const disrupted = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };

function deleting<T extends Node | NodeClaim>(obj: T, at: string): T {
  return { ...obj, metadata: { ...obj.metadata, deletionTimestamp: at, finalizers: ['karpenter.sh/termination'] } };
}
const stuckNode = (at = T0) =>
  deleting(
    node({
      name: NODE,
      providerID: `aws:///us-east-1a/${INSTANCE}`,
      taints: [disrupted],
      labels: { 'karpenter.sh/nodepool': 'default' },
    }),
    at,
  );
const stuckClaim = (at = T0) => deleting(nodeClaim({ name: CLAIM, instanceId: INSTANCE, nodeName: NODE }), at);
const web = (name = 'web-7d4b9c8f6d-x2x1q') =>
  pod({
    name,
    namespace: 'shop',
    nodeName: NODE,
    labels: { app: 'web', 'pod-template-hash': '7d4b9c8f6d' },
    ownerReplicaSet: 'web-7d4b9c8f6d',
  });
const webPdb = (extra: Partial<Parameters<typeof pdb>[0]> = {}) =>
  pdb({
    name: 'web',
    namespace: 'shop',
    matchLabels: { app: 'web' },
    minAvailable: 1,
    disruptionsAllowed: 0,
    currentHealthy: 1,
    desiredHealthy: 1,
    expectedPods: 1,
    ...extra,
  });

function base(parts: Parameters<typeof snapshotOf>[0] = {}): ClusterSnapshot {
  return snapshotOf({
    nodes: [stuckNode(), node({ name: SYSTEM_NODE })],
    nodeClaims: [stuckClaim()],
    nodePools: [nodePool({ name: 'default' })],
    pods: [controller, coredns, web()],
    pdbs: [webPdb()],
    volumeAttachments: [],
    events: [],
    ...parts,
  });
}

function detect(snapshot: ClusterSnapshot, now = NOW, settings = DEFAULT_DETECTION) {
  return nodeTerminationStuck.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings,
    now,
  });
}

const steps = (f: { remediation: { steps: string[] } | null }) => (f.remediation?.steps ?? []).join('\n');

describe('NODE_TERMINATION_STUCK', () => {
  describe('causes', () => {
    it('PDB_BLOCKS_EVICTION names the PDB, its budget and the pods it selects on the node', () => {
      // Prepare
      const snapshot = base();

      // Act
      const [f, ...rest] = detect(snapshot);

      // Assess
      expect(rest).toEqual([]);
      expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(f?.resource).toEqual({ kind: 'Node', name: NODE });
      expect(f?.cause?.detail).toContain(
        'PDB shop/web (minAvailable 1; disruptionsAllowed 0, currentHealthy 1, desiredHealthy 1, expectedPods 1) selects shop/web-7d4b9c8f6d-x2x1q',
      );
      expect(f?.counts).toEqual({ objects: 1, nodePool: 'default' });
      expect(f?.remediation?.action).toBe('MANUAL');
      expect(steps(f!)).toContain('kubectl get pdb -n shop web -o yaml');
      expect(steps(f!)).toContain('kubectl get pods -n shop -l app=web -o wide');
      expect(steps(f!)).toContain('kubectl scale deployment -n shop web --replicas=2');
      expect(steps(f!)).toContain(
        `kubectl patch nodepool default --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"24h"}}}}'`,
      );
      expect(f?.evidence).toContain(
        'no terminationGracePeriod on NodePool default or the NodeClaim: nothing bounds the drain, Karpenter waits for as long as it is blocked',
      );
    });

    it('MULTIPLE_PDBS when two budgets select one pod on the node', () => {
      // Prepare
      const snapshot = base({
        pdbs: [webPdb({ disruptionsAllowed: 1 }), pdb({ name: 'web-legacy', namespace: 'shop', matchLabels: { app: 'web' } })],
      });

      // Act
      const [f] = detect(snapshot);

      // Assess
      expect(f?.cause?.code).toBe('MULTIPLE_PDBS');
      expect(f?.cause?.detail).toContain('shop/web and shop/web-legacy');
      expect(steps(f!)).toContain('kubectl delete pdb -n shop web-legacy');
    });

    it('PDB_BLOCKS_EVICTION on an operator-managed PDB: names the owner and its fix, prints no PDB patch', () => {
      // Prepare: the PDB is owned by a CloudNativePG Cluster, whose operator reverts a patch.
      const owned = webPdb();
      owned.metadata = {
        ...owned.metadata,
        ownerReferences: [{ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', name: 'web-db', controller: true }],
      };

      // Act
      const [f] = detect(base({ pdbs: [owned] }));

      // Assess
      expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(f?.cause?.detail).toContain('shop/web is managed by Cluster web-db (postgresql.cnpg.io)');
      expect(steps(f!)).toContain(
        `kubectl patch cluster.postgresql.cnpg.io -n shop web-db --type merge -p '{"spec":{"instances":2}}'`,
      );
      expect(steps(f!)).toContain('kubectl delete pod -n shop web-7d4b9c8f6d-x2x1q');
      expect(steps(f!)).not.toMatch(/kubectl (patch|edit|delete) pdb/);
    });

    it('MULTIPLE_PDBS with an operator-managed PDB: deletes only the unowned one', () => {
      // Prepare
      const owned = webPdb({ disruptionsAllowed: 1 });
      owned.metadata = {
        ...owned.metadata,
        ownerReferences: [{ apiVersion: 'apps.example.io/v1', kind: 'WebApp', name: 'web', controller: true }],
      };
      const snapshot = base({ pdbs: [pdb({ name: 'web-legacy', namespace: 'shop', matchLabels: { app: 'web' } }), owned] });

      // Act
      const [f] = detect(snapshot);

      // Assess
      expect(f?.cause?.code).toBe('MULTIPLE_PDBS');
      expect(steps(f!)).toContain('kubectl delete pdb -n shop web-legacy');
      expect(steps(f!)).not.toMatch(/kubectl delete pdb -n shop web$/m);
    });

    it('an empty PDB selector selects every pod of its namespace', () => {
      // Prepare
      const all = { ...webPdb(), spec: { minAvailable: 1, selector: {} } };

      // Act
      const [f] = detect(base({ pdbs: [all] }));

      // Assess
      expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(steps(f!)).toContain('kubectl get pods -n shop -o wide');
    });

    it('DO_NOT_DISRUPT_POD reports the annotation value and the commands to remove or time-box it', () => {
      // Prepare
      const batch = withAnnotations(pod({ name: 'report-28391', namespace: 'batch', nodeName: NODE }), {
        'karpenter.sh/do-not-disrupt': 'true',
      });

      // Act
      const [f] = detect(base({ pods: [controller, coredns, batch], pdbs: [] }));

      // Assess
      expect(f?.cause?.code).toBe('DO_NOT_DISRUPT_POD');
      expect(f?.cause?.detail).toContain('Pod batch/report-28391 is annotated karpenter.sh/do-not-disrupt: "true"');
      expect(steps(f!)).toContain('kubectl annotate pod -n batch report-28391 karpenter.sh/do-not-disrupt-');
      expect(steps(f!)).toContain('kubectl annotate pod -n batch report-28391 --overwrite karpenter.sh/do-not-disrupt=1h');
    });

    it('VOLUME_DETACH_PENDING once no pod is waited for, naming the attachments and their PVs', () => {
      // Prepare
      const ds = pod({
        name: 'aws-node-abcde',
        namespace: 'kube-system',
        nodeName: NODE,
        ownerKind: 'DaemonSet',
        spec: { tolerations: [{ operator: 'Exists' }] },
      });
      const va = volumeAttachment({ name: 'csi-3f1e9a7c', nodeName: NODE, persistentVolumeName: 'pvc-0b5e1d2c' });

      // Act
      const [f] = detect(
        base({
          pods: [controller, coredns, ds],
          volumeAttachments: [va, volumeAttachment({ name: 'csi-other', nodeName: SYSTEM_NODE, persistentVolumeName: 'pvc-x' })],
        }),
      );

      // Assess
      expect(f?.cause?.code).toBe('VOLUME_DETACH_PENDING');
      expect(f?.cause?.detail).toContain('csi-3f1e9a7c (PV pvc-0b5e1d2c, ebs.csi.aws.com');
      expect(f?.cause?.detail).not.toContain('csi-other');
      expect(steps(f!)).toContain('kubectl get volumeattachment csi-3f1e9a7c -o yaml');
      expect(steps(f!)).toContain('kubectl get pv pvc-0b5e1d2c -o wide');
      expect(steps(f!)).toContain('csi-attacher');
    });

    it('CONTROLLER_UNAVAILABLE comes first; the instance check is the first step, the finalizer patches after', () => {
      // Prepare
      const snapshot = base({
        pods: [coredns, web()],
        deployments: [karpenterDeployment({ replicas: 0, readyReplicas: 0 })],
      });

      // Act
      const [f] = detect(snapshot);

      // Assess
      expect(f?.cause?.code).toBe('CONTROLLER_UNAVAILABLE');
      expect(f?.cause?.detail).toContain('karpenter/karpenter is scaled to 0 replicas');
      const all = f?.remediation?.steps ?? [];
      expect(all[0]).toContain(
        `aws ec2 describe-instances --instance-ids ${INSTANCE} --query 'Reservations[].Instances[].State.Name' --output text --region us-east-1`,
      );
      expect(all[0]).toMatch(/^# FIRST: check the instance is terminated/);
      const patch = all.findIndex((s) =>
        s.includes(`kubectl patch nodeclaim ${CLAIM} --type merge -p '{"metadata":{"finalizers":null}}'`),
      );
      expect(patch).toBeGreaterThan(0);
      expect(all.some((s) => s.includes(`kubectl patch node ${NODE} --type merge -p '{"metadata":{"finalizers":null}}'`))).toBe(
        true,
      );
      expect(steps(f!)).toContain('kubectl scale deployment -n karpenter karpenter --replicas=2');
    });

    it('does not claim the controller is down under EKS Auto Mode, nor when the capture cannot tell', () => {
      // Prepare
      const auto = deleting(autoModeNodeClaim({ name: CLAIM, instanceId: INSTANCE, nodeName: NODE }), T0);
      const noController = base({ pods: [coredns, web()], nodeClaims: [auto] });
      const otherNamespaceOnly = base({ pods: [web()] });

      // Act / Assess
      expect(detect(noController)[0]?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(detect(otherNamespaceOnly)[0]?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    });

    it('UNKNOWN when pods remain that nothing blocks', () => {
      // Act
      const [f] = detect(base({ pdbs: [] }));

      // Assess
      expect(f?.cause?.code).toBe('UNKNOWN');
      expect(f?.evidence).toContain('pods the drain waits for: shop/web-7d4b9c8f6d-x2x1q');
      expect(steps(f!)).toContain(`kubectl get pods -A -o wide --field-selector spec.nodeName=${NODE}`);
    });
  });

  describe('when it fires', () => {
    it('fires at the threshold, not a second before', () => {
      // Prepare
      const at = minutesAfter(T0, 45);
      const snapshot = base({ nodes: [stuckNode(at)], nodeClaims: [stuckClaim(at)] });

      // Act / Assess
      expect(detect(snapshot, new Date(Date.parse(at) + 15 * 60_000 - 1000))).toEqual([]);
      expect(detect(snapshot, new Date(Date.parse(at) + 15 * 60_000))).toHaveLength(1);
    });

    it('is a warning, critical from 2 h on', () => {
      // Act / Assess
      expect(detect(base(), new Date(minutesAfter(T0, 119)))[0]?.severity).toBe('warning');
      expect(detect(base(), new Date(minutesAfter(T0, 120)))[0]?.severity).toBe('critical');
    });

    it('times a tainted Node without a deletion timestamp from its first FailedDraining event', () => {
      // Prepare
      const tainted = node({ name: NODE, taints: [disrupted] });
      const claim = nodeClaim({ name: CLAIM, instanceId: INSTANCE, nodeName: NODE });
      const drain = event({
        kind: 'Node',
        name: NODE,
        reason: 'FailedDraining',
        message: 'Failed to drain node, 1 pods are waiting to be evicted',
        source: 'karpenter',
        firstTime: minutesAfter(T0, 20),
        lastTime: minutesAfter(T0, 59),
        count: 533,
      });

      // Act
      const [f] = detect(base({ nodes: [tainted], nodeClaims: [claim], events: [drain] }));
      const untimed = detect(base({ nodes: [tainted], nodeClaims: [claim], events: [] }));

      // Assess
      expect(f?.since).toBe(minutesAfter(T0, 20));
      expect(f?.evidence[0]).toContain('from the first FailedDraining/DisruptionTerminating event');
      expect(f?.evidence).toContain(
        `FailedDraining ×533 (last ${minutesAfter(T0, 59)}): Failed to drain node, 1 pods are waiting to be evicted`,
      );
      expect(untimed).toEqual([]);
    });

    it('knows the v1beta1 taint karpenter.sh/disruption=disrupting', () => {
      // Prepare
      const tainted = node({
        name: NODE,
        taints: [{ key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' }],
      });
      const started = event({
        kind: 'Node',
        name: NODE,
        reason: 'DisruptionTerminating',
        type: 'Normal',
        source: 'karpenter',
        message: 'Disrupting Node: Drifted',
        firstTime: minutesAfter(T0, 10),
      });

      // Act
      const [f] = detect(base({ nodes: [tainted], nodeClaims: [nodeClaim({ name: CLAIM, nodeName: NODE })], events: [started] }));

      // Assess
      expect(f?.since).toBe(minutesAfter(T0, 10));
      expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    });

    it('is about the NodeClaim when its Node is gone', () => {
      // Act
      const [f] = detect(base({ nodes: [node({ name: SYSTEM_NODE })] }));

      // Assess
      expect(f?.resource).toEqual({ kind: 'NodeClaim', name: CLAIM });
      expect(f?.cause?.code).toBe('UNKNOWN');
    });

    it("leaves alone nodes nobody terminates and nodes that are not Karpenter's", () => {
      // Prepare
      const mng = deleting(node({ name: 'ip-10-0-5-5.ec2.internal', labels: { 'eks.amazonaws.com/nodegroup': 'system' } }), T0);
      const mngNode = { ...mng, metadata: { ...mng.metadata, finalizers: [] } };

      // Act / Assess
      expect(
        detect(base({ nodes: [node({ name: NODE }), mngNode], nodeClaims: [nodeClaim({ name: CLAIM, nodeName: NODE })] })),
      ).toEqual([]);
    });
  });

  describe('events and the deadline', () => {
    it('quotes v1.0 wording and, without the pods, names the PDB from it', () => {
      // Prepare
      const old = event({
        kind: 'Node',
        name: NODE,
        reason: 'DisruptionBlocked',
        type: 'Normal',
        source: 'karpenter',
        message: 'Cannot disrupt Node: pdb "shop/web" prevents pod evictions',
      });

      // Act
      const [f] = detect(base({ pods: [], events: [old] }));

      // Assess
      expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(f?.cause?.detail).toContain('PDB shop/web prevents the evictions');
      expect(f?.evidence).toContain(`DisruptionBlocked (last ${T0}): Cannot disrupt Node: pdb "shop/web" prevents pod evictions`);
    });

    it('current wording names no PDB: the cause still follows the event, the pod named when it is', () => {
      // Prepare
      const now = event({
        kind: 'Node',
        name: NODE,
        reason: 'FailedDraining',
        source: 'karpenter',
        message: 'Failed to drain node, evicting pod violates a PDB',
        count: 41,
      });

      // Act
      const [f] = detect(base({ pods: [], events: [now] }));

      // Assess
      expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(f?.cause?.detail).toContain('violates a PodDisruptionBudget (the event does not name it)');
    });

    it('without the pods and without a telling event: UNKNOWN, and the command to capture them', () => {
      // Prepare: an offline capture of Pending pods only.
      const pending = pod({ name: 'web-new', namespace: 'shop' });

      // Act
      const [f] = detect(base({ pods: [pending] }));

      // Assess
      expect(f?.cause?.code).toBe('UNKNOWN');
      expect(f?.cause?.detail).toContain(`The pods on ${NODE} were not captured`);
      expect(steps(f!)).toContain(`kubectl get pods -A -o json --field-selector spec.nodeName=${NODE} > pods-on-node.json`);
    });

    it('without the PDBs it says it could not check them, and uses the events', () => {
      // Prepare
      const s = base({
        events: [
          event({
            kind: 'Node',
            name: NODE,
            reason: 'FailedDraining',
            message: 'Failed to drain node, evicting pod shop/web-7d4b9c8f6d-x2x1q violates a PDB',
          }),
        ],
      });
      s.captured.delete('pdbs');
      s.pdbs = [];

      // Act
      const [f] = detect(s);

      // Assess
      expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
      expect(f?.evidence).toContain('PodDisruptionBudgets not captured (kubectl get pdb -A -o json): budgets not checked');
      expect(f?.cause?.detail).toContain('of pod shop/web-7d4b9c8f6d-x2x1q');
    });

    it('gives the deadline a terminationGracePeriod sets', () => {
      // Prepare
      const claim = stuckClaim();
      const bounded = {
        ...claim,
        metadata: {
          ...claim.metadata,
          annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': minutesAfter(T0, 24 * 60) },
        },
        spec: { ...claim.spec, terminationGracePeriod: '24h' },
      };

      // Act
      const [f] = detect(base({ nodeClaims: [bounded] }));

      // Assess
      expect(f?.evidence).toContain(
        'terminationGracePeriod 24h (NodeClaim default-x7k2p): Karpenter deletes the pods left at 2026-01-02T00:00:00Z (in 23h; karpenter.sh/nodeclaim-termination-timestamp on the NodeClaim), bypassing PDBs and do-not-disrupt',
      );
      expect(steps(f!)).not.toContain('terminationGracePeriod');
    });
  });

  it('quotes hostile names in every command', () => {
    // Prepare
    const evil = "x'; touch PWNED; echo '";
    const p: Pod = { ...web(), metadata: { ...web().metadata, namespace: evil } };
    const budget = { ...webPdb(), metadata: { ...webPdb().metadata, namespace: evil, name: evil } };

    // Act
    const [f] = detect(base({ pods: [controller, coredns, p], pdbs: [budget] }));

    // Assess
    expect(f?.cause?.code).toBe('PDB_BLOCKS_EVICTION');
    expect(steps(f!)).toContain(`kubectl get pdb -n 'x'\\''; touch PWNED; echo '\\''' 'x'\\''; touch PWNED; echo '\\''' -o yaml`);
  });
});
