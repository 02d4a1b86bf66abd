import {
  DeleteLaunchTemplateCommand,
  DescribeLaunchTemplatesCommand,
  paginateDescribeInstances,
  paginateDescribeInstanceTypes,
  paginateDescribeLaunchTemplates,
  paginateDescribeSpotPriceHistory,
  paginateDescribeSubnets,
  TerminateInstancesCommand,
  type DescribeLaunchTemplatesCommandOutput,
  type EC2Client,
  type Filter,
  type _InstanceType,
} from '@aws-sdk/client-ec2';
import type { Instance, LaunchTemplate, SpotPrice, Subnet } from '../../domain/aws.ts';
import { CLUSTER_TAG, LAUNCH_TEMPLATE_CLUSTER_TAGS, legacyClusterTag } from '../../domain/tags.ts';
import {
  TERMINATE_BATCH_SIZE,
  type Ec2Port,
  type InstanceQuery,
  type InstanceTypeListing,
  type TerminationResult,
} from '../../ports/aws.ts';
import { chunks } from '../../support/concurrency.ts';
import { awsCall, awsErrorName, awsErrorText, isNotFound, sourceError } from './errors.ts';
import { SourceError } from '../../ports/errors.ts';
import { LEGACY_CLUSTER_TAG_VALUES } from './scope.ts';
import { allPages, fromSdkOutput } from './sdk-output.ts';
import { INSTANCE_TYPES_BY_REGION, type InstanceTypeCache } from './instance-type-cache.ts';

/** DescribeInstances' largest page when filtering. */
const INSTANCE_PAGE_SIZE = 1000;
/** Instance ids (and profile ARNs) go in a filter (an unknown id in `InstanceIds` fails the whole call); EC2 takes 200 values per filter. */
const INSTANCE_ID_FILTER_SIZE = 200;
/** DescribeLaunchTemplates' largest page. */
const LAUNCH_TEMPLATE_PAGE_SIZE = 200;
/** Ids per DescribeLaunchTemplates by id (templates named by instances but not tagged for the cluster). */
const LAUNCH_TEMPLATE_ID_BATCH_SIZE = 200;
/** DescribeSubnets' largest page. */
const SUBNET_PAGE_SIZE = 1000;
/** Subnet ids go in a `subnet-id` filter, 200 values each (see describeSubnets). */
const SUBNET_ID_FILTER_SIZE = 200;
/** DescribeInstanceTypes' largest page: about 13 pages for a region's 1,200-odd types. */
export const INSTANCE_TYPE_PAGE_SIZE = 100;

/**
 * DescribeSpotPriceHistory's largest page. From now, EC2 returns one price per type, zone and
 * product: the types of a scan (a few dozen at most, ~6 zones each) fit on the first page.
 */
const SPOT_PRICE_PAGE_SIZE = 1000;
/** Pages followed at most: a bound on one scan's prices, never reached by a real region's answer. */
const SPOT_PRICE_PAGES = 5;
/** Types asked for at most; the rest are priced at the on-demand list price (docs/cost.md). */
const SPOT_PRICE_TYPES = 200;

/**
 * Errors one instance can cause for its whole batch: a missing id, termination protection, or
 * `ec2:TerminateInstances` denied by the tag condition for one untagged instance. The batch is then
 * retried one instance at a time, so each gets its own outcome.
 */
const ONE_INSTANCE_FAILS_THE_BATCH = new Set([
  'InvalidInstanceID.NotFound',
  'InvalidInstanceID.Malformed',
  'IncorrectInstanceState',
  'OperationNotPermitted',
  'UnauthorizedOperation',
]);

export interface Ec2AdapterOptions {
  /** Where a region's instance types are kept between scans. Default: the process's (INSTANCE_TYPES_BY_REGION). */
  instanceTypeCache?: InstanceTypeCache;
}

export class Ec2Adapter implements Ec2Port {
  readonly #client: EC2Client;
  readonly #instanceTypes: InstanceTypeCache;

  constructor(client: EC2Client, options: Ec2AdapterOptions = {}) {
    this.#client = client;
    this.#instanceTypes = options.instanceTypeCache ?? INSTANCE_TYPES_BY_REGION;
  }

