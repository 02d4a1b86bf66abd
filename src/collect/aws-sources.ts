import type { SourceName } from '../domain/snapshot.ts';
import type { AwsPorts } from '../ports/aws.ts';
import type { AwsCliOutput } from '../snapshot/aws-cli.ts';
import type { CaptureMerger } from '../snapshot/capture-merger.ts';

export const AWS_SOURCES = ['instances', 'fargateprofiles', 'accessentries', 'launchtemplates', 'instanceprofiles'] as const;

/** One task per AWS source wanted (the cluster itself is described first, by the collector). */
export function collectAws(
  aws: AwsPorts,
  clusterName: string,
  wanted: ReadonlySet<SourceName>,
  merger: CaptureMerger,
  gap: (source: SourceName, error: unknown) => void,
): (() => Promise<void>)[] {
  const read: Record<(typeof AWS_SOURCES)[number], () => Promise<AwsCliOutput>> = {
    instances: async () => ({ source: 'instances', instances: await aws.ec2.describeInstances({ clusterName }) }),
    fargateprofiles: async () => ({ source: 'fargateprofiles', profiles: await aws.eks.fargateProfiles(clusterName) }),
    accessentries: async () => ({ source: 'accessentries', entries: await aws.eks.accessEntries(clusterName) }),
    launchtemplates: async () => ({ source: 'launchtemplates', templates: await aws.ec2.describeLaunchTemplates(clusterName) }),
    instanceprofiles: async () => ({ source: 'instanceprofiles', profiles: await aws.iam.listInstanceProfiles() }),
  };
  return AWS_SOURCES.filter((s) => wanted.has(s)).map((source) => async () => {
    try {
      merger.add('AWS API', [{ type: 'aws', output: await read[source]() }]);
    } catch (error) {
      gap(source, error);
    }
  });
}
