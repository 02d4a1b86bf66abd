/** SDK clients that never reach the network (every test mocks `send`), and SDK-shaped errors. */
import { EC2Client, EC2ServiceException } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';

const OFFLINE = { region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' } };

export const ec2Client = () => new EC2Client(OFFLINE);
export const eksClient = () => new EKSClient(OFFLINE);
export const iamClient = () => new IAMClient(OFFLINE);

/** What the SDK throws for an EC2 error response: the AWS code as `name`. */
export function ec2Error(code: string, message: string): EC2ServiceException {
  return new EC2ServiceException({ name: code, $fault: 'client', $metadata: { httpStatusCode: 400 }, message });
}

export { ACCOUNT } from '../../factories/aws.ts';

/**
 * A mock behaviour answering `pages` in turn and keeping a copy of each input as it was sent (the
 * SDK's paginators reuse one input object, so the mock's own record shows only its last state).
 */
export function pagesOf<I extends object, O>(...pages: O[]): { inputs: I[]; answer: (input: I) => O } {
  const inputs: I[] = [];
  return {
    inputs,
    answer: (input) => {
      inputs.push(structuredClone(input));
      const page = pages[Math.min(inputs.length - 1, pages.length - 1)];
      if (page === undefined) throw new Error('pagesOf needs at least one page');
      return page;
    },
  };
}
