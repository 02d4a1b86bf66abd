import type { ActionKind } from '../domain/codes.ts';
import type { Finding, Remediation } from '../domain/finding.ts';
import type { ActionSettings } from '../domain/settings.ts';
import type { ClusterSnapshot } from '../domain/snapshot.ts';
import type { SnapshotIndex } from '../domain/snapshot-index.ts';

export interface PlanContext {
  snapshot: ClusterSnapshot;
  index: SnapshotIndex;
  actions: ActionSettings;
  /** False when any source failed or is missing: nothing destructive is decided then. */
  complete: boolean;
  now: Date;
}

/** One automated action's planner: decides `planned` or `skipped` (with the guardrail's reason). */
export interface ActionPlanner {
  action: ActionKind;
  /** Findings arrive in report order; `state` is shared across the findings of one plan. */
  plan(finding: Finding, ctx: PlanContext, state: Map<string, number>): Remediation;
}

export function skipped(r: Remediation, reason: string): Remediation {
  return { ...r, status: 'skipped', reason };
}
