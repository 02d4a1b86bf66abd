import { describe, expect, it } from 'vitest';
import { renderJson } from '../../../../src/cli/render/json.ts';
import { orphan, reportOf } from './report-fixtures.ts';

describe('renderJson', () => {
  it('escapes what a terminal acts on and JSON.stringify leaves raw, and parses back to the same report', () => {
    const report = reportOf([{ ...orphan, title: 'evil\u202Egnp.exe \u2028 \u0085 \u007f \u2067' }]);

    const json = renderJson(report);

    expect(json).toContain('evil\\u202egnp.exe \\u2028 \\u0085 \\u007f \\u2067');
    expect(json).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(json)).toEqual(report);
  });
});
