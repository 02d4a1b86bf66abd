/**
 * `EC2 Spot Instance Interruption Warning` (aws.ec2): two minutes before EC2 reclaims a Spot
 * instance. `detail.instance-action` is `terminate`, `stop` or `hibernate`.
 */
import { detailInstanceId, detailString, instanceEvent, isParseError, type KindParser } from '../event.ts';

export const spotInterruption: KindParser = {
  kind: 'SpotInterruption',
  source: 'aws.ec2',
  detailType: 'EC2 Spot Instance Interruption Warning',
  parse(event) {
    const instanceId = detailInstanceId(event);
    if (isParseError(instanceId)) return instanceId;
    return [instanceEvent('SpotInterruption', event, instanceId, detailString(event, 'instance-action'))];
  },
};
