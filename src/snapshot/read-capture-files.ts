import { Buffer } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync, statSync, type Dirent, type Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, UsageError } from '../domain/errors.ts';
import { displayPath, type CaptureFile } from './build-snapshot.ts';
import type { ByteSource } from './capture-content.ts';
import { SNAPSHOT_SUMMARY } from './taken-at.ts';

/**
 * `--from PATH...` → the capture files to read, in order. Directories are walked recursively in
 * sorted (code point) order so that "later files win" is deterministic; inside them, hidden
 * entries (`.DS_Store`, `.git`) and Markdown notes (a capture's README) are not captures and are
 * skipped, but for SNAPSHOT.md, which says when the capture was taken. A file reached twice
 * (given twice, or through a symlink) is listed once.
 */
export async function listCaptureFiles(paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) throw new UsageError('no capture given: pass --from PATH (files or directories)');
  const files: string[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const stats = await statOf(path);
    if (stats.isDirectory()) {
      // Given twice, or inside a directory already given: read once, not an empty directory.
      const real = await realPathOf(path);
      if (seen.has(real)) continue;
      const before = files.length;
      await walkDirectory(path, real, files, seen);
      if (files.length === before) throw new InputError(displayPath(path), 'directory holds no capture files');
    } else if (stats.isFile()) {
      addOnce(path, await realPathOf(path), files, seen);
    } else {
      throw new InputError(displayPath(path), 'not a regular file or directory');
    }
  }
  return files;
}

/**
 * A capture file, to be read when the assembler gets to it and then piece by piece: a large
 * `kubectl get pods -A -o json` is never in memory whole.
 */
export function readCaptureFile(path: string): CaptureFile {
  return { path, source: fileSource(path) };
}

/** Large enough that reading costs nothing, small enough that the piece in memory does not matter. */
const PIECE_BYTES = 8 * 1024 * 1024;

function fileSource(path: string): ByteSource {
  const fail = (error: unknown): never => {
    throw new InputError(displayPath(path), `cannot be read (${codeOf(error)})`, { cause: error });
  };
  return {
    size() {
      try {
        return statSync(path).size;
      } catch (error) {
        return fail(error);
      }
    },
    open() {
      let fd: number | undefined;
      let size = 0;
      try {
        fd = openSync(path, 'r');
        size = fstatSync(fd).size;
      } catch (error) {
        if (fd !== undefined) closeSync(fd);
        fail(error);
      }
      let position = 0;
      const close = () => {
        if (fd === undefined) return;
        const open = fd;
        fd = undefined;
        closeSync(open);
      };
      return {
        next() {
          if (fd === undefined) return undefined;
          // The size read at open is a hint (the file may still be growing): read until there is no more.
          const piece = Buffer.allocUnsafe(Math.min(PIECE_BYTES, Math.max(size - position, 64 * 1024)));
          let read = 0;
          try {
            read = readSync(fd, piece, 0, piece.length, position);
          } catch (error) {
            close();
            fail(error);
          }
          if (read === 0) {
            close();
            return undefined;
          }
          position += read;
          return read === piece.length ? piece : piece.subarray(0, read);
        },
        close,
      };
    },
  };
}

/** `real` is the directory's real path: an entry that is no symbolic link is at `real/name`. */
async function walkDirectory(directory: string, real: string, files: string[], seen: Set<string>): Promise<void> {
  if (seen.has(real)) return; // symlink loop, or a directory given twice
  seen.add(real);
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    throw new InputError(displayPath(directory), `cannot be read (${codeOf(error)})`, { cause: error });
  }
  // SNAPSHOT.md is a note, but the one that says when the capture was taken (capture-time.ts).
  const kept = entries.filter((e) => !e.name.startsWith('.') && (!isMarkdown(e.name) || e.name === SNAPSHOT_SUMMARY));
  kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of kept) {
    const path = join(directory, entry.name);
    // The listing says what most entries are: those need no stat and no realpath of their own.
    if (entry.isDirectory()) await walkDirectory(path, join(real, entry.name), files, seen);
    else if (entry.isFile()) addOnce(path, join(real, entry.name), files, seen);
    else {
      // A symbolic link, or a file system that does not say. Sockets, FIFOs, devices: not
      // captures, and reading a FIFO would block forever.
      const stats = await statOf(path);
      if (stats.isDirectory()) await walkDirectory(path, await realPathOf(path), files, seen);
      else if (stats.isFile()) addOnce(path, await realPathOf(path), files, seen);
    }
  }
}

function isMarkdown(name: string): boolean {
  return /\.(md|markdown)$/i.test(name);
}

function addOnce(path: string, real: string, files: string[], seen: Set<string>): void {
  if (seen.has(real)) return;
  seen.add(real);
  files.push(path);
}

async function statOf(path: string): Promise<Stats> {
  try {
    return await stat(path);
  } catch (error) {
    const code = codeOf(error);
    const problem =
      code === 'ENOENT'
        ? (await isSymbolicLink(path))
          ? 'a broken symbolic link (its target does not exist)'
          : 'no such file or directory'
        : code === 'ELOOP'
          ? 'a symbolic link that points back to itself'
          : `cannot be read (${code})`;
    throw new InputError(displayPath(path), problem, { cause: error });
  }
}

async function isSymbolicLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
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
