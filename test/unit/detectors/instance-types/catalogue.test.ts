import { describe, expect, it } from 'vitest';
import { BUNDLED_TABLE_DATE } from '../../../../src/domain/bundled-instance-types.ts';
import { capacitySettings, instanceTypeCatalogue, vmMemoryOverhead } from '../../../../src/detectors/instance-types/catalogue.ts';
import { instanceTypeFromApi, type InstanceTypeInfo } from '../../../../src/domain/instance-types.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass, nodePool } from '../../../factories/karpenter.ts';
import { karpenterDeployment } from '../../../factories/kube.ts';

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

describe('which instance types a scan evaluates', () => {
  it("prefers the account's own DescribeInstanceTypes, and says which it used", () => {
    const own = snapshotOf({ instanceTypes: [G5] });
    const none = snapshotOf({});

    expect(instanceTypeCatalogue(own)).toMatchObject({ source: 'account', types: [G5] });
    expect(instanceTypeCatalogue(none).source).toBe('bundled');
    expect(instanceTypeCatalogue(none).describe).toContain(BUNDLED_TABLE_DATE);
  });

  it('reads one DescribeInstanceTypes item as the CLI prints it, and refuses one without vCPUs or memory', () => {
    const item = {
      InstanceType: 'g5.xlarge',
      VCpuInfo: { DefaultVCpus: 4 },
      MemoryInfo: { SizeInMiB: 16384 },
      ProcessorInfo: { SupportedArchitectures: ['x86_64'], Manufacturer: 'AMD' },
      SupportedUsageClasses: ['on-demand', 'spot'],
      Hypervisor: 'nitro',
      BareMetal: false,
      GpuInfo: { Gpus: [{ Name: 'A10G', Manufacturer: 'NVIDIA', Count: 1, MemoryInfo: { SizeInMiB: 22888 } }] },
      InstanceStorageInfo: { TotalSizeInGB: 250, NvmeSupport: 'required' },
      NetworkInfo: { Ipv4AddressesPerInterface: 15, DefaultNetworkCardIndex: 0, NetworkCards: [{ MaximumNetworkInterfaces: 4 }] },
    };

    expect(instanceTypeFromApi(item)).toEqual(G5);
    expect(instanceTypeFromApi({ ...item, VCpuInfo: {} })).toBeUndefined();
    expect(instanceTypeFromApi({ ...item, InstanceType: "g5.xlarge'; rm -rf /" })).toBeUndefined();
  });
});

describe('the settings Karpenter estimates with', () => {
  it('reads VM_MEMORY_OVERHEAD_PERCENT from the controller, else the pre-v0.32 ConfigMap, else the default', () => {
    const deployment = karpenterDeployment();
    const container = deployment.spec!.template!.spec!.containers![0]!;
    container.env = [...(container.env ?? []), { name: 'VM_MEMORY_OVERHEAD_PERCENT', value: '0.05' }];
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
      data: { 'aws.vmMemoryOverheadPercent': '0.1' },
    };

    expect(vmMemoryOverhead(deployment, [configMap]).value).toBe(0.05);
    expect(vmMemoryOverhead(undefined, [configMap])).toMatchObject({ value: 0.1 });
    expect(vmMemoryOverhead(undefined, []).value).toBe(0.075);
  });

  it("takes kubelet settings from the EC2NodeClass (v1) before the NodePool's (v1beta1), ignoring values of the wrong type", () => {
    const overhead = { value: 0.075, from: 'default' };
    const pool = nodePool({ name: 'default' });
    pool.spec!.template!.spec!.kubelet = { maxPods: 20 };
    const nodeClass = ec2NodeClass({ name: 'default' });
    nodeClass.spec!.kubelet = { maxPods: 110, kubeReserved: { memory: 3 } };

    expect(capacitySettings(overhead, pool, nodeClass).kubelet).toEqual({ maxPods: 110 });
    expect(capacitySettings(overhead, pool, undefined).kubelet).toEqual({ maxPods: 20 });
  });
});
