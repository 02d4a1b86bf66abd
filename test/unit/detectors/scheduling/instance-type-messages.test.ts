import { describe, expect, it } from 'vitest';
import {
  parseInstanceTypeShortfall,
  parseTopologyConflict,
  typoHints,
  zonesOf,
} from '../../../../src/detectors/scheduling/instance-type-messages.ts';
import { parseKarpenterMessage } from '../../../../src/detectors/scheduling/scheduler-messages.ts';

const REQUIREMENTS =
  'karpenter.k8s.aws/instance-category In [c m r], karpenter.k8s.aws/instance-cpu Exists <=32, karpenter.sh/capacity-type In [on-demand spot], karpenter.sh/nodepool In [default], kubernetes.io/arch In [amd64], kubernetes.io/os In [linux]';

describe('parseInstanceTypeShortfall (the InstanceTypeFilterError family, v1.0–v1.14)', () => {
  // Every sentence nodeclaim.go's InstanceTypeFilterError.Error() writes (v1.3+), with requirements and resources.
  it.each([
    'no instance type met the scheduling requirements or had enough resources or had a required offering',
    'no instance type met the scheduling requirements or had enough resources',
    'no instance type met the scheduling requirements or had a required offering',
    'no instance type had enough resources or had a required offering',
    'no instance type met all requirements',
    'no instance type has enough resources',
    'no instance type has the required offering',
    'no instance type which met the scheduling requirements and had enough resources, had a required offering',
    'no instance type which had enough resources and the required offering met the scheduling requirements',
    'no instance type which met the scheduling requirements and the required offering had the required resources',
    'no instance type met the requirements/resources/offering tuple',
  ])('reads "%s, requirements=…, resources=…"', (reason) => {
    // Act
    const s = parseInstanceTypeShortfall(
      `${reason}, requirements=${REQUIREMENTS}, resources={"cpu":"96150m","memory":"4226Mi","pods":"4"}`,
    );

    // Assess
    expect(s?.reason).toBe(reason);
    expect(s?.requirements).toHaveLength(6);
    expect(s?.requirements[1]).toBe('karpenter.k8s.aws/instance-cpu Exists <=32');
    expect(s?.resources).toEqual({ cpu: '96150m', memory: '4226Mi', pods: '4' });
    expect(s?.minValues).toBe(false);
  });

  it('takes the larger bound of resources=min={…}, max={…} and keeps the m-vs-M hint out of the resources', () => {
    const s = parseInstanceTypeShortfall(
      `no instance type has enough resources, requirements=${REQUIREMENTS}, resources=min={"cpu":"96100m","pods":"3"}, max={"cpu":"96350m","pods":"5"}`,
    );
    expect(s?.resources).toEqual({ cpu: '96350m', pods: '5' });
  });

  it('reads the v1.0–v1.2 wording: resources and requirements inline, the reason in parentheses', () => {
    const s = parseInstanceTypeShortfall(
      `no instance type satisfied resources {"cpu":"96200m","memory":"4Gi","pods":"4"} and requirements ${REQUIREMENTS} (no instance type has enough resources)`,
      'default',
    );
    expect(s).toMatchObject({
      nodePool: 'default',
      reason: 'no instance type has enough resources',
      resources: { cpu: '96200m', memory: '4Gi', pods: '4' },
    });
    expect(s?.requirements).toContain('kubernetes.io/os In [linux]');
  });

  it.each([
    [
      'v1.3+, curly apostrophes',
      'pod didn’t schedule because NodePool couldn’t meet minValues requirements, minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family]), requirements=karpenter.k8s.aws/instance-family In [c5 m5] minValues 3, resources={"cpu":"1"} (NodePool=default)',
      'default',
    ],
    [
      'straight apostrophes',
      'pod didn\'t schedule because NodePool couldn\'t meet minValues requirements, minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family]), requirements=karpenter.k8s.aws/instance-family In [c5 m5] minValues 3, resources={"cpu":"1"}',
      undefined,
    ],
    [
      'v1.0, the NodePool quoted',
      'pod didn’t schedule because NodePool "batch" couldn’t meet minValues requirements, minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family])',
      'batch',
    ],
  ])('reads minValues (%s)', (_, message, pool) => {
    const s = parseInstanceTypeShortfall(message);
    expect(s?.minValues).toBe(true);
    expect(s?.minValuesLabels).toEqual(['karpenter.k8s.aws/instance-family']);
    expect(s?.nodePool).toBe(pool);
  });

  it('reads the scheduler having no NodePool left with instance types', () => {
    expect(parseInstanceTypeShortfall('nodepool requirements filtered out all available instance types')?.requirements).toEqual(
      [],
    );
  });

  it('leaves other errors alone', () => {
    expect(parseInstanceTypeShortfall('incompatible requirements, label "role" does not have known values')).toBeUndefined();
    expect(parseInstanceTypeShortfall('all available instance types exceed limits for nodepool "default"')).toBeUndefined();
  });
});

