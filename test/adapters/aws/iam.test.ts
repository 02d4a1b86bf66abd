import {
  DeleteConflictException,
  DeleteInstanceProfileCommand,
  ListInstanceProfilesCommand,
  ListInstanceProfileTagsCommand,
  NoSuchEntityException,
  RemoveRoleFromInstanceProfileCommand,
  type InstanceProfile as SdkInstanceProfile,
  type ListInstanceProfilesCommandInput,
  type ListInstanceProfilesCommandOutput,
} from '@aws-sdk/client-iam';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { IamAdapter, mayBeKarpenters } from '../../../src/adapters/aws/iam.ts';
import { ACCOUNT, iamClient, pagesOf } from './sdk-fixtures.ts';

const client = iamClient();
const iam = mockClient(client);
afterEach(() => iam.reset());

function sdkProfile(name: string, path = '/', role?: string): SdkInstanceProfile {
  return {
    Path: path,
    InstanceProfileName: name,
    InstanceProfileId: `AIPA${name.length}`,
    Arn: `arn:aws:iam::${ACCOUNT}:instance-profile${path}${name}`,
    CreateDate: new Date('2025-12-31T20:14:06Z'),
    Roles: role
      ? [
          {
            Path: '/',
            RoleName: role,
            RoleId: 'AROA1',
            Arn: `arn:aws:iam::${ACCOUNT}:role/${role}`,
            CreateDate: new Date('2025-12-31T20:12:15Z'),
          },
        ]
      : [],
  };
}

describe('IamAdapter.listInstanceProfiles', () => {
  it('follows Marker to the last page, passing the path prefix', async () => {
    // Prepare
    const pages = pagesOf<ListInstanceProfilesCommandInput, ListInstanceProfilesCommandOutput>(
      { InstanceProfiles: [sdkProfile('a', '/karpenter/')], IsTruncated: true, Marker: 'm2', $metadata: {} },
      { InstanceProfiles: [sdkProfile('b', '/karpenter/')], IsTruncated: false, $metadata: {} },
    );
    iam.on(ListInstanceProfilesCommand).callsFake(pages.answer).on(ListInstanceProfileTagsCommand).resolves({ Tags: [] });

    // Act
    const profiles = await new IamAdapter(client).listInstanceProfiles('/karpenter/');

    // Assess
    expect(profiles.map((p) => p.name)).toEqual(['a', 'b']);
    expect(pages.inputs).toEqual([
      { PathPrefix: '/karpenter/', MaxItems: 1000, Marker: undefined },
      { PathPrefix: '/karpenter/', MaxItems: 1000, Marker: 'm2' },
    ]);
  });

  it('reads tags only for the profiles Karpenter may have made, and maps roles, path, ARN and dates', async () => {
    // Prepare
    iam
      .on(ListInstanceProfilesCommand)
      .resolves({
        InstanceProfiles: [
          sdkProfile('platform-eks-dev_8351943279432019856', '/', 'Karpenter-platform-eks-dev'),
          sdkProfile('eks-8cc9e21a-5f3d-4b7e-91a6-2d0c7e4b8f13', '/', 'node-group-role'),
          sdkProfile('platform-eks-dev_17', '/karpenter/eu-central-1/platform-eks-dev/0c9e1f/'),
        ],
      })
      .on(ListInstanceProfileTagsCommand, { InstanceProfileName: 'platform-eks-dev_8351943279432019856' })
      .resolves({ Tags: [{ Key: 'eks:eks-cluster-name', Value: 'platform-eks-dev' }], IsTruncated: false })
      .on(ListInstanceProfileTagsCommand, { InstanceProfileName: 'platform-eks-dev_17' })
      .resolves({ Tags: [{ Key: 'karpenter.sh/managed-by', Value: 'platform-eks-dev' }] });

    // Act
    const profiles = await new IamAdapter(client).listInstanceProfiles();

    // Assess
    expect(iam.commandCalls(ListInstanceProfilesCommand)[0]?.args[0].input.PathPrefix).toBeUndefined();
    expect(iam.commandCalls(ListInstanceProfileTagsCommand).map((c) => c.args[0].input.InstanceProfileName)).toEqual([
      'platform-eks-dev_8351943279432019856',
      'platform-eks-dev_17',
    ]);
    expect(profiles[0]).toEqual({
      name: 'platform-eks-dev_8351943279432019856',
      arn: `arn:aws:iam::${ACCOUNT}:instance-profile/platform-eks-dev_8351943279432019856`,
      path: '/',
      id: 'AIPA36',
      createDate: '2025-12-31T20:14:06.000Z',
      roles: [{ name: 'Karpenter-platform-eks-dev', arn: `arn:aws:iam::${ACCOUNT}:role/Karpenter-platform-eks-dev` }],
      tags: { 'eks:eks-cluster-name': 'platform-eks-dev' },
    });
    expect(profiles[1]?.tags).toEqual({});
    expect(profiles[2]?.tags).toEqual({ 'karpenter.sh/managed-by': 'platform-eks-dev' });
  });

  it('leaves out a profile deleted between the list and its tags', async () => {
    iam
      .on(ListInstanceProfilesCommand)
      .resolves({ InstanceProfiles: [sdkProfile('demo_1'), sdkProfile('demo_2')] })
      .on(ListInstanceProfileTagsCommand, { InstanceProfileName: 'demo_1' })
      .rejects(new NoSuchEntityException({ message: 'The Instance Profile with name demo_1 cannot be found.', $metadata: {} }))
      .on(ListInstanceProfileTagsCommand, { InstanceProfileName: 'demo_2' })
      .resolves({ Tags: [] });

    expect((await new IamAdapter(client).listInstanceProfiles()).map((p) => p.name)).toEqual(['demo_2']);
  });

  it('one profile whose tags are denied comes back untagged and marked; the others keep theirs', async () => {
    // Prepare
    const denied = new Error(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/CleanupRole/x is not authorized to perform: iam:ListInstanceProfileTags on resource: instance profile demo_1`,
    );
    denied.name = 'AccessDenied';
    iam
      .on(ListInstanceProfilesCommand)
      .resolves({ InstanceProfiles: [sdkProfile('demo_1'), sdkProfile('demo_2')] })
      .on(ListInstanceProfileTagsCommand, { InstanceProfileName: 'demo_1' })
      .rejects(denied)
      .on(ListInstanceProfileTagsCommand, { InstanceProfileName: 'demo_2' })
      .resolves({ Tags: [{ Key: 'eks:eks-cluster-name', Value: 'demo' }] });

    // Act
    const profiles = await new IamAdapter(client).listInstanceProfiles();

    // Assess
    expect(profiles.map((p) => [p.name, p.tags, p.tagsUnreadable])).toEqual([
      ['demo_1', {}, `ListInstanceProfileTags failed: AccessDenied: ${denied.message}`],
      ['demo_2', { 'eks:eks-cluster-name': 'demo' }, undefined],
    ]);
  });

  it('turns AccessDenied into a SourceError (the seed: iam:ListInstanceProfiles not allowed)', async () => {
    // Prepare
    const denied = new Error(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/KarpenterController/x is not authorized to perform: iam:ListInstanceProfiles on resource: arn:aws:iam::${ACCOUNT}:instance-profile/`,
    );
    denied.name = 'AccessDenied';
    iam.on(ListInstanceProfilesCommand).rejects(denied);

    // Act + Assess
    await expect(new IamAdapter(client).listInstanceProfiles()).rejects.toMatchObject({
      name: 'SourceError',
      code: 'AccessDenied',
      summary: `ListInstanceProfiles failed: AccessDenied: ${denied.message}`,
    });
  });
});

