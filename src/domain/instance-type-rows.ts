import { BUNDLED_ROWS } from './bundled-instance-types.ts';
import type { InstanceTypeInfo } from './instance-types.ts';

/**
 * The bundled instance-type table (bundled-instance-types.ts, docs/instance-types.md) keeps one instance type per line, `|`-separated, so the generated file stays
 * small and its diffs readable:
 *   name|vcpus|memoryMiB|architectures|usageClasses|hypervisor|cpuManufacturer|interfaces|ipv4PerInterface|metal|nvmeGB|gpu|neuron
 * lists are `,`-joined; gpu is `name;manufacturer;count;memoryMiB`, neuron `name;count;coresPerDevice`;
 * an absent value is empty.
 */

function clean(value: string): string {
  if (/[|;,\n\r]/.test(value)) throw new Error(`instance-type value ${JSON.stringify(value)} holds a separator`);
  return value;
}

export function encodeRow(t: InstanceTypeInfo): string {
  return [
    clean(t.name),
    t.vcpus,
    t.memoryMiB,
    t.architectures.map(clean).join(','),
    t.usageClasses.map(clean).join(','),
    clean(t.hypervisor),
    clean(t.cpuManufacturer ?? ''),
    t.maxNetworkInterfaces,
    t.ipv4PerInterface,
    t.bareMetal ? 1 : 0,
    t.localNvmeGB ?? '',
    t.gpu ? [clean(t.gpu.name), clean(t.gpu.manufacturer), t.gpu.count, t.gpu.memoryMiB].join(';') : '',
    t.neuron ? [clean(t.neuron.name), t.neuron.count, t.neuron.coresPerDevice].join(';') : '',
  ].join('|');
}

export function decodeRow(row: string): InstanceTypeInfo | undefined {
  const [name, vcpus, memory, archs, usage, hypervisor, cpu, enis, ipv4, metal, nvme, gpu, neuron] = row.split('|');
  if (!name || vcpus === undefined || memory === undefined) return undefined;
  const list = (s: string | undefined) => (s ? s.split(',') : []);
  const info: InstanceTypeInfo = {
    name,
    vcpus: Number(vcpus),
    memoryMiB: Number(memory),
    architectures: list(archs),
    usageClasses: list(usage),
    hypervisor: hypervisor ?? '',
    maxNetworkInterfaces: Number(enis ?? 0),
    ipv4PerInterface: Number(ipv4 ?? 0),
    bareMetal: metal === '1',
  };
  if (cpu) info.cpuManufacturer = cpu;
  if (nvme) info.localNvmeGB = Number(nvme);
  if (gpu) {
    const [gName = '', gMaker = '', count = '0', mem = '0'] = gpu.split(';');
    info.gpu = { name: gName, manufacturer: gMaker, count: Number(count), memoryMiB: Number(mem) };
  }
  if (neuron) {
    const [nName = '', count = '0', cores = '0'] = neuron.split(';');
    info.neuron = { name: nName, count: Number(count), coresPerDevice: Number(cores) };
  }
  return info;
}

let bundled: InstanceTypeInfo[] | undefined;

/** The bundled table, decoded on first use (not at load: most scans never need it). */
export function bundledInstanceTypes(): readonly InstanceTypeInfo[] {
  bundled ??= BUNDLED_ROWS.flatMap((row) => decodeRow(row) ?? []);
  return bundled;
}
