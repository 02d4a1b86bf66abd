/**
 * AWS for the simulator and for tests: the AWS ports answered from a snapshot's AWS records, with
 * the real adapter's query semantics (same scope predicates), faults on demand and every call
 * recorded. A source the capture did not hold, or held with a gap, fails as it did for the file
 * scan, so a simulated live scan reports the same gaps.
 */
import { awsErrorText, sourceError } from '../adapters/aws/errors.ts';
import { instanceInClusterScope, launchTemplateOfCluster } from '../adapters/aws/scope.ts';
import type {
  AccessEntry,
  ClusterInfo,
  FargateProfile,
  Instance,
  InstanceProfile,
  LaunchTemplate,
  Subnet,
} from '../domain/aws.ts';
import type { InstanceTypeInfo } from '../domain/instance-types.ts';
import type { InterruptionQueue, QueueRule } from '../domain/interruption-queue.ts';
import { isSetAsideGap, type ClusterSnapshot, type SourceName } from '../domain/snapshot.ts';
import type { AwsPorts, InstanceQuery, TerminationResult } from '../ports/aws.ts';
import { SourceError } from '../ports/errors.ts';
import { awsError, AwsFaults, type AwsOperation } from './aws-faults.ts';
import { simulatedInstanceTypes } from './instance-types.ts';

export { AWS_WRITE_OPERATIONS, awsError, type AwsOperation } from './aws-faults.ts';

export interface InMemoryAwsOptions {
  /** Default: the cluster ARN's region, else the instances' zone's, else us-east-1. */
  region?: string;
  /**
   * When an instance this simulation is terminating shows `terminated`: at the next
   * DescribeInstances (default, like EC2 a little later), or only on `advance()`.
   */
  termination?: 'next-describe' | 'advance';
}

/** One port call: its AWS operation and the arguments it was given. */
export interface AwsCall {
  operation: AwsOperation;
  input: Record<string, unknown>;
}

/** The simulated account; tests may change it between calls ("tags changed since the scan"). */
interface InMemoryAwsState {
  cluster: ClusterInfo | undefined;
  instances: Map<string, Instance>;
  fargateProfiles: FargateProfile[];
  accessEntries: AccessEntry[];
  launchTemplates: Map<string, LaunchTemplate>;
  instanceProfiles: Map<string, InstanceProfile>;
  subnets: Map<string, Subnet>;
  /** The capture's `describe-instance-types`, else simulatedInstanceTypes(): every region has instance types. */
  instanceTypes: Map<string, InstanceTypeInfo>;
  /** The queues the capture found (exists: true), by name; any other name does not exist. */
  queues: Map<string, InterruptionQueue>;
  /** The rules the capture found targeting its queue: the first queue that exists (the configured one). */
  queueRules: QueueRule[];
  /** That queue's oldest message age, as captured. */
  queueOldestMessageAgeSeconds: number | undefined;
}

export interface InMemoryAws extends AwsPorts {
  readonly calls: AwsCall[];
  readonly faults: AwsFaults;
  readonly state: InMemoryAwsState;
  /** The calls made to one operation, in order. */
  callsTo(operation: AwsOperation): AwsCall[];
  /** Every instance this simulation is terminating becomes `terminated`. */
  advance(): void;
  /**
   * Terminates instances as someone else in the account would (the simulated Karpenter): like
   * TerminateInstances, but no call is recorded and no fault applies.
   */
  terminateOutOfBand(instanceIds: readonly string[]): void;
  /** Changes one instance in place (throws if there is none with that id). */
  updateInstance(id: string, change: (instance: Instance) => void): void;
}

const FINISHED = new Set(['shutting-down', 'terminated']);

