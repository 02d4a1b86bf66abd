import { bundledInstanceTypes } from '../domain/instance-type-rows.ts';
import type { InstanceTypeInfo } from '../domain/instance-types.ts';

/**
 * What the simulated account's DescribeInstanceTypes answers when the capture held no
 * `describe-instance-types` output: 22 common types of the bundled table (burstable, general purpose,
 * compute and memory optimised, Graviton, NVIDIA GPUs, Inferentia, bare metal), with EC2's own figures.
 */
const SIMULATED_NAMES = new Set([
  'c5.large',
  'c5.xlarge',
  'c6g.large',
  'c7i.2xlarge',
  'g5.12xlarge',
  'g5.xlarge',
  'inf2.xlarge',
  'm5.2xlarge',
  'm5.large',
  'm5.metal',
  'm5.xlarge',
  'm6i.4xlarge',
  'm6i.large',
  'm6i.xlarge',
  'm7g.large',
  'm7g.xlarge',
  'p4d.24xlarge',
  'r5.large',
  'r6i.2xlarge',
  'r7g.xlarge',
  't3.large',
  't3.medium',
]);

let simulated: readonly InstanceTypeInfo[] | undefined;

export function simulatedInstanceTypes(): readonly InstanceTypeInfo[] {
  simulated ??= bundledInstanceTypes().filter((t) => SIMULATED_NAMES.has(t.name));
  return simulated;
}
