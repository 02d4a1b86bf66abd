/**
 * The EC2 adapter against moto's EC2 (`moto_server`, pip install 'moto[server]'), on 127.0.0.1:
 * the real SDK, its real protocol and serialisation, and EC2's own instance-type data (moto keeps
 * a copy of DescribeInstanceTypes), where the mocked-client tests only see what they were given.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ec2Adapter } from '../../../src/adapters/aws/ec2.ts';
import { InstanceTypeCache } from '../../../src/adapters/aws/instance-type-cache.ts';

let moto: ChildProcess | undefined;
let endpoint = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function untilAnswering(url: string, child: ChildProcess): Promise<void> {
  let exited: string | undefined;
  child.once('exit', (code) => (exited = `moto_server exited (${String(code)})`));
  child.once('error', (error) => (exited = `moto_server could not start: ${error.message} (pip install 'moto[server]')`));
  for (let attempt = 0; attempt < 150; attempt++) {
    if (exited) throw new Error(exited);
    try {
      await fetch(`${url}/moto-api/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('moto_server did not answer within 15 s');
}

beforeAll(async () => {
  const port = await freePort();
  endpoint = `http://127.0.0.1:${port}`;
  moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  await untilAnswering(endpoint, moto);
}, 20_000);

afterAll(() => {
  moto?.kill();
});

describe('Ec2Adapter.describeInstanceTypes against moto', () => {
  it("lists the region's instance types with EC2's figures", async () => {
    // Prepare
    const client = new EC2Client({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' },
    });

    // Act
    const { instanceTypes: types, rejected } = await new Ec2Adapter(client, {
      instanceTypeCache: new InstanceTypeCache(),
    }).describeInstanceTypes();

    // Assess
    expect(types.length).toBeGreaterThan(500);
    expect(rejected).toEqual([]);
    expect(new Set(types.map((t) => t.name)).size).toBe(types.length);
    expect(types.find((t) => t.name === 'm5.large')).toEqual({
      name: 'm5.large',
      vcpus: 2,
      memoryMiB: 8192,
      architectures: ['x86_64'],
      usageClasses: ['on-demand', 'spot'],
      hypervisor: 'nitro',
      cpuManufacturer: 'Intel',
      maxNetworkInterfaces: 3,
      ipv4PerInterface: 10,
      bareMetal: false,
    });
    expect(types.find((t) => t.name === 'g5.xlarge')?.gpu).toEqual({
      name: 'A10G',
      manufacturer: 'NVIDIA',
      count: 1,
      memoryMiB: 22888,
    });
  });
});

describe('Ec2Adapter.describeSpotPrices against moto', () => {
  it("reads each zone's price of the types asked for over EC2's real protocol; a type EC2 does not know has none", async () => {
    // Prepare
    const client = new EC2Client({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' },
    });

    // Act
    const prices = await new Ec2Adapter(client).describeSpotPrices(['m5.large', 'x99.huge']);

    // Assess: moto answers a fixed price and time, in every zone that offers the type.
    expect(prices.length).toBeGreaterThanOrEqual(3);
    expect(new Set(prices.map((p) => p.instanceType))).toEqual(new Set(['m5.large']));
    expect(prices.map((p) => p.availabilityZone)).toEqual(expect.arrayContaining(['us-east-1a', 'us-east-1b', 'us-east-1c']));
    expect(prices[0]).toMatchObject({ usd: 0.00001, productDescription: 'Linux/UNIX (Amazon VPC)' });
    expect(prices[0]?.timestamp).toMatch(/^2006-01-02T15:04:05/);
  });
});
