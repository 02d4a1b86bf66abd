/**
 * The simulator refuses a write of a Karpenter kind as kube-apiserver does when an admission
 * webhook selecting it cannot answer: HTTP 500, reason InternalError, `Internal error occurred:
 * failed calling webhook "<name>": failed to call webhook: Post "<url>": <why>` (k8s.io/apiserver's
 * words), which real kubectl 1.32 prints as `Error from server (InternalError): error when creating ...`.
 * Each test plants the evidence that contradicts a refusal too: then the write goes through.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonRecord } from '../../src/domain/shape.ts';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { KubeStore, type SimResourceName } from '../../src/simulator/kube-store.ts';
import { storeFromSnapshot } from '../../src/simulator/seed.ts';
import { emptySnapshot } from '../../src/domain/snapshot.ts';
import { call } from './support/https-client.ts';

const run = promisify(execFile);

const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': 'karpenter' };

/** The chart's Service with its webhook port (v0.32–v1.0: `https-webhook` 8443). */
function karpenterService(
  ports: { name: string; port: number }[] = [
    { name: 'http-metrics', port: 8000 },
    { name: 'https-webhook', port: 8443 },
  ],
): JsonRecord {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'karpenter', namespace: 'kube-system', labels: CONTROLLER_LABELS },
    spec: {
      type: 'ClusterIP',
      selector: CONTROLLER_LABELS,
      ports: ports.map((p) => ({ ...p, protocol: 'TCP', targetPort: p.name })),
    },
  };
}

function controllerDeployment(tag: string): JsonRecord {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'karpenter', namespace: 'kube-system', labels: CONTROLLER_LABELS },
    spec: {
      replicas: 2,
      selector: { matchLabels: CONTROLLER_LABELS },
      template: {
        metadata: { labels: CONTROLLER_LABELS },
        spec: { containers: [{ name: 'controller', image: `public.ecr.aws/karpenter/controller:${tag}@sha256:1f2e` }] },
      },
    },
  };
}

function slice(ready: boolean, portNames = ['http-metrics', 'https-webhook']): JsonRecord {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'karpenter-x7k2p', namespace: 'kube-system', labels: { 'kubernetes.io/service-name': 'karpenter' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['192.168.12.40'], conditions: { ready, serving: ready, terminating: false } }],
    ports: portNames.map((name) => ({ name, port: name === 'http-metrics' ? 8000 : 8443, protocol: 'TCP' })),
  };
}

/** Chart 0.37's validating webhook as the controller patched it (path, caBundle), rules on v1beta1. */
function validating(extra: { failurePolicy?: string; matchPolicy?: string; caBundle?: boolean } = {}): JsonRecord {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'validation.webhook.karpenter.sh', labels: { 'helm.sh/chart': 'karpenter-0.37.2' } },
    webhooks: [
      {
        name: 'validation.webhook.karpenter.sh',
        admissionReviewVersions: ['v1'],
        clientConfig: {
          service: { name: 'karpenter', namespace: 'kube-system', port: 8443, path: '/validate/karpenter.sh' },
          ...(extra.caBundle === false ? {} : { caBundle: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t' }),
        },
        failurePolicy: extra.failurePolicy ?? 'Fail',
        ...(extra.matchPolicy ? { matchPolicy: extra.matchPolicy } : {}),
        sideEffects: 'None',
        rules: [
          {
            apiGroups: ['karpenter.sh'],
            apiVersions: ['v1beta1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['nodepools', 'nodepools/status'],
            scope: '*',
          },
        ],
      },
    ],
  };
}

/** The mutating one of chart 0.37 on EC2NodeClasses; never patched by a controller (no path). */
function mutating(): JsonRecord {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'defaulting.webhook.karpenter.k8s.aws' },
    webhooks: [
      {
        name: 'defaulting.webhook.karpenter.k8s.aws',
        clientConfig: { service: { name: 'karpenter', namespace: 'kube-system', port: 8443 } },
        failurePolicy: 'Fail',
        rules: [
          {
            apiGroups: ['karpenter.k8s.aws'],
            apiVersions: ['v1beta1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['ec2nodeclasses', 'ec2nodeclasses/status'],
          },
        ],
      },
    ],
  };
}

