/** Temporary capture directories for loader tests: one per test, removed afterwards. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const created: string[] = [];

/**
 * Writes `files` (relative path → text, bytes, or a value printed as JSON the way kubectl and the
 * AWS CLI indent it) under a fresh temp directory and returns the directory.
 */
export async function captureDir(files: Record<string, string | Uint8Array | object>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sentinel-capture-'));
  created.push(dir);
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    await mkdir(dirname(path), { recursive: true });
    const data = typeof content === 'string' || content instanceof Uint8Array ? content : `${JSON.stringify(content, null, 4)}\n`;
    await writeFile(path, data);
  }
  return dir;
}

export async function removeCaptureDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** `kubectl get ... -o json` output: a `List` with typed items. */
export function kubeList(items: readonly object[]): object {
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}

export const EMPTY_LIST_JSON = '{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}\n';
export const EMPTY_LIST_YAML = 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n';
