import type { Instance, InstanceProfile } from '../domain/aws.ts';
import type { EC2NodeClass } from '../domain/kube.ts';
import { launchTemplateIdsOf } from '../domain/provenance.ts';
import type { SourceName } from '../domain/snapshot.ts';
import type { AwsPorts } from '../ports/aws.ts';
import { SourceError } from '../ports/errors.ts';
import type { AwsCliOutput } from '../snapshot/aws-cli.ts';
import type { CaptureMerger } from '../snapshot/capture-merger.ts';

const AWS_SOURCES = [
  'instances',
  'fargateprofiles',
  'accessentries',
  'launchtemplates',
  'instanceprofiles',
  'instancetypes',
] as const;

/**
 * One task per AWS source wanted (the cluster itself is described first, by the collector); a task
 * never rejects, and has merged its source, or a gap, when it resolves.
 */
export function collectAws(
  aws: AwsPorts,
  clusterName: string,
  wanted: ReadonlySet<SourceName>,
  merger: CaptureMerger,
  gap: (source: SourceName, error: unknown) => void,
): { source: SourceName; task: () => Promise<void> }[] {
  // Read once, by the instances source and by the launch templates (which look up what instances name).
  let instances: Promise<Instance[]> | undefined;
  const listInstances = () => (instances ??= aws.ec2.describeInstances({ clusterName }));
  const read: Record<(typeof AWS_SOURCES)[number], () => Promise<AwsCliOutput>> = {
    instances: async () => ({ source: 'instances', instances: await listInstances() }),
    fargateprofiles: async () => ({ source: 'fargateprofiles', profiles: await aws.eks.fargateProfiles(clusterName) }),
    accessentries: async () => ({ source: 'accessentries', entries: await aws.eks.accessEntries(clusterName) }),
    launchtemplates: async () => ({
      source: 'launchtemplates',
      templates: await aws.ec2.describeLaunchTemplates(clusterName, await templatesNamed()),
    }),
    instanceprofiles: async () => ({ source: 'instanceprofiles', profiles: wholeProfiles(await aws.iam.listInstanceProfiles()) }),
    // The region's, not the cluster's: one paginated listing, reused across scans by the adapter's cache.
    instancetypes: async () => ({ source: 'instancetypes', ...(await aws.ec2.describeInstanceTypes()) }),
  };
  /**
   * The templates the cluster's instances name, so that one absent from the listing is known gone
   * (docs/guardrails.md, "Provenance"): the live scan then proves exactly what `scan --from` of an
   * unfiltered `aws ec2 describe-launch-templates` proves. Without the instances none is needed:
   * no instance is then judged.
   */
  const templatesNamed = async (): Promise<string[]> => {
    if (!wanted.has('instances')) return [];
    try {
      return launchTemplateIdsOf(await listInstances());
    } catch {
      return [];
    }
  };
  return AWS_SOURCES.filter((s) => wanted.has(s)).map((source) => ({
    source,
    task: async () => {
      try {
        merger.add('AWS API', [{ type: 'aws', output: await read[source]() }]);
      } catch (error) {
        gap(source, error);
      }
    },
  }));
}

/** Why `subnets` is a gap when the EC2NodeClasses (which name the subnets) could not be listed. */
export const SUBNETS_UNKNOWN = 'not read: the subnets described are those of the EC2NodeClasses, which could not be read';

/**
 * The subnets the EC2NodeClasses resolved (`status.subnets[].id`): one DescribeSubnets for them
 * all, never an account-wide listing; none asked for when no EC2NodeClass names any.
 */
export async function collectSubnets(
  aws: AwsPorts,
  nodeClasses: Promise<readonly EC2NodeClass[] | undefined>,
  merger: CaptureMerger,
  gap: (source: SourceName, error: unknown) => void,
): Promise<void> {
  const classes = await nodeClasses;
  if (!classes) {
    gap('subnets', SUBNETS_UNKNOWN);
    return;
  }
  const ids = [...new Set(classes.flatMap((c) => (c.status?.subnets ?? []).flatMap((s) => (s.id ? [s.id] : []))))].sort();
  try {
    const subnets = ids.length > 0 ? await aws.ec2.describeSubnets(ids) : [];
    merger.add('AWS API', [{ type: 'aws', output: { source: 'subnets', subnets } }]);
  } catch (error) {
    gap('subnets', error);
  }
}

/**
 * The scan judges provenance by these tags: a profile whose tags could not be read makes the source
 * a gap, as a failed listing does, rather than an untagged profile that would prove nothing.
 */
function wholeProfiles(profiles: InstanceProfile[]): InstanceProfile[] {
  const unreadable = profiles.find((p) => p.tagsUnreadable !== undefined);
  if (unreadable?.tagsUnreadable !== undefined) throw new SourceError(unreadable.tagsUnreadable);
  return profiles;
}
