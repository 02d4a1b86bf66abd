import { describe, expect, it } from 'vitest';
import { nodePoolNotReady } from '../../../../src/detectors/nodepool-not-ready/detector.ts';
import type { Condition, NodePool } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { autoModeNodePool, ec2NodeClass, nodePool } from '../../../factories/karpenter.ts';
import { T0, condition, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 60);
const FAILED_AT = minutesAfter(T0, 2);

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return nodePoolNotReady.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

/** NodePool conditions as karpenter core writes them, with the given ones replaced. */
function poolConditions(...changed: Condition[]): Condition[] {
  const byType = new Map(changed.map((c) => [c.type, c]));
  const subs = ['NodeClassReady', 'ValidationSucceeded'].map((t) => byType.get(t) ?? condition(t, 'True'));
  const unhealthy = subs.filter((c) => c.status !== 'True');
  const anyFalse = unhealthy.some((c) => c.status === 'False');
  const ready =
    byType.get('Ready') ??
    condition('Ready', anyFalse ? 'False' : 'Unknown', {
      reason: anyFalse ? 'UnhealthyDependents' : 'ReconcilingDependents',
      message: unhealthy.map((c) => `${c.type}=${c.status}`).join(', '),
      lastTransitionTime: FAILED_AT,
    });
  return [...subs, condition('NodeRegistrationHealthy', 'Unknown'), ready];
}

const amiNotFoundNodeClass = ec2NodeClass({
  name: 'default',
  amis: [],
  conditions: [
    condition('AMIsReady', 'False', { reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }),
    condition('SubnetsReady', 'True'),
    condition('SecurityGroupsReady', 'True'),
    condition('InstanceProfileReady', 'True'),
    condition('ValidationSucceeded', 'False', {
      reason: 'DependenciesNotReady',
      message: 'Awaiting AMI, Instance Profile, Security Group, and Subnet resolution',
    }),
    condition('Ready', 'False', { reason: 'UnhealthyDependents', message: 'AMIsReady=False, ValidationSucceeded=False' }),
  ],
});

