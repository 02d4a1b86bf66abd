/** The types of a controller-pod diagnosis, apart so controller-nodes.ts can use them without an import cycle. */
import type { FargateProfile } from '../../domain/aws.ts';
import type { CauseCodeOf } from '../../domain/codes.ts';
import type { Pod } from '../../domain/kube.ts';
import type { SchedulerMessage } from '../scheduling/scheduler-messages.ts';
import type { NodeFit } from '../scheduling/scheduling.ts';

export type ControllerCause = CauseCodeOf<'KARPENTER_CONTROLLER_PENDING'>;

/** What an UNKNOWN diagnosis is about, so the steps can still be specific. */
type UnknownKind = 'no-nodes' | 'fargate-stuck' | 'insufficient-resources' | 'unexplained';

export interface ControllerDiagnosis {
  pod: Pod;
  cause: ControllerCause;
  detail: string;
  evidence: string[];
  unknownKind?: UnknownKind;
  /** Fargate profiles that select the pod (any status). */
  selectingProfiles: FargateProfile[];
  /** Per-node verdicts, when nodes were captured. */
  fits: NodeFit[];
  scheduler: SchedulerMessage;
}
