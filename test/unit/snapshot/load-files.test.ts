import { Buffer } from 'node:buffer';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../../src/domain/errors.ts';
import { loadSnapshot, snapshotFromFiles } from '../../../src/snapshot/load.ts';
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

  it('reads a directory given twice, or given inside one already given, once and without complaint', async () => {
    // Prepare
    const dir = await captureDir({ 'cluster-a/pods.json': kubeList([pod({ name: 'p' })]) });

    // Act
    const { files, snapshot } = await loadSnapshot([dir, dir, join(dir, 'cluster-a')]);

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
    ['x.json', '', /^x\.json: empty file: the command that wrote it printed nothing; run it again/],
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
        source: 'nodeclaims',
        error:
          'Forbidden: nodeclaims.karpenter.sh is forbidden: User "readonly" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
      },
      {
        source: 'instances',
        error: 'DescribeInstances failed: UnauthorizedOperation: You are not authorized to perform this operation.',
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

describe('loadSnapshot: what shells, editors and archivers do to files', () => {
  const pods = `${JSON.stringify(kubeList([pod({ name: 'inflate-5cf78d58f6-9snnr' })]), null, 4)}\n`;
  const log = '{"level":"ERROR","time":"2025-12-28T20:35:39.951Z","message":"Reconciler error","error":"AccessDenied"}\n';

  it('unpacks gzip (`kubectl get pods -A -o json | gzip`), naming the content by the name without .gz', async () => {
    // Prepare
    const dir = await captureDir({
      'pods.json.gz': gzipSync(pods),
      'karpenter.log.gz': gzipSync(log),
      'nodeclaims.yaml.gz': gzipSync('apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n'),
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual(['inflate-5cf78d58f6-9snnr']);
    expect(snapshot.logs.map((l) => l.level)).toEqual(['ERROR']);
    expect(snapshot.captured).toEqual(new Set(['pods', 'logs', 'nodeclaims']));
  });

  it('reads UTF-16 with a byte order mark (what Windows PowerShell 5 writes for `kubectl ... > pods.json`)', async () => {
    // Prepare
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(pods.replaceAll('\n', '\r\n'), 'utf16le')]);
    const dir = await captureDir({ 'pods.json': utf16 });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual(['inflate-5cf78d58f6-9snnr']);
  });

  it('drops a byte order mark from text handed over directly too', () => {
    // Act
    const { snapshot } = snapshotFromFiles([{ path: 'capture/pods.json', text: `\uFEFF${pods}` }]);

    // Assess
    expect(snapshot.pods).toHaveLength(1);
  });

  it.each([
    [
      'capture.tar.gz',
      () => gzipSync(tarOf('capture/pods.json', pods)),
      'a tar archive: extract it first (tar xf) and pass the folder',
    ],
    [
      'capture.tgz',
      () => gzipSync(tarOf('capture/pods.json', pods)),
      'a tar archive: extract it first (tar xf) and pass the folder',
    ],
    [
      'capture.zip',
      () => Buffer.concat([Buffer.from('PK\u0003\u0004\u0014\u0000'), Buffer.alloc(40, 1)]),
      'a zip archive: unzip it first and pass the folder',
    ],
    ['pods.json.gz', () => gzipSync(pods).subarray(0, 20), 'a gzip file that cannot be unpacked (truncated or corrupt)'],
    [
      'screenshot.png',
      () => Buffer.from('89504e470d0a1a0a0000000d49484452000004', 'hex'),
      'a binary file, not a kubectl or aws CLI output',
    ],
    [
      'garbage.json',
      () => Buffer.from(Array.from({ length: 4000 }, (_, i) => 128 + ((i * 37) % 128))),
      'a binary file, not a kubectl or aws CLI output',
    ],
  ])('rejects %s, saying what it is', async (name, content, problem) => {
    // Prepare
    const dir = await captureDir({ [name]: content() });

    // Act
    const error = await loadSnapshot([dir]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(`${join(dir, name)}: ${problem}`);
  });

  it('names a broken symbolic link and one pointing at itself as such', async () => {
    // Prepare
    const broken = await captureDir({ 'pods.json': pods });
    await symlink(join(broken, 'gone', 'nodeclaims.json'), join(broken, 'nodeclaims.json'));
    const loop = await captureDir({ 'pods.json': pods });
    await symlink(join(loop, 'self.json'), join(loop, 'self.json'));

    // Act
    const brokenError = await loadSnapshot([broken]).catch((e: unknown) => e);
    const loopError = await loadSnapshot([loop]).catch((e: unknown) => e);

    // Assess
    expect((brokenError as InputError).message).toBe(
      `${join(broken, 'nodeclaims.json')}: a broken symbolic link (its target does not exist)`,
    );
    expect((loopError as InputError).message).toBe(`${join(loop, 'self.json')}: a symbolic link that points back to itself`);
  });

  it('reads an empty file or one of only whitespace as empty, one line', async () => {
    // Prepare
    const dir = await captureDir({ 'a.json': '', 'b.yaml': '  \n\n\t\n' });

    // Act
    const empty = await loadSnapshot([join(dir, 'a.json')]).catch((e: unknown) => e);
    const blank = await loadSnapshot([join(dir, 'b.yaml')]).catch((e: unknown) => e);

    // Assess
    expect((empty as InputError).message).toBe(`${join(dir, 'a.json')}: ${EMPTY}`);
    expect((blank as InputError).message).toBe(`${join(dir, 'b.yaml')}: ${EMPTY}`);
  });
});

const EMPTY = 'empty file: the command that wrote it printed nothing; run it again (`> file 2>&1` keeps its error)';

/** A one-file ustar archive, as `tar cf` writes it. */
function tarOf(name: string, content: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0);
  header.write('0000644\0', 100);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('ustar\u000000', 257);
  const body = Buffer.alloc(Math.ceil(content.length / 512) * 512);
  body.write(content);
  return Buffer.concat([header, body, Buffer.alloc(1024)]);
}
