/**
 * `EC2 Instance Rebalance Recommendation` (aws.ec2): a Spot instance is at elevated risk of
 * interruption; it often comes before the interruption warning. Its detail names only the instance.
 */
import { detailInstanceId, instanceEvent, isParseError, type KindParser } from '../event.ts';

export const rebalanceRecommendation: KindParser = {
  kind: 'RebalanceRecommendation',
  source: 'aws.ec2',
  detailType: 'EC2 Instance Rebalance Recommendation',
  parse(event) {
    const instanceId = detailInstanceId(event);
    if (isParseError(instanceId)) return instanceId;
    return [instanceEvent('RebalanceRecommendation', event, instanceId, undefined)];
  },
};
