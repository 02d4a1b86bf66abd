/** Queue settings read from infra/queues.yml, so tests model the queues as they are deployed. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export function scanQueueMaxReceiveCount(): number {
  const queues = parse(readFileSync(new URL('../../infra/queues.yml', import.meta.url), 'utf8')) as {
    Resources: Record<string, { Properties?: { RedrivePolicy?: { maxReceiveCount?: unknown } } }>;
  };
  const count = queues.Resources.ScanQueue?.Properties?.RedrivePolicy?.maxReceiveCount;
  if (typeof count !== 'number') throw new Error('infra/queues.yml: ScanQueue has no RedrivePolicy.maxReceiveCount');
  return count;
}

/** How long after its first receive the interruption queue delivers a failing record for the last time. */
export function interruptionQueueLastReceiveAfterMs(): number {
  const queues = parse(readFileSync(new URL('../../infra/queues.yml', import.meta.url), 'utf8')) as {
    Resources: Record<string, { Properties?: { VisibilityTimeout?: unknown; RedrivePolicy?: { maxReceiveCount?: unknown } } }>;
  };
  const properties = queues.Resources.InterruptionQueue?.Properties;
  const visibility = properties?.VisibilityTimeout;
  const receives = properties?.RedrivePolicy?.maxReceiveCount;
  if (typeof visibility !== 'number' || typeof receives !== 'number') {
    throw new Error('infra/queues.yml: InterruptionQueue lacks VisibilityTimeout or RedrivePolicy.maxReceiveCount');
  }
  return (receives - 1) * visibility * 1000;
}
