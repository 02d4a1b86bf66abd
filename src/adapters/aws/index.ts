import type { AwsPorts } from '../../ports/aws.ts';
import type { AwsClients } from './clients.ts';
import { Ec2Adapter } from './ec2.ts';
import { EksAdapter } from './eks.ts';
import { IamAdapter } from './iam.ts';
import { InterruptionQueueAdapter } from './interruption-queue.ts';

export { createAwsClients, destroyAwsClients, type AwsClients } from './clients.ts';

/** The AWS ports over SDK v3 clients (build the clients once with createAwsClients). */
export function awsPorts(clients: AwsClients): AwsPorts {
  return {
    ec2: new Ec2Adapter(clients.ec2),
    eks: new EksAdapter(clients.eks),
    iam: new IamAdapter(clients.iam),
    queue: new InterruptionQueueAdapter(clients),
    region: clients.region,
  };
}
