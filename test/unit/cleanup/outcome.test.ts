import { describe, expect, it } from 'vitest';
import { CleanupBudget } from '../../../src/cleanup/budget.ts';
import { StepRecord } from '../../../src/cleanup/outcome.ts';
import { steppingClock } from '../../support/clock.ts';

const START = '2026-01-01T02:00:00Z';

function record(): StepRecord {
  const clock = steppingClock(START);
  return new StepRecord('launch-templates', new CleanupBudget(clock, new Date(Date.parse(START) + 60_000)));
}

describe('StepRecord.outcome', () => {
  it('is a copy: what the step writes after handing it on does not reach the steps after it', () => {
    const out = record();
    out.done.push('lt-1');
    out.fail('DeleteLaunchTemplate lt-2 failed: UnauthorizedOperation', 'lt-2');

    const handedOn = out.outcome();
    out.done.push('lt-3');
    out.stopped = true;

    expect(handedOn.done).toEqual(['lt-1']);
    expect(handedOn.errors).toHaveLength(1);
    expect(handedOn.stopped).toBe(false);
  });

  it('cannot be written by a later step, in the types or at run time', () => {
    const handedOn = record().outcome();

    // @ts-expect-error an outcome's fields are read-only
    expect(() => (handedOn.stopped = true)).toThrow(TypeError);
    expect(() => (handedOn.done as string[]).push('lt-9')).toThrow(TypeError);
    expect(handedOn).toMatchObject({ stopped: false, done: [] });
  });
});
