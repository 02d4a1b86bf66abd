import {
  DeleteInstanceProfileCommand,
  paginateListInstanceProfiles,
  paginateListInstanceProfileTags,
  RemoveRoleFromInstanceProfileCommand,
  type IAMClient,
  type Tag,
} from '@aws-sdk/client-iam';
import type { InstanceProfile } from '../../domain/aws.ts';
import type { IamPort } from '../../ports/aws.ts';
import { SourceError } from '../../ports/errors.ts';
import { mapBounded } from '../../support/concurrency.ts';
import { awsCall, isNotFound, sourceError } from './errors.ts';
import { allPages, fromSdkOutput } from './sdk-output.ts';

/** ListInstanceProfiles' largest page. */
const INSTANCE_PROFILE_PAGE_SIZE = 1000;
/** ListInstanceProfileTags calls in flight at once (IAM throttles per account, shared with Karpenter itself). */
const IAM_TAG_CONCURRENCY = 4;

/**
 * Whether Karpenter may have made the profile: since v1.7 it puts them under
 * `/karpenter/<region>/<cluster>/<nodeclass-uid>/`, before that at `/` named `<cluster>_<number>`.
 * Only these are worth a ListInstanceProfileTags call: the cleanup needs their cluster tags, and
 * nothing reads the tags of the account's other profiles.
 */
export function mayBeKarpenters(profile: { InstanceProfileName?: string | undefined; Path?: string | undefined }): boolean {
  return (
    (profile.Path ?? '').startsWith('/karpenter/') || /^[0-9A-Za-z][0-9A-Za-z_-]*_\d+$/.test(profile.InstanceProfileName ?? '')
  );
}

export class IamAdapter implements IamPort {
  readonly #client: IAMClient;

  constructor(client: IAMClient) {
    this.#client = client;
  }

  /**
   * Every page; tags only for the profiles Karpenter may have made (the list itself carries none).
   * A profile whose tags cannot be read comes back untagged and marked `tagsUnreadable`: one denied
   * or failing ListInstanceProfileTags does not take the other profiles with it.
   */
  async listInstanceProfiles(pathPrefix?: string): Promise<InstanceProfile[]> {
    const listed = await awsCall('ListInstanceProfiles', () => {
      const pages = paginateListInstanceProfiles(
        { client: this.#client, pageSize: INSTANCE_PROFILE_PAGE_SIZE },
        pathPrefix ? { PathPrefix: pathPrefix } : {},
      );
      return allPages(pages, (page) => page.InstanceProfiles);
    });
    const unreadable = new Map<string, string>();
    const tagged = await mapBounded(listed, IAM_TAG_CONCURRENCY, async (profile) => {
      if (!mayBeKarpenters(profile) || !profile.InstanceProfileName) return [profile];
      const tags = await this.#tags(profile.InstanceProfileName);
      if (tags === 'gone') return [];
      if (tags instanceof SourceError) {
        unreadable.set(profile.InstanceProfileName, tags.summary);
        return [{ ...profile, Tags: [] }];
      }
      return [{ ...profile, Tags: tags }];
    });
    const { profiles } = fromSdkOutput('ListInstanceProfiles', 'instanceprofiles', { InstanceProfiles: tagged.flat() });
    return profiles.map((p) => {
      const why = unreadable.get(p.name);
      return why === undefined ? p : { ...p, tagsUnreadable: why };
    });
  }

  /** 'gone' when the profile was deleted since it was listed; the error when its tags cannot be read. */
  async #tags(instanceProfileName: string): Promise<Tag[] | 'gone' | SourceError> {
    try {
      return await awsCall('ListInstanceProfileTags', () =>
        allPages(
          paginateListInstanceProfileTags({ client: this.#client }, { InstanceProfileName: instanceProfileName }),
          (page) => page.Tags,
        ),
      );
    } catch (error) {
      // The invocation's deadline (awsCall's InvocationTimeoutError) stops the whole listing, as any other call of it.
      if (!(error instanceof SourceError)) throw error;
      return isNotFound(error.cause) ? 'gone' : error;
    }
  }

  /** Idempotent: a profile or role already apart counts as done. */
  async removeRoleFromInstanceProfile(profileName: string, roleName: string): Promise<void> {
    try {
      await this.#client.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: profileName, RoleName: roleName }));
    } catch (error) {
      if (isNotFound(error)) return;
      throw sourceError('RemoveRoleFromInstanceProfile', error);
    }
  }

  async deleteInstanceProfile(profileName: string): Promise<boolean> {
    try {
      await this.#client.send(new DeleteInstanceProfileCommand({ InstanceProfileName: profileName }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw sourceError('DeleteInstanceProfile', error);
    }
  }
}
