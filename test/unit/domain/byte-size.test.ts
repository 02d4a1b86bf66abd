import { describe, expect, it } from 'vitest';
import { formatByteSize, parseByteSize } from '../../../src/domain/byte-size.ts';

describe('parseByteSize: --max-file-size values', () => {
  it.each([
    ['1073741824', 1024 ** 3],
    ['512MiB', 512 * 1024 ** 2],
    ['512Mi', 512 * 1024 ** 2],
    ['2GiB', 2 * 1024 ** 3],
    ['1.5 GiB', 1.5 * 1024 ** 3],
    ['64kib', 64 * 1024],
    ['1TiB', 1024 ** 4],
    ['2GB', 2e9],
    ['2G', 2e9],
    ['500M', 500e6],
    ['100B', 100],
    [' 3GiB ', 3 * 1024 ** 3],
  ])('%j is %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['', 'big', '0', '0MiB', '-1GiB', '1.5', '1.5B', '2 GiBs', '1PiB', '1e9', 'GiB', '99999999999999999999'])(
    '%j is no size',
    (text) => {
      expect(parseByteSize(text)).toBeUndefined();
    },
  );
});

describe('formatByteSize: sizes in messages', () => {
  it.each([
    [1024 ** 3, '1 GiB'],
    [4 * 1024 ** 2, '4 MiB'],
    [1.5 * 1024 ** 3, '1.5 GiB'],
    [4096, '4 KiB'],
    [1000, '1000 bytes'],
    [1, '1 byte'],
  ])('%d is %j', (bytes, text) => {
    expect(formatByteSize(bytes)).toBe(text);
  });
});