export function inMemoryAws(snapshot: ClusterSnapshot, options: InMemoryAwsOptions = {}): InMemoryAws {
  const state: InMemoryAwsState = {
    cluster: snapshot.cluster && structuredClone(snapshot.cluster),
    instances: new Map(snapshot.instances.map((i) => [i.id, structuredClone(i)])),
    fargateProfiles: structuredClone(snapshot.fargateProfiles),
    accessEntries: structuredClone(snapshot.accessEntries),
    launchTemplates: new Map(snapshot.launchTemplates.map((t) => [t.id, structuredClone(t)])),
    instanceProfiles: new Map(snapshot.instanceProfiles.map((p) => [p.name, structuredClone(p)])),
    subnets: new Map(snapshot.subnets.map((s) => [s.id, structuredClone(s)])),
    instanceTypes: new Map(
      (snapshot.captured.has('instancetypes') ? snapshot.instanceTypes : simulatedInstanceTypes()).map((t) => [
        t.name,
        structuredClone(t),
      ]),
    ),
    queues: new Map((snapshot.interruptionQueues ?? []).filter((q) => q.exists).map((q) => [q.name, structuredClone(q)])),
    queueRules: structuredClone(snapshot.queueRules ?? []),
    queueOldestMessageAgeSeconds: snapshot.queueOldestMessageAgeSeconds,
  };
  const calls: AwsCall[] = [];
  const faults = new AwsFaults();
  const terminating = new Set<string>();
  const advance = () => {
    for (const id of terminating) {
      const instance = state.instances.get(id);
      if (instance) instance.state = 'terminated';
    }
    terminating.clear();
  };
  /** TerminateInstances' effect: shutting-down until `advance()`; one already ending is left as it is. */
  const startTerminating = (instance: Instance) => {
    if (FINISHED.has(instance.state)) return;
    instance.state = 'shutting-down';
    terminating.add(instance.id);
  };

  /** Records the call, then fails it if a fault is armed or its source was not captured whole. */
  const begin = (operation: AwsOperation, input: Record<string, unknown>, source?: SourceName) => {
    calls.push({ operation, input: structuredClone(input) });
    const fault = faults.take(operation);
    if (fault) throw sourceError(operation, fault);
    if (source) assertCaptured(snapshot, source, operation);
  };
  const clusterExists = (name: string) =>
    state.cluster ? state.cluster.gone !== true && state.cluster.name === name : name === snapshot.clusterName;
  /** The queue the captured rules and age are of: the first one that exists. */
  const capturedQueue = () => state.queues.values().next().value;
  const assertClusterExists = (operation: AwsOperation, name: string) => {
    if (!clusterExists(name))
      throw sourceError(operation, awsError('ResourceNotFoundException', `No cluster found for name: ${name}.`));
  };

  return {
    region: options.region ?? regionOf(snapshot),
    calls,
    faults,
    state,
    callsTo: (operation) => calls.filter((c) => c.operation === operation),
    advance,
    terminateOutOfBand(instanceIds) {
      for (const id of instanceIds) {
        const instance = state.instances.get(id);
        if (instance) startTerminating(instance);
      }
    },
    updateInstance(id, change) {
      const instance = state.instances.get(id);
      if (!instance) throw new Error(`in-memory AWS has no instance ${id}`);
      change(instance);
    },
    ec2: {
      async describeInstances(query: InstanceQuery) {
        begin('DescribeInstances', { query }, 'instances');
        if ((options.termination ?? 'next-describe') === 'next-describe') advance();
        const ids = query.instanceIds ? new Set(query.instanceIds) : undefined;
        return [...state.instances.values()]
          .filter((i) => query.clusterName === undefined || instanceInClusterScope(i.tags, query.clusterName))
          .filter((i) => ids === undefined || ids.has(i.id))
          .filter((i) => query.tagKey === undefined || i.tags[query.tagKey] !== undefined)
          .filter(
            (i) => query.instanceProfileArns === undefined || query.instanceProfileArns.includes(i.iamInstanceProfileArn ?? ''),
          )
          .map((i) => structuredClone(i));
      },
      async terminateInstances(instanceIds) {
        calls.push({ operation: 'TerminateInstances', input: { instanceIds: [...instanceIds] } });
        const whole = faults.take('TerminateInstances');
        return [...new Set(instanceIds)].map((instanceId): TerminationResult => {
          const fault = whole ?? faults.take('TerminateInstances', instanceId);
          if (fault) return { instanceId, error: awsErrorText(fault) };
          const instance = state.instances.get(instanceId);
          if (!instance) {
            return { instanceId, error: `InvalidInstanceID.NotFound: The instance ID '${instanceId}' does not exist` };
          }
          startTerminating(instance);
          return { instanceId, currentState: instance.state };
        });
      },
      async describeLaunchTemplates(clusterName, alsoIds = []) {
        begin('DescribeLaunchTemplates', { clusterName, alsoIds: [...alsoIds] }, 'launchtemplates');
        // Like the adapter: the cluster's tagged templates, and any of `alsoIds` that exist.
        return [...state.launchTemplates.values()]
          .filter((t) => launchTemplateOfCluster(t.tags, clusterName) || alsoIds.includes(t.id))
          .map((t) => structuredClone(t));
      },
      async deleteLaunchTemplate(launchTemplateId) {
        begin('DeleteLaunchTemplate', { launchTemplateId });
        return state.launchTemplates.delete(launchTemplateId);
      },
      async describeSubnets(subnetIds) {
        // Like the adapter's `subnet-id` filter: unknown ids are absent, not an error.
        begin('DescribeSubnets', { subnetIds: [...subnetIds] }, 'subnets');
        return [...new Set(subnetIds)].flatMap((id) => {
          const subnet = state.subnets.get(id);
          return subnet ? [structuredClone(subnet)] : [];
        });
      },
      async describeInstanceTypes() {
        // Not in the capture is no denial here: the account has instance types all the same. A
        // failure the capture recorded fails again.
        begin('DescribeInstanceTypes', {});
        assertNoGap(snapshot, 'instancetypes');
        return { instanceTypes: [...state.instanceTypes.values()].map((t) => structuredClone(t)), rejected: [] };
      },
      async describeSpotPrices(instanceTypes) {
        if (instanceTypes.length === 0) return [];
        // Only the capture's prices, never made-up ones (docs/simulator.md): none captured answers an
        // empty list, as EC2 does for a type with no offers. A recorded failure fails again.
        const types = [...new Set(instanceTypes)].sort();
        begin('DescribeSpotPriceHistory', { instanceTypes: types });
        assertNoGap(snapshot, 'spotprices');
        const wanted = new Set(types);
        return (snapshot.spotPrices ?? []).filter((p) => wanted.has(p.instanceType)).map((p) => structuredClone(p));
      },
    },
    eks: {
      async describeCluster(name) {
        begin('DescribeCluster', { name }, 'cluster');
        return clusterExists(name) && state.cluster ? structuredClone(state.cluster) : { name, gone: true };
      },
      async listClusters() {
        begin('ListClusters', {});
        const name = state.cluster?.name ?? snapshot.clusterName;
        return name && clusterExists(name) ? [name] : [];
      },
      async fargateProfiles(clusterName) {
        begin('ListFargateProfiles', { clusterName }, 'fargateprofiles');
        assertClusterExists('ListFargateProfiles', clusterName);
        return structuredClone(state.fargateProfiles);
      },
      async accessEntries(clusterName) {
        begin('ListAccessEntries', { clusterName }, 'accessentries');
        assertClusterExists('ListAccessEntries', clusterName);
        return structuredClone(state.accessEntries);
      },
    },
    iam: {
      async listInstanceProfiles(pathPrefix) {
        begin('ListInstanceProfiles', pathPrefix === undefined ? {} : { pathPrefix }, 'instanceprofiles');
        return [...state.instanceProfiles.values()]
          .filter((p) => (p.path ?? '/').startsWith(pathPrefix ?? '/'))
          .map((p) => structuredClone(p));
      },
      async removeRoleFromInstanceProfile(profileName, roleName) {
        begin('RemoveRoleFromInstanceProfile', { profileName, roleName });
        const profile = state.instanceProfiles.get(profileName);
        // Like the adapter: a profile or role already apart counts as done.
        if (profile) profile.roles = profile.roles.filter((r) => r.name !== roleName);
      },
      async deleteInstanceProfile(profileName) {
        begin('DeleteInstanceProfile', { profileName });
        const profile = state.instanceProfiles.get(profileName);
        if (!profile) return false;
        if (profile.roles.length > 0) {
          throw sourceError(
            'DeleteInstanceProfile',
            awsError('DeleteConflict', 'Cannot delete entity, must remove roles from instance profile first.'),
          );
        }
        return state.instanceProfiles.delete(profileName);
      },
    },
    queue: {
      async describeQueue(name) {
        // As SQS answers a name it does not know (an ARN or URL given as the name included): it does not exist.
        begin('GetQueueUrl', { name }, 'interruptionqueue');
        const queue = state.queues.get(name);
        return queue ? structuredClone(queue) : { name, exists: false };
      },
      async rulesTargeting(queueArn) {
        begin('ListRuleNamesByTarget', { queueArn }, 'queuerules');
        const queue = capturedQueue();
        return queue?.attributes?.QueueArn === queueArn ? structuredClone(state.queueRules) : [];
      },
      async oldestMessageAgeSeconds(queueName) {
        // Only the captured figure, never a made-up one: none captured is CloudWatch with no datapoint.
        begin('GetMetricStatistics', { queueName }, 'queueage');
        return capturedQueue()?.name === queueName ? state.queueOldestMessageAgeSeconds : undefined;
      },
    },
  };
}