  async describeInstances(query: InstanceQuery): Promise<Instance[]> {
    if (query.instanceIds?.length === 0 || query.instanceProfileArns?.length === 0) return [];
    const narrowing: Filter[] = query.tagKey ? [{ Name: 'tag-key', Values: [query.tagKey] }] : [];
    // EC2 ANDs filters, so "either cluster tag" is one query per tag.
    const scopes: Filter[][] = query.clusterName ? clusterScopes(query.clusterName) : [[]];
    // EC2 ANDs filters: each chunk of ids with each chunk of profiles.
    const profiles = valueFilters('iam-instance-profile.arn', query.instanceProfileArns);
    const ids: Filter[][] = valueFilters('instance-id', query.instanceIds).flatMap((byId) =>
      profiles.map((byProfile) => [...byId, ...byProfile]),
    );
    const byId = new Map<string, Instance>();
    for (const scope of scopes) {
      for (const idFilter of ids) {
        for (const instance of await this.#describe([...scope, ...idFilter, ...narrowing])) byId.set(instance.id, instance);
      }
    }
    return [...byId.values()];
  }

  async #describe(filters: Filter[]): Promise<Instance[]> {
    return awsCall('DescribeInstances', () => {
      const pages = paginateDescribeInstances(
        { client: this.#client, pageSize: INSTANCE_PAGE_SIZE },
        filters.length > 0 ? { Filters: filters } : {},
      );
      return allPages(
        pages,
        (page) => fromSdkOutput('DescribeInstances', 'instances', { Reservations: page.Reservations ?? [] }).instances,
      );
    });
  }

  async terminateInstances(instanceIds: readonly string[]): Promise<TerminationResult[]> {
    const results: TerminationResult[] = [];
    for (const batch of chunks([...new Set(instanceIds)], TERMINATE_BATCH_SIZE)) results.push(...(await this.#terminate(batch)));
    return results;
  }

  async #terminate(batch: string[]): Promise<TerminationResult[]> {
    try {
      const output = await this.#client.send(new TerminateInstancesCommand({ InstanceIds: batch }));
      const states = new Map((output.TerminatingInstances ?? []).map((t) => [t.InstanceId, t.CurrentState?.Name]));
      return batch.map((instanceId) => {
        const currentState = states.get(instanceId);
        return currentState
          ? { instanceId, currentState }
          : { instanceId, error: 'TerminateInstances did not report this instance' };
      });
    } catch (error) {
      if (batch.length > 1 && ONE_INSTANCE_FAILS_THE_BATCH.has(awsErrorName(error))) {
        const alone: TerminationResult[] = [];
        for (const instanceId of batch) alone.push(...(await this.#terminate([instanceId])));
        return alone;
      }
      return batch.map((instanceId) => ({ instanceId, error: awsErrorText(error) }));
    }
  }

  async describeLaunchTemplates(clusterName: string, alsoIds: readonly string[] = []): Promise<LaunchTemplate[]> {
    const byId = new Map<string, LaunchTemplate>();
    for (const tag of LAUNCH_TEMPLATE_CLUSTER_TAGS) {
      const templates = await awsCall('DescribeLaunchTemplates', () => {
        const pages = paginateDescribeLaunchTemplates(
          { client: this.#client, pageSize: LAUNCH_TEMPLATE_PAGE_SIZE },
          { Filters: [{ Name: `tag:${tag}`, Values: [clusterName] }] },
        );
        return allPages(pages, templatesOf);
      });
      for (const template of templates) byId.set(template.id, template);
    }
    const unlisted = [...new Set(alsoIds)].filter((id) => !byId.has(id)).sort();
    for (const chunk of chunks(unlisted, LAUNCH_TEMPLATE_ID_BATCH_SIZE)) {
      for (const template of await this.#launchTemplatesById(chunk)) byId.set(template.id, template);
    }
    return [...byId.values()];
  }

  /**
   * The templates of `ids` that exist. EC2 fails the whole call with InvalidLaunchTemplateId.NotFound
   * when one of them does not exist, so a failed batch is asked again one id at a time; for a
   * single id that error is the answer "gone". Any other error fails the listing: a template that
   * cannot be looked up must never count as gone.
   */
  async #launchTemplatesById(ids: readonly string[]): Promise<LaunchTemplate[]> {
    try {
      return await awsCall('DescribeLaunchTemplates', async () =>
        templatesOf(await this.#client.send(new DescribeLaunchTemplatesCommand({ LaunchTemplateIds: [...ids] }))),
      );
    } catch (error) {
      if (!isLaunchTemplateNotFound(error)) throw error;
      if (ids.length === 1) return [];
      const found: LaunchTemplate[] = [];
      for (const id of ids) found.push(...(await this.#launchTemplatesById([id])));
      return found;
    }
  }

  /**
   * By a `subnet-id` filter rather than `SubnetIds`: an unknown id in `SubnetIds` fails the whole
   * call (InvalidSubnetID.NotFound), whereas a subnet deleted under an EC2NodeClass is something
   * to see, absent from the result. One call for up to 200 ids (more pages if EC2 splits them).
   */
  async describeSubnets(subnetIds: readonly string[]): Promise<Subnet[]> {
    const byId = new Map<string, Subnet>();
    for (const chunk of chunks([...new Set(subnetIds)], SUBNET_ID_FILTER_SIZE)) {
      const subnets = await awsCall('DescribeSubnets', () => {
        const pages = paginateDescribeSubnets(
          { client: this.#client, pageSize: SUBNET_PAGE_SIZE },
          { Filters: [{ Name: 'subnet-id', Values: chunk }] },
        );
        return allPages(pages, (page) => fromSdkOutput('DescribeSubnets', 'subnets', { Subnets: page.Subnets ?? [] }).subnets);
      });
      for (const subnet of subnets) byId.set(subnet.id, subnet);
    }
    return [...byId.values()];
  }

  /** Every page, once per region and TTL for the whole process (see instance-type-cache.ts). */
  async describeInstanceTypes(): Promise<InstanceTypeListing> {
    const region = await this.#client.config.region();
    return this.#instanceTypes.get(region, () =>
      awsCall('DescribeInstanceTypes', async () => {
        const pages = paginateDescribeInstanceTypes({ client: this.#client, pageSize: INSTANCE_TYPE_PAGE_SIZE }, {});
        const outputs = await allPages(pages, (page) => [
          fromSdkOutput('DescribeInstanceTypes', 'instancetypes', { InstanceTypes: page.InstanceTypes ?? [] }),
        ]);
        // Each page is read as `aws ec2 describe-instance-types` prints it; the rejected items are
        // named by their place in the whole listing, as in a captured one.
        const listing: InstanceTypeListing = { instanceTypes: [], rejected: [] };
        for (const output of outputs) {
          const offset = listing.instanceTypes.length + listing.rejected.length;
          listing.instanceTypes.push(...output.instanceTypes);
          listing.rejected.push(
            ...output.rejected.map((r) =>
              r.replace(/^InstanceTypes\[(\d+)\]/, (_, i: string) => `InstanceTypes[${offset + Number(i)}]`),
            ),
          );
        }
        return listing;
      }),
    );
  }

  /**
   * One paginated request: `ProductDescriptions` (not a `product-description` filter, which some
   * EC2 stand-ins answer with nothing) and `StartTime` now, so only the prices in effect come back.
   */
  async describeSpotPrices(instanceTypes: readonly string[]): Promise<SpotPrice[]> {
    const types = [...new Set(instanceTypes)].sort().slice(0, SPOT_PRICE_TYPES);
    if (types.length === 0) return [];
    return awsCall('DescribeSpotPriceHistory', () => {
      const pages = paginateDescribeSpotPriceHistory(
        { client: this.#client, pageSize: SPOT_PRICE_PAGE_SIZE },
        { InstanceTypes: types as _InstanceType[], ProductDescriptions: ['Linux/UNIX'], StartTime: new Date() },
      );
      return allPages(
        pages,
        (page) =>
          fromSdkOutput('DescribeSpotPriceHistory', 'spotprices', { SpotPriceHistory: page.SpotPriceHistory ?? [] }).prices,
        SPOT_PRICE_PAGES,
      );
    });
  }

  async deleteLaunchTemplate(launchTemplateId: string): Promise<boolean> {
    try {
      await this.#client.send(new DeleteLaunchTemplateCommand({ LaunchTemplateId: launchTemplateId }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw sourceError('DeleteLaunchTemplate', error);
    }
  }
}

/** `eks:eks-cluster-name=NAME`, or the legacy `kubernetes.io/cluster/NAME` (see instanceInClusterScope). */
function clusterScopes(clusterName: string): Filter[][] {
  return [
    [{ Name: `tag:${CLUSTER_TAG}`, Values: [clusterName] }],
    [{ Name: `tag:${legacyClusterTag(clusterName)}`, Values: [...LEGACY_CLUSTER_TAG_VALUES] }],
  ];
}

/** One filter per 200 values (EC2's most per filter); one empty group (no narrowing) when `values` is absent. */
function valueFilters(name: string, values: readonly string[] | undefined): Filter[][] {
  if (values === undefined) return [[]];
  return chunks([...new Set(values)], INSTANCE_ID_FILTER_SIZE).map((chunk) => [{ Name: name, Values: chunk }]);
}

function templatesOf(page: Pick<DescribeLaunchTemplatesCommandOutput, 'LaunchTemplates'>): LaunchTemplate[] {
  return fromSdkOutput('DescribeLaunchTemplates', 'launchtemplates', { LaunchTemplates: page.LaunchTemplates ?? [] }).templates;
}

/** `InvalidLaunchTemplateId.NotFound`, seen through the SourceError awsCall wraps it in. */
function isLaunchTemplateNotFound(error: unknown): boolean {
  const code = error instanceof SourceError ? error.code : awsErrorName(error);
  return code === 'InvalidLaunchTemplateId.NotFound';
}
