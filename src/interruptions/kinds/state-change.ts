/**
 * `EC2 Instance State-change Notification` (aws.ec2). Only the states that take an instance away
 * count, the same set Karpenter and aws-node-termination-handler act on: stopping, stopped,
 * shutting-down, terminated. `pending` and `running` are not interruptions: parsed, then ignored.
 *
 * Karpenter's own terminations (consolidation, drift, expiry) produce these events too, two per
 * instance (shutting-down, terminated): the StateChange count is node churn, not only trouble,
 * which is why it does not feed the surge alert.
 */
import { detailInstanceId, instanceEvent, isParseError, type KindParser } from '../event.ts';

export const INTERRUPTING_STATES: ReadonlySet<string> = new Set(['stopping', 'stopped', 'shutting-down', 'terminated']);

export const stateChange: KindParser = {
  kind: 'StateChange',
  source: 'aws.ec2',
  detailType: 'EC2 Instance State-change Notification',
  parse(event) {
    const instanceId = detailInstanceId(event);
    if (isParseError(instanceId)) return instanceId;
    const state = event.detail.state;
    if (typeof state !== 'string' || state === '') {
      return { code: 'invalid-field', message: `${event['detail-type']}: detail.state is missing` };
    }
    const normalised = state.toLowerCase();
    return INTERRUPTING_STATES.has(normalised) ? [instanceEvent('StateChange', event, instanceId, normalised)] : [];
  },
};
