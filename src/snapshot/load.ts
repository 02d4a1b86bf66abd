/**
 * Offline input: `karpenter-sentinel scan --from PATH...` (docs/capture.md#what-to-capture).
 * Everything a user can capture with kubectl and the AWS CLI, recognised by content.
 */
import type { LoadOptions, LoadResult } from './load-result.ts';
import { SnapshotAssembler } from './build-snapshot.ts';
import { listCaptureFiles, readCaptureFile } from './read-capture-files.ts';

export { snapshotFromFiles } from './build-snapshot.ts';
export { DEFAULT_MAX_FILE_BYTES } from './size-limit.ts';
export type { LoadOptions, LoadResult } from './load-result.ts';

/** Reads capture files and directories into one snapshot. Rejects only with InputError or UsageError. */
export async function loadSnapshot(paths: readonly string[], options: LoadOptions = {}): Promise<LoadResult> {
  const assembler = new SnapshotAssembler(options);
  // One file at a time, and a large one a piece at a time: captures of large clusters run to GBs.
  for (const path of await listCaptureFiles(paths)) assembler.addFile(readCaptureFile(path));
  return assembler.finish(options);
}
