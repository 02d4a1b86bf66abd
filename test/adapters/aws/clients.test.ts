import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { awsPorts, createAwsClients, destroyAwsClients } from '../../../src/adapters/aws/index.ts';

const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' });

describe('createAwsClients', () => {
  it('builds the three clients for the given region with adaptive retries and bounded attempts', async () => {
    // Act
    const clients = createAwsClients({ region: 'eu-central-1', credentials });

    // Assess
    for (const client of [clients.ec2, clients.eks, clients.iam]) {
      expect(await client.config.region()).toBe('eu-central-1');
      const strategy = await client.config.retryStrategy();
      expect(strategy).toMatchObject({ mode: 'adaptive' });
      expect(await client.config.maxAttempts()).toBe(5);
    }
    expect(clients.region).toBe('eu-central-1');
    destroyAwsClients(clients);
  });

  it('takes another attempt count, and awsPorts wires the adapters to the clients', async () => {
    // Prepare
    const clients = createAwsClients({ region: 'us-west-2', credentials, maxAttempts: 2 });
    const eks = mockClient(clients.eks);
    eks.on(DescribeClusterCommand).resolves({ cluster: { name: 'demo', status: 'ACTIVE' } });

    // Act
    const ports = awsPorts(clients);
    const cluster = await ports.eks.describeCluster('demo');

    // Assess
    expect(await clients.ec2.config.maxAttempts()).toBe(2);
    expect(ports.region).toBe('us-west-2');
    expect(cluster).toEqual({ name: 'demo', status: 'ACTIVE' });
    expect(eks.commandCalls(DescribeClusterCommand).map((c) => c.args[0].input)).toEqual([{ name: 'demo' }]);
    eks.restore();
    destroyAwsClients(clients);
  });
});