describe('parseKarpenterMessage: instance types and topology', () => {
  it('files the v1.0 "incompatible with nodepool" wrapper of an instance-type error as a shortfall of that NodePool', () => {
    const k = parseKarpenterMessage(
      `Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"200m","pods":"3"}, no instance type satisfied resources {"cpu":"96200m","pods":"4"} and requirements ${REQUIREMENTS} (no instance type has enough resources); incompatible with nodepool "system", daemonset overhead={}, did not tolerate CriticalAddonsOnly=true:NoSchedule`,
    );
    expect(k.instanceTypes.map((s) => s.nodePool)).toEqual(['default']);
    expect(k.incompatible.map((i) => i.nodePool)).toEqual(['system']);
  });

  it('files volume and zone conflicts as topology, with the zone the pod or volume needs', () => {
    const k = parseKarpenterMessage(
      'Failed to schedule pod, incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1c] not in topology.kubernetes.io/zone In [us-east-1a us-east-1b]',
    );
    expect(k.topology).toEqual([expect.objectContaining({ kind: 'volume', zones: ['us-east-1c'] })]);
    expect(k.other).toEqual([]);
  });
});

describe('parseTopologyConflict', () => {
  it.each([
    ['failed to validate pvc, storage class uses unsupported topology key (PersistentVolumeClaim=shop/data-db-0)', 'volume'],
    ['failed to validate pvc, pvc with immediate volume binding mode must be bound', 'volume'],
    ['persistentvolumeclaim bound to non-existent persistentvolume', 'volume'],
    [
      'unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = map[us-east-1a:3 us-east-1b:3], podDomains = topology.kubernetes.io/zone In [us-east-1a us-east-1b us-east-1c], nodeDomains = topology.kubernetes.io/zone In [us-east-1a us-east-1b]',
      'spread',
    ],
    [
      'incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1d] not in topology.kubernetes.io/zone In [us-east-1a us-east-1b]',
      'zone',
    ],
  ])('reads %s', (text, kind) => {
    expect(parseTopologyConflict(text)?.kind).toBe(kind);
  });

  it('is not a label conflict on another key', () => {
    expect(parseTopologyConflict('incompatible requirements, key role, role In [db] not in role In [web]')).toBeUndefined();
  });
});

describe('zonesOf and typoHints', () => {
  it('reads zone names and zone IDs, without Karpenter\'s "and N others"', () => {
    expect(zonesOf('topology.kubernetes.io/zone In [us-east-1a us-east-1b], topology.k8s.aws/zone-id In [use1-az1]')).toEqual([
      'us-east-1a',
      'us-east-1b',
      'use1-az1',
    ]);
    expect(zonesOf('topology.kubernetes.io/zone In [a b c d e and 2 others]')).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('reads "label %q does not have known values (typo of %q?)"', () => {
    expect(
      typoHints(
        'incompatible requirements, label "karpenter.k8s.aws/instance-famly" does not have known values (typo of "karpenter.k8s.aws/instance-family"?)',
      ),
    ).toEqual([{ label: 'karpenter.k8s.aws/instance-famly', suggestion: 'karpenter.k8s.aws/instance-family' }]);
  });
});
