/**
 * What the NodePools step hands on: which instances must stay (its `hold`), the EC2NodeClasses the
 * instance-profiles step checks roles against, and the NodeClaims the wait is for (its `drain`).
 * Its own file, so the NodeClaim wait, which reads the drain and may hold every instance itself,
 * and the NodePools step do not import each other.
 */
import type { ClusterInfo } from '../domain/aws.ts';
import type { EC2NodeClass, NodeClaim } from '../domain/kube.ts';
import { oneLine } from '../domain/shape.ts';
import type { KubernetesReader } from '../ports/kubernetes.ts';
import { frozen, StepRecord, type StepOutcome } from './outcome.ts';
import { namesOf } from './text.ts';

/** Why instances stay when the NodePools could not be dealt with, and the way out once nothing replaces them. */
const HOLD_HINT =
  'a Karpenter controller that still runs would replace terminated instances; fix the access and run again, ' +
  'or once the controller is gone run with deleteNodePools false / --keep-nodepools';

/**
 * Instances that must stay: all of them (no `nodePools`), or those of these NodePools. A
 * controller that still runs would replace them, or would still be draining them.
 */
export interface InstanceHold {
  readonly reason: string;
  /** Only these NodePools' instances; absent: every instance. */
  readonly nodePools?: readonly string[];
}

/** The NodeClaims of the NodePools going, where to look for them, and which they are. */
export interface NodeClaimDrain {
  readonly kube: KubernetesReader;
  readonly cluster: ClusterInfo;
  readonly isWaitedFor: (claim: NodeClaim) => boolean;
}

export interface NodePoolsOutcome extends StepOutcome {
  readonly hold: InstanceHold | undefined;
  /** As listed; undefined when not (the API not asked or not reachable, or the list refused). */
  readonly nodeClasses: readonly EC2NodeClass[] | undefined;
  /** Set when NodePools are going on a cluster whose API answers: the NodeClaim wait follows. */
  readonly drain: NodeClaimDrain | undefined;
}

export class NodePoolsRecord extends StepRecord {
  hold: InstanceHold | undefined;
  nodeClasses: EC2NodeClass[] | undefined;
  drain: NodeClaimDrain | undefined;

  holdAll(why: string): void {
    this.hold = { reason: `NodePools could not be deleted (${oneLine(why, 200)}): ${HOLD_HINT}` };
  }

  /** Holds these NodePools' instances too; a hold of every instance stays one. */
  holdNodePools(names: readonly string[]): void {
    if (this.hold && this.hold.nodePools === undefined) return;
    const nodePools = [...new Set([...(this.hold?.nodePools ?? []), ...names])];
    this.hold = {
      reason: `${nodePools.length === 1 ? 'NodePool' : 'NodePools'} ${namesOf(nodePools)} could not be deleted (see errors): ${HOLD_HINT}`,
      nodePools,
    };
  }

  override outcome(): NodePoolsOutcome {
    return Object.freeze({
      ...super.outcome(),
      hold:
        this.hold && Object.freeze({ ...this.hold, ...(this.hold.nodePools ? { nodePools: frozen(this.hold.nodePools) } : {}) }),
      nodeClasses: this.nodeClasses && frozen(this.nodeClasses),
      drain: this.drain && Object.freeze({ ...this.drain }),
    });
  }
}

/**
 * The hold the instances step meets: one of every instance stands (from whichever step), else the
 * NodeClaim wait's, which holds every instance, replaces the NodePools step's hold of some.
 */
export function instanceHoldOf(
  nodepools: Pick<NodePoolsOutcome, 'hold'>,
  wait: { readonly hold: InstanceHold | undefined } | undefined,
): InstanceHold | undefined {
  if (nodepools.hold !== undefined && nodepools.hold.nodePools === undefined) return nodepools.hold;
  return wait?.hold ?? nodepools.hold;
}
