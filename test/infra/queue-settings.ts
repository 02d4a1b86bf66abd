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
