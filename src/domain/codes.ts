/** Public contract: finding codes, cause codes, severities and remediation vocabulary (docs/findings.md#findings-and-causes). */
import { FINDING_CATALOGUE, FINDING_CODES, type FindingCode } from './finding-catalogue.ts';

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Every finding code, in the catalogue's order (src/domain/finding-catalogue.ts, one row per code). */
export { FINDING_CODES };
export type { FindingCode };

/** Cause codes each finding code may carry, from its catalogue row. Detectors must stay within their row. */
export const CAUSES_BY_FINDING = Object.fromEntries(FINDING_CODES.map((code) => [code, FINDING_CATALOGUE[code].causes])) as {
  readonly [C in FindingCode]: (typeof FINDING_CATALOGUE)[C]['causes'];
};

export type CauseCodeOf<C extends FindingCode> = (typeof CAUSES_BY_FINDING)[C][number];
export type CauseCode = CauseCodeOf<FindingCode>;

/** Automated actions; `MANUAL` marks a remediation only a human can carry out. */
export const ACTION_KINDS = ['ROLLOUT_RESTART', 'TERMINATE_INSTANCE'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export type RemediationAction = ActionKind | 'MANUAL';

export const REMEDIATION_STATUSES = ['planned', 'applied', 'skipped', 'failed', 'manual'] as const;
export type RemediationStatus = (typeof REMEDIATION_STATUSES)[number];

export const SEVERITY_RANK: Record<Severity, number> = { critical: 3, warning: 2, info: 1 };
