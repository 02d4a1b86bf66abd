/**
 * The entries of a zip file, read from its central directory: enough to check what a Lambda
 * artifact contains without an unzip tool or library.
 */
export interface ZipEntry {
  name: string;
  compressedBytes: number;
  bytes: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_HEADER = 0x02014b50;
/** The end record is 22 bytes plus a comment of at most 65535. */
const MAX_END_RECORD_SEARCH = 22 + 0xffff;

export function zipEntries(zip: Buffer): ZipEntry[] {
  const end = findEndRecord(zip);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== CENTRAL_DIRECTORY_HEADER) {
      throw new Error(`not a zip file: central directory entry ${i} is damaged`);
    }
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    entries.push({
      name: zip.toString('utf8', offset + 46, offset + 46 + nameLength),
      compressedBytes: zip.readUInt32LE(offset + 20),
      bytes: zip.readUInt32LE(offset + 24),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function findEndRecord(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - MAX_END_RECORD_SEARCH);
  for (let i = zip.length - 22; i >= lowest; i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) return i;
  }
  throw new Error('not a zip file: no end of central directory record');
}
