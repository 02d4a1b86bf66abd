/**
 * What the healthy part of the cluster holds for the second wave's detectors to read through:
 * PodDisruptionBudgets that allow disruptions, VolumeAttachments of EBS volumes, and the subnets
 * the EC2NodeClasses launch into as `aws ec2 describe-subnets` lists them (one of them nearly full).
 */
import type { Subnet } from '../../src/domain/aws.ts';
import type { Deployment, PodDisruptionBudget, VolumeAttachment } from '../../src/domain/kube.ts';
import { DAY, condition, iso, type Generation } from './context.ts';
import type { Fleet } from './fleet.ts';

/** Free addresses left in the nearly full subnet: under 16, so a node cannot get a /28 prefix. */
export const LOW_SUBNET_FREE = 9;

/** One PDB per `deploymentsPerPdb` running Deployments, `maxUnavailable` 1 or 25%; plus the chart's own for Karpenter. */
export function healthyPdbs(gen: Generation, deployments: readonly Deployment[]): PodDisruptionBudget[] {
  const running = deployments.filter(
    (d) => (d.spec?.replicas ?? 0) > 0 && d.status?.readyReplicas === d.spec?.replicas && d.metadata?.name !== 'karpenter',
  );
  const every = Math.max(1, gen.options.deploymentsPerPdb);
  const pdbs = running.filter((_, i) => i % every === 0).map((d, i) => pdbOf(gen, d, i % 2 === 0 ? 1 : '25%'));
  const karpenter = deployments.find((d) => d.metadata?.name === 'karpenter');
  if (karpenter) pdbs.push(pdbOf(gen, karpenter, 1));
  return pdbs;
}

function pdbOf(gen: Generation, d: Deployment, maxUnavailable: number | string): PodDisruptionBudget {
  const replicas = d.spec?.replicas ?? 0;
  const down = typeof maxUnavailable === 'number' ? maxUnavailable : Math.ceil((replicas * parseInt(maxUnavailable, 10)) / 100);
  const createdMs = gen.nowMs - 100 * DAY;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: d.metadata?.name ?? '',
      namespace: d.metadata?.namespace ?? '',
      uid: gen.rng.uuid(),
      creationTimestamp: iso(createdMs),
    },
    spec: { maxUnavailable, selector: { matchLabels: { ...d.spec?.selector?.matchLabels } } },
    status: {
      disruptionsAllowed: Math.min(down, replicas),
      currentHealthy: replicas,
      desiredHealthy: Math.max(0, replicas - down),
      expectedPods: replicas,
      observedGeneration: 1,
      conditions: [condition('DisruptionAllowed', 'True', createdMs, { reason: 'SufficientPods', message: '' })],
    },
  };
}

/** One attached EBS volume per `nodesPerVolumeAttachment` worker nodes, none on `skip`. */
export function volumeAttachments(gen: Generation, fleet: Fleet, skip: ReadonlySet<string>): VolumeAttachment[] {
  const every = Math.max(1, gen.options.nodesPerVolumeAttachment);
  const nodes = fleet.workerNodes.map((w) => w.name).filter((name) => !skip.has(name));
  return nodes
    .filter((_, i) => i % every === 0)
    .map((nodeName) => ({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: {
        name: `csi-${gen.rng.hex(64)}`,
        uid: gen.rng.uuid(),
        creationTimestamp: iso(gen.nowMs - gen.rng.int(DAY, 20 * DAY)),
        finalizers: ['external-attacher/ebs-csi-aws-com'],
      },
      spec: { attacher: 'ebs.csi.aws.com', nodeName, source: { persistentVolumeName: `pvc-${gen.rng.uuid()}` } },
      status: { attached: true },
    }));
}

/**
 * The EC2NodeClasses' subnets as described: the shared ones (one per zone, /18, thousands free),
 * and a small one added to `lowPool`'s EC2NodeClass only, with LOW_SUBNET_FREE addresses left.
 */
export function describedSubnets(gen: Generation, fleet: Fleet, lowPool: string): Subnet[] {
  const { rng, options } = gen;
  const vpcId = `vpc-0${rng.hex(16)}`;
  const shared = new Map<string, string>();
  for (const nodeClass of fleet.nodeClasses)
    for (const s of nodeClass.status?.subnets ?? []) if (s.id && s.zone) shared.set(s.id, s.zone);
  const subnets: Subnet[] = [...shared].map(([id, zone], i) => ({
    id,
    vpcId,
    availabilityZone: zone,
    cidrBlock: `10.${i}.0.0/18`,
    availableIpAddressCount: rng.int(9_000, 15_000),
    state: 'available',
    tags: { 'karpenter.sh/discovery': options.clusterName, Name: `${options.clusterName}-private-${zone}` },
  }));
  const lowClass = fleet.nodeClasses.find((c) => c.metadata?.name === lowPool);
  const zone = subnets[0]?.availabilityZone;
  if (!lowClass?.status || zone === undefined) return subnets;
  const low: Subnet = {
    id: `subnet-0${rng.hex(16)}`,
    vpcId,
    availabilityZone: zone,
    cidrBlock: '10.15.255.0/24',
    availableIpAddressCount: LOW_SUBNET_FREE,
    state: 'available',
    tags: { 'karpenter.sh/discovery': options.clusterName, Name: `${options.clusterName}-${lowPool}-${zone}` },
  };
  lowClass.status.subnets = [...(lowClass.status.subnets ?? []), { id: low.id, zone }];
  return [...subnets, low];
}
