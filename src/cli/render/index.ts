import type { Report } from '../../domain/report.ts';
import type { OutputFormat } from '../args.ts';
import type { ExitOutcome } from './format.ts';
import { renderJson } from './json.ts';
import { renderMarkdown } from './markdown.ts';
import { ANSI_STYLE, PLAIN_STYLE } from './style.ts';
import { renderTable } from './table.ts';

/** Colour and wrapping apply to the table only: JSON and Markdown are for machines and pasting. */
export function renderReport(
  report: Report,
  format: OutputFormat,
  options: { colour: boolean; outcome: ExitOutcome; width?: number },
): string {
  if (format === 'json') return renderJson(report);
  if (format === 'markdown') return renderMarkdown(report);
  return renderTable(report, {
    style: options.colour ? ANSI_STYLE : PLAIN_STYLE,
    outcome: options.outcome,
    width: options.width,
  });
}