/**
 * A gap fails with the file scan's own text; a source never captured as AWS would deny it,
 * saying why (code `NotInCapture`, so a caller can tell the two apart).
 */
function assertCaptured(snapshot: ClusterSnapshot, source: SourceName, operation: AwsOperation): void {
  assertNoGap(snapshot, source);
  if (!snapshot.captured.has(source)) {
    throw new SourceError(`${operation} failed: AccessDenied (simulated): ${source} not in the capture`, {
      code: 'NotInCapture',
    });
  }
}

/** A gap the capture recorded on `source` fails with the file scan's own text. */
function assertNoGap(snapshot: ClusterSnapshot, source: SourceName): void {
  const gap = snapshot.gaps.find((g) => g.source === source && !isSetAsideGap(g));
  if (gap) throw new SourceError(gap.error, { code: /failed: ([\w.]+):/.exec(gap.error)?.[1] ?? 'SimulatedGap' });
}

function regionOf(snapshot: ClusterSnapshot): string {
  const fromArn = /^arn:aws[\w-]*:eks:([a-z0-9-]+):/.exec(snapshot.cluster?.arn ?? '')?.[1];
  const zone = snapshot.instances.find((i) => i.availabilityZone)?.availabilityZone;
  return fromArn ?? (zone ? zone.replace(/[a-z]$/, '') : undefined) ?? 'us-east-1';
}
