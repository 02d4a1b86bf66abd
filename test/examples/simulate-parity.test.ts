/**
 * `scan --from` and `scan --simulate` of the same capture must agree: the live code path (real
 * Kubernetes adapter over HTTPS to the simulated API server, in-memory AWS, the collector) has to
 * rebuild the cluster the file loader read, or live scans would see a different cluster.
 */
import { readdirSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import type { Report } from '../../src/domain/report.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../src/domain/settings.ts';
import { simulatedSources, startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { analyze } from '../../src/usecases/analyze.ts';
import { scanCluster } from '../../src/usecases/scan-cluster.ts';
import { run } from '../unit/cli/cli-harness.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const NAMES = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const settings = { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(EXAMPLES_NOW) };

/**
 * Evidence quotes log lines by origin: `examples/x/karpenter.log:9` from a file, `karpenter/karpenter-…:9` live
 * (`karpenter/karpenter-… (previous):3` for the previous container's log).
 */
function comparable(report: Report) {
  return {
    ...report,
    // The API answers `403 Forbidden: …`; kubectl's saved error says `Error from server (Forbidden): …`.
    gaps: report.gaps.map((g) => ({ ...g, error: g.error.replace(/^\d{3} /, '') })),
    findings: report.findings.map((f) => ({
      ...f,
      evidence: f.evidence.map((line) => line.replace(/^(sample )?[\w./-]+\.log:\d+: /, '$1LOG: ').replace(/^(sample )?[\w-]+\/[\w-]+(?: \(previous\))?:\d+: /, '$1LOG: ')),
    })),
  };
}

describe('every example: scan --simulate gives the report scan --from gives', () => {
  const running: Simulation[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.close()));
  });

  it.each(NAMES)('%s', async (name) => {
    const path = `${EXAMPLES}${name}`;
    const fromFiles = analyze((await loadSnapshot([path])).snapshot, settings);

    const simulation = await startSimulation([path]);
    running.push(simulation);
    const { report: live } = await scanCluster(simulation.connection, {
      ...settings,
      clusterName: simulation.seed.clusterName,
      sources: simulatedSources(simulation.seed),
    });

    if (name !== 'healthy') expect(fromFiles.findings.length).toBeGreaterThan(0);
    // The costs first, by name (the whole report below holds them too): Spot is priced from the
    // capture's prices on both paths, the simulator inventing none (docs/simulator.md).
    expect(live.cost).toEqual(fromFiles.cost);
    expect(live.findings.map((f) => [f.id, f.cost])).toEqual(fromFiles.findings.map((f) => [f.id, f.cost]));
    expect(comparable(live)).toEqual(comparable(fromFiles));
  });
});

/** `scan MODE EXAMPLE -o json` as a user types it, without --now, the wall clock at `wallClock`. */
async function scanJson(mode: '--from' | '--simulate', name: string, wallClock: Date): Promise<Report> {
  const result = await run(['scan', mode, `${EXAMPLES}${name}`, '-o', 'json'], { services: { clock: () => wallClock } });
  return JSON.parse(result.stdout) as Report;
}

describe('every example, without --now, a week after it was captured: scan --simulate judges at the time scan --from finds', () => {
  const weekLater = new Date(Date.parse(EXAMPLES_NOW) + 7 * 86_400_000);

  it.each(NAMES)('%s', async (name) => {
    const fromFiles = await scanJson('--from', name, weekLater);
    const simulated = await scanJson('--simulate', name, weekLater);

    expect(simulated.timeSource?.source).not.toBe('wall-clock');
    expect(simulated.timeSource).toEqual(fromFiles.timeSource);
    expect(simulated.generatedAt).toBe(fromFiles.generatedAt);
    expect(comparable(simulated).findings).toEqual(comparable(fromFiles).findings);
  });
});

describe('a capture that recorded failures fails the same way when simulated', () => {
  it('Kubernetes and AWS errors saved in the capture come back as the same gaps', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sentinel-parity-'));
    try {
      await cp(`${EXAMPLES}orphans-after-destroy`, dir, { recursive: true });
      await rm(join(dir, 'nodeclaims.json'));
      await writeFile(
        join(dir, 'nodeclaims.txt'),
        'Error from server (Forbidden): nodeclaims.karpenter.sh is forbidden: User "audit" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope\n',
      );
      await writeFile(
        join(dir, 'launch-templates.json'),
        '\nAn error occurred (UnauthorizedOperation) when calling the DescribeLaunchTemplates operation: You are not authorized to perform this operation.\n',
      );
      const fromFiles = analyze((await loadSnapshot([dir])).snapshot, settings);
      const simulation = await startSimulation([dir]);
      try {
        const { report: live } = await scanCluster(simulation.connection, {
          ...settings,
          clusterName: simulation.seed.clusterName,
          sources: simulatedSources(simulation.seed),
        });

        expect(fromFiles.gaps.map((g) => g.source).sort()).toEqual(['launchtemplates', 'nodeclaims']);
        expect(comparable(live)).toEqual(comparable(fromFiles));
      } finally {
        await simulation.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
