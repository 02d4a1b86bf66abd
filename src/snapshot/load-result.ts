/** What loading capture files gives, apart from load.ts so the snapshot builder needs no import cycle. */
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import type { RecordedTime } from './capture-time.ts';

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
  /**
   * When the capture says it was taken (SNAPSHOT.md, captured-at.txt, a capture-script folder
   * name), as written: judgeCaptureTime checks and picks. Absent from loaders that know none.
   */
  recordedTimes?: RecordedTime[];
}
