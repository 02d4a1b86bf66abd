import { describe, expect, it } from 'vitest';
import { orphanedInstance } from '../../../../src/detectors/orphaned-instance/detector.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION, type DetectionSettings } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';
import { cluster, forgedInstance, instance, karpenterSnapshotOf } from '../../../factories/aws.ts';
import { autoModeNodePool, nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, karpenterDeployment, karpenterPod, minutesAfter, pod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 60);
/** Launched exactly at the default 10-minute grace. */
const AT_GRACE = minutesAfter(NOW, -10);

function detect(snapshot: ClusterSnapshot, settings: DetectionSettings = DEFAULT_DETECTION) {
  return orphanedInstance.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings,
    now: new Date(NOW),
  });
}

const readyController = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'ip-10-59-127-151.ec2.internal' });
const claimed = nodeClaim({ name: 'default-kb85v', instanceId: 'i-01d1ff6c07a0e70f9' });

describe('ORPHANED_INSTANCE', () => {
  it('NO_NODECLAIM: a Karpenter instance of this cluster that no NodeClaim points to, controller running', () => {
    // Prepare
    const snapshot = karpenterSnapshotOf({
      instances: [
        instance({ id: 'i-01d1ff6c07a0e70f9' }),
        instance({ id: 'i-0bbbbbbbbbbbbbbb1', tags: { 'karpenter.sh/nodeclaim': 'default-zz9' } }),
      ],
      nodeClaims: [claimed],
      pods: [readyController],
      cluster: cluster(),
    });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      code: 'ORPHANED_INSTANCE',
      severity: 'warning',
      resource: { kind: 'Instance', id: 'i-0bbbbbbbbbbbbbbb1' },
      since: T0,
      cause: { code: 'NO_NODECLAIM' },
      remediation: {
        action: 'TERMINATE_INSTANCE',
        status: 'planned',
        steps: ['aws ec2 terminate-instances --instance-ids i-0bbbbbbbbbbbbbbb1 --region us-east-1'],
      },
    });
    expect(findings[0]?.evidence.join('\n')).toContain('karpenter.sh/nodeclaim=default-zz9');
  });

  it('never calls an instance an orphan on its forgeable tags alone; the real orphan next to it says what proves it', () => {
    // Prepare: prod-postgres-primary carries only eks:eks-cluster-name and karpenter.sh/nodepool (issue 11).
    const snapshot = karpenterSnapshotOf({
      instances: [forgedInstance('i-0f00d5ba5e0b1e7a2'), instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      nodeClaims: [],
      pods: [],
    });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings.map((f) => f.resource.id)).toEqual(['i-0aaaaaaaaaaaaaaa1']);
    expect(findings[0]?.evidence).toContainEqual(
      expect.stringMatching(
        /^provenance \(launch-template\): launched by fleet-\S+ from Karpenter's launch template lt-0d3e9a7c1b5f28e46 .* of cluster demo$/,
      ),
    );
  });

  it('without launch templates captured, proves no instance and so finds no orphan (they are reported as unproven)', () => {
    const snapshot = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })], nodeClaims: [], pods: [] });
    snapshot.captured.delete('launchtemplates');
    snapshot.launchTemplates = [];

    expect(detect(snapshot)).toEqual([]);
  });

  it('CONTROLLER_UNAVAILABLE: pods captured and no Karpenter controller pod exists (terraform destroy, seed 003)', () => {
    const snapshot = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })], nodeClaims: [], pods: [] });

    const [f] = detect(snapshot);

    expect(f?.cause?.code).toBe('CONTROLLER_UNAVAILABLE');
    expect(f?.evidence).toContain('Karpenter controller: no pod labelled app.kubernetes.io/name=karpenter exists');
    expect(f?.remediation?.steps).toEqual(['aws ec2 terminate-instances --instance-ids i-0aaaaaaaaaaaaaaa1']);
  });

  it('CONTROLLER_UNAVAILABLE: controller pods exist but none is Ready', () => {
    const pending = karpenterPod({ name: 'karpenter-5697769d6c-7lglp' });
    const snapshot = karpenterSnapshotOf({
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      nodeClaims: [],
      pods: [pending],
    });

    expect(detect(snapshot)[0]?.cause?.code).toBe('CONTROLLER_UNAVAILABLE');
  });

  it('CLUSTER_GONE: describe-cluster says the cluster no longer exists, or is DELETING', () => {
    const orphan = instance({ id: 'i-0aaaaaaaaaaaaaaa1' });

    const gone = detect(karpenterSnapshotOf({ instances: [orphan], nodeClaims: [], pods: [], cluster: cluster({ gone: true }) }));
    const deleting = detect(
      karpenterSnapshotOf({ instances: [orphan], nodeClaims: [], cluster: cluster({ status: 'DELETING' }) }),
    );

    expect(gone[0]?.cause?.code).toBe('CLUSTER_GONE');
    expect(deleting[0]?.cause?.code).toBe('CLUSTER_GONE');
  });

  it('the kubernetes.io/cluster/<name>=owned tag form counts as this cluster', () => {
    const owned = instance({ id: 'i-0ccccccccccccccc1', cluster: null, tags: { 'kubernetes.io/cluster/demo': 'owned' } });
    const shared = instance({ id: 'i-0ccccccccccccccc2', cluster: null, tags: { 'kubernetes.io/cluster/demo': 'shared' } });

    const findings = detect(karpenterSnapshotOf({ instances: [owned, shared], nodeClaims: [], pods: [readyController] }));

    expect(findings.map((f) => f.resource.id)).toEqual(['i-0ccccccccccccccc1']);
  });

  it("ignores other clusters' instances, node-group instances and instances without a NodePool tag", () => {
    const snapshot = karpenterSnapshotOf({
      instances: [
        instance({ id: 'i-0ddddddddddddddd1', cluster: 'other-cluster' }),
        instance({ id: 'i-0ddddddddddddddd2', nodePool: null, nodeGroup: 'system' }),
        instance({ id: 'i-0ddddddddddddddd3', nodePool: null }),
        instance({ id: 'i-0ddddddddddddddd4', nodeGroup: 'system' }),
      ],
      nodeClaims: [],
      pods: [readyController],
    });

    expect(detect(snapshot)).toEqual([]);
  });

  it('ignores pending, shutting-down and terminated instances; a stopped one still counts', () => {
    const snapshot = karpenterSnapshotOf({
      instances: ['pending', 'shutting-down', 'terminated', 'stopped', 'stopping'].map((state, i) =>
        instance({ id: `i-0eeeeeeeeeeeeee${i}`, state }),
      ),
      nodeClaims: [],
      pods: [readyController],
    });

    expect(detect(snapshot).map((f) => f.resource.id)).toEqual(['i-0eeeeeeeeeeeeee3', 'i-0eeeeeeeeeeeeee4']);
  });

  it('grace boundary: launched exactly the grace ago is a finding, one minute younger is not', () => {
    const atGrace = instance({ id: 'i-0fffffffffffffff1', launchTime: AT_GRACE });
    const younger = instance({ id: 'i-0fffffffffffffff2', launchTime: minutesAfter(AT_GRACE, 1) });

    const findings = detect(karpenterSnapshotOf({ instances: [atGrace, younger], nodeClaims: [], pods: [readyController] }));

    expect(findings.map((f) => f.resource.id)).toEqual(['i-0fffffffffffffff1']);
    expect(findings[0]?.since).toBe(AT_GRACE);
  });

  it('honours a configured grace period', () => {
    const snapshot = karpenterSnapshotOf({
      instances: [instance({ id: 'i-0fffffffffffffff1', launchTime: AT_GRACE })],
      nodeClaims: [],
    });

    expect(detect(snapshot, { ...DEFAULT_DETECTION, orphanGraceMs: 15 * 60_000 })).toEqual([]);
  });

  it('an instance whose own NodeClaim exists but has no providerID yet is being bound, not orphaned', () => {
    const binding = nodeClaim({ name: 'default-njzpq', conditions: [] });
    const snapshot = karpenterSnapshotOf({
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1', tags: { 'karpenter.sh/nodeclaim': 'default-njzpq' } })],
      nodeClaims: [binding],
      pods: [readyController],
    });

    expect(detect(snapshot)).toEqual([]);
  });

  it('an instance without a launch time is not judged', () => {
    const noLaunch = { ...instance({ id: 'i-0aaaaaaaaaaaaaaa1' }), launchTime: undefined };

    expect(detect(karpenterSnapshotOf({ instances: [noLaunch], nodeClaims: [] }))).toEqual([]);
  });

  it('one finding per orphan, each with its own id', () => {
    const snapshot = karpenterSnapshotOf({
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' }), instance({ id: 'i-0aaaaaaaaaaaaaaa2' })],
      nodeClaims: [],
      pods: [readyController],
    });

    const findings = detect(snapshot);

    expect(findings).toHaveLength(2);
    expect(new Set(findings.map((f) => f.id)).size).toBe(2);
  });
});

