import { describe, expect, it } from 'vitest';
import { podsPendingProlonged } from '../../../../src/detectors/pods-pending-prolonged/detector.ts';
import type { NodeSelectorRequirementWithMinValues, Pod } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { logLine, snapshotOf, subnet } from '../../../factories/aws.ts';
import { ec2NodeClass, nodePool } from '../../../factories/karpenter.ts';
import { T0, event, karpenterPod, minutesAfter, pod, type PodInput } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

/** NO_INSTANCE_TYPE_FITS and TOPOLOGY_UNSATISFIABLE: a NodePool matches, yet nothing Karpenter may launch takes the pods. */

const NOW = minutesAfter(T0, 30);
const CONTROLLER = karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'ip-10-59-127-151.ec2.internal' });
const HOSTILE = "x'; touch PWNED; echo '";
const QUOTED_HOSTILE = `'x'\\''; touch PWNED; echo '\\'''`;

function detect(snapshot: ClusterSnapshot) {
  return podsPendingProlonged.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  });
}

function workload(name: string, extra: Partial<PodInput> = {}): Pod {
  return pod({ name, namespace: 'shop', unschedulableMessage: '0/1 nodes are available: 1 Insufficient cpu.', ...extra });
}

function requesting(requests: Record<string, string>, extra: Partial<PodInput> = {}, name = 'train-1'): Pod {
  return workload(name, { ...extra, spec: { containers: [{ name: 'main', resources: { requests } }], ...extra.spec } });
}

function karpenterSays(p: Pod, message: string) {
  return event({
    kind: 'Pod',
    namespace: p.metadata?.namespace,
    name: p.metadata?.name ?? '',
    reason: 'FailedScheduling',
    source: 'karpenter',
    message,
    lastTime: minutesAfter(T0, 25),
  });
}

function poolEvent(pool: string, message: string) {
  return event({ kind: 'NodePool', name: pool, reason: 'NoCompatibleInstanceTypes', source: 'karpenter', message });
}

const CPU_LT_33: NodeSelectorRequirementWithMinValues = { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['33'] };
const REQS =
  'karpenter.k8s.aws/instance-cpu Exists <=32, karpenter.sh/capacity-type In [on-demand], karpenter.sh/nodepool In [default], kubernetes.io/arch In [amd64], kubernetes.io/os In [linux]';
const RESOURCES = '{"cpu":"96150m","memory":"4226Mi","pods":"4"}';

const TWO_ZONES = [
  { id: 'subnet-0a1b2c3d4e5f60001', zone: 'us-east-1a', zoneID: 'use1-az1' },
  { id: 'subnet-0a1b2c3d4e5f60002', zone: 'us-east-1b', zoneID: 'use1-az2' },
];

function cluster(pods: Pod[], extra: Parameters<typeof snapshotOf>[0] = {}): ClusterSnapshot {
  return snapshotOf({
    pods: [CONTROLLER, ...pods],
    nodePools: [nodePool({ name: 'default', requirements: [CPU_LT_33] })],
    nodeClasses: [ec2NodeClass({ name: 'default', subnets: TWO_ZONES })],
    events: [],
    ...extra,
  });
}

