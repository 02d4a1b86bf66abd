/**
 * The infrastructure sources as files: plain YAML (long-form intrinsics, no `!Ref` tags, so any
 * parser and these tests read them), and the onboarding examples mapping the scan and cleanup
 * roles to the RBAC groups of infra/kubernetes/rbac.yaml.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parseDocument } from 'yaml';
import { REPO_ROOT } from '../../scripts/bundle.ts';
import { isEksClusterName } from '../../src/domain/aws.ts';

const INFRA = path.join(REPO_ROOT, 'infra');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

const FILES = [path.join(REPO_ROOT, 'serverless.yml'), ...yamlFiles(INFRA)].map((f) => path.relative(REPO_ROOT, f));

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe('infrastructure YAML', () => {
  it('covers serverless.yml, the CloudFormation resources, the RBAC and the onboarding template', () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        'serverless.yml',
        'infra/queues.yml',
        'infra/iam.yml',
        'infra/kubernetes/rbac.yaml',
        'infra/onboarding/access-entry.cloudformation.yml',
      ]),
    );
  });

  it.each(FILES)('%s is plain YAML: no short-form (!) intrinsic tags, no parse warnings', (file) => {
    const documents = parseAllDocuments(read(file));

    for (const d of documents) {
      expect(d.errors.map((e) => e.message)).toEqual([]);
      expect(d.warnings.map((w) => w.message)).toEqual([]);
    }
    expect(read(file)).not.toMatch(
      /(^|[\s[{,:-])!(Ref|GetAtt|Sub|If|Equals|Not|Or|And|Join|Select|Split|ImportValue|Base64|Condition)\b/m,
    );
  });
});

describe('onboarding a cluster', () => {
  it('the CloudFormation example maps the scan role to karpenter-sentinel and, if given, the cleanup role to karpenter-sentinel-cleanup, with no access policy', () => {
    const template = parseDocument(read('infra/onboarding/access-entry.cloudformation.yml')).toJS() as {
      Parameters: Record<string, { Default?: string; AllowedPattern?: string }>;
      Conditions: Record<string, unknown>;
      Resources: Record<string, { Type: string; Condition?: string; Properties: Record<string, unknown> }>;
    };

    const entries = Object.values(template.Resources).filter((r) => r.Type === 'AWS::EKS::AccessEntry');

    expect(Object.keys(template.Parameters).sort()).toEqual(['CleanupRoleArn', 'ClusterName', 'SentinelRoleArn']);
    expect(entries).toHaveLength(2);
    expect(entries[0]?.Properties).toEqual({
      ClusterName: { Ref: 'ClusterName' },
      PrincipalArn: { Ref: 'SentinelRoleArn' },
      Type: 'STANDARD',
      KubernetesGroups: ['karpenter-sentinel'],
    });
    expect(entries[1]).toEqual({
      Type: 'AWS::EKS::AccessEntry',
      Condition: 'CleanupEnabled',
      Properties: {
        ClusterName: { Ref: 'ClusterName' },
        PrincipalArn: { Ref: 'CleanupRoleArn' },
        Type: 'STANDARD',
        KubernetesGroups: ['karpenter-sentinel-cleanup'],
      },
    });
    expect(template.Conditions.CleanupEnabled).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'CleanupRoleArn' }, ''] }] });
    const cleanupArn = new RegExp(template.Parameters.CleanupRoleArn?.AllowedPattern ?? '');
    expect(template.Parameters.CleanupRoleArn?.Default).toBe('');
    expect(cleanupArn.test('')).toBe(true);
    expect(cleanupArn.test('arn:aws:iam::111122223333:role/karpenter-sentinel-prod-CleanupRole-1A2B3C')).toBe(true);
    expect(cleanupArn.test('karpenter-sentinel-cleanup')).toBe(false);
  });

  it('the Terraform example does the same', () => {
    const tf = read('infra/onboarding/access-entry.tf');

    expect(tf).toMatch(/resource "aws_eks_access_entry" "karpenter_sentinel"/);
    expect(tf).toMatch(/kubernetes_groups\s*=\s*\["karpenter-sentinel"\]/);
    expect(tf).toMatch(
      /resource "aws_eks_access_entry" "karpenter_sentinel_cleanup" \{\s*count\s*=\s*var\.cleanup_role_arn == null \? 0 : 1/,
    );
    expect(tf).toMatch(/principal_arn\s*=\s*var\.cleanup_role_arn/);
    expect(tf).toMatch(/kubernetes_groups\s*=\s*\["karpenter-sentinel-cleanup"\]/);
    expect(tf.match(/type\s*=\s*"STANDARD"/g)).toHaveLength(2);
    expect(tf).not.toMatch(/aws_eks_access_policy_association/);
  });
});

/** infra/cluster-scope.cjs as osls calls it: `${file(infra/cluster-scope.cjs):names}` in infra/iam.yml. */
type ClusterScope = (args: { resolveVariable: (name: string) => Promise<unknown> }) => Promise<{
  names: string[];
  instanceProfiles: { 'Fn::Sub': string }[];
}>;
const clusterScope = createRequire(import.meta.url)(path.join(INFRA, 'cluster-scope.cjs')) as ClusterScope;
const scopeOf = (clusters: string) =>
  clusterScope({ resolveVariable: async (name) => (name === 'param:clusters' ? clusters : undefined) });

describe('the clusters the IAM policies name (infra/cluster-scope.cjs)', () => {
  it('one name and two profile ARNs per cluster, each under this region’s Karpenter path or named for it', async () => {
    const scope = await scopeOf('prod-eu,prod_us');

    expect(scope.names).toEqual(['prod-eu', 'prod_us']);
    expect(scope.instanceProfiles.map((arn) => arn['Fn::Sub'])).toEqual([
      'arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/karpenter/${AWS::Region}/prod-eu/*',
      'arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/prod-eu_*',
      'arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/karpenter/${AWS::Region}/prod_us/*',
      'arn:${AWS::Partition}:iam::${AWS::AccountId}:instance-profile/prod_us_*',
    ]);
  });

  it('none when the param is empty (the destructive statements are then left out: ClustersListed)', async () => {
    expect(await scopeOf('')).toEqual({ names: [], instanceProfiles: [] });
  });

  it.each(['*', 'prod-eu, prod-us', 'prod-eu,', 'prod eu', '-prod'])(
    'refuses %j: a wildcard or a stray space would widen or break the policies, so packaging stops',
    async (clusters) => {
      await expect(scopeOf(clusters)).rejects.toThrow(/param clusters must be EKS cluster names/);
    },
  );

  it('accepts exactly the names the functions accept (src/domain/aws.ts)', async () => {
    for (const name of ['a', 'prod-eu-1', 'Prod_2', 'x'.repeat(100), 'x'.repeat(101), '_a']) {
      const accepted = await scopeOf(name).then(
        () => true,
        () => false,
      );
      expect(accepted, name).toBe(isEksClusterName(name));
    }
  });
});
