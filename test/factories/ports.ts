/**
 * Small in-memory fakes of the ports for use-case and executor tests. They keep the semantics the
 * callers rely on (resourceVersion and 409 on a stale write; per-instance termination results)
 * and record every write so tests can assert what was done. Add to them with small, additive edits.
 */
import type { Instance, LaunchTemplate, SpotPrice, Subnet } from '../../src/domain/aws.ts';
import type { InstanceTypeInfo } from '../../src/domain/instance-types.ts';
import type { Deployment, EC2NodeClass, NodeClaim, NodePool, Pod } from '../../src/domain/kube.ts';
import { toIsoSeconds } from '../../src/domain/kube-helpers.ts';
import { nodePoolOfClaim } from '../../src/domain/tags.ts';
import type { Ec2Port, InstanceQuery, InstanceTypeListing, TerminationResult } from '../../src/ports/aws.ts';
import { KubeConflictError, SourceError } from '../../src/ports/errors.ts';
import type {
  DeploymentAnnotationPatch,
  KubeListQuery,
  KubeResourceName,
  KubernetesPort,
  PodLogQuery,
} from '../../src/ports/kubernetes.ts';
import { isRecord, type JsonRecord } from '../../src/domain/shape.ts';
import { karpenterLaunchTemplate } from './aws.ts';

function clone<T>(value: T): T {
  return structuredClone(value);
}

function childRecord(parent: JsonRecord, key: string): JsonRecord {
  const existing = parent[key];
  if (isRecord(existing)) return existing;
  const created: JsonRecord = {};
  parent[key] = created;
  return created;
}

/**
 * Deployments only (what the executor writes); every write bumps `metadata.resourceVersion`, and a
 * patch at a stale version is rejected with KubeConflictError, like the API server's 409.
 */
export class FakeKube implements KubernetesPort {
  readonly patches: DeploymentAnnotationPatch[] = [];
  /** Makes the next `get` reject with this error. */
  getError: Error | undefined;
  /** Makes every patch reject with this error (after the version check). */
  patchError: Error | undefined;
  /** Runs after `get` answered: a concurrent writer (another scan, a human) acting in between. */
  afterGet: (() => void) | undefined;
  private readonly deployments = new Map<string, JsonRecord>();
  private version = 1000;

  constructor(deployments: readonly Deployment[] = []) {
    for (const d of deployments) this.put(d);
  }

  put(deployment: Deployment): void {
    const object = JSON.parse(JSON.stringify(deployment)) as JsonRecord;
    childRecord(object, 'metadata').resourceVersion = String(++this.version);
    this.deployments.set(this.key(deployment.metadata?.namespace, deployment.metadata?.name), object);
  }

  /** The stored object, for assertions. */
  deployment(namespace: string, name: string): JsonRecord | undefined {
    const d = this.deployments.get(this.key(namespace, name));
    return d && clone(d);
  }

  remove(namespace: string, name: string): void {
    this.deployments.delete(this.key(namespace, name));
  }

  /** What `kubectl rollout restart` does: a new template restartedAt, a new resourceVersion. */
  kubectlRolloutRestart(namespace: string, name: string, at: string): void {
    const d = this.deployments.get(this.key(namespace, name));
    if (!d) throw new Error(`no Deployment ${namespace}/${name}`);
    const meta = childRecord(childRecord(childRecord(d, 'spec'), 'template'), 'metadata');
    childRecord(meta, 'annotations')['kubectl.kubernetes.io/restartedAt'] = at;
    childRecord(d, 'metadata').resourceVersion = String(++this.version);
  }

  list(query: KubeListQuery): Promise<JsonRecord[]> {
    if (query.resource !== 'deployments') return Promise.resolve([]);
    return Promise.resolve([...this.deployments.values()].map(clone));
  }

  async get(resource: KubeResourceName, name: string, namespace?: string): Promise<JsonRecord | undefined> {
    const error = this.getError;
    this.getError = undefined;
    if (error) throw error;
    const found = resource === 'deployments' ? this.deployments.get(this.key(namespace, name)) : undefined;
    const answer = found && clone(found);
    this.afterGet?.();
    return answer;
  }

  podLog(_query: PodLogQuery): Promise<string> {
    return Promise.resolve('');
  }