describe('ORPHANED_INSTANCE on real clusters', () => {
  const coredns = pod({ name: 'coredns-6b9575c64c-4xk2p', namespace: 'kube-system', nodeName: 'ip-10-59-127-151.ec2.internal' });

  it('a stopping instance counts like a stopped one; shutting-down does not', () => {
    const snapshot = karpenterSnapshotOf({
      instances: [
        instance({ id: 'i-0aaaaaaaaaaaaaaa1', state: 'stopping' }),
        instance({ id: 'i-0aaaaaaaaaaaaaaa2', state: 'shutting-down' }),
      ],
      nodeClaims: [],
      pods: [readyController],
    });
    expect(detect(snapshot).map((f) => f.resource.id)).toEqual(['i-0aaaaaaaaaaaaaaa1']);
  });

  it('never an instance of an Auto Scaling group (self-managed node group), whatever its other tags', () => {
    const asg = instance({ id: 'i-0aaaaaaaaaaaaaaa1', tags: { 'aws:autoscaling:groupName': 'demo-system-ng' } });
    expect(detect(karpenterSnapshotOf({ instances: [asg], nodeClaims: [], pods: [readyController] }))).toEqual([]);
  });

  it('never an instance whose eks:eks-cluster-name names another cluster, even with kubernetes.io/cluster/<this>=owned', () => {
    const contradictory = instance({
      id: 'i-0aaaaaaaaaaaaaaa1',
      cluster: 'prod',
      tags: { 'kubernetes.io/cluster/demo': 'owned' },
    });
    const shared = instance({ id: 'i-0aaaaaaaaaaaaaaa2', cluster: null, tags: { 'kubernetes.io/cluster/demo': 'shared' } });
    expect(detect(karpenterSnapshotOf({ instances: [contradictory, shared], nodeClaims: [], pods: [readyController] }))).toEqual(
      [],
    );
  });

  it('an instance without a karpenter.sh/nodeclaim tag is not judged while a NodeClaim of its NodePool awaits its providerID', () => {
    const binding = nodeClaim({ name: 'default-njzpq', nodePool: 'default', conditions: [] });
    const untagged = instance({ id: 'i-0aaaaaaaaaaaaaaa1', nodePool: 'default' });
    delete untagged.tags['karpenter.sh/nodeclaim'];
    const snapshot = karpenterSnapshotOf({
      instances: [untagged, instance({ id: 'i-0aaaaaaaaaaaaaaa2', nodePool: 'spot' })],
      nodeClaims: [binding],
      pods: [readyController],
    });
    expect(detect(snapshot).map((f) => f.resource.id)).toEqual(['i-0aaaaaaaaaaaaaaa2']);
  });

  it('scaled to 0: CONTROLLER_UNAVAILABLE says the Deployment is scaled down', () => {
    const snapshot = karpenterSnapshotOf({
      instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })],
      nodeClaims: [],
      pods: [coredns],
      deployments: [karpenterDeployment({ replicas: 0 })],
    });
    const [f] = detect(snapshot);
    expect(f?.cause?.code).toBe('CONTROLLER_UNAVAILABLE');
    expect(f?.evidence).toContain('Karpenter controller: Deployment karpenter/karpenter is scaled to 0 replicas');
  });

  it('a capture of other namespaces only does not say the controller is gone', () => {
    const web = pod({ name: 'web-1', namespace: 'shop', nodeName: 'ip-10-59-127-151.ec2.internal' });
    const [f] = detect(
      karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })], nodeClaims: [], pods: [web] }),
    );
    expect(f?.cause?.code).toBe('NO_NODECLAIM');
  });

  describe('EKS Auto Mode', () => {
    it("never proposes to terminate Auto Mode's own instances (eks:kubernetes-node-pool-name) or those of its NodePools", () => {
      const managed = instance({
        id: 'i-0aaaaaaaaaaaaaaa1',
        nodePool: 'general-purpose',
        tags: { 'eks:kubernetes-node-pool-name': 'general-purpose' },
      });
      const ofAutoPool = instance({ id: 'i-0aaaaaaaaaaaaaaa2', nodePool: 'general-purpose' });
      const snapshot = karpenterSnapshotOf({
        instances: [managed, ofAutoPool],
        nodeClaims: [],
        nodePools: [autoModeNodePool({ name: 'general-purpose' })],
        pods: [],
        cluster: cluster({ autoMode: true }),
      });
      expect(detect(snapshot)).toEqual([]);
    });

    it('a self-managed leftover in an Auto Mode cluster is NO_NODECLAIM, not CONTROLLER_UNAVAILABLE', () => {
      const snapshot = karpenterSnapshotOf({
        instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1', nodePool: 'default' })],
        nodeClaims: [],
        nodePools: [autoModeNodePool({ name: 'general-purpose' }), nodePool({ name: 'default' })],
        pods: [],
        cluster: cluster({ autoMode: true }),
      });
      const [f] = detect(snapshot);
      expect(f?.cause?.code).toBe('NO_NODECLAIM');
      expect(f?.cause?.detail).toContain('EKS Auto Mode');
    });
  });
});

