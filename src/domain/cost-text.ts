/**
 * Money as the reports and alerts say it (docs/cost.md): an estimate, so `≈`, in whole cents, with
 * thousands separated the same way whatever the machine's locale.
 */
import type { FindingCost } from './cost.ts';
import type { ReportCost } from './report.ts';
import { counted } from './words.ts';

const USD = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `≈ $1,234.56/day`. */
function perDayText(usd: number): string {
  return `≈ $${USD.format(usd)}/day`;
}

/** `≈ $41.23/day at stake across 2 findings`: the headline of a report with money in it. */
export function atStakeText(total: ReportCost): string {
  return `${perDayText(total.perDayUsd)} at stake across ${counted(total.findings, 'finding')}`;
}

/**
 * `≈ $2.30/day (1 × t3a.xlarge on-demand at $0.1504/h (...); × 24 h)`: one finding's cost line.
 * Once its remediation was applied the money is saved, not at stake, and the line says so.
 */
export function findingCostText(cost: FindingCost, remediationStatus?: string): string {
  const text = `${perDayText(cost.perDayUsd)} (${cost.basis})`;
  return remediationStatus === 'applied' ? `${text}; saved: its remediation was applied, not counted as at stake` : text;
}
