import { afterEach, describe, expect, it } from 'vitest';
import type { InstanceTypeInfo } from '../../../src/domain/instance-types.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { G5_XLARGE_ITEM, M5_LARGE_ITEM } from '../../factories/instance-type-items.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const M5_LARGE: InstanceTypeInfo = {
  name: 'm5.large',
  vcpus: 2,
  memoryMiB: 8192,
  architectures: ['x86_64'],
  usageClasses: ['on-demand', 'spot'],
  hypervisor: 'nitro',
  cpuManufacturer: 'Intel',
  maxNetworkInterfaces: 3,
  ipv4PerInterface: 10,
  bareMetal: false,
};

describe('loadSnapshot: aws ec2 describe-instance-types', () => {
  it('reads each item: vCPUs, memory, architectures, GPU, instance storage, ENIs', async () => {
    // Prepare
    const dir = await captureDir({ 'instance-types.json': { InstanceTypes: [M5_LARGE_ITEM, G5_XLARGE_ITEM] } });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['instancetypes']));
    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.instanceTypes).toEqual([
      M5_LARGE,
      expect.objectContaining({
        name: 'g5.xlarge',
        vcpus: 4,
        memoryMiB: 16384,
        gpu: { name: 'A10G', manufacturer: 'NVIDIA', count: 1, memoryMiB: 22888 },
        localNvmeGB: 250,
      }),
    ]);
  });

  it('merges pages by name; a page ending with NextToken and no last page is a gap', async () => {
    // Prepare
    const first = { InstanceTypes: [M5_LARGE_ITEM], NextToken: 'AAEAAYt8' };
    const whole = await captureDir({
      'instance-types-1.json': first,
      'instance-types-2.json': { InstanceTypes: [G5_XLARGE_ITEM, M5_LARGE_ITEM] },
    });
    const partial = await captureDir({ 'instance-types.json': first });

    // Act
    const { snapshot } = await loadSnapshot([whole]);
    const { snapshot: cut } = await loadSnapshot([partial]);

    // Assess
    expect(snapshot.instanceTypes.map((t) => t.name).sort()).toEqual(['g5.xlarge', 'm5.large']);
    expect(snapshot.gaps).toEqual([]);
    expect(cut.gaps).toEqual([{ source: 'instancetypes', error: expect.stringContaining('ends with NextToken') }]);
  });

  it('sets aside an item without vCPUs or memory, with a note naming it, and keeps the others', async () => {
    // Prepare
    const { VCpuInfo: _vcpus, ...noVcpus } = { ...G5_XLARGE_ITEM };
    const dir = await captureDir({ 'instance-types.json': { InstanceTypes: [M5_LARGE_ITEM, noVcpus] } });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.instanceTypes).toEqual([M5_LARGE]);
    expect(notices).toContainEqual(
      expect.stringMatching(/instance-types\.json: InstanceType InstanceTypes\[1\] \(g5\.xlarge\): .*object set aside$/),
    );
    expect(snapshot.gaps).toEqual([{ source: 'instancetypes', error: expect.stringContaining('1 object set aside') }]);
  });

  it('reads `--query InstanceTypes` (the items, whole); an empty result named after the command is captured, none', async () => {
    // Prepare
    const items = await captureDir({ 'types.json': [M5_LARGE_ITEM] });
    const none = await captureDir({ 'instance-types.json': '[]\n' });

    // Act
    const { snapshot } = await loadSnapshot([items]);
    const { snapshot: empty } = await loadSnapshot([none]);

    // Assess
    expect(snapshot.instanceTypes).toEqual([M5_LARGE]);
    expect(empty.captured).toEqual(new Set(['instancetypes']));
    expect(empty.instanceTypes).toEqual([]);
  });

  it('reads the saved error of a denied describe-instance-types as a gap of the source', async () => {
    // Prepare
    const dir = await captureDir({
      'instance-types.json':
        '\nAn error occurred (UnauthorizedOperation) when calling the DescribeInstanceTypes operation: You are not authorized to perform this operation.\n',
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured.has('instancetypes')).toBe(false);
    expect(snapshot.gaps).toEqual([
      { source: 'instancetypes', error: expect.stringContaining('DescribeInstanceTypes failed: UnauthorizedOperation') },
    ]);
  });

  it('reads an output the size of a whole region (1,263 types, about 6 MB) within the default limits', async () => {
    // Prepare: the real item's every field, 1,263 times (moto's count of EC2's types).
    const items = Array.from({ length: 1263 }, (_, i) => ({ ...M5_LARGE_ITEM, InstanceType: `m${i}.large` }));
    const dir = await captureDir({ 'instance-types.json': { InstanceTypes: items } });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.instanceTypes).toHaveLength(1263);
    expect(snapshot.gaps).toEqual([]);
  });
});
