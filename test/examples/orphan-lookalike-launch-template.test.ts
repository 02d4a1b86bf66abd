/**
 * Issue 19, the look-alike launch template attack, live and offline: examples/orphan-lookalike-launch-template
 * holds a real orphan (launched from Karpenter's launch template) and a look-alike (launched by an
 * EC2 Fleet from the node group's template, which exists, with Karpenter's forgeable tags and
 * Karpenter's instance profile). `scan --simulate … --apply` (the scan over the real Kubernetes
 * adapter and in-memory EC2, terminations applied) must terminate the orphan only, and
 * `scan --from` of the same capture must plan exactly that.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../src/cli/commands/demo.ts';
import type { Finding } from '../../src/domain/finding.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION, type ActionSettings } from '../../src/domain/settings.ts';
import { simulatedSources, startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { analyze } from '../../src/usecases/analyze.ts';
import { scanCluster } from '../../src/usecases/scan-cluster.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/orphan-lookalike-launch-template', import.meta.url));
const ORPHAN = 'i-0a3f1c9e8b7d6a501';
const LOOKALIKE = 'i-06c4e8a2f0b1d3957';
const NODE_GROUP_INSTANCE = 'i-0d9f2b6e4a1c83575';
const APPLY: ActionSettings = { ...CLI_ACTIONS, modes: { ...CLI_ACTIONS.modes, TERMINATE_INSTANCE: 'apply' } };
const now = new Date(EXAMPLES_NOW);

const byInstance = (findings: readonly Finding[], id: string) => findings.filter((f) => f.resource.id === id);
const terminationsOf = (findings: readonly Finding[]) =>
  findings
    .filter((f) => f.remediation?.action === 'TERMINATE_INSTANCE')
    .map((f) => f.resource.id)
    .sort();

describe('the look-alike launch template attack (examples/orphan-lookalike-launch-template)', () => {
  const running: Simulation[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.close()));
  });

  it('scan --simulate --apply terminates the real orphan and leaves the look-alike running, reported as unproven', async () => {
    const simulation = await startSimulation([EXAMPLE]);
    running.push(simulation);

    const { report } = await scanCluster(simulation.connection, {
      detection: DEFAULT_DETECTION,
      actions: APPLY,
      now,
      clusterName: simulation.seed.clusterName,
      sources: simulatedSources(simulation.seed),
    });

    const state = (id: string) => simulation.aws.state.instances.get(id)?.state;
    expect(state(ORPHAN)).toBe('shutting-down');
    expect(state(LOOKALIKE)).toBe('running');
    expect(state(NODE_GROUP_INSTANCE)).toBe('running');
    const terminated = simulation.aws.callsTo('TerminateInstances').flatMap((c) => (c.input.instanceIds as string[] | undefined) ?? []);
    expect(terminated).toEqual([ORPHAN]);
    expect(byInstance(report.findings, LOOKALIKE).map((f) => [f.code, f.cause?.code, f.remediation?.action])).toEqual([
      ['INSTANCE_PROVENANCE_UNPROVEN', 'LAUNCH_TEMPLATE_NOT_KARPENTERS', 'MANUAL'],
    ]);
    expect(byInstance(report.findings, ORPHAN).map((f) => [f.code, f.remediation?.status])).toEqual([
      ['ORPHANED_INSTANCE', 'applied'],
    ]);
  });

  it('scan --from of the same capture plans exactly what the live scan terminated, and never ORPHANED_INSTANCE for the look-alike', async () => {
    const { snapshot } = await loadSnapshot([EXAMPLE]);
    const simulation = await startSimulation([EXAMPLE]);
    running.push(simulation);

    const offline = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now });
    const { report: live } = await scanCluster(simulation.connection, {
      detection: DEFAULT_DETECTION,
      actions: CLI_ACTIONS,
      now,
      clusterName: simulation.seed.clusterName,
      sources: simulatedSources(simulation.seed),
    });

    expect(terminationsOf(offline.findings)).toEqual([ORPHAN]);
    expect(terminationsOf(live.findings)).toEqual(terminationsOf(offline.findings));
    for (const report of [offline, live]) {
      expect(byInstance(report.findings, LOOKALIKE).map((f) => f.code)).toEqual(['INSTANCE_PROVENANCE_UNPROVEN']);
      expect(report.findings.filter((f) => f.code === 'ORPHANED_INSTANCE').map((f) => f.resource.id)).toEqual([ORPHAN]);
    }
  });
});
