import { describe, expect, it } from 'vitest';
import { CleanupBudget } from '../../../src/cleanup/budget.ts';
import { failedCall, plannedLine } from '../../../src/cleanup/text.ts';
import { awsError } from '../../../src/simulator/aws-faults.ts';
import { sourceError } from '../../../src/adapters/aws/errors.ts';
import { steppingClock } from '../../support/clock.ts';

const START = '2026-01-01T02:00:00Z';

describe('CleanupBudget', () => {
  it('is out of time at the deadline, not a moment later', () => {
    const clock = steppingClock(START);
    const budget = new CleanupBudget(clock, new Date(Date.parse(START) + 1000));

    expect(budget.outOfTime()).toBe(false);
    clock.advance(1000);
    expect(budget.outOfTime()).toBe(true);
  });

  it('does not sleep towards a look that could only start at or after the deadline', async () => {
    const clock = steppingClock(START);
    const budget = new CleanupBudget(clock, new Date(Date.parse(START) + 25_000));

    expect(await budget.pause(10_000)).toBe(true);
    expect(await budget.pause(10_000)).toBe(true);
    expect(await budget.pause(10_000)).toBe(false);
    expect(clock.sleeps).toEqual([10_000, 10_000]);
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
