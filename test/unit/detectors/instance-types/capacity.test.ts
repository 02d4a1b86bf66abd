import { describe, expect, it } from 'vitest';
import { allocatable, shortOf } from '../../../../src/detectors/instance-types/capacity.ts';
import type { InstanceTypeInfo } from '../../../../src/domain/instance-types.ts';

const MI = 2 ** 20;

/** m6a.2xlarge as DescribeInstanceTypes lists it: 8 vCPU, 32768 MiB, 4 interfaces of 15 IPv4 addresses. */
const M6A_2XL: InstanceTypeInfo = {
  name: 'm6a.2xlarge',
  vcpus: 8,
  memoryMiB: 32768,
  architectures: ['x86_64'],
  usageClasses: ['on-demand', 'spot'],
  hypervisor: 'nitro',
  cpuManufacturer: 'AMD',
  maxNetworkInterfaces: 4,
  ipv4PerInterface: 15,
  bareMetal: false,
};

describe("Karpenter's allocatable estimate", () => {
  it('takes the VM overhead off memory first, then kube-reserved for ENI-limited pods and the 100Mi eviction threshold', () => {
    // Act
    const a = allocatable(M6A_2XL, { vmMemoryOverheadPercent: 0.075 });

    // Assess: pods 4 × (15 − 1) + 2 = 58; overhead ⌈32768 × 0.075⌉ = 2458 MiB; kube-reserved 11 × 58 + 255 = 893 MiB.
    expect(a.amounts.pods).toBe(58);
    expect(a.memory.vmOverheadBytes).toBe(2458 * MI);
    expect(a.memory.kubeReservedBytes).toBe(893 * MI);
    expect(a.amounts.memory).toBe((32768 - 2458 - 893 - 100) * MI);
    // kube-reserved cpu: 60m + 10m + 2 × 5m + 4 × 2.5m = 90m.
    expect(a.amounts.cpu).toBeCloseTo(7.91, 6);
  });

  it('holds the 28Gi pod of the m6a.2xlarge incident only with a smaller overhead', () => {
    // Prepare: 28Gi plus 812700032 bytes of daemonset overhead, as Karpenter printed it.
    const needed = { memory: 30877471104 };

    // Act
    const usual = allocatable(M6A_2XL, { vmMemoryOverheadPercent: 0.075 });
    const smaller = allocatable(M6A_2XL, { vmMemoryOverheadPercent: 0.07 });

    // Assess
    expect(shortOf(needed, usual.amounts)).toEqual(['memory']);
    expect(shortOf(needed, smaller.amounts)).toEqual([]);
  });

  it('reads the kubelet settings that change it: maxPods, podsPerCore, reserved memory and cpu, a percentage eviction threshold', () => {
    // Act
    const a = allocatable(M6A_2XL, {
      vmMemoryOverheadPercent: 0,
      kubelet: {
        maxPods: 110,
        podsPerCore: 4,
        systemReserved: { memory: '1Gi', cpu: '500m' },
        kubeReserved: { cpu: '1' },
        evictionHard: { 'memory.available': '5%' },
      },
    });

    // Assess: 4 pods per core × 8 = 32 pods, below maxPods.
    expect(a.amounts.pods).toBe(32);
    expect(a.amounts.cpu).toBeCloseTo(6.5, 6);
    expect(a.memory.kubeReservedBytes).toBe((11 * 32 + 255) * MI);
    expect(a.memory.systemReservedBytes).toBe(1024 * MI);
    expect(a.memory.evictionBytes).toBe(Math.ceil((32768 * MI) / 20));
  });

  it('keeps 64 MiB back on Graviton, allows 110 pods on Windows, and counts GPUs and Neuron devices', () => {
    const graviton = allocatable({ ...M6A_2XL, name: 'm7g.2xlarge', architectures: ['arm64'] }, { vmMemoryOverheadPercent: 0 });
    const windows = allocatable(M6A_2XL, { vmMemoryOverheadPercent: 0, windows: true });
    const gpu = allocatable(
      { ...M6A_2XL, name: 'g5.xlarge', gpu: { name: 'A10G', manufacturer: 'NVIDIA', count: 1, memoryMiB: 22888 } },
      { vmMemoryOverheadPercent: 0 },
    );
    const inf = allocatable(
      { ...M6A_2XL, name: 'inf2.xlarge', neuron: { name: 'Inferentia2', count: 1, coresPerDevice: 2 } },
      { vmMemoryOverheadPercent: 0 },
    );

    expect(graviton.memory.capacityBytes).toBe((32768 - 64) * MI);
    expect(windows.amounts.pods).toBe(110);
    expect(gpu.amounts['nvidia.com/gpu']).toBe(1);
    expect(shortOf({ 'nvidia.com/gpu': 1 }, allocatable(M6A_2XL, { vmMemoryOverheadPercent: 0 }).amounts)).toEqual([
      'nvidia.com/gpu',
    ]);
    expect(inf.amounts['aws.amazon.com/neuroncore']).toBe(2);
  });

  it('does not judge resources it does not model', () => {
    expect(shortOf({ 'example.com/fpga': 4, 'ephemeral-storage': 10 ** 15 }, {})).toEqual([]);
  });
});