describe('ORPHANED_INSTANCE through analyze()', () => {
  const options = { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(NOW) };

  it('instances without NodeClaims: a gap, complete:false, no orphan and nothing to terminate', () => {
    const snapshot = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })], cluster: cluster() });

    const report = analyze(snapshot, options);

    expect(report.complete).toBe(false);
    expect(report.gaps.map((g) => g.source)).toContain('nodeclaims');
    expect(report.findings.filter((f) => f.code === 'ORPHANED_INSTANCE')).toEqual([]);
    expect(report.findings.some((f) => f.remediation?.action === 'TERMINATE_INSTANCE')).toBe(false);
  });

  it('with NodeClaims captured (none exist) the orphan is found and its termination planned', () => {
    const snapshot = karpenterSnapshotOf({ instances: [instance({ id: 'i-0aaaaaaaaaaaaaaa1' })], nodeClaims: [] });

    const report = analyze(snapshot, options);

    const orphan = report.findings.find((f) => f.code === 'ORPHANED_INSTANCE');
    expect(orphan?.resource).toEqual({ kind: 'Instance', id: 'i-0aaaaaaaaaaaaaaa1' });
    expect(orphan?.remediation).toMatchObject({ action: 'TERMINATE_INSTANCE', status: 'planned' });
  });
});
