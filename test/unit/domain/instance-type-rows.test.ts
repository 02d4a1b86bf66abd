import { describe, expect, it } from 'vitest';
import { BUNDLED_ROWS, BUNDLED_TABLE_DATE } from '../../../src/domain/bundled-instance-types.ts';
import { decodeRow, encodeRow } from '../../../src/domain/instance-type-rows.ts';
import type { InstanceTypeInfo } from '../../../src/domain/instance-types.ts';

const G5: InstanceTypeInfo = {
  name: 'g5.xlarge',
  vcpus: 4,
  memoryMiB: 16384,
  architectures: ['x86_64'],
  usageClasses: ['on-demand', 'spot'],
  hypervisor: 'nitro',
  cpuManufacturer: 'AMD',
  gpu: { name: 'A10G', manufacturer: 'NVIDIA', count: 1, memoryMiB: 22888 },
  localNvmeGB: 250,
  maxNetworkInterfaces: 4,
  ipv4PerInterface: 15,
  bareMetal: false,
};

describe('the bundled table', () => {
  it('round-trips a row, and refuses a value that holds its separator', () => {
    expect(decodeRow(encodeRow(G5))).toEqual(G5);
    expect(() => encodeRow({ ...G5, gpu: { ...G5.gpu!, name: 'A|B' } })).toThrow(/separator/);
  });

  it('decodes every row, holds the types incidents name, and says when it was made', () => {
    const types = BUNDLED_ROWS.map(decodeRow);

    expect(types.every(Boolean)).toBe(true);
    expect(types.length).toBeGreaterThan(800);
    expect(types.find((t) => t?.name === 'm6a.2xlarge')).toMatchObject({ vcpus: 8, memoryMiB: 32768 });
    expect(BUNDLED_TABLE_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
