/**
 * The three paths agree on every example: `scan --from` (files), `scan --simulate` (simulate-parity.test.ts)
 * and the deployed scan function (real handler and use case, state over dynalite, the cluster served by the
 * simulator). What a user of the service sees of a finding is its alert: the same finding (code, id,
 * severity, cause) must open one, or the service would be silent about what the CLI prints.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import { SERVICE_ACTIONS } from '../../src/config.ts';
import { findingCostText } from '../../src/domain/cost-text.ts';
import { markdownText } from '../../src/domain/markdown.ts';
import { FINDING_CODES } from '../../src/domain/codes.ts';
import { DEFAULT_DETECTION } from '../../src/domain/settings.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { analyze } from '../../src/usecases/analyze.ts';
import { startLocalDynamo, type LocalDynamo } from '../support/dynalite.ts';
import { scanMessage, startScanService } from '../functions/scan-harness.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const NAMES = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

const findingCodes = new Set<string>(FINDING_CODES);

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});

describe('every example: the scan function alerts on the findings scan --from gives', () => {
  it.each(NAMES)('%s', async (name) => {
    const now = new Date(EXAMPLES_NOW);
    const { snapshot } = await loadSnapshot([`${EXAMPLES}${name}`]);
    const offline = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: SERVICE_ACTIONS, now });
    // The cost too, as the alert's **Cost:** line writes it: a Spot price one path had and the other not would show here.
    const costOf = (f: (typeof offline.findings)[number]) => (f.cost ? markdownText(findingCostText(f.cost)) : '-');
    const expected = [
      ...new Map(
        offline.findings.map((f) => [f.id, `${f.severity} ${f.code} ${f.id} ${f.cause?.code ?? '-'} ${costOf(f)}`]),
      ).values(),
    ];

    const service = await startScanService(dynamo, {
      clusters: [],
      examples: [name],
      env: { ALERT_MIN_SEVERITY: 'info' },
      now: EXAMPLES_NOW,
    });
    try {
      const [cluster] = service.simulated;
      expect(service.simulated).toEqual([snapshot.clusterName]);
      const response = await service.invoke(scanMessage(cluster!, EXAMPLES_NOW));
      expect(response.batchItemFailures).toEqual([]);
      const opened = service.alerts.published
        .filter((a) => a.event === 'opened' && findingCodes.has(a.code))
        .map(
          (a) =>
            `${a.severity} ${a.code} ${a.threadId} ${/\*\*Cause:\*\* `([A-Z0-9_]+)`/.exec(a.description)?.[1] ?? '-'} ${/^\*\*Cost:\*\* (.*)$/m.exec(a.description)?.[1] ?? '-'}`,
        );
      expect(opened.sort()).toEqual(expected.sort());
    } finally {
      await service.close();
    }
  });
});