describe('PODS_PENDING_PROLONGED / NO_INSTANCE_TYPE_FITS', () => {
  it('quotes the requests, what Karpenter needed and the requirement that keeps every big enough type out', () => {
    // Prepare
    const p = requesting({ cpu: '96', memory: '4Gi' });
    const message = `Failed to schedule pod, no instance type has enough resources, requirements=${REQS}, resources=${RESOURCES}`;

    // Act
    const [f] = detect(cluster([p], { events: [karpenterSays(p, message)] }));

    // Assess
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.title).toContain('no instance type the NodePool allows fits them');
    expect(f?.cause?.detail).toContain('NodePool default matches these pods');
    expect(f?.cause?.detail).toContain('The pods request cpu 96, memory 4Gi');
    expect(f?.cause?.detail).toContain(RESOURCES);
    expect(f?.cause?.detail).toContain('karpenter.k8s.aws/instance-cpu Lt [33] allows at most 32 vCPUs; the pods request 96');
    expect(f?.evidence).toContain(`Karpenter's requirements: ${REQS}`);
    const steps = f?.remediation?.steps ?? [];
    expect(steps).toContain('kubectl get nodepool default -o yaml');
    expect(steps.join('\n')).toContain('# widen requirement karpenter.k8s.aws/instance-cpu Lt [33] of NodePool default');
    expect(steps.join('\n')).toContain('kubectl edit nodepool default');
    expect(steps.join('\n')).toContain("or lower the pods' requests (now cpu 96, memory 4Gi)");
  });

  it.each([
    `no instance type met the scheduling requirements or had enough resources, requirements=${REQS}, resources=${RESOURCES}`,
    `no instance type met the scheduling requirements or had enough resources or had a required offering, requirements=${REQS}, resources=${RESOURCES}`,
    `no instance type has the required offering, requirements=${REQS}, resources=${RESOURCES}`,
    `no instance type met the requirements/resources/offering tuple, requirements=${REQS}, resources=${RESOURCES}`,
    'nodepool requirements filtered out all available instance types',
    `incompatible with nodepool "default", daemonset overhead={"cpu":"150m","pods":"3"}, no instance type satisfied resources ${RESOURCES} and requirements ${REQS} (no instance type has enough resources)`,
  ])('reads Karpenter saying "%s"', (error) => {
    const p = requesting({ cpu: '96' });
    const [f] = detect(cluster([p], { events: [karpenterSays(p, `Failed to schedule pod, ${error}`)] }));
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
  });

  it('reads the controller log when the event has aged out', () => {
    const p = requesting({ cpu: '96' });
    const logs = [
      logLine({
        level: 'ERROR',
        message: 'could not schedule pod',
        Pod: { name: 'train-1', namespace: 'shop' },
        error: `no instance type has enough resources, requirements=${REQS}, resources=${RESOURCES}`,
      }),
    ];
    const [f] = detect(cluster([p], { logs }));
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.evidence.join('\n')).toContain('karpenter (log): no instance type has enough resources');
  });

  it('names the offering when the types fit but none is on offer', () => {
    const p = requesting({ cpu: '2' });
    const message = `Failed to schedule pod, no instance type has the required offering, requirements=${REQS}, resources={"cpu":"2150m"}`;
    const [f] = detect(cluster([p], { events: [karpenterSays(p, message)] }));
    expect(f?.remediation?.steps.join('\n')).toContain('kubectl get events -A --field-selector reason=InsufficientCapacityError');
  });

  it.each([
    ['curly', 'pod didn’t schedule because NodePool couldn’t meet minValues requirements'],
    ['straight', "pod didn't schedule because NodePool couldn't meet minValues requirements"],
  ])('minValues (%s apostrophes): the requirement with minValues and the BestEffort policy', (_, lead) => {
    // Prepare
    const family: NodeSelectorRequirementWithMinValues = {
      key: 'karpenter.k8s.aws/instance-family',
      operator: 'In',
      values: ['c5', 'm5'],
      minValues: 3,
    };
    const p = requesting({ cpu: '1' });
    const message = `Failed to schedule pod, ${lead}, minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family]), requirements=karpenter.k8s.aws/instance-family In [c5 m5] minValues 3, resources={"cpu":"1150m"} (NodePool=default)`;

    // Act
    const [f] = detect(
      cluster([p], {
        nodePools: [nodePool({ name: 'default', requirements: [family] })],
        events: [karpenterSays(p, message)],
      }),
    );

    // Assess
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.cause?.detail).toContain('minValues not met by karpenter.k8s.aws/instance-family In [c5 m5] minValues 3');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain('MIN_VALUES_POLICY=BestEffort');
    expect(steps).toContain(
      'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n karpenter --reuse-values --set settings.minValuesPolicy=BestEffort',
    );
  });

  it("from the NodePool's NoCompatibleInstanceTypes event alone (minValues variant)", () => {
    const p = requesting({ cpu: '1' });
    const events = [
      poolEvent(
        'default',
        'NodePool requirements filtered out all compatible available instance types due to minValues incompatibility',
      ),
    ];
    const [f] = detect(cluster([p], { events }));
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    expect(f?.evidence).toContain(
      'NodePool default (event NoCompatibleInstanceTypes): NodePool requirements filtered out all compatible available instance types due to minValues incompatibility',
    );
    expect(f?.remediation?.steps.join('\n')).toContain('settings.minValuesPolicy=BestEffort');
  });

  it('is not claimed when another Ready NodePool has no NoCompatibleInstanceTypes event', () => {
    const p = requesting({ cpu: '1' });
    const [f] = detect(
      cluster([p], {
        nodePools: [nodePool({ name: 'default' }), nodePool({ name: 'spare' })],
        events: [poolEvent('default', 'NodePool requirements filtered out all compatible available instance types')],
      }),
    );
    expect(f?.cause?.code).toBe('UNKNOWN');
  });

  it('a GPU pod against a NodePool of c, m and r: no NVIDIA GPU instance is allowed', () => {
    const category: NodeSelectorRequirementWithMinValues = {
      key: 'karpenter.k8s.aws/instance-category',
      operator: 'In',
      values: ['c', 'm', 'r'],
    };
    const p = requesting({ cpu: '4', memory: '16Gi', 'nvidia.com/gpu': '1' });
    const [f] = detect(
      cluster([p], {
        nodePools: [nodePool({ name: 'default', requirements: [category] })],
        events: [
          karpenterSays(
            p,
            `Failed to schedule pod, no instance type met the scheduling requirements or had enough resources, requirements=${REQS}, resources={"cpu":"4150m","memory":"16Gi","nvidia.com/gpu":"1"}`,
          ),
        ],
      }),
    );
    expect(f?.cause?.detail).toContain(
      'karpenter.k8s.aws/instance-category In [c m r] allows no NVIDIA GPU instance (categories g, p); the pods request nvidia.com/gpu 1',
    );
  });

  it('counts requests as the scheduler does: the largest init container beats the sum of app containers', () => {
    const p = workload('migrate-1', {
      spec: {
        containers: [
          { name: 'app', resources: { requests: { cpu: '2' } } },
          { name: 'sidecar', resources: { requests: { cpu: '500m' } } },
        ],
        initContainers: [{ name: 'warm-cache', resources: { requests: { cpu: '40' } } }],
      },
    });
    const [f] = detect(
      cluster([p], {
        events: [karpenterSays(p, 'Failed to schedule pod, nodepool requirements filtered out all available instance types')],
      }),
    );
    expect(f?.cause?.detail).toContain('The pods request cpu 40');
    expect(f?.cause?.detail).toContain('allows at most 32 vCPUs; the pods request 40');
  });

  it('a typo in a NodePool label key, and the hint Karpenter gives', () => {
    const typo: NodeSelectorRequirementWithMinValues = {
      key: 'karpenter.k8s.aws/instance-famly',
      operator: 'In',
      values: ['c7i'],
    };
    const p = requesting({ cpu: '1' });
    const [f] = detect(
      cluster([p], {
        nodePools: [nodePool({ name: 'default', requirements: [typo] })],
        events: [
          poolEvent('default', 'NodePool requirements filtered out all compatible available instance types'),
          karpenterSays(
            p,
            'Failed to schedule pod, nodepool requirements filtered out all available instance types; incompatible requirements, label "karpenter.k8s.aws/instance-famly" does not have known values (typo of "karpenter.k8s.aws/instance-family"?)',
          ),
        ],
      }),
    );
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain(
      '# fix the label key karpenter.k8s.aws/instance-famly of NodePool default: did you mean karpenter.k8s.aws/instance-family?',
    );
  });

  it('quotes hostile NodePool and pod names in every step', () => {
    const p = requesting({ cpu: '96' }, {}, HOSTILE);
    const [f] = detect(
      cluster([p], {
        nodePools: [nodePool({ name: HOSTILE, requirements: [CPU_LT_33] })],
        events: [
          karpenterSays(
            p,
            `Failed to schedule pod, no instance type has enough resources, requirements=${REQS}, resources=${RESOURCES}`,
          ),
        ],
      }),
    );
    const steps = f?.remediation?.steps ?? [];
    expect(steps).toContain(`kubectl get nodepool ${QUOTED_HOSTILE} -o yaml`);
    expect(steps.join('\n')).toContain(`kubectl edit nodepool ${QUOTED_HOSTILE}`);
    expect(steps.join('\n')).toContain(`kubectl get pod -n shop ${QUOTED_HOSTILE} -o jsonpath=`);
    for (const s of steps)
      expect(
        s
          .split('\n')
          .filter((l) => !l.startsWith('#'))
          .join('\n'),
      ).not.toMatch(/[^']x'; touch/);
  });

  it('without NodePools in the capture, still reads Karpenter saying no instance type fits', () => {
    const p = requesting({ cpu: '96' });
    const [f] = detect(
      snapshotOf({
        pods: [CONTROLLER, p],
        events: [
          karpenterSays(
            p,
            `Failed to schedule pod, no instance type has enough resources, requirements=${REQS}, resources=${RESOURCES}`,
          ),
        ],
      }),
    );
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
  });

  describe('precedence: earlier causes win', () => {
    it('NODEPOOL_LIMIT_REACHED when Karpenter also names a limit', () => {
      const p = requesting({ cpu: '96' });
      const message = `Failed to schedule pod, all available instance types exceed limits for nodepool "default"; no instance type has enough resources, requirements=${REQS}, resources=${RESOURCES}`;
      const [f] = detect(cluster([p], { events: [karpenterSays(p, message)] }));
      expect(f?.cause?.code).toBe('NODEPOOL_LIMIT_REACHED');
    });

    it('NO_NODEPOOL_MATCH when no NodePool defines the label the pods select, whatever the NodePool events say', () => {
      const p = requesting({ cpu: '1' }, { spec: { nodeSelector: { role: 'gpu' } } });
      const [f] = detect(
        cluster([p], {
          events: [poolEvent('default', 'NodePool requirements filtered out all compatible available instance types')],
        }),
      );
      expect(f?.cause?.code).toBe('NO_NODEPOOL_MATCH');
    });

    it('NODECLASS_NOT_READY when Karpenter says the NodeClass is not ready', () => {
      const p = requesting({ cpu: '96' });
      const message = `Failed to schedule pod, NodeClass is not ready; no instance type has enough resources, requirements=${REQS}, resources=${RESOURCES}`;
      const [f] = detect(cluster([p], { events: [karpenterSays(p, message)] }));
      expect(f?.cause?.code).toBe('NODECLASS_NOT_READY');
    });
  });
});