describe('mayBeKarpenters', () => {
  it.each([
    ['demo_1976173924626587633', '/', true],
    ['anything', '/karpenter/us-east-1/demo/uid/', true],
    ['KarpenterNodeInstanceProfile-demo', '/', false],
    ['eks-8cc9e21a-5f3d-4b7e-91a6-2d0c7e4b8f13', '/', false],
    ['demo_v2', '/', false],
  ])('%s at %s → %s', (InstanceProfileName, Path, expected) => {
    expect(mayBeKarpenters({ InstanceProfileName, Path })).toBe(expected);
  });
});

describe('IamAdapter deletes', () => {
  it('removes a role from a profile; one already apart counts as done', async () => {
    // Prepare
    iam
      .on(RemoveRoleFromInstanceProfileCommand, { InstanceProfileName: 'demo_1' })
      .resolves({})
      .on(RemoveRoleFromInstanceProfileCommand, { InstanceProfileName: 'demo_gone' })
      .rejects(
        new NoSuchEntityException({ message: 'The Instance Profile with name demo_gone cannot be found.', $metadata: {} }),
      );
    const adapter = new IamAdapter(client);

    // Act
    await adapter.removeRoleFromInstanceProfile('demo_1', 'KarpenterNodeRole-demo');
    await adapter.removeRoleFromInstanceProfile('demo_gone', 'KarpenterNodeRole-demo');

    // Assess
    expect(iam.commandCalls(RemoveRoleFromInstanceProfileCommand).map((c) => c.args[0].input)).toEqual([
      { InstanceProfileName: 'demo_1', RoleName: 'KarpenterNodeRole-demo' },
      { InstanceProfileName: 'demo_gone', RoleName: 'KarpenterNodeRole-demo' },
    ]);
  });

  it('deletes a profile: true, false when already gone, a SourceError when a role is still attached', async () => {
    // Prepare
    iam
      .on(DeleteInstanceProfileCommand, { InstanceProfileName: 'demo_1' })
      .resolves({})
      .on(DeleteInstanceProfileCommand, { InstanceProfileName: 'demo_gone' })
      .rejects(new NoSuchEntityException({ message: 'The Instance Profile with name demo_gone cannot be found.', $metadata: {} }))
      .on(DeleteInstanceProfileCommand, { InstanceProfileName: 'demo_attached' })
      .rejects(
        new DeleteConflictException({
          message: 'Cannot delete entity, must remove roles from instance profile first.',
          $metadata: {},
        }),
      );
    const adapter = new IamAdapter(client);

    // Act + Assess
    expect(await adapter.deleteInstanceProfile('demo_1')).toBe(true);
    expect(await adapter.deleteInstanceProfile('demo_gone')).toBe(false);
    await expect(adapter.deleteInstanceProfile('demo_attached')).rejects.toMatchObject({
      code: 'DeleteConflictException',
      summary:
        'DeleteInstanceProfile failed: DeleteConflictException: Cannot delete entity, must remove roles from instance profile first.',
    });
  });
});
