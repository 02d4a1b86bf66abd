import { basename, extname } from 'node:path';
import { InputError, SentinelError, UsageError } from '../domain/errors.ts';
import { captureContent, type ByteSource } from './capture-content.ts';
import { CaptureMerger } from './capture-merger.ts';
import { readControllerLogFrom } from './controller-logs.ts';
import type { LoadOptions, LoadResult } from './load.ts';
import { recogniseCapture } from './recognise.ts';
import { oneLine, ShapeError } from './shape.ts';

/**
 * One capture file: `path` names it in messages and log origins. Its content as text, as bytes,
 * or as a source to read it from (loadSnapshot: large files are read piece by piece). Gzip,
 * UTF-16 and byte order marks are dealt with here, for every caller alike.
 */
export type CaptureFile =
  { path: string; text: string } | { path: string; bytes: Uint8Array } | { path: string; source: ByteSource };

/**
 * Capture files → snapshot, without touching the filesystem (the CLI, tests, the simulator and a
 * live collector's fixtures share it). Later files win over earlier ones for the same object.
 * Throws only InputError (a file is wrong) and UsageError (the files disagree about the cluster).
 */
export function snapshotFromFiles(files: readonly CaptureFile[], options: LoadOptions = {}): LoadResult {
  const assembler = new SnapshotAssembler(options);
  for (const file of files) assembler.addFile(file);
  return assembler.finish(options);
}

/** The same, one file at a time: a reader can drop each file's text once it is added. */
export class SnapshotAssembler {
  readonly #merger = new CaptureMerger();
  readonly #maxFileBytes: number | undefined;
  #files = 0;

  /** `maxFileBytes`: `--max-file-size` (see captureContent). */
  constructor(options: Pick<LoadOptions, 'maxFileBytes'> = {}) {
    this.#maxFileBytes = options.maxFileBytes;
  }

  addFile(file: CaptureFile): void {
    const path = displayPath(file.path);
    try {
      const content = captureContent(
        basename(file.path),
        'text' in file ? file.text : 'bytes' in file ? file.bytes : file.source,
        this.#maxFileBytes === undefined ? {} : { maxBytes: this.#maxFileBytes },
      );
      // Line by line: a log may be longer than one string can hold.
      if (isControllerLog(content.name)) {
        const { lines, dropped } = readControllerLogFrom(content.open(), path);
        const all = lines.length + dropped;
        this.#merger.addLogs(
          lines,
          dropped > 0 ? `${path}: read the last ${int(lines.length)} of ${int(all)} log lines` : undefined,
        );
      } else this.#merger.add(path, recogniseCapture(content, basename(content.name, extname(content.name))));
    } catch (error) {
      throw asInputError(path, error);
    }
    this.#files++;
  }

  finish(options: LoadOptions = {}): LoadResult {
    const { snapshot, notices } = this.#merger.finish(options.clusterName || undefined);
    return { snapshot, notices, files: this.#files };
  }
}

const int = (n: number) => n.toLocaleString('en-US');

/** Logs are the one kind recognised by name: their lines have no shape to recognise. */
function isControllerLog(path: string): boolean {
  return path.toLowerCase().endsWith('.log');
}

/** File names are user data too: keep messages on one line. */
export function displayPath(path: string): string {
  // eslint-disable-next-line no-control-regex
  return path.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
}

function asInputError(path: string, error: unknown): SentinelError {
  if (error instanceof InputError || error instanceof UsageError) return error;
  if (error instanceof ShapeError) return new InputError(path, error.message, { cause: error.cause ?? error });
  const why = error instanceof Error ? error.message : String(error);
  return new InputError(path, `could not be read (${oneLine(why)})`, { cause: error });
}