function karpenterCrd(group: string, plural: string, kind: string, versions: string[]): JsonRecord {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: { group, names: { kind, plural }, versions: versions.map((name, i) => ({ name, served: true, storage: i === 0 })) },
  };
}

/** Karpenter v1.0's CRDs: v1 stored, v1beta1 still served (so `Equivalent` rules on v1beta1 match v1 writes). */
const V1_0_CRDS = [
  karpenterCrd('karpenter.sh', 'nodepools', 'NodePool', ['v1', 'v1beta1']),
  karpenterCrd('karpenter.k8s.aws', 'ec2nodeclasses', 'EC2NodeClass', ['v1', 'v1beta1']),
];

function storeOf(objects: [SimResourceName, JsonRecord][]): KubeStore {
  const store = new KubeStore();
  for (const [resource, object] of objects) store.put(resource, object);
  return store;
}

/** A v0.37 controller serving its webhooks: Service, ready endpoint on https-webhook, caBundle. */
function healthy(): [SimResourceName, JsonRecord][] {
  return [
    ...V1_0_CRDS.map((c): [SimResourceName, JsonRecord] => ['customresourcedefinitions', c]),
    ['deployments', controllerDeployment('0.37.2')],
    ['services', karpenterService()],
    ['endpointslices', slice(true)],
    ['validatingwebhookconfigurations', validating()],
    ['mutatingwebhookconfigurations', mutating()],
  ];
}

function replacing(objects: [SimResourceName, JsonRecord][], resource: SimResourceName, object?: JsonRecord) {
  return [...objects.filter(([r]) => r !== resource), ...(object ? [[resource, object] as [SimResourceName, JsonRecord]] : [])];
}

const NODEPOOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements: [{ key: karpenter.sh/capacity-type, operator: In, values: [spot] }]
`;

const NODECLASS = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms: [{ alias: al2023@latest }]
  role: KarpenterNodeRole-demo
`;

let api: SimulatedKubeApi | undefined;
let dir: string | undefined;
afterEach(async () => {
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  api = undefined;
  dir = undefined;
});

