/**
 * The size limit on capture files (`--max-file-size`): what is refused, with which line, and that
 * what is within it still loads whole. Small limits keep the files small; how fast and how much
 * memory a real gzip bomb takes is `npm run bench -- --only bounded-read` (BENCHMARKS.md).
 */
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/domain/errors.ts';
import { DEFAULT_MAX_FILE_BYTES, loadSnapshot } from '../../../src/snapshot/load.ts';
import { pod } from '../../factories/kube.ts';
import { captureDir, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const MiB = 1024 * 1024;
const LIMIT = 'the limit; raise it with --max-file-size';
const LIST_START = '{"apiVersion":"v1","kind":"List","items":[\n';
const LIST_END = '\n]}\n';

/** `kubectl get nodeclaims -o json` of no NodeClaims, padded with `spaces` bytes of whitespace. */
function paddedEmptyList(spaces: number): Buffer {
  return Buffer.concat([Buffer.from(LIST_START), Buffer.alloc(spaces, 0x20), Buffer.from(LIST_END)]);
}

/** A load asserted on after other awaits: marked handled now, so its rejection is not reported as unhandled meanwhile. */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

describe('loadSnapshot: the size limit', () => {
  it('is 1 GiB by default: a file one byte over is refused by its size, unread; one of exactly 1 GiB is read', async () => {
    // Prepare: sparse files, nothing written
    const dir = await captureDir({});
    const over = join(dir, 'over.json');
    const exactly = join(dir, 'exactly.json');
    await writeFile(over, '');
    await writeFile(exactly, '');
    await truncate(over, 1024 ** 3 + 1);
    await truncate(exactly, 1024 ** 3);

    // Act
    const overLoad = later(loadSnapshot([over]));
    const exactLoad = later(loadSnapshot([exactly]));

    // Assess
    expect(DEFAULT_MAX_FILE_BYTES).toBe(1024 ** 3);
    await expect(overLoad).rejects.toThrow(new InputError(over, `is more than 1 GiB (${LIMIT})`));
    // Read, and found to be zeros from its first bytes on.
    await expect(exactLoad).rejects.toThrow(new InputError(exactly, 'a binary file, not a kubectl or aws CLI output'));
  });

  it('refuses a gzip file that unpacks past the limit, in one line naming it and the limit', async () => {
    // Prepare: 8 MiB of whitespace in a 10 kB file
    const dir = await captureDir({ 'nodeclaims.json.gz': gzipSync(paddedEmptyList(8 * MiB), { level: 9 }) });

    // Act
    const loading = loadSnapshot([dir], { maxFileBytes: 4 * MiB });

    // Assess
    await expect(loading).rejects.toThrow(
      new InputError(join(dir, 'nodeclaims.json.gz'), `unpacks to more than 4 MiB (${LIMIT})`),
    );
  });

  it('reads the same file once the limit is raised above it', async () => {
    // Prepare
    const dir = await captureDir({ 'nodeclaims.json.gz': gzipSync(paddedEmptyList(8 * MiB), { level: 9 }) });

    // Act
    const { snapshot } = await loadSnapshot([dir], { maxFileBytes: 9 * MiB });

    // Assess
    expect(snapshot.captured).toEqual(new Set(['nodeclaims']));
  });

  it('counts every member of a multi-member gzip (`cat a.gz b.gz`), and reads them as one content', async () => {
    // Prepare: a pod list cut in two, each half its own gzip member
    const text = JSON.stringify(kubeList([pod({ name: 'a' }), pod({ name: 'b' })]), null, 4);
    const half = Math.floor(text.length / 2);
    const members = Buffer.concat([gzipSync(text.slice(0, half)), gzipSync(text.slice(half))]);
    const bomb = Buffer.concat(Array.from({ length: 3 }, () => gzipSync(paddedEmptyList(2 * MiB))));
    const dir = await captureDir({ 'pods.json.gz': members });
    const bombDir = await captureDir({ 'nodeclaims.json.gz': bomb });

    // Act
    const { snapshot } = await loadSnapshot([dir], { maxFileBytes: 4 * MiB });
    const refused = later(loadSnapshot([bombDir], { maxFileBytes: 4 * MiB }));

    // Assess
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual(['a', 'b']);
    await expect(refused).rejects.toThrow(`nodeclaims.json.gz: unpacks to more than 4 MiB (${LIMIT})`);
  });

  it('refuses a controller log that unpacks past the limit (logs are read line by line, never whole)', async () => {
    // Prepare: blank lines, the zero-filled log's text twin
    const dir = await captureDir({ 'karpenter.log.gz': gzipSync(Buffer.alloc(8 * MiB, 0x0a), { level: 9 }) });

    // Act
    const loading = loadSnapshot([dir], { maxFileBytes: 4 * MiB });

    // Assess
    await expect(loading).rejects.toThrow(`karpenter.log.gz: unpacks to more than 4 MiB (${LIMIT})`);
  });

  it('refuses a zero-filled gzip at once, from its first bytes, whatever its size', async () => {
    // Prepare
    const dir = await captureDir({ 'karpenter.log.gz': gzipSync(Buffer.alloc(8 * MiB), { level: 9 }) });

    // Act
    const loading = loadSnapshot([dir]);

    // Assess
    await expect(loading).rejects.toThrow(`karpenter.log.gz: a binary file, not a kubectl or aws CLI output`);
  });

  it('reads a list whose whitespace alone is larger than the longest value it parses whole (64 MiB)', async () => {
    // Prepare
    const dir = await captureDir({ 'nodeclaims.json.gz': gzipSync(paddedEmptyList(70 * MiB), { level: 1 }) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['nodeclaims']));
  });

  it('refuses a single JSON value over 64 MiB in one line instead of holding it', async () => {
    // Prepare: one list element of nested brackets
    const nested = Buffer.concat([Buffer.from('[\n'), Buffer.alloc(70 * MiB, '['.charCodeAt(0))]);
    const dir = await captureDir({ 'pods.json.gz': gzipSync(nested, { level: 1 }) });

    // Act
    const loading = loadSnapshot([dir]);

    // Assess
    await expect(loading).rejects.toThrow(
      `pods.json.gz: a single JSON value of more than 64 MiB (from byte 2), larger than any kubectl or aws CLI output holds: split the file`,
    );
  });
});

describe('loadSnapshot: gzip unpacked a piece at a time', () => {
  it('reads a gzip file padded with zeros after its end (dd, tape blocks) as gunzip does, and refuses trailing garbage', async () => {
    // Prepare
    const text = JSON.stringify(kubeList([pod({ name: 'a' })]));
    const dir = await captureDir({ 'pods.json.gz': Buffer.concat([gzipSync(text), Buffer.alloc(4096)]) });
    const garbage = await captureDir({ 'pods.json.gz': Buffer.concat([gzipSync(text), Buffer.from('garbage')]) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);
    const refused = later(loadSnapshot([garbage]));

    // Assess
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual(['a']);
    await expect(refused).rejects.toThrow('pods.json.gz: a gzip file that cannot be unpacked (truncated or corrupt)');
  });
});

describe('loadSnapshot: list items a file may hold', () => {
  /** `count` pods of a few dozen bytes each: a gzip of one repeated is millions in a few MB. */
  const tinyPods = (count: number) =>
    `{"apiVersion":"v1","kind":"PodList","items":[${Array.from({ length: count }, (_, i) => `{"metadata":{"name":"p${i}","namespace":"d"}}`).join(',')}]}`;

  it('are at most one per 512 bytes of the limit: more, held as objects, would fill V8 heap long before the limit', async () => {
    // Prepare: 1 MiB allows 2,048 items
    const dir = await captureDir({ 'pods.json': tinyPods(2_049) });
    const fits = await captureDir({ 'pods.json': tinyPods(2_048) });

    // Act
    const refused = later(loadSnapshot([dir], { maxFileBytes: MiB }));
    const { snapshot } = await loadSnapshot([fits], { maxFileBytes: MiB });

    // Assess
    await expect(refused).rejects.toThrow(
      new InputError(
        join(dir, 'pods.json'),
        'more than 2,048 list items, more than any kubectl or aws CLI output of this size holds (--max-file-size raises both)',
      ),
    );
    expect(snapshot.pods).toHaveLength(2_048);
  });
});

describe('loadSnapshot: list items a YAML file may hold', () => {
  /** `items: [{},{},…]`: a flow sequence of `count` entries, three bytes each. */
  const flowItems = (count: number) => `apiVersion: v1\nkind: PodList\nitems: [${'{},'.repeat(count - 1)}{}]\n`;
  const tooMany = (max: string) =>
    `more than ${max} list items, more than any kubectl or aws CLI output of this size holds (--max-file-size raises both)`;

  it('are at most one per 64 bytes of the limit, counted before the parser holds any: the file is a gap, the rest loads', async () => {
    // Prepare: 1 MiB allows 16,384; the brackets count as well as the commas
    const dir = await captureDir({ 'pods.yaml': flowItems(16_384), 'nodes.json': kubeList([]) });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir], { maxFileBytes: MiB });

    // Assess
    expect([...snapshot.captured]).toEqual(['nodes']);
    expect(snapshot.gaps).toEqual([{ source: 'pods', error: `${join(dir, 'pods.yaml')}: ${tooMany('16,384')}` }]);
    expect(notices.filter((n) => n.startsWith(`${join(dir, 'pods.yaml')}: ${tooMany('16,384')}`))).toHaveLength(1);
  });

  it('counts block sequence entries, nested ones and flow mappings alike, wherever quoting or comments might hide them', async () => {
    // Prepare: 1 MiB allows 16,384
    const block = `items:\n${'- - a\n'.repeat(8_193)}`;
    const quoted = `items: ["#", '"', ${'1,'.repeat(16_383)}1]\n`;
    const mapping = `items:\n  {${'a: 1,'.repeat(16_384)}b: 1}\n`;
    const dirs = await Promise.all([block, quoted, mapping].map((text) => captureDir({ 'pods.yaml': text })));

    // Act
    const loads = dirs.map((dir) => later(loadSnapshot([dir], { maxFileBytes: MiB })));

    // Assess
    for (const [i, load] of loads.entries()) {
      await expect(load).rejects.toThrow(new InputError(join(dirs[i] as string, 'pods.yaml'), tooMany('16,384')));
    }
  });

  it('are counted before the YAML is parsed: a file also broken further on gets the count line, not a parse error', async () => {
    // Prepare: 1 MiB allows 16,384
    const dir = await captureDir({ 'pods.yaml': `${flowItems(20_000)}kind: [unclosed\n` });

    // Act
    const loading = loadSnapshot([dir], { maxFileBytes: MiB });

    // Assess
    await expect(loading).rejects.toThrow(new InputError(join(dir, 'pods.yaml'), tooMany('16,384')));
  });

  it('reads a kubectl -o yaml List within the limit whole', async () => {
    // Prepare: 200 pods as kubectl prints them, in a 1 MiB limit
    const pods = Array.from({ length: 200 }, (_, i) => pod({ name: `p${i}` }));
    const text = `apiVersion: v1\nkind: List\nitems:\n${pods.map((p) => `- ${JSON.stringify(p)}\n`).join('')}`;
    const dir = await captureDir({ 'pods.yaml': text });

    // Act
    const { snapshot } = await loadSnapshot([dir], { maxFileBytes: MiB });

    // Assess
    expect(snapshot.pods).toHaveLength(200);
  });
});