describe('PODS_PENDING_PROLONGED / TOPOLOGY_UNSATISFIABLE', () => {
  const VOLUME_MESSAGE =
    'Failed to schedule pod, incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1c] not in topology.kubernetes.io/zone In [us-east-1a us-east-1b]';

  function statefulPod(name = 'postgres-0'): Pod {
    return workload(name, {
      ownerKind: 'StatefulSet',
      unschedulableMessage: '0/3 nodes are available: 3 node(s) had volume node affinity conflict.',
      spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `data-${name}` } }] },
    });
  }

  it('a volume in us-east-1c, subnets in 1a and 1b: names the zone, the coverage and the subnet to tag', () => {
    // Prepare
    const p = statefulPod();

    // Act
    const [f] = detect(cluster([p], { nodePools: [nodePool({ name: 'default' })], events: [karpenterSays(p, VOLUME_MESSAGE)] }));

    // Assess
    expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
    expect(f?.title).toContain('no NodePool reaches the zone they need');
    expect(f?.cause?.detail).toContain('These pods need zone us-east-1c (their volume is there)');
    expect(f?.cause?.detail).toContain(
      'NodePool default → EC2NodeClass default → us-east-1a/use1-az1 (subnet-0a1b2c3d4e5f60001), us-east-1b/use1-az2 (subnet-0a1b2c3d4e5f60002)',
    );
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain("kubectl get ec2nodeclass default -o jsonpath='{range .status.subnets[*]}");
    expect(steps).toContain(
      "SUBNET_ID=$(aws ec2 describe-subnets --filters Name=availability-zone,Values=us-east-1c --query 'Subnets[0].SubnetId' --output text)",
    );
    expect(steps).toContain('aws ec2 create-tags --resources "$SUBNET_ID" --tags Key=karpenter.sh/discovery,Value=demo');
    expect(steps).toContain('kubectl get pvc -n shop data-postgres-0');
    expect(steps).toContain('WaitForFirstConsumer');
  });

  it('narrows the subnet search to the VPC describe-subnets reported', () => {
    const p = statefulPod();
    const [f] = detect(
      cluster([p], {
        events: [karpenterSays(p, VOLUME_MESSAGE)],
        subnets: [subnet({ id: 'subnet-0a1b2c3d4e5f60001', zone: 'us-east-1a' })],
      }),
    );
    expect(f?.remediation?.steps.join('\n')).toContain('Name=vpc-id,Values=vpc-0a1b2c3d4e5f60001');
  });

  it.each([
    'Failed to schedule pod, failed to validate pvc, storage class uses unsupported topology key (PersistentVolumeClaim=shop/data-postgres-0, StorageClass=gp3)',
    'Failed to schedule pod, persistentvolumeclaim bound to non-existent persistentvolume (PersistentVolumeClaim=shop/data-postgres-0, PersistentVolume=pvc-1)',
  ])('reads the volume topology error "%s"', (message) => {
    const p = statefulPod();
    const [f] = detect(cluster([p], { events: [karpenterSays(p, message)] }));
    expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
    expect(f?.cause?.detail).toContain('A volume-topology requirement of these pods is one no NodePool can meet');
  });

  it("a zone in Karpenter's requirements that no subnet is in is the zone, not the instance types", () => {
    const p = requesting({ cpu: '1' }, { spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1d' } } });
    const message = `Failed to schedule pod, no instance type met the scheduling requirements or had a required offering, requirements=karpenter.sh/capacity-type In [on-demand], topology.kubernetes.io/zone In [us-east-1d], resources={"cpu":"1150m"}`;
    const [f] = detect(cluster([p], { nodePools: [nodePool({ name: 'default' })], events: [karpenterSays(p, message)] }));
    expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
    expect(f?.cause?.detail).toContain('zone us-east-1d');
  });

  it('the same message stays NO_INSTANCE_TYPE_FITS when a subnet is in that zone', () => {
    const p = requesting({ cpu: '1' });
    const message = `Failed to schedule pod, no instance type has the required offering, requirements=topology.kubernetes.io/zone In [us-east-1a], resources={"cpu":"1150m"}`;
    const [f] = detect(cluster([p], { nodePools: [nodePool({ name: 'default' })], events: [karpenterSays(p, message)] }));
    expect(f?.cause?.code).toBe('NO_INSTANCE_TYPE_FITS');
  });

  it('Karpenter: unsatisfiable topology spread; steps relax the constraint', () => {
    const p = workload('web-4', {
      spec: {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 3 },
        ],
      },
    });
    const message =
      'Failed to schedule pod, unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = map[us-east-1a:2 us-east-1b:2], podDomains = topology.kubernetes.io/zone Exists, nodeDomains = topology.kubernetes.io/zone In [us-east-1a us-east-1b]';
    const [f] = detect(cluster([p], { nodePools: [nodePool({ name: 'default' })], events: [karpenterSays(p, message)] }));
    expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
    expect(f?.remediation?.steps.join('\n')).toContain('whenUnsatisfiable: ScheduleAnyway');
    expect(f?.remediation?.steps.join('\n')).toContain(
      "kubectl get pod -n shop web-4 -o jsonpath='{.spec.topologySpreadConstraints}'",
    );
  });

  it.each([
    ["0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints.", 'ScheduleAnyway'],
    ['0/3 nodes are available: 3 node(s) had volume node affinity conflict.', 'WaitForFirstConsumer'],
  ])('kube-scheduler alone (%s)', (message, step) => {
    const p = workload('db-1', { unschedulableMessage: message });
    const [f] = detect(cluster([p], { nodePools: [nodePool({ name: 'default' })] }));
    expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
    expect(f?.cause?.detail).toContain('kube-scheduler');
    expect(f?.remediation?.steps.join('\n')).toContain(step);
  });

  describe('zone coverage without any message', () => {
    it('a nodeSelector on a zone no EC2NodeClass subnet is in', () => {
      const p = workload('web-1', { spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1c' } } });
      const [f] = detect(cluster([p], { nodePools: [nodePool({ name: 'default' })] }));
      expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
      expect(f?.cause?.detail).toContain(
        'These pods need zone us-east-1c (their nodeSelector or required node affinity says so)',
      );
      expect(f?.remediation?.steps.join('\n')).toContain(
        'change their nodeSelector / required node affinity on topology.kubernetes.io/zone',
      );
    });

    it('required node affinity on a zone ID, the zone IDs from describe-subnets', () => {
      const p = workload('web-1', {
        spec: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'topology.k8s.aws/zone-id', operator: 'In', values: ['use1-az3'] }] },
                ],
              },
            },
          },
        },
      });
      const nodeClass = ec2NodeClass({ name: 'default', subnets: TWO_ZONES.map(({ id, zone }) => ({ id, zone })) });
      const [f] = detect(
        cluster([p], {
          nodePools: [nodePool({ name: 'default' })],
          nodeClasses: [nodeClass],
          subnets: [
            subnet({ id: 'subnet-0a1b2c3d4e5f60001', zone: 'us-east-1a' }),
            subnet({ id: 'subnet-0a1b2c3d4e5f60002', zone: 'us-east-1b' }),
          ],
        }),
      );
      expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
      expect(f?.cause?.detail).toContain('zone ID use1-az3');
      expect(f?.remediation?.steps.join('\n')).toContain('Name=availability-zone-id,Values=use1-az3');
    });

    it('is no cause when a subnet is in the zone, or when the subnets are unknown', () => {
      const inZone = workload('web-1', { spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1a' } } });
      expect(detect(cluster([inZone], { nodePools: [nodePool({ name: 'default' })] }))[0]?.cause?.code).toBe('UNKNOWN');
      const elsewhere = workload('web-2', { spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1c' } } });
      const unknown = cluster([elsewhere], {
        nodePools: [nodePool({ name: 'default' })],
        nodeClasses: [ec2NodeClass({ name: 'default' })],
      });
      expect(detect(unknown)[0]?.cause?.code).toBe('UNKNOWN');
    });

    it("the NodePool's own zone requirement leaves the zone out: widen it", () => {
      const zones: NodeSelectorRequirementWithMinValues = {
        key: 'topology.kubernetes.io/zone',
        operator: 'In',
        values: ['us-east-1a'],
      };
      const p = workload('web-1', { spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1b' } } });
      const [f] = detect(cluster([p], { nodePools: [nodePool({ name: 'default', requirements: [zones] })] }));
      expect(f?.cause?.code).toBe('TOPOLOGY_UNSATISFIABLE');
      expect(f?.cause?.detail).toContain('NodePool default (topology.kubernetes.io/zone In [us-east-1a]) → EC2NodeClass default');
      expect(f?.remediation?.steps.join('\n')).toContain(
        '# add us-east-1b to requirement topology.kubernetes.io/zone In [us-east-1a] of NodePool default',
      );
    });

    it('stays NO_NODEPOOL_MATCH when a label other than the zone does not match', () => {
      const p = workload('web-1', { spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1c', role: 'db' } } });
      expect(detect(cluster([p], { nodePools: [nodePool({ name: 'default' })] }))[0]?.cause?.code).toBe('NO_NODEPOOL_MATCH');
    });
  });

  it('quotes hostile EC2NodeClass names and selector tags', () => {
    const p = statefulPod();
    const nodeClass = ec2NodeClass({
      name: HOSTILE,
      subnets: TWO_ZONES,
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': "$(reboot)'" } }],
    });
    const [f] = detect(
      cluster([p], {
        nodePools: [nodePool({ name: 'default', nodeClass: HOSTILE })],
        nodeClasses: [nodeClass],
        events: [karpenterSays(p, VOLUME_MESSAGE)],
      }),
    );
    const steps = f?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain(`kubectl get ec2nodeclass ${QUOTED_HOSTILE} -o jsonpath=`);
    expect(steps).toContain(`--tags 'Key=karpenter.sh/discovery,Value=$(reboot)'\\'''`);
  });
});