/** Real kubectl applying `manifest` (saved as nodepool.yaml) to a simulator holding `objects`: its stderr, or '' on success. */
async function kubectlApply(
  objects: [SimResourceName, JsonRecord][],
  manifest = NODEPOOL,
  unknown: SimResourceName[] = [],
  validate = false,
): Promise<{ stderr: string; api: SimulatedKubeApi }> {
  const store = storeOf(objects);
  for (const resource of unknown) store.unknown.add(resource);
  api = await startKubeApiServer(store);
  dir = await mkdtemp(join(tmpdir(), 'sim-admission-'));
  await writeFile(join(dir, 'kubeconfig'), api.kubeconfig());
  await writeFile(join(dir, 'nodepool.yaml'), manifest);
  const env = { ...process.env, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
  const args = [
    '--cache-dir',
    join(dir, 'cache'),
    'apply',
    ...(validate ? [] : ['--validate=false']),
    '-f',
    join(dir, 'nodepool.yaml'),
  ];
  try {
    await run('kubectl', args, { timeout: 15_000, env, cwd: dir });
    return { stderr: '', api };
  } catch (error) {
    return { stderr: String((error as { stderr?: string }).stderr ?? error), api };
  }
}

const REFUSED = (why: string, path = '/validate/karpenter.sh') =>
  `Error from server (InternalError): error when creating "${'nodepool.yaml'}": Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: Post "https://karpenter.kube-system.svc:8443${path}?timeout=10s": ${why}\n`;

describe('kubectl apply of a NodePool against stale or unreachable admission webhooks', () => {
  it('no ready endpoint (the controller scaled to 0, its pods not ready): refused, nothing stored', async () => {
    const { stderr, api } = await kubectlApply(replacing(healthy(), 'endpointslices', slice(false)), NODEPOOL);

    expect(stderr.replace(/"[^"]*nodepool\.yaml"/, '"nodepool.yaml"')).toBe(
      REFUSED('no endpoints available for service "karpenter"'),
    );
    expect(api.store.list('nodepools')).toEqual([]);
  });

  it('the Service gone (Karpenter uninstalled, the cluster-scoped configurations left): service not found', async () => {
    const { stderr } = await kubectlApply(replacing(healthy(), 'services'));

    expect(stderr).toContain(': service "karpenter" not found\n');
    expect(stderr).toMatch(
      /^Error from server \(InternalError\): error when creating ".*nodepool\.yaml": Internal error occurred: failed calling webhook "validation\.webhook\.karpenter\.sh"/,
    );
  });

  it('the Service without its webhook port (v1.1+, or webhook.enabled=false): no service port 8443', async () => {
    const { stderr } = await kubectlApply(
      replacing(healthy(), 'services', karpenterService([{ name: 'http-metrics', port: 8000 }])),
    );

    expect(stderr).toContain(
      'Post "https://karpenter.kube-system.svc:8443/validate/karpenter.sh?timeout=10s": no service port 8443 found for service "karpenter"\n',
    );
  });

  it('endpoints ready but only on the metrics port (aws/karpenter-provider-aws#5758): no endpoints, the port is matched by name', async () => {
    const endpoints: JsonRecord = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'karpenter', namespace: 'kube-system' },
      subsets: [
        {
          addresses: [{ ip: '192.20.25.225' }, { ip: '192.20.32.130' }],
          ports: [{ name: 'http-metrics', port: 8000, protocol: 'TCP' }],
        },
      ],
    };
    const { stderr } = await kubectlApply([...replacing(healthy(), 'endpointslices'), ['endpoints', endpoints]]);

    expect(stderr).toContain(': no endpoints available for service "karpenter"\n');
  });

  it('a v1 controller behind the Service (it serves no admission webhook): the server rejected our request for an unknown reason', async () => {
    const { stderr } = await kubectlApply(replacing(healthy(), 'deployments', controllerDeployment('1.0.1')));

    expect(stderr).toContain(
      'Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: the server rejected our request for an unknown reason\n',
    );
  });

  it('no caBundle (a webhook configuration made by hand): the certificate is signed by an unknown authority', async () => {
    const { stderr } = await kubectlApply(
      replacing(healthy(), 'validatingwebhookconfigurations', validating({ caBundle: false })),
    );

    expect(stderr).toContain(': tls: failed to verify certificate: x509: certificate signed by unknown authority\n');
  });

  it('an EC2NodeClass meets the mutating webhook first', async () => {
    const { stderr } = await kubectlApply(replacing(healthy(), 'services'), NODECLASS);

    expect(stderr).toContain(
      'Internal error occurred: failed calling webhook "defaulting.webhook.karpenter.k8s.aws": failed to call webhook: Post "https://karpenter.kube-system.svc:8443/?timeout=10s": service "karpenter" not found\n',
    );
  });

  it.each([
    ['the webhook can answer (a v0.37 controller serving it)', healthy()],
    [
      'failurePolicy Ignore',
      replacing(replacing(healthy(), 'services'), 'validatingwebhookconfigurations', validating({ failurePolicy: 'Ignore' })),
    ],
    [
      'matchPolicy Exact on v1beta1, the write in v1',
      replacing(replacing(healthy(), 'services'), 'validatingwebhookconfigurations', validating({ matchPolicy: 'Exact' })),
    ],
    [
      'CRDs serving only v1 (v1.1+): a v1beta1 rule has no equivalent',
      [
        ...replacing(replacing(healthy(), 'services'), 'customresourcedefinitions'),
        ['customresourcedefinitions', karpenterCrd('karpenter.sh', 'nodepools', 'NodePool', ['v1'])] as [
          SimResourceName,
          JsonRecord,
        ],
      ],
    ],
  ])('%s: the NodePool is created', async (_why, objects) => {
    const { stderr, api } = await kubectlApply(objects);

    expect(stderr).toBe('');
    expect(api.store.get('nodepools', 'default')).toBeDefined();
  });
});

/** A pod of the controller Deployment (a capture may hold the pods and not the Deployment). */
function controllerPod(tag: string): JsonRecord {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'karpenter-5697769d6c-7lglp', namespace: 'kube-system', labels: CONTROLLER_LABELS },
    spec: { containers: [{ name: 'controller', image: `public.ecr.aws/karpenter/controller:${tag}@sha256:1f2e` }] },
    status: { phase: 'Running' },
  };
}

