import {
  DescribeAccessEntryCommand,
  DescribeClusterCommand,
  DescribeFargateProfileCommand,
  paginateListAccessEntries,
  paginateListClusters,
  paginateListFargateProfiles,
  type EKSClient,
} from '@aws-sdk/client-eks';
import type { AccessEntry, ClusterInfo, FargateProfile } from '../../domain/aws.ts';
import type { EksPort } from '../../ports/aws.ts';
import { mapBounded } from '../../support/concurrency.ts';
import { awsCall, isNotFound, sourceError } from './errors.ts';
import { allPages, fromSdkOutput } from './sdk-output.ts';

/** EKS list calls' largest page. */
const EKS_PAGE_SIZE = 100;
/** Describe calls in flight at once per list (EKS throttles bursts per account). */
export const EKS_DESCRIBE_CONCURRENCY = 5;

export class EksAdapter implements EksPort {
  readonly #client: EKSClient;

  constructor(client: EKSClient) {
    this.#client = client;
  }

  async describeCluster(name: string): Promise<ClusterInfo> {
    try {
      const output = await this.#client.send(new DescribeClusterCommand({ name }));
      return fromSdkOutput('DescribeCluster', 'cluster', { cluster: output.cluster }).cluster;
    } catch (error) {
      if (isNotFound(error)) return { name, gone: true };
      throw sourceError('DescribeCluster', error);
    }
  }

  async listClusters(): Promise<string[]> {
    return awsCall('ListClusters', () =>
      allPages(paginateListClusters({ client: this.#client, pageSize: EKS_PAGE_SIZE }, {}), (page) => page.clusters),
    );
  }

  async fargateProfiles(clusterName: string): Promise<FargateProfile[]> {
    const names = await awsCall('ListFargateProfiles', () =>
      allPages(
        paginateListFargateProfiles({ client: this.#client, pageSize: EKS_PAGE_SIZE }, { clusterName }),
        (page) => page.fargateProfileNames,
      ),
    );
    const described = await mapBounded(names, EKS_DESCRIBE_CONCURRENCY, (fargateProfileName) =>
      this.#describeOne('DescribeFargateProfile', async () => {
        const output = await this.#client.send(new DescribeFargateProfileCommand({ clusterName, fargateProfileName }));
        return fromSdkOutput('DescribeFargateProfile', 'fargateprofiles', { fargateProfile: output.fargateProfile }).profiles;
      }),
    );
    return described.flat();
  }

  async accessEntries(clusterName: string): Promise<AccessEntry[]> {
    const principals = await awsCall('ListAccessEntries', () =>
      allPages(
        paginateListAccessEntries({ client: this.#client, pageSize: EKS_PAGE_SIZE }, { clusterName }),
        (page) => page.accessEntries,
      ),
    );
    const described = await mapBounded(principals, EKS_DESCRIBE_CONCURRENCY, (principalArn) =>
      this.#describeOne('DescribeAccessEntry', async () => {
        const output = await this.#client.send(new DescribeAccessEntryCommand({ clusterName, principalArn }));
        return fromSdkOutput('DescribeAccessEntry', 'accessentries', { accessEntry: output.accessEntry }).entries;
      }),
    );
    return described.flat();
  }

  /** One listed thing described; one deleted between the list and the describe is simply gone. */
  async #describeOne<T>(operation: string, describe: () => Promise<T[]>): Promise<T[]> {
    try {
      return await describe();
    } catch (error) {
      if (isNotFound(error)) return [];
      throw sourceError(operation, error);
    }
  }
}