  patchDeploymentAnnotations(patch: DeploymentAnnotationPatch): Promise<JsonRecord> {
    this.patches.push(clone(patch));
    const d = this.deployments.get(this.key(patch.namespace, patch.name));
    if (!d) {
      return Promise.reject(new SourceError(`404 Not Found: deployments.apps "${patch.name}" not found`, { code: '404' }));
    }
    const metadata = childRecord(d, 'metadata');
    if (metadata.resourceVersion !== patch.resourceVersion) {
      return Promise.reject(
        new KubeConflictError(
          `409 Conflict: Operation cannot be fulfilled on deployments.apps "${patch.name}": the object has been modified; please apply your changes to the latest version and try again`,
          { code: '409' },
        ),
      );
    }
    if (this.patchError) return Promise.reject(this.patchError);
    Object.assign(childRecord(metadata, 'annotations'), patch.annotations);
    const templateMeta = childRecord(childRecord(childRecord(d, 'spec'), 'template'), 'metadata');
    Object.assign(childRecord(templateMeta, 'annotations'), patch.templateAnnotations);
    metadata.resourceVersion = String(++this.version);
    return Promise.resolve(clone(d));
  }

  deleteNodePool(_name: string): Promise<boolean> {
    return Promise.resolve(false);
  }

  private key(namespace: string | undefined, name: string | undefined): string {
    return `${namespace ?? ''}/${name ?? ''}`;
  }
}

/** Instances by id; terminations recorded, per-instance errors injectable. */
export class FakeEc2 implements Ec2Port {
  readonly describeCalls: InstanceQuery[] = [];
  readonly terminateCalls: string[][] = [];
  /** Makes every describeInstances reject with this error. */
  describeError: Error | undefined;
  /** Per-instance errors TerminateInstances reports (the others still terminate). */
  readonly terminateErrors = new Map<string, string>();
  private readonly instances = new Map<string, Instance>();

  constructor(instances: readonly Instance[] = []) {
    for (const i of instances) this.put(i);
  }

  put(instance: Instance): void {
    this.instances.set(instance.id, clone(instance));
  }

  instance(id: string): Instance | undefined {
    const i = this.instances.get(id);
    return i && clone(i);
  }

  remove(id: string): void {
    this.instances.delete(id);
  }

  describeInstances(query: InstanceQuery): Promise<Instance[]> {
    this.describeCalls.push(clone(query));
    if (this.describeError) return Promise.reject(this.describeError);
    const all = [...this.instances.values()];
    const wanted = query.instanceIds ? all.filter((i) => query.instanceIds?.includes(i.id)) : all;
    return Promise.resolve(wanted.map(clone));
  }

  terminateInstances(instanceIds: readonly string[]): Promise<TerminationResult[]> {
    this.terminateCalls.push([...instanceIds]);
    return Promise.resolve(
      instanceIds.map((instanceId): TerminationResult => {
        const error = this.terminateErrors.get(instanceId);
        if (error) return { instanceId, error };
        const i = this.instances.get(instanceId);
        if (!i) return { instanceId, error: `InvalidInstanceID.NotFound: The instance ID '${instanceId}' does not exist` };
        i.state = i.state === 'terminated' ? 'terminated' : 'shutting-down';
        return { instanceId, currentState: i.state };
      }),
    );
  }

  /** What DescribeLaunchTemplates answers: by default the one Karpenter launched the factory's instances from. */
  launchTemplates: LaunchTemplate[] = [karpenterLaunchTemplate()];
  /** Makes every describeLaunchTemplates reject with this error. */
  launchTemplatesError: Error | undefined;
  readonly launchTemplateCalls: string[] = [];
  /** The `alsoIds` of each describeLaunchTemplates call. */
  readonly launchTemplateIdLookups: string[][] = [];

  describeLaunchTemplates(clusterName: string, alsoIds: readonly string[] = []): Promise<LaunchTemplate[]> {
    this.launchTemplateCalls.push(clusterName);
    this.launchTemplateIdLookups.push([...alsoIds]);
    if (this.launchTemplatesError) return Promise.reject(this.launchTemplatesError);
    return Promise.resolve(this.launchTemplates.map(clone));
  }

  deleteLaunchTemplate(_launchTemplateId: string): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** What DescribeSpotPriceHistory answers (filtered by the types asked for). */
  spotPrices: SpotPrice[] = [];
  readonly spotPriceCalls: string[][] = [];

  describeSpotPrices(instanceTypes: readonly string[]): Promise<SpotPrice[]> {
    this.spotPriceCalls.push([...instanceTypes]);
    return Promise.resolve(this.spotPrices.filter((p) => instanceTypes.includes(p.instanceType)).map(clone));
  }

  /** What DescribeSubnets answers (filtered by the ids asked for). */
  subnets: Subnet[] = [];
  readonly subnetCalls: string[][] = [];

  describeSubnets(subnetIds: readonly string[]): Promise<Subnet[]> {
    this.subnetCalls.push([...subnetIds]);
    return Promise.resolve(this.subnets.filter((s) => subnetIds.includes(s.id)).map(clone));
  }

  /** What DescribeInstanceTypes answers. */
  instanceTypes: InstanceTypeInfo[] = [];
  instanceTypeCalls = 0;