describe('NODEPOOL_NOT_READY', () => {
  it('NODECLASS_NOT_FOUND: nodeClassRef names an EC2NodeClass absent from the capture', () => {
    // Prepare
    const np = nodePool({
      name: 'spot-pool',
      nodeClass: 'defualt',
      conditions: poolConditions(
        condition('NodeClassReady', 'False', { reason: 'NodeClassNotFound', message: 'NodeClass not found on cluster' }),
      ),
    });
    const snapshot = snapshotOf({ nodePools: [np], nodeClasses: [ec2NodeClass({ name: 'default' })] });

    // Act
    const findings = detect(snapshot);

    // Assess
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f).toMatchObject({
      code: 'NODEPOOL_NOT_READY',
      severity: 'warning',
      resource: { kind: 'NodePool', name: 'spot-pool' },
      since: FAILED_AT,
      cause: { code: 'NODECLASS_NOT_FOUND' },
      remediation: { status: 'manual' },
    });
    expect(f.cause?.detail).toContain('references EC2NodeClass defualt, which does not exist (existing: default)');
    expect(f.remediation?.steps).toContain(
      `# Point NodePool spot-pool at an existing EC2NodeClass\nkubectl patch nodepool spot-pool --type=merge -p '{"spec":{"template":{"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"}}}}}'`,
    );
  });

  it('NODECLASS_NOT_FOUND decided from the capture even if the condition is stale', () => {
    const np = nodePool({
      name: 'default',
      nodeClass: 'gone',
      conditions: poolConditions(
        condition('NodeClassReady', 'False', { reason: 'UnhealthyDependents', message: 'AMIsReady=False' }),
      ),
    });

    const [f] = detect(snapshotOf({ nodePools: [np], nodeClasses: [] }));

    expect(f?.cause?.code).toBe('NODECLASS_NOT_FOUND');
    expect(f?.cause?.detail).toContain('(existing: none)');
  });

  it("NODECLASS_NOT_FOUND from Karpenter's reason when EC2NodeClasses were not captured", () => {
    const np = nodePool({
      name: 'default',
      nodeClass: 'missing',
      conditions: poolConditions(
        condition('NodeClassReady', 'False', { reason: 'NodeClassNotFound', message: 'NodeClass not found on cluster' }),
      ),
    });

    const [f] = detect(snapshotOf({ nodePools: [np] }));

    expect(f?.cause?.code).toBe('NODECLASS_NOT_FOUND');
    expect(f?.cause?.detail).toContain('NodeClassReady=False (NodeClassNotFound: NodeClass not found on cluster)');
  });

  it('NODECLASS_NOT_READY names the chain NodePool → EC2NodeClass → AMI (seed 004 #7)', () => {
    const np = nodePool({
      name: 'default',
      conditions: poolConditions(
        condition('NodeClassReady', 'False', {
          reason: 'UnhealthyDependents',
          message: 'AMIsReady=False, ValidationSucceeded=False',
        }),
      ),
    });

    const [f] = detect(snapshotOf({ nodePools: [np], nodeClasses: [amiNotFoundNodeClass] }));

    expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
    expect(f?.cause?.detail).toContain(
      'NodePool default → EC2NodeClass default → AMIsReady=False (AMINotFound: AMISelector did not match any AMIs)',
    );
    expect(f?.evidence).toContain('EC2NodeClass default: AMIsReady=False (AMINotFound: AMISelector did not match any AMIs)');
    expect(f?.remediation?.steps).toContain('kubectl describe ec2nodeclass default');
  });

  it('NODECLASS_NOT_READY from the captured node class even before NodeClassReady caught up', () => {
    const np = nodePool({ name: 'default', conditions: poolConditions(condition('NodeClassReady', 'Unknown')) });

    const [f] = detect(snapshotOf({ nodePools: [np], nodeClasses: [amiNotFoundNodeClass] }));

    expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
  });

  it('NODECLASS_NOT_READY from the condition when EC2NodeClasses were not captured', () => {
    const np = nodePool({
      name: 'default',
      conditions: poolConditions(
        condition('NodeClassReady', 'False', { reason: 'NodeClassReadinessUnknown', message: 'Node Class Readiness Unknown' }),
      ),
    });

    const [f] = detect(snapshotOf({ nodePools: [np] }));

    expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
    expect(f?.cause?.detail).toContain('NodeClassReady=False (NodeClassReadinessUnknown: Node Class Readiness Unknown)');
  });

  it('VALIDATION_FAILED with v1beta1 leftovers (seed 004 #1) gives the v1 patches', () => {
    const base = nodePool({
      name: 'default',
      conditions: poolConditions(
        condition('ValidationSucceeded', 'False', {
          reason: 'NodePoolValidationFailed',
          message: 'invalid value: WhenUnderutilized: spec.disruption.consolidationPolicy',
        }),
      ),
    });
    const np: NodePool = {
      ...base,
      spec: {
        ...base.spec,
        template: { spec: { nodeClassRef: { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' } } },
        disruption: { consolidationPolicy: 'WhenUnderutilized', consolidateAfter: '30s' },
      },
    };

    const [f] = detect(snapshotOf({ nodePools: [np], nodeClasses: [ec2NodeClass({ name: 'default' })] }));

    expect(f?.cause?.code).toBe('VALIDATION_FAILED');
    expect(f?.cause?.detail).toContain('NodePoolValidationFailed: invalid value: WhenUnderutilized');
    const steps = f!.remediation!.steps;
    expect(steps).toContain(
      `kubectl patch nodepool default --type=merge -p '{"spec":{"template":{"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"}}}}}'`,
    );
    expect(steps).toContain(
      `kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized"}}}'`,
    );
  });

  it('UNKNOWN: Ready Unknown for minutes and nothing says why', () => {
    const np = nodePool({ name: 'default', conditions: poolConditions(condition('ValidationSucceeded', 'Unknown')) });

    const [f] = detect(snapshotOf({ nodePools: [np], nodeClasses: [ec2NodeClass({ name: 'default' })] }));

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.remediation?.steps).toContain('kubectl describe nodepool default');
  });

  it('a ready NodePool is no finding', () => {
    expect(
      detect(snapshotOf({ nodePools: [nodePool({ name: 'default' })], nodeClasses: [ec2NodeClass({ name: 'default' })] })),
    ).toEqual([]);
  });

  it('Ready=Unknown counts from 5 minutes after its transition, not before', () => {
    const np = nodePool({ name: 'default', conditions: poolConditions(condition('NodeClassReady', 'Unknown')) });
    const snapshot = snapshotOf({ nodePools: [np] });

    expect(detect(snapshot, minutesAfter(FAILED_AT, 4))).toEqual([]);
    expect(detect(snapshot, minutesAfter(FAILED_AT, 5))).toHaveLength(1);
  });

  it('a NodePool with no status is no finding while young, UNKNOWN later', () => {
    const np: NodePool = { ...nodePool({ name: 'fresh' }), status: {} };
    const snapshot = snapshotOf({ nodePools: [np] });

    expect(detect(snapshot, minutesAfter(T0, 1))).toEqual([]);
    expect(detect(snapshot, minutesAfter(T0, 6))[0]?.cause?.code).toBe('UNKNOWN');
  });

  it('a v1beta1 NodePool with status.resources and no conditions (Karpenter before v0.37) is reconciled: no finding', () => {
    const np: NodePool = {
      ...nodePool({ name: 'default' }),
      apiVersion: 'karpenter.sh/v1beta1',
      status: { resources: { cpu: '8', nodes: '2' } },
    };

    expect(detect(snapshotOf({ nodePools: [np] }), minutesAfter(T0, 60))).toEqual([]);
  });
});

describe('NODEPOOL_NOT_READY under EKS Auto Mode (NodePools reference eks.amazonaws.com NodeClasses)', () => {
  it('a Ready Auto Mode NodePool is no finding though no EC2NodeClass exists', () => {
    expect(detect(snapshotOf({ nodePools: [autoModeNodePool({ name: 'general-purpose' })], nodeClasses: [] }))).toEqual([]);
  });

  it('never NODECLASS_NOT_FOUND for lack of an EC2NodeClass: the NodePool condition says why it is not ready', () => {
    const pool = autoModeNodePool({
      name: 'general-purpose',
      conditions: poolConditions(
        condition('NodeClassReady', 'False', { reason: 'NodeClassNotReady', message: 'NodeClass not ready' }),
      ),
    });
    // A self-managed Karpenter's Ready EC2NodeClass of the same name is not the NodeClass this pool uses.
    const [f] = detect(snapshotOf({ nodePools: [pool], nodeClasses: [ec2NodeClass({ name: 'default' })] }));
    expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
    expect(f?.title).toBe('NodePool general-purpose is not ready: NodeClass default is not ready');
    expect(f?.remediation?.steps).toContain('kubectl describe nodeclasses.eks.amazonaws.com default');
  });

  it("NODECLASS_NOT_FOUND only when Karpenter says the NodeClass is missing, with Auto Mode's group in the patch", () => {
    const pool = autoModeNodePool({
      name: 'gpu',
      nodeClass: 'gpu',
      conditions: poolConditions(condition('NodeClassReady', 'False', { reason: 'NodeClassNotFound' })),
    });
    const [f] = detect(snapshotOf({ nodePools: [pool], nodeClasses: [] }));
    expect(f?.cause?.code).toBe('NODECLASS_NOT_FOUND');
    expect(f?.title).toBe('NodePool gpu is not ready: NodeClass gpu does not exist');
    expect(f?.remediation?.steps.join('\n')).toContain(
      '"nodeClassRef":{"group":"eks.amazonaws.com","kind":"NodeClass","name":"default"}',
    );
    expect(f?.remediation?.steps.join('\n')).not.toContain('ec2nodeclass');
  });
});
