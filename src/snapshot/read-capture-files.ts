import type { Dirent, Stats } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, UsageError } from '../domain/errors.ts';
import { displayPath, type CaptureFile } from './build-snapshot.ts';

/**
 * `--from PATH...` → the capture files to read, in order. Directories are walked recursively in
 * sorted (code point) order so that "later files win" is deterministic; inside them, hidden
 * entries (`.DS_Store`, `.git`) and Markdown notes (a capture's README) are not captures and are
 * skipped. A file reached twice (given twice, or through a symlink) is listed once.
 */
export async function listCaptureFiles(paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) throw new UsageError('no capture given: pass --from PATH (files or directories)');
  const files: string[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const stats = await statOf(path);
    if (stats.isDirectory()) {
      const before = files.length;
      await walkDirectory(path, files, seen);
      if (files.length === before) throw new InputError(displayPath(path), 'directory holds no capture files');
    } else if (stats.isFile()) {
      await addOnce(path, files, seen);
    } else {
      throw new InputError(displayPath(path), 'not a regular file or directory');
    }
  }
  return files;
}

export async function readCaptureFile(path: string): Promise<CaptureFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(displayPath(path), `cannot be read (${codeOf(error)})`, { cause: error });
  }
  return { path, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

async function walkDirectory(directory: string, files: string[], seen: Set<string>): Promise<void> {
  const real = await realPathOf(directory);
  if (seen.has(real)) return; // symlink loop, or a directory given twice
  seen.add(real);
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    throw new InputError(displayPath(directory), `cannot be read (${codeOf(error)})`, { cause: error });
  }
  const names = entries.map((e) => e.name).filter((name) => !name.startsWith('.') && !isMarkdown(name));
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const path = join(directory, name);
    const stats = await statOf(path);
    if (stats.isDirectory()) await walkDirectory(path, files, seen);
    else if (stats.isFile()) await addOnce(path, files, seen);
    // sockets, FIFOs, devices: not captures, and reading a FIFO would block forever
  }
}

function isMarkdown(name: string): boolean {
  return /\.(md|markdown)$/i.test(name);
}

async function addOnce(path: string, files: string[], seen: Set<string>): Promise<void> {
  const real = await realPathOf(path);
  if (seen.has(real)) return;
  seen.add(real);
  files.push(path);
}

async function statOf(path: string): Promise<Stats> {
  try {
    return await stat(path);
  } catch (error) {
    const code = codeOf(error);
    const problem = code === 'ENOENT' ? 'no such file or directory' : `cannot be read (${code})`;
    throw new InputError(displayPath(path), problem, { cause: error });
  }
}

async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    throw new InputError(displayPath(path), `cannot be read (${codeOf(error)})`, { cause: error });
  }
}

function codeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? (error.message.split('\n')[0] ?? 'unknown error') : String(error);
}
