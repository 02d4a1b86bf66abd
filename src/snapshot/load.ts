/**
 * Offline input: `karpenter-sentinel scan --from PATH...` (DESIGN.md "Snapshot input").
 * Everything a user can capture with kubectl and the AWS CLI, recognised by content.
 */
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import { SnapshotAssembler } from './build-snapshot.ts';
import { listCaptureFiles, readCaptureFile } from './read-capture-files.ts';

export { snapshotFromFiles } from './build-snapshot.ts';
export { DEFAULT_MAX_FILE_BYTES } from './size-limit.ts';

export interface LoadOptions {
  /** `--cluster NAME`: wins over every name found in the capture (and must agree with describe-cluster). */
  clusterName?: string;
  /**
   * `--max-file-size`: a capture file whose content (unpacked, for gzip) is larger is refused
   * without being read whole. Default DEFAULT_MAX_FILE_BYTES (1 GiB).
   */
  maxFileBytes?: number;
}

export interface LoadResult {
  snapshot: ClusterSnapshot;
  /**
   * Things the user should know but that do not stop the scan (skipped kinds, Secrets, objects
   * set aside): each one line of visible text (src/domain/visible.ts), however the data read.
   */
  notices: string[];
  /** Number of files read. */
  files: number;
}

/** Reads capture files and directories into one snapshot. Rejects only with InputError or UsageError. */
export async function loadSnapshot(paths: readonly string[], options: LoadOptions = {}): Promise<LoadResult> {
  const assembler = new SnapshotAssembler(options);
  // One file at a time, and a large one a piece at a time: captures of large clusters run to GBs.
  for (const path of await listCaptureFiles(paths)) assembler.addFile(readCaptureFile(path));
  return assembler.finish(options);
}
