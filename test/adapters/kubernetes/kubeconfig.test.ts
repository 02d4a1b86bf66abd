import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadKubeConfig } from '../../../src/adapters/kubernetes/kubeconfig-file.ts';
import { kubeConfigForEks } from '../../../src/adapters/kubernetes/kubeconfig.ts';
import { InputError, UsageError } from '../../../src/domain/errors.ts';
import { KubeUnreachableError } from '../../../src/ports/errors.ts';

const CA_DATA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

interface ClusterEntry {
  name: string;
  server?: string;
  insecure?: boolean;
}

function kubeconfig(input: {
  current?: string;
  clusters: ClusterEntry[];
  contexts?: { name: string; cluster: string; user: string }[];
}) {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: input.clusters.map((c) => ({
      name: c.name,
      cluster: {
        server: c.server ?? `https://${c.name}.example:6443`,
        ...(c.insecure ? { 'insecure-skip-tls-verify': true } : { 'certificate-authority-data': CA_DATA }),
      },
    })),
    users: input.clusters.map((c) => ({ name: c.name, user: { token: `token-${c.name}` } })),
    contexts: (input.contexts ?? input.clusters.map((c) => ({ name: c.name, cluster: c.name, user: c.name }))).map((c) => ({
      name: c.name,
      context: { cluster: c.cluster, user: c.user },
    })),
    ...(input.current ? { 'current-context': input.current } : {}),
  });
}

describe('loadKubeConfig', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sentinel-kubeconfig-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  function file(name: string, text: string): string {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  }

  it('uses the current context, or the one asked for', () => {
    const at = file('config', kubeconfig({ current: 'staging', clusters: [{ name: 'staging' }, { name: 'prod' }] }));

    expect(loadKubeConfig({ kubeconfigPath: at }).getCurrentCluster()?.server).toBe('https://staging.example:6443');
    expect(loadKubeConfig({ kubeconfigPath: at, context: 'prod' }).getCurrentCluster()?.server).toBe('https://prod.example:6443');
  });

  it('names an unknown context and the available ones, in one line', () => {
    const at = file('config', kubeconfig({ current: 'staging', clusters: [{ name: 'staging' }, { name: 'prod' }] }));

    const error = (() => {
      try {
        loadKubeConfig({ kubeconfigPath: at, context: 'prdo' });
      } catch (e) {
        return e;
      }
    })();

    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(`context "prdo" not found in ${at} (available: staging, prod)`);
  });

  it('asks for --context when the kubeconfig has no current context', () => {
    const at = file('config', kubeconfig({ clusters: [{ name: 'a' }] }));

    expect(() => loadKubeConfig({ kubeconfigPath: at })).toThrow(
      /sets no current-context; choose one with --context \(available: a\)/,
    );
  });

  it('refuses insecure-skip-tls-verify: TLS is always verified', () => {
    const at = file('config', kubeconfig({ current: 'lab', clusters: [{ name: 'lab', insecure: true }] }));

    expect(() => loadKubeConfig({ kubeconfigPath: at })).toThrow(InputError);
    expect(() => loadKubeConfig({ kubeconfigPath: at })).toThrow(
      `${at}: cluster "lab" sets insecure-skip-tls-verify; karpenter-sentinel always verifies TLS (give certificate-authority-data instead)`,
    );
  });

  it('refuses a plain-HTTP server', () => {
    const at = file('config', kubeconfig({ current: 'a', clusters: [{ name: 'a', server: 'http://127.0.0.1:8080' }] }));

    expect(() => loadKubeConfig({ kubeconfigPath: at })).toThrow(/is not https:\/\/; karpenter-sentinel only talks TLS/);
  });

  it('names a missing file', () => {
    const missing = path.join(dir, 'nope');

    expect(() => loadKubeConfig({ kubeconfigPath: missing })).toThrow(`${missing}: kubeconfig not found`);
  });

  it('names a context whose cluster is not defined', () => {
    const at = file(
      'config',
      kubeconfig({ current: 'x', clusters: [{ name: 'a' }], contexts: [{ name: 'x', cluster: 'gone', user: 'a' }] }),
    );

    expect(() => loadKubeConfig({ kubeconfigPath: at })).toThrow(`${at}: context "x" names cluster "gone", which is not defined`);
  });

  it('merges a KUBECONFIG list like kubectl: first definition and first current-context win, missing files skipped', () => {
    const first = file('one', kubeconfig({ current: 'a', clusters: [{ name: 'a', server: 'https://first.example' }] }));
    const second = file(
      'two',
      kubeconfig({
        current: 'b',
        clusters: [
          { name: 'a', server: 'https://second.example' },
          { name: 'b', server: 'https://b.example' },
        ],
      }),
    );
    const list = [first, path.join(dir, 'missing'), second].join(path.delimiter);

    expect(loadKubeConfig({ kubeconfigPath: list }).getCurrentCluster()?.server).toBe('https://first.example');
    expect(loadKubeConfig({ kubeconfigPath: list, context: 'b' }).getCurrentCluster()?.server).toBe('https://b.example');
  });
});

describe('kubeConfigForEks', () => {
  const tokens = { token: async () => 'k8s-aws-v1.test' };

  it('takes the endpoint and CA from DescribeCluster and verifies TLS', () => {
    const config = kubeConfigForEks(
      { name: 'prod', endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', certificateAuthority: CA_DATA },
      tokens,
    );

    expect(config.getCurrentCluster()).toMatchObject({
      server: 'https://ABC.gr7.us-east-1.eks.amazonaws.com',
      caData: CA_DATA,
      skipTLSVerify: false,
    });
  });

  it('is unreachable while the cluster has no endpoint', () => {
    expect(() => kubeConfigForEks({ name: 'new', status: 'CREATING' }, tokens)).toThrow(KubeUnreachableError);
    expect(() => kubeConfigForEks({ name: 'new', status: 'CREATING' }, tokens)).toThrow(
      'EKS cluster new has no API endpoint or CA yet (status CREATING)',
    );
  });
});
