/**
 * What the cleanup function adds to the API call series: a dry run and an apply of the simulated
 * cluster of examples/cleanup-partial-destroy (its Kubernetes API over HTTPS, its AWS in memory),
 * measured as src/service/compose/cleanup.ts wires the decorator. docs/service.md ("API call
 * metrics") states these numbers.
 */
import { describe, expect, it } from 'vitest';
import { ApiCallMeter } from '../../../src/adapters/calls/api-call-metrics.ts';
import { measuredAwsPorts } from '../../../src/adapters/aws/measured-aws.ts';
import { measuredKubernetes } from '../../../src/adapters/kubernetes/measured-kubernetes.ts';
import { simulateSnapshot } from '../../../src/simulator/simulation.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { parseCleanupRequest } from '../../../src/cleanup/request.ts';
import { runCleanup } from '../../../src/usecases/cleanup.ts';
import { CLEANUP_EXAMPLE } from '../../examples/cleanup-partial-destroy.ts';
import { NO_WAIT_CLOCK, steppingClock } from '../../support/clock.ts';
import { sampleEvent } from '../../support/lambda.ts';
import { closedAfterEachTest } from '../../support/simulation.ts';

const running = closedAfterEachTest();

/** The APIs the meter saw, each once, with every outcome each ended with. */
function apisOf(meter: ApiCallMeter): Record<string, string[]> {
  const apis: Record<string, string[]> = {};
  for (const d of meter.drain()) {
    if (d.name === 'ApiCalls') (apis[d.dimensions.Api!] ??= []).push(d.dimensions.Outcome!);
  }
  return apis;
}

describe('the API call series of a cleanup', () => {
  it('a dry run calls 4 AWS APIs and 3 Kubernetes ones; an apply adds its 5 writes and a pod listing, every call ok', async () => {
    const clock = steppingClock('2026-01-01T01:00:00Z');
    const { snapshot } = await loadSnapshot([CLEANUP_EXAMPLE]);
    const simulation = await simulateSnapshot(snapshot, { clock, kube: { clock: NO_WAIT_CLOCK } });
    running.push(simulation);
    const meter = new ApiCallMeter();
    const connection = {
      aws: measuredAwsPorts(simulation.connection.aws, meter),
      connectKube: async (cluster: Parameters<typeof simulation.connection.connectKube>[0]) =>
        measuredKubernetes(await simulation.connection.connectKube(cluster), meter),
    };
    const run = (dryRun: boolean) =>
      runCleanup(
        { ...parseCleanupRequest(sampleEvent('cleanup.apply')), dryRun },
        { connection, clock },
        { deadline: new Date('2026-01-01T02:00:00Z') },
      );

    await run(true);
    const dryRun = apisOf(meter);
    await run(false);
    const apply = apisOf(meter);

    expect(Object.keys(dryRun).sort()).toEqual([
      'ec2:DescribeInstances',
      'ec2:DescribeLaunchTemplates',
      'eks:DescribeCluster',
      'iam:ListInstanceProfiles+ListInstanceProfileTags',
      'k8s:list ec2nodeclasses',
      'k8s:list nodeclaims',
      'k8s:list nodepools',
    ]);
    // The dry run's reads are all among the scan's (scan-series.test.ts): only the apply's writes are new series.
    expect(
      Object.keys(apply)
        .filter((api) => !(api in dryRun))
        .sort(),
    ).toEqual([
      'ec2:DeleteLaunchTemplate',
      'ec2:TerminateInstances',
      'iam:DeleteInstanceProfile',
      'iam:RemoveRoleFromInstanceProfile',
      'k8s:delete nodepools',
      'k8s:list pods',
    ]);
    expect(
      Object.values(apply)
        .flat()
        .every((outcome) => outcome === 'ok'),
    ).toBe(true);
  });
});
