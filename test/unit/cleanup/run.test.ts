import { describe, expect, it } from 'vitest';
import { CleanupRun } from '../../../src/cleanup/run.ts';
import { failedCall, plannedLine } from '../../../src/cleanup/text.ts';
import { awsError } from '../../../src/simulator/aws-faults.ts';
import { sourceError } from '../../../src/adapters/aws/errors.ts';
import { steppingClock } from '../../support/clock.ts';

const START = '2026-01-01T02:00:00Z';
const request = { clusterName: 'demo', dryRun: false, deleteNodePools: true };

describe('CleanupRun', () => {
  it('stops at the deadline, not a moment later, and says which step the next run starts with', () => {
    const clock = steppingClock(START);
    const run = new CleanupRun(request, clock, new Date(Date.parse(START) + 1000));

    expect(run.outOfTime('instances')).toBe(false);
    clock.advance(1000);
    expect(run.outOfTime('instances')).toBe(true);
    expect(run.finish()).toMatchObject({ complete: false, stoppedAt: 'instances' });
  });

  it('does not sleep towards a look that could only start at or after the deadline', async () => {
    const clock = steppingClock(START);
    const run = new CleanupRun(request, clock, new Date(Date.parse(START) + 25_000));

    expect(await run.pause('nodepools', 10_000)).toBe(true);
    expect(await run.pause('nodepools', 10_000)).toBe(true);
    expect(await run.pause('nodepools', 10_000)).toBe(false);
    expect(clock.sleeps).toEqual([10_000, 10_000]);
    expect(run.result.stoppedAt).toBe('nodepools');
  });

  it('finishes with sorted lists without repeats; complete only without errors', () => {
    const run = new CleanupRun(request, steppingClock(START), new Date(Date.parse(START) + 60_000));
    run.result.instancesTerminated.push('i-b', 'i-a', 'i-b');
    expect(run.finish()).toMatchObject({ complete: true, instancesTerminated: ['i-a', 'i-b'] });

    run.fail('instances', 'TerminateInstances i-c failed: UnauthorizedOperation: no', 'i-c');
    expect(run.finish()).toMatchObject({ complete: false, errors: [{ step: 'instances', resource: 'i-c' }] });
    expect(run.finish()).not.toHaveProperty('stoppedAt');
  });
});

describe('cleanup messages', () => {
  it('names the call and the resource once, with the API’s own words', () => {
    const error = sourceError('DeleteLaunchTemplate', awsError('UnauthorizedOperation', 'You are not authorized.'));
    expect(failedCall('DeleteLaunchTemplate', 'lt-1 (karpenter.k8s.aws/1)', error)).toBe(
      'DeleteLaunchTemplate lt-1 (karpenter.k8s.aws/1) failed: UnauthorizedOperation: You are not authorized.',
    );
    expect(failedCall('TerminateInstances', 'i-1', 'IncorrectInstanceState: bad\nstate')).toBe(
      'TerminateInstances i-1 failed: IncorrectInstanceState: bad state',
    );
  });

  it('counts and names what is about to happen', () => {
    expect(plannedLine(false, 'delete', 'NodePool', ['a', 'b'])).toBe('deleting 2 NodePools: a, b');
    expect(plannedLine(true, 'terminate', 'instance', ['i-1'])).toBe('would terminate 1 instance: i-1');
    expect(plannedLine(false, 'delete', 'launch template', [])).toBe('no launch templates to delete');
    expect(plannedLine(false, 'terminate', 'instance', ['1', '2', '3', '4', '5', '6', '7'])).toBe(
      'terminating 7 instances: 1, 2, 3, 4, 5 and 2 more',
    );
  });
});
