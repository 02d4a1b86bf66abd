/**
 * What CONSOLIDATION_BLOCKED says of a cause (its code, the detail, the steps) and what each cause
 * is judged from. Its own module so the pod causes and the order of all causes (explain.ts) build
 * the same shape without importing each other.
 */
import type { CauseCodeOf } from '../../domain/codes.ts';
import type { NodePool } from '../../domain/kube.ts';
import type { IdleNode } from './idle-nodes.ts';
import type { KarpenterMessage } from './karpenter-events.ts';

export interface Explained {
  cause: CauseCodeOf<'CONSOLIDATION_BLOCKED'>;
  detail: string;
  steps: string[];
}

export interface PoolEvidence {
  pool: string;
  np: NodePool | undefined;
  nodes: IdleNode[];
  /** Unconsolidatable and DisruptionBlocked texts on the nodes, newest first. */
  nodeMessages: KarpenterMessage[];
  /** The NodePool's blocking-budget texts. */
  poolMessages: KarpenterMessage[];
}

/** `a, b, c and 4 more`. */
export function list(items: readonly string[], max = 5): string {
  return `${items.slice(0, max).join(', ')}${items.length > max ? ` and ${items.length - max} more` : ''}`;
}
