import { describe, expect, it } from 'vitest';
import { gapsLine, incompleteWarning } from '../../../../src/cli/render/format.ts';
import { setAsideGap } from '../../../../src/domain/snapshot.ts';
import { reportOf } from './report-fixtures.ts';

describe('incomplete-data wording', () => {
  const report = reportOf(
    [],
    [
      { source: 'nodeclaims', error: '403 Forbidden' },
      setAsideGap('pods', 3),
      { source: 'instances', error: 'ORPHANED_INSTANCE check failed on this data: boom', detector: 'ORPHANED_INSTANCE' },
    ],
  );

  it('the JSON stderr warning says what happened for each kind of gap, with nothing a kind would make untrue', () => {
    expect(incompleteWarning(report)).toBe(
      'warning: data incomplete, findings may be missing: nodeclaims: 403 Forbidden; pods: 3 objects set aside as malformed (see notes); instances: ORPHANED_INSTANCE check failed on this data: boom',
    );
  });

  it('the short line names each source once', () => {
    expect(gapsLine(reportOf([], [setAsideGap('pods', 1), { source: 'pods', error: 'only part was captured' }]))).toBe(
      '2 gaps (pods): findings may be missing',
    );
  });

  it('shows a gap error from the data as visible text on one line', () => {
    const hostile = reportOf([], [{ source: 'pods', error: 'denied\u001b[2J\nby \u202epolicy' }]);

    expect(incompleteWarning(hostile)).toBe(
      'warning: data incomplete, findings may be missing: pods: denied\\x1b[2J by \\u202epolicy',
    );
  });
});
