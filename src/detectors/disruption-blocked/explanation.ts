/**
 * What DISRUPTION_BLOCKED says of a cause (its code, the detail, the steps), and the caveat each
 * cause appends when some NodeClaims only expired: Karpenter v1 deletes an expired NodeClaim
 * without asking budgets, PDBs or annotations, so a blocker found for the drifted ones does not
 * explain those. Its own module so the budget, pod and node causes build the same shape without
 * importing the module that orders them.
 */
import type { CauseCodeOf } from '../../domain/codes.ts';
import type { BlockedClaim } from './blocked-claims.ts';

export interface Explained {
  cause: CauseCodeOf<'DISRUPTION_BLOCKED'>;
  detail: string;
  steps: string[];
}

/** Only for groups with expired NodeClaims: how Karpenter v1 treats expiry. */
export function expiryNote(claims: BlockedClaim[]): string {
  const expiredOnly = claims.filter((c) => c.expiredAt !== undefined && !c.drifted).length;
  if (expiredOnly === 0) return '';
  return (
    ` Of these, ${expiredOnly} only expired: Karpenter v1 deletes an expired NodeClaim without asking budgets, PDBs or ` +
    `annotations (they then hold its drain), so one still not being deleted points at the controller, or a pre-v1 Karpenter whose expiry honours them.`
  );
}
