import { basename, extname } from 'node:path';
import { InputError, NothingReadableError, SentinelError, UsageError } from '../domain/errors.ts';
import { captureContent, type ByteSource } from './capture-content.ts';
import { CaptureMerger } from './capture-merger.ts';
import { folderTimeOf, isCaptureTimeFile, MAX_TIME_FILE_BYTES, recordedTimeIn, type RecordedTime } from './capture-time.ts';
import { asPreviousLog, isPreviousControllerLog, readControllerLogFrom } from './controller-logs.ts';
import type { LoadOptions, LoadResult } from './load-result.ts';
import { commandMeantByFile, sourceMeantByFile } from './file-source.ts';
import { SavedCliError } from './not-an-output.ts';
import { recogniseCapture } from './recognise.ts';
import { oneLine, ShapeError } from '../domain/shape.ts';
import { visibleLine } from '../domain/visible.ts';

/**
 * One capture file: `path` names it in messages and log origins. Its content as text, as bytes,
 * or as a source to read it from (loadSnapshot: large files are read piece by piece). Gzip,
 * UTF-16 and byte order marks are dealt with here, for every caller alike.
 */
export type CaptureFile =
  { path: string; text: string } | { path: string; bytes: Uint8Array } | { path: string; source: ByteSource };

/**
 * Capture files → snapshot, without touching the filesystem (the CLI, tests, the simulator and a
 * live collector's fixtures share it). Of one object in several files, the newer resourceVersion,
 * else the later file, wins, with a note when the copies differ (duplicate-objects.ts).
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
  /** Files that could not be read, each as the one line that names it and says why. */
  readonly #leftOut: InputError[] = [];
  /** Those among them that were meant as captures but say not of what (see ClusterSnapshot.unreadFiles). */
  readonly #unread: string[] = [];
  /** Times the capture says it was taken at (capture-time.ts), one per file or folder that says one. */
  readonly #recorded = new Map<string, RecordedTime>();

  /** `maxFileBytes`: `--max-file-size` (see captureContent). */
  constructor(options: Pick<LoadOptions, 'maxFileBytes'> = {}) {
    this.#maxFileBytes = options.maxFileBytes;
  }

  addFile(file: CaptureFile): void {
    const path = displayPath(file.path);
    // A few are enough to judge by (and to name in notes); thousands of them are no capture's.
    const room = this.#recorded.size < MAX_RECORDED_TIMES;
    const folder = folderTimeOf(path);
    if (folder && room) this.#recorded.set(folder.where, folder);
    if (isCaptureTimeFile(basename(file.path))) {
      // Not a capture of the cluster: when it was taken. Counted as no file read.
      if (room) this.#recorded.set(path, recordedTimeIn(basename(file.path), path, leadingText(file)));
      return;
    }
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
          isPreviousControllerLog(content.name) ? asPreviousLog(lines) : lines,
          dropped > 0 ? `${path}: read the last ${int(lines.length)} of ${int(all)} log lines` : undefined,
        );
      } else this.#merger.add(path, recogniseCapture(content, basename(content.name, extname(content.name))));
    } catch (error) {
      const failure = asInputError(path, error);
      if (!(failure instanceof InputError)) throw failure; // the files disagree about the cluster: a usage error
      this.#leaveOut(file.path, failure, error instanceof SavedCliError ? error.saved : undefined);
      return;
    }
    this.#files++;
  }

  /**
   * A file that cannot be read (empty, a saved error, too large, not an output) costs that file,
   * never the run: a gap on the source its name says it was meant to hold (a saved error is
   * itself the gap's text: a conversion webhook's failure is evidence), else a note. Every file
   * left out is named in the notes.
   */
  #leaveOut(rawPath: string, failure: InputError, saved: string | undefined): void {
    this.#leftOut.push(failure);
    const problem = failure.message.startsWith(`${failure.file}: `)
      ? failure.message.slice(failure.file.length + 2)
      : failure.message;
    const source = sourceMeantByFile(basename(rawPath));
    // A stray note or script is no capture; a `.json`/`.yaml` file or a saved error was meant as one.
    if (!source && (saved !== undefined || /\.(?:json|ya?ml)(?:\.gz)?$/i.test(rawPath))) this.#unread.push(failure.message);
    this.#merger.add(failure.file, [
      ...(source
        ? [{ type: 'gap' as const, source, error: gapText(basename(rawPath), saved) ?? `${failure.file}: ${problem}` }]
        : []),
      { type: 'note', text: `${problem}; left out${source ? ` (${source} is a gap)` : ''}, the scan goes on without it` },
    ]);
  }

  finish(options: LoadOptions = {}): LoadResult {
    // Nothing at all could be read: there is nothing to scan, and every file is named.
    if (this.#files === 0 && this.#leftOut.length === 1) throw this.#leftOut[0] as InputError;
    if (this.#files === 0 && this.#leftOut.length > 1) throw new NothingReadableError(this.#leftOut.map((e) => e.message));
    const [timeFile] = this.#recorded.keys();
    if (this.#files === 0 && this.#leftOut.length === 0 && timeFile !== undefined) {
      throw new InputError(timeFile, 'says when a capture was taken, but no capture file was given with it');
    }
    const { snapshot, notices } = this.#merger.finish(options.clusterName || undefined);
    if (this.#unread.length > 0) snapshot.unreadFiles = this.#unread.map(visibleLine);
    return { snapshot, notices, files: this.#files, recordedTimes: [...this.#recorded.values()] };
  }
}

/** The start of a small file that says when the capture was taken (MAX_TIME_FILE_BYTES: the time is on its first lines). */
function leadingText(file: CaptureFile): string {
  if ('text' in file) return file.text.slice(0, MAX_TIME_FILE_BYTES);
  if ('bytes' in file) return new TextDecoder().decode(file.bytes.subarray(0, MAX_TIME_FILE_BYTES));
  try {
    const reader = file.source.open();
    try {
      return new TextDecoder().decode(reader.next()?.subarray(0, MAX_TIME_FILE_BYTES));
    } finally {
      reader.close();
    }
  } catch {
    return ''; // unreadable: judged as no time ("not a time"), never a failed scan
  }
}

const MAX_RECORDED_TIMES = 20;

const int = (n: number) => n.toLocaleString('en-US');

/** A saved error in the tool's own words, after the command that failed: `aws ec2 describe-instances failed: ...`. */
function gapText(fileName: string, saved: string | undefined): string | undefined {
  if (saved === undefined) return undefined;
  const command = commandMeantByFile(fileName);
  return command ? `${command} failed: ${saved}` : saved;
}

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
