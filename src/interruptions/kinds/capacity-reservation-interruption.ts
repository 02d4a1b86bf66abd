/**
 * `EC2 Capacity Reservation Instance Interruption Warning` (aws.ec2): the owner of an interruptible
 * Capacity Reservation reclaims capacity; the instance is terminated two minutes later
 * (`detail.instance-action`, `detail.instance-termination-time`).
 */
import { detailInstanceId, detailString, instanceEvent, isParseError, type KindParser } from '../event.ts';

export const capacityReservationInterruption: KindParser = {
  kind: 'CapacityReservationInterruption',
  source: 'aws.ec2',
  detailType: 'EC2 Capacity Reservation Instance Interruption Warning',
  parse(event) {
    const instanceId = detailInstanceId(event);
    if (isParseError(instanceId)) return instanceId;
    return [instanceEvent('CapacityReservationInterruption', event, instanceId, detailString(event, 'instance-action'))];
  },
};