  describeInstanceTypes(): Promise<InstanceTypeListing> {
    this.instanceTypeCalls++;
    return Promise.resolve({ instanceTypes: this.instanceTypes.map(clone), rejected: [] });
  }
}

/**
 * NodePools and NodeClaims as the destroy-time cleanup sees them. Deleting a NodePool marks its
 * NodeClaims deleted (deletionTimestamp from `now`), as the garbage collector does; the claims go
 * only when a test says so (`removeNodeClaims`, or `beforeNodeClaimList` acting as Karpenter).
 */
export class FakeKarpenterKube implements KubernetesPort {
  readonly deletedNodePools: string[] = [];
  readonly nodeClaimLists: number[] = [];
  /** Makes every list reject with this error (the API unreachable or forbidden). */
  listError: Error | undefined;
  /** Makes deleting these NodePools reject. */
  readonly deleteErrors = new Map<string, Error>();
  /** Runs before each NodeClaim list: Karpenter finishing its work between two polls. */
  beforeNodeClaimList: ((kube: FakeKarpenterKube) => void) | undefined;
  readonly nodePools = new Map<string, NodePool>();
  readonly nodeClaims = new Map<string, NodeClaim>();
  /** What an EC2NodeClass list answers. */
  readonly nodeClasses: EC2NodeClass[] = [];
  /** What a pod list answers (filtered by `key=value` label selectors): none unless a test runs the controller. */
  readonly pods: Pod[] = [];
  /** Every pod list asked for. */
  readonly podLists: KubeListQuery[] = [];
  /** Makes pod lists (only) reject with this error: the cleanup's RBAC without `pods` list. */
  podListError: Error | undefined;
  private readonly now: () => Date;

  constructor(
    input: {
      nodePools?: readonly NodePool[];
      nodeClaims?: readonly NodeClaim[];
      nodeClasses?: readonly EC2NodeClass[];
      pods?: readonly Pod[];
      now?: () => Date;
    } = {},
  ) {
    this.nodeClasses.push(...(input.nodeClasses ?? []).map(clone));
    for (const np of input.nodePools ?? []) this.nodePools.set(np.metadata?.name ?? '', clone(np));
    for (const nc of input.nodeClaims ?? []) this.nodeClaims.set(nc.metadata?.name ?? '', clone(nc));
    this.pods.push(...(input.pods ?? []).map(clone));
    this.now = input.now ?? (() => new Date());
  }

  /** Karpenter done with these NodeClaims (all of them without a pool). */
  removeNodeClaims(nodePool?: string): void {
    for (const [name, nc] of this.nodeClaims) {
      if (nodePool === undefined || nodePoolOfClaim(nc) === nodePool) this.nodeClaims.delete(name);
    }
  }

  list(query: KubeListQuery): Promise<JsonRecord[]> {
    if (this.listError) return Promise.reject(this.listError);
    if (query.resource === 'nodeclaims') {
      this.nodeClaimLists.push(this.now().getTime());
      this.beforeNodeClaimList?.(this);
      return Promise.resolve([...this.nodeClaims.values()].map((nc) => clone(nc) as JsonRecord));
    }
    if (query.resource === 'nodepools') return Promise.resolve([...this.nodePools.values()].map((np) => clone(np) as JsonRecord));
    if (query.resource === 'ec2nodeclasses') return Promise.resolve(this.nodeClasses.map((nc) => clone(nc) as JsonRecord));
    if (query.resource === 'pods') {
      this.podLists.push(clone(query));
      if (this.podListError) return Promise.reject(this.podListError);
      const wanted = (query.labelSelector ?? '').split(',').filter((term) => term !== '');
      const matches = (pod: Pod) =>
        wanted.every((term) => {
          const [key = '', value = ''] = term.split('=');
          return pod.metadata?.labels?.[key] === value;
        });
      return Promise.resolve(this.pods.filter(matches).map((p) => clone(p) as JsonRecord));
    }
    return Promise.resolve([]);
  }

  get(): Promise<JsonRecord | undefined> {
    return Promise.resolve(undefined);
  }

  podLog(): Promise<string> {
    return Promise.resolve('');
  }

  patchDeploymentAnnotations(): Promise<JsonRecord> {
    return Promise.reject(new Error('FakeKarpenterKube holds no Deployments'));
  }

  deleteNodePool(name: string): Promise<boolean> {
    const error = this.deleteErrors.get(name);
    if (error) return Promise.reject(error);
    if (!this.nodePools.delete(name)) return Promise.resolve(false);
    this.deletedNodePools.push(name);
    const deletionTimestamp = toIsoSeconds(this.now());
    for (const nc of this.nodeClaims.values()) {
      if (nc.metadata && nodePoolOfClaim(nc) === name) nc.metadata.deletionTimestamp ??= deletionTimestamp;
    }
    return Promise.resolve(true);
  }
}
