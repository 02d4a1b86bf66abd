/**
 * What the NodePools step hands on: which instances must stay (its `hold`), and the EC2NodeClasses
 * the instance-profiles step checks roles against. Its own file, so the NodeClaim wait that adds
 * to the hold and the step that starts the wait do not import each other.
 */
import type { EC2NodeClass } from '../domain/kube.ts';
import { oneLine } from '../domain/shape.ts';
import { StepOutcome } from './outcome.ts';
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
  reason: string;
  /** Only these NodePools' instances; absent: every instance. */
  nodePools?: string[];
}

export class NodePoolsOutcome extends StepOutcome {
  hold: InstanceHold | undefined;
  /** As listed; undefined when not (the API not asked or not reachable, or the list refused). */
  nodeClasses: EC2NodeClass[] | undefined;

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
}
