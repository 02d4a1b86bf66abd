/**
 * The capture script checks and prints the kubectl context and the AWS region before it saves
 * anything: no region would fill six aws files with `You must specify a region.`, and a wrong
 * context would fill a folder named for one cluster with another's objects. Run for real with sh
 * against stub kubectl/aws (capture-script-stubs.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stubWorkspace, type StubWorkspace } from './capture-script-stubs.ts';

const ARN_DEMO = 'arn:aws:eks:eu-west-1:111122223333:cluster/demo';
const ENDPOINT = 'https://0F1E2D3C4B5A69788796A5B4C3D2E1F0.gr7.eu-west-1.eks.amazonaws.com';
/** A server that names no region (a proxy or tunnel): an EKS endpoint's own name says its region. */
const PROXY_SERVER = 'https://10.0.0.1:6443';
const OTHER_ENDPOINT = 'https://9A8B7C6D5E4F30211203F4E5D6C7B8A9.yl4.eu-west-1.eks.amazonaws.com';

let work: StubWorkspace;
beforeAll(async () => {
  work = await stubWorkspace();
});
afterAll(async () => {
  await work.remove();
});

/** A refusal: exit 2, one line on stderr, nothing saved. */
function expectRefused(captured: { code: number | null; stderr: string; folder: string | undefined }, line: RegExp) {
  expect(captured.code).toBe(2);
  expect(captured.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
  expect(captured.folder).toBeUndefined();
}

describe('capture script: the AWS region', () => {
  it('refuses in one line when no region is known (none given, none in the context, env or AWS config)', async () => {
    const captured = await work.capture({ argv: ['--cluster', 'demo'] }, { context: 'prod', server: PROXY_SERVER }, {});

    expectRefused(
      captured,
      /^capture\.sh: no AWS region: give it \(sh capture\.sh demo REGION\), set AWS_REGION, or run aws configure set region REGION$/,
    );
    expect(captured.stdout).toContain(`kubectl context: prod (server ${PROXY_SERVER})`);
    expect(captured.awsCalls).not.toMatch(/ec2|iam/);
  });

  it.each([
    ['AWS_REGION', { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-east-1' }, undefined],
    ['AWS_DEFAULT_REGION', { AWS_DEFAULT_REGION: 'eu-west-1' }, undefined],
    ['aws configure get region', {}, 'eu-west-1'],
  ])('takes the region from %s, prints it, and asks every aws call there', async (from, env, configuredRegion) => {
    const captured = await work.capture(
      { argv: ['--cluster', 'demo'], env },
      { context: 'prod', server: PROXY_SERVER },
      { endpoint: ENDPOINT, ...(configuredRegion ? { configuredRegion } : {}) },
    );

    expect(captured.code).toBe(0);
    expect(captured.stdout).toContain(`AWS region: eu-west-1 (from ${from})`);
    const calls = captured.awsCalls.split('\n').filter((c) => /^--region/.test(c));
    expect(calls.length).toBeGreaterThan(7);
    expect(calls.every((c) => c.startsWith('--region eu-west-1 '))).toBe(true);
  });
});

describe('capture script: the kubectl context', () => {
  it('without --cluster names the folder after the context’s EKS cluster and takes its region from the ARN', async () => {
    const captured = await work.capture(
      { env: { AWS_REGION: 'us-east-1' } },
      { context: ARN_DEMO, server: ENDPOINT },
      { endpoint: ENDPOINT },
    );

    expect(captured.code).toBe(0);
    expect(captured.stdout).toContain(`kubectl context: ${ARN_DEMO} (server ${ENDPOINT})`);
    expect(captured.stdout).toContain('EKS cluster: demo (from the kubectl context)');
    expect(captured.stdout).toContain('AWS region: eu-west-1 (from the kubectl context)');
    expect(captured.stdout).toContain("checked: kubectl's server is the endpoint of cluster demo");
    expect(captured.folder).toMatch(/karpenter-capture-demo-\d{8}T\d{6}Z$/);
  });

  it('reads the ARN from the context’s cluster entry when the context was renamed (update-kubeconfig --alias)', async () => {
    const captured = await work.capture(
      {},
      { context: 'prod', contextCluster: ARN_DEMO, server: ENDPOINT },
      { endpoint: ENDPOINT },
    );

    expect(captured.code).toBe(0);
    expect(captured.folder).toMatch(/karpenter-capture-demo-/);
  });

  it('refuses when the current context is another EKS cluster than --cluster', async () => {
    const captured = await work.capture(
      { argv: ['--cluster', 'payments'] },
      { context: ARN_DEMO, server: ENDPOINT },
      { endpoint: ENDPOINT },
    );

    expectRefused(
      captured,
      /^capture\.sh: kubectl's current context is EKS cluster demo, not payments: switch with kubectl config use-context, or capture that one with sh capture\.sh demo$/,
    );
  });

  it('refuses when the context is the cluster’s name in another region than --region', async () => {
    const captured = await work.capture(
      { argv: ['--cluster', 'demo', '--region', 'us-east-1'] },
      { context: ARN_DEMO, server: ENDPOINT },
      {},
    );

    expectRefused(captured, /^capture\.sh: kubectl's current context is cluster demo in eu-west-1, not in us-east-1/);
  });

  it('refuses when kubectl’s server is another EKS cluster’s endpoint (a context not named after its cluster)', async () => {
    const captured = await work.capture(
      { argv: ['--cluster', 'demo', '--region', 'eu-west-1'] },
      { context: 'prod', server: OTHER_ENDPOINT },
      { endpoint: ENDPOINT },
    );

    expectRefused(
      captured,
      /^capture\.sh: kubectl's server https:\/\/9A8B7C6D\S+ is not the endpoint of cluster demo \(https:\/\/0F1E2D3C\S+\) but another EKS cluster's/,
    );
  });

  it('goes on with a warning when kubectl reaches the cluster through a tunnel (cannot tell)', async () => {
    const captured = await work.capture(
      { argv: ['--cluster', 'demo', '--region', 'eu-west-1'] },
      { context: 'prod', server: 'https://localhost:8443' },
      { endpoint: ENDPOINT },
    );

    expect(captured.code).toBe(0);
    expect(captured.stderr).toContain('warning: kubectl reaches https://localhost:8443, not the endpoint of cluster demo');
    expect(captured.folder).toMatch(/karpenter-capture-demo-/);
  });

  it('refuses when kubectl has no current context', async () => {
    const captured = await work.capture({ argv: ['--cluster', 'demo', '--region', 'eu-west-1'] }, {}, {});

    expectRefused(
      captured,
      /^capture\.sh: kubectl has no current context: choose the cluster's with kubectl config use-context NAME$/,
    );
  });

  it('refuses a context that names no EKS cluster when no cluster is given', async () => {
    const captured = await work.capture({}, { context: 'kind-dev', server: 'https://127.0.0.1:6443' }, {});

    expectRefused(
      captured,
      /^capture\.sh: the kubectl context names no EKS cluster: give its name, sh capture\.sh CLUSTER \[REGION\]$/,
    );
  });

  it('prints a hostile context visibly and bounded', async () => {
    const captured = await work.capture(
      { argv: ['--cluster', 'demo', '--region', 'eu-west-1'] },
      { context: `prod\u001b[31mRED${'x'.repeat(300)}`, server: ENDPOINT },
      { endpoint: ENDPOINT },
    );

    const line = captured.stdout.split('\n').find((l) => l.startsWith('kubectl context:')) ?? '';
    expect(line).toMatch(/^kubectl context: prod\?\[31mREDx+ \(server https:/);
    expect(line.length).toBeLessThan(300);
  });
});
