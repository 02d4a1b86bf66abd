import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../../src/domain/errors.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { nodeClaim } from '../../factories/karpenter.ts';
import { pod } from '../../factories/kube.ts';
import { captureDir, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

describe('loadSnapshot: files and directories', () => {
  it('reads directories recursively in sorted order and several paths in the order given', async () => {
    // Prepare
    const first = await captureDir({
      'b/pods.json': kubeList([pod({ name: 'from-b' })]),
      'a/nested/pods.json': kubeList([pod({ name: 'from-a-nested' })]),
      'c.json': kubeList([pod({ name: 'from-c' })]),
      '.DS_Store': '\u0000\u0001binary',
      'README.md': '# Capture of aws-2026-eks\n\nTaken after `terraform apply`: see the table below.\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
    });
    const second = await captureDir({ 'nodeclaims.json': kubeList([nodeClaim({ name: 'default-kb85v' })]) });

    // Act
    const { snapshot, files } = await loadSnapshot([first, join(second, 'nodeclaims.json')]);

    // Assess
    expect(files).toBe(4);
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual(['from-a-nested', 'from-b', 'from-c']);
    expect(snapshot.nodeClaims.map((n) => n.metadata?.name)).toEqual(['default-kb85v']);
  });

  it('reads a file reached twice (given twice, or through a symlinked directory) once', async () => {
    // Prepare
    const dir = await captureDir({ 'real/pods.json': kubeList([pod({ name: 'p' })]) });
    await symlink(join(dir, 'real'), join(dir, 'link'));
    await symlink(dir, join(dir, 'real', 'loop'));

    // Act
    const { files, snapshot } = await loadSnapshot([dir, join(dir, 'real', 'pods.json')]);

    // Assess
    expect(files).toBe(1);
    expect(snapshot.pods).toHaveLength(1);
  });

  it('lets a later file replace an earlier copy of the same object', async () => {
    // Prepare
    const dir = await captureDir({
      '1-pods.json': kubeList([pod({ name: 'inflate-1', phase: 'Pending' }), pod({ name: 'inflate-2' })]),
      '2-pods.json': kubeList([pod({ name: 'inflate-1', nodeName: 'ip-10-59-42-222.ec2.internal' })]),
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods.map((p) => [p.metadata?.name, p.status?.phase])).toEqual([
      ['inflate-1', 'Running'],
      ['inflate-2', 'Pending'],
    ]);
  });

  it('rejects a path that does not exist', async () => {
    // Prepare
    const dir = await captureDir({});
    const missing = join(dir, 'capture', 'nodeclaims.json');

    // Act
    const loading = loadSnapshot([missing]);

    // Assess
    await expect(loading).rejects.toThrow(InputError);
    await expect(loading).rejects.toThrow(`${missing}: no such file or directory`);
  });

  it('still reads a Markdown file named explicitly (and rejects it)', async () => {
    // Prepare
    const dir = await captureDir({ 'README.md': '# Notes\n\nSee the capture.\n' });

    // Act
    const loading = loadSnapshot([join(dir, 'README.md')]);

    // Assess
    await expect(loading).rejects.toThrow(InputError);
  });

  it('rejects an empty directory and an empty list of paths', async () => {
    // Prepare
    const dir = await captureDir({ '.hidden': 'x', 'README.md': '# nothing captured yet\n' });

    // Act & Assess
    await expect(loadSnapshot([dir])).rejects.toThrow(`${dir}: directory holds no capture files`);
    await expect(loadSnapshot([])).rejects.toThrow(UsageError);
  });
});

describe('loadSnapshot: files it cannot use', () => {
  it.each([
    ['x.json', '{\n  "kind": "List",\n  "items": [\n    {"a": 1,}\n  ]\n}\n', /^x\.json: not JSON or YAML \(line 4: .+\)$/],
    [
      'x.json',
      '{"apiVersion": "v1", "kind": "Secret", "data": {"token": s3cr3t}}',
      /^x\.json: not JSON or YAML \(Unexpected token 's'\)$/,
    ],
    [
      'x.yaml',
      'apiVersion: v1\nkind: List\nitems:\n  - name: a\n   bad: indentation\n',
      /^x\.yaml: not JSON or YAML \(line \d: .+\)$/,
    ],
    ['x.json', '{\n  "Reservations": [\n', /^x\.json: not JSON or YAML \(line 2: Unexpected end of JSON input\)$/],
    ['x.yaml', 'a: &anchor 1\nb: *anchor\n', /^x\.yaml: not JSON or YAML \(YAML aliases \(\*name\) are not supported\)$/],
    [
      'notes.txt',
      'Remember to check aws-auth.\n',
      /^notes\.txt: not a kubectl or aws CLI output this tool understands \(controller logs need a \.log suffix\)$/,
    ],
    [
      'x.json',
      '{"clusters": ["a", "b"]}',
      /^x\.json: not a kubectl or aws CLI output this tool understands \(top-level keys: clusters\)$/,
    ],
    ['x.json', '42', /^x\.json: not a kubectl or aws CLI output this tool understands$/],
    ['x.json', '', /^x\.json: empty file: not a kubectl or aws CLI output this tool understands$/],
    [
      'two.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\nhello: world\n',
      /^two\.yaml: document 2: not a kubectl or aws CLI output/,
    ],
  ])('%s %j → one-line InputError naming the file', async (name, content, message) => {
    // Prepare
    const dir = await captureDir({ [name]: content });

    // Act
    const error = await loadSnapshot([join(dir, name)]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InputError);
    const text = (error as InputError).message.slice(dir.length + 1);
    expect(text).toMatch(message);
    expect(text).not.toContain('\n');
    expect(text).not.toContain('s3cr3t');
    expect((error as InputError).file).toBe(join(dir, name));
  });

  it('keeps a file name with control characters on one line', async () => {
    // Prepare
    const dir = await captureDir({ 'bad\nname.json': '{"foo": 1}' });

    // Act
    const error = await loadSnapshot([dir]).catch((e: unknown) => e);

    // Assess
    expect((error as InputError).message).toContain('bad?name.json: not a kubectl');
    expect((error as InputError).message).not.toContain('\n');
  });
});

describe('loadSnapshot: error text captured instead of output', () => {
  it('reads the AWS CLI error for a deleted cluster as "cluster gone", with no Kubernetes objects', async () => {
    // Prepare
    const dir = await captureDir({
      'describe-cluster.txt':
        '\nAn error occurred (ResourceNotFoundException) when calling the DescribeCluster operation: No cluster found for name: acme-prod.\n',
      'instances.json': { Reservations: [] },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.cluster).toEqual({ name: 'acme-prod', gone: true });
    expect(snapshot.clusterName).toBe('acme-prod');
    expect(snapshot.captured).toEqual(new Set(['cluster', 'instances', 'nodeclaims', 'pods', 'nodepools']));
    expect(snapshot.nodeClaims).toEqual([]);
    expect(snapshot.gaps).toEqual([]);
  });

  it('also knows a cluster is gone from other EKS calls about it', async () => {
    // Prepare
    const dir = await captureDir({
      'fargate.txt':
        'An error occurred (ResourceNotFoundException) when calling the ListFargateProfiles operation: No cluster found for name: acme-prod.',
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.cluster).toEqual({ name: 'acme-prod', gone: true });
  });

  it('does not mark Kubernetes sources captured while the cluster exists', async () => {
    // Prepare
    const dir = await captureDir({ 'cluster.json': { cluster: { name: 'acme-prod', status: 'ACTIVE' } } });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['cluster']));
  });

  it('turns other AWS CLI and kubectl errors into gaps for the source that could not be read', async () => {
    // Prepare
    const dir = await captureDir({
      'instances.txt':
        'An error occurred (UnauthorizedOperation) when calling the DescribeInstances operation: You are not authorized to perform this operation.',
      'nodeclaims.txt':
        'Error from server (Forbidden): nodeclaims.karpenter.sh is forbidden: User "readonly" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured.size).toBe(0);
    expect(snapshot.gaps).toEqual([
      {
        source: 'instances',
        error: 'DescribeInstances failed: UnauthorizedOperation: You are not authorized to perform this operation.',
      },
      {
        source: 'nodeclaims',
        error:
          'Forbidden: nodeclaims.karpenter.sh is forbidden: User "readonly" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
      },
    ]);
  });

  it('does not mistake an Event quoting an AWS error for that error', async () => {
    // Prepare
    const dir = await captureDir({
      'events.yaml': `apiVersion: v1
kind: Event
metadata: {name: default-kb85v.1, namespace: default}
involvedObject: {kind: NodeClaim, name: default-kb85v}
reason: FailedLaunch
message: "An error occurred (UnauthorizedOperation) when calling the DescribeInstances operation: denied"
`,
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.events).toHaveLength(1);
  });
});
