import { EKSClient } from '@aws-sdk/client-eks';

/**
 * The region the AWS SDK v3 itself would choose for `profile` (or AWS_PROFILE, else `default`):
 * AWS_REGION, else `region` in the shared config/credentials files (~/.aws/config, AWS_CONFIG_FILE).
 * The EKS client's own loader does it (loadConfig with NODE_REGION_CONFIG_OPTIONS and
 * NODE_REGION_CONFIG_FILE_OPTIONS), so the CLI agrees with the SDK and with `aws configure get
 * region`. Files only: no network. Undefined when none is set.
 */
export async function sharedConfigRegion(profile?: string): Promise<string | undefined> {
  const client = new EKSClient(profile ? { profile } : {});
  try {
    const region = (await client.config.region())?.trim();
    return region ? region : undefined;
  } catch {
    // "Region is missing": the SDK's way of saying none is configured.
    return undefined;
  } finally {
    client.destroy();
  }
}
