import type { Report } from '../../domain/report.ts';

/**
 * What JSON.stringify leaves raw though a terminal acts on it: DEL, C1 controls, bidi marks,
 * overrides and isolates, line and paragraph separators (C0 controls it escapes itself).
 */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Exactly the Report object (docs/report-json.md#report-json), nothing else. Characters that would act on a
 * terminal are written as `\uXXXX` escapes: the same JSON value to a parser, inert on screen.
 */
export function renderJson(report: Report): string {
  return `${visibleJson(report)}\n`;
}

/** JSON.stringify, indented, with characters that act on a terminal as `\uXXXX` escapes. */
export function visibleJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