/** Kyverno's catch-all (every group, every resource), posting to a Service whose endpoints no scan reads. */
function policyEngineCatchAll(): JsonRecord {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'kyverno-resource-validating-webhook-cfg' },
    webhooks: [
      {
        name: 'validate.kyverno.svc-fail',
        clientConfig: {
          service: { name: 'kyverno-svc', namespace: 'kyverno', port: 443, path: '/validate/fail' },
          caBundle: 'LS0t',
        },
        failurePolicy: 'Fail',
        rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*/*'] }],
      },
    ],
  };
}

describe("what the simulator judges: the cluster as captured, Karpenter's webhooks only", () => {
  it('CRDs serving only v1beta1 (before Karpenter v1): the write arrives in v1beta1, and a v1beta1 rule with no endpoint refuses it', async () => {
    const v1beta1Only = [
      karpenterCrd('karpenter.sh', 'nodepools', 'NodePool', ['v1beta1']),
      karpenterCrd('karpenter.k8s.aws', 'ec2nodeclasses', 'EC2NodeClass', ['v1beta1']),
    ].map((c): [SimResourceName, JsonRecord] => ['customresourcedefinitions', c]);
    const objects = [
      ...replacing(replacing(healthy(), 'customresourcedefinitions'), 'endpointslices', slice(false)),
      ...v1beta1Only,
    ];

    const { stderr, api } = await kubectlApply(objects);

    expect(stderr).toContain(': no endpoints available for service "karpenter"\n');
    expect(api.store.list('nodepools')).toEqual([]);
  });

  it('a v1 controller seen through the pods the Service selects (no Deployment captured): the server rejected our request', async () => {
    const { stderr } = await kubectlApply([...replacing(healthy(), 'deployments'), ['pods', controllerPod('v1.0.1')]]);

    expect(stderr).toContain('failed to call webhook: the server rejected our request for an unknown reason\n');
  });

  it('a v1 controller known by its chart label, its image pinned by digest alone (as the findings read it): refused', async () => {
    const pod = controllerPod('v0.0.0');
    const metadata = pod.metadata as { labels: Record<string, string> };
    metadata.labels = { ...metadata.labels, 'helm.sh/chart': 'karpenter-1.0.1' };
    (pod.spec as { containers: { image: string }[] }).containers[0]!.image = 'public.ecr.aws/karpenter/controller@sha256:1f2e';

    const { stderr } = await kubectlApply([...replacing(healthy(), 'deployments'), ['pods', pod]]);

    expect(stderr).toContain('failed to call webhook: the server rejected our request for an unknown reason\n');
  });

  it('a v0.37 controller pod behind the Service (a stale v1 Deployment elsewhere does not count): created', async () => {
    const { stderr } = await kubectlApply([...healthy(), ['pods', controllerPod('v0.37.2')]]);

    expect(stderr).toBe('');
  });

  it.each([
    [
      "a policy engine's fail-closed catch-all whose Service has no endpoints read",
      [...healthy(), ['validatingwebhookconfigurations', policyEngineCatchAll()]],
      [],
    ],
    [
      'endpoints not captured (no EndpointSlice seeded): unknown, not "no endpoints"',
      replacing(healthy(), 'endpointslices'),
      ['endpointslices'],
    ],
    ['Services not captured: unknown, not "service not found"', replacing(healthy(), 'services'), ['services']],
  ] as [string, [SimResourceName, JsonRecord][], SimResourceName[]][])(
    '%s: the NodePool is created',
    async (_why, objects, unknown) => {
      const { stderr, api } = await kubectlApply(objects, NODEPOOL, unknown);

      expect(stderr).toBe('');
      expect(api.store.get('nodepools', 'default')).toBeDefined();
    },
  );

  it('a store seeded from a capture without endpoints or Services knows neither; one with them knows both', () => {
    const without = storeFromSnapshot(emptySnapshot('demo'));
    const withThem = storeFromSnapshot({ ...emptySnapshot('demo'), captured: new Set(['services', 'endpoints'] as const) });

    expect([without.knows('services'), without.knows('endpointslices')]).toEqual([false, false]);
    expect([withThem.knows('services'), withThem.knows('endpointslices')]).toEqual([true, true]);
  });
});

describe('docs/simulator.md says how to apply to the simulator', () => {
  it('plain kubectl apply stops at the OpenAPI download, in the words the page quotes; the page says --validate=false', async () => {
    const page = await readFile(new URL('../../docs/simulator.md', import.meta.url), 'utf8');
    const { stderr, api } = await kubectlApply(healthy(), NODEPOOL, [], true);

    const quoted = 'failed to download openapi: the server could not find the requested resource';
    expect(stderr).toContain(quoted);
    expect(page.replace(/\s+/g, ' ')).toContain(quoted);
    expect(page).toContain('Pass `--validate=false` to `kubectl apply` and `create`');
    expect(api.store.list('nodepools')).toEqual([]);
  });
});

describe('the refusal on the wire', () => {
  it('is a Status with code 500, reason InternalError and the webhook error as its cause, for a create, a dry run and a patch', async () => {
    api = await startKubeApiServer(
      storeOf([
        ...replacing(healthy(), 'services'),
        ['nodepools', { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'old' } }],
      ]),
    );
    const failure =
      'failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: Post "https://karpenter.kube-system.svc:8443/validate/karpenter.sh?timeout=10s": service "karpenter" not found';
    const body = JSON.stringify({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' } });

    const created = await call(api, '/apis/karpenter.sh/v1/nodepools', { method: 'POST', body });
    const dryRun = await call(api, '/apis/karpenter.sh/v1/nodepools?dryRun=All', { method: 'POST', body });
    const patched = await call(api, '/apis/karpenter.sh/v1/nodepools/old', {
      method: 'PATCH',
      body: '{"metadata":{"labels":{"a":"b"}}}',
      contentType: 'application/merge-patch+json',
    });

    for (const answer of [created, dryRun, patched]) {
      expect(answer.status).toBe(500);
      expect(answer.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Internal error occurred: ${failure}`,
        reason: 'InternalError',
        details: { causes: [{ message: failure }] },
        code: 500,
      });
    }
    expect(api.store.list('nodepools').map((s) => s.name)).toEqual(['old']);
  });
});

describe('the new kinds are served to real kubectl', () => {
  it('lists both configuration kinds in one List and the EndpointSlices of a Service by label', async () => {
    api = await startKubeApiServer(storeOf(healthy()));
    dir = await mkdtemp(join(tmpdir(), 'sim-admission-'));
    await writeFile(join(dir, 'kubeconfig'), api.kubeconfig());
    const env = { ...process.env, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
    const kubectl = async (...args: string[]) =>
      JSON.parse((await run('kubectl', ['--cache-dir', join(dir ?? '', 'cache'), ...args], { timeout: 15_000, env })).stdout) as {
        items: JsonRecord[];
      };

    const configs = await kubectl('get', 'validatingwebhookconfigurations,mutatingwebhookconfigurations', '-o', 'json');
    const slices = await kubectl(
      'get',
      'endpointslices',
      '-n',
      'kube-system',
      '-l',
      'kubernetes.io/service-name=karpenter',
      '-o',
      'json',
    );

    expect(configs.items.map((i) => [i.kind, (i.metadata as JsonRecord).name])).toEqual([
      ['ValidatingWebhookConfiguration', 'validation.webhook.karpenter.sh'],
      ['MutatingWebhookConfiguration', 'defaulting.webhook.karpenter.k8s.aws'],
    ]);
    expect(slices.items.map((i) => (i.metadata as JsonRecord).name)).toEqual(['karpenter-x7k2p']);
  });

  it('prints the configurations as the API server does: NAME WEBHOOKS AGE', async () => {
    api = await startKubeApiServer(storeOf(healthy()));
    dir = await mkdtemp(join(tmpdir(), 'sim-admission-'));
    await writeFile(join(dir, 'kubeconfig'), api.kubeconfig());
    const env = { ...process.env, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };

    const { stdout } = await run('kubectl', ['--cache-dir', join(dir, 'cache'), 'get', 'validatingwebhookconfigurations'], {
      timeout: 15_000,
      env,
    });

    const [header, row] = stdout.split('\n').map((line) => line.split(/\s+/));
    expect(header).toEqual(['NAME', 'WEBHOOKS', 'AGE']);
    expect(row?.slice(0, 2)).toEqual(['validation.webhook.karpenter.sh', '1']);
  });
});
