import type { Report } from '../../domain/report.ts';

/** Exactly the Report object (DESIGN.md "Report"), nothing else. */
export function renderJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
