import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/domain/errors.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { karpenterDeployment, node, pod } from '../../factories/kube.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';
import { kubectlJson, kubectlYaml, LAST_APPLIED, realKarpenterPod, withoutUnusedFields } from './kubectl-output.ts';

afterEach(removeCaptureDirs);

const POD_A = realKarpenterPod('karpenter-5697769d6c-7lglp');
const POD_B = realKarpenterPod('karpenter-5697769d6c-qx9zv');

describe('loadSnapshot: kubectl output as real clusters print it', () => {
  it('drops managedFields and the last-applied copy from `kubectl get pods -A -o json`, keeping every other field', async () => {
    // Prepare
    const dir = await captureDir({ 'pods.json': kubectlJson([POD_A, POD_B]) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods).toEqual([withoutUnusedFields(POD_A), withoutUnusedFields(POD_B)]);
    expect(snapshot.pods[0]?.metadata?.annotations).toEqual({ 'kubectl.kubernetes.io/restartedAt': '2025-01-08T10:00:00Z' });
    expect(snapshot.pods[0]?.spec?.initContainers?.[0]?.name).toBe('wait-for-webhook');
    expect(snapshot.pods[0]?.status?.containerStatuses?.[0]).toMatchObject({
      state: { waiting: { reason: 'ContainerCreating' } },
    });
    expect(snapshot.clusterName).toBe('pattern-infra-eks-dev');
  });

  it('reads the same objects from `-o yaml` as from `-o json`', async () => {
    // Prepare
    const dir = await captureDir({
      'json/pods.json': kubectlJson([POD_A, POD_B]),
      'yaml/pods.yaml': kubectlYaml([POD_A, POD_B]),
    });

    // Act
    const fromJson = await loadSnapshot([join(dir, 'json')]);
    const fromYaml = await loadSnapshot([join(dir, 'yaml')]);

    // Assess
    expect(fromYaml.snapshot.pods).toEqual(fromJson.snapshot.pods);
    expect(fromYaml.snapshot.pods[1]?.metadata).not.toHaveProperty('managedFields');
  });

  it('drops them from every kind but keeps the pod template annotations (the restart cooldown reads them)', async () => {
    // Prepare
    const deployment = karpenterDeployment() as unknown as Record<string, unknown>;
    const template = (deployment.spec as { template: { metadata: Record<string, unknown> } }).template;
    template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': '2025-01-08T10:00:00Z' };
    const metadata = deployment.metadata as Record<string, unknown>;
    metadata.annotations = { 'deployment.kubernetes.io/revision': '3', [LAST_APPLIED]: '{"kind":"Deployment"}\n' };
    metadata.managedFields = [{ manager: 'helm', operation: 'Update', fieldsV1: { 'f:spec': {} } }];
    const dir = await captureDir({ 'deployments.yaml': kubectlYaml([deployment]) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    const loaded = snapshot.deployments[0];
    expect(loaded?.metadata?.annotations).toEqual({ 'deployment.kubernetes.io/revision': '3' });
    expect(loaded?.metadata).not.toHaveProperty('managedFields');
    expect(loaded?.spec?.template?.metadata?.annotations).toEqual({
      'kubectl.kubernetes.io/restartedAt': '2025-01-08T10:00:00Z',
    });
  });

  it("drops a Node's status.images (every image on the node) and keeps the rest of its status", async () => {
    // Prepare
    const real = node({ name: 'ip-10-59-42-222.ec2.internal' }) as unknown as { status: Record<string, unknown> };
    real.status.nodeInfo = { kubeletVersion: 'v1.31.2-eks-94953ac', osImage: 'Amazon Linux 2023.6.20241121' };
    real.status.images = [
      {
        names: ['public.ecr.aws/karpenter/controller@sha256:1a2b', 'public.ecr.aws/karpenter/controller:1.1.1'],
        sizeBytes: 48213000,
      },
    ];
    const untyped = structuredClone(real) as Record<string, unknown>;
    delete untyped.kind;
    delete untyped.apiVersion;
    const dir = await captureDir({
      'nodes.json': kubectlJson([real]),
      'api.json': {
        apiVersion: 'v1',
        kind: 'NodeList',
        items: [{ ...untyped, metadata: { name: 'ip-10-59-42-223.ec2.internal' } }],
      },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodes).toHaveLength(2);
    for (const loaded of snapshot.nodes) {
      expect(loaded.status).not.toHaveProperty('images');
      expect(loaded.status).toMatchObject({ nodeInfo: { kubeletVersion: 'v1.31.2-eks-94953ac' } });
      expect(loaded.status?.conditions).toEqual(real.status.conditions);
    }
  });

  it('reads minified JSON, all on one very long line (`kubectl get pods -A -o json | jq -c .`)', async () => {
    // Prepare
    const pods = Array.from({ length: 2000 }, (_, i) =>
      realKarpenterPod(`karpenter-5697769d6c-${i.toString(36).padStart(5, '0')}`),
    );
    const dir = await captureDir({ 'pods.json': JSON.stringify({ apiVersion: 'v1', items: pods, kind: 'List', metadata: {} }) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods).toHaveLength(2000);
    expect(snapshot.pods[1999]).toEqual(withoutUnusedFields(pods[1999] as Record<string, unknown>));
  });

  it.each([
    ['pods.json', 'CRLF', (text: string) => text.replaceAll('\n', '\r\n')],
    ['pods.yaml', 'CRLF', (text: string) => text.replaceAll('\n', '\r\n')],
    ['pods.json', 'a UTF-8 byte order mark', (text: string) => `\uFEFF${text}`],
    ['pods.yaml', 'a UTF-8 byte order mark and CRLF', (text: string) => `\uFEFF${text.replaceAll('\n', '\r\n')}`],
  ])('reads %s with %s', async (name, _what, edit) => {
    // Prepare
    const text = name.endsWith('.json') ? kubectlJson([POD_A]) : kubectlYaml([POD_A]);
    const dir = await captureDir({ [name]: edit(text) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods).toEqual([withoutUnusedFields(POD_A)]);
  });

  it('reads multi-document YAML with a leading ---, comments, empty documents and an end marker', async () => {
    // Prepare
    const text = `# kubectl get nodepools,ec2nodeclasses -o yaml, edited by hand
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default   # the only pool
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
---
---
# an empty document above
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
...
`;
    const dir = await captureDir({ 'karpenter.yaml': text });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodePools.map((n) => n.metadata?.name)).toEqual(['default']);
    expect(snapshot.nodeClasses[0]?.spec?.role).toBe('KarpenterNodeRole-demo');
  });

  it('reads several JSON values one after another (outputs appended with >>, `jq -c .items[]`)', async () => {
    // Prepare
    const appended = `${JSON.stringify(POD_A, null, 4)}\n${JSON.stringify(pod({ name: 'inflate-1' }), null, 4)}\n`;
    const jsonLines = `${JSON.stringify(pod({ name: 'inflate-2' }))}\n${JSON.stringify(pod({ name: 'inflate-3' }))}\n`;
    const dir = await captureDir({ 'appended.json': appended, 'jq.json': jsonLines });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual([
      'karpenter-5697769d6c-7lglp',
      'inflate-1',
      'inflate-2',
      'inflate-3',
    ]);
  });

  it('names the line of the file when one of several JSON values is broken', async () => {
    // Prepare
    const text = `${JSON.stringify(pod({ name: 'inflate-1' }), null, 4)}\n{\n    "apiVersion": "v1",\n    "kind": "Pod",\n}\n`;
    const lines = text.split('\n').length;
    const dir = await captureDir({ 'pods.json': text });

    // Act
    const error = await loadSnapshot([dir]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(
      `${join(dir, 'pods.json')}: not JSON or YAML (line ${lines - 1}: Expected double-quoted property name)`,
    );
  });

  it('reads what kubectl printed after its warnings and errors (2>&1), with a gap for what it could not list', async () => {
    // Prepare
    const stderr = [
      'Warning: karpenter.sh/v1beta1 NodeClaim is deprecated, use karpenter.sh/v1 NodeClaim',
      'W0108 10:00:00.123456   12345 warnings.go:70] karpenter.sh/v1beta1 NodeClaim is deprecated',
      'Error from server (Forbidden): nodeclaims.karpenter.sh is forbidden: User "readonly" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
    ].join('\n');
    const dir = await captureDir({
      'everything.json': `${stderr}\n${kubectlJson([POD_A])}`,
      'nodepools.yaml': `Warning: karpenter.sh/v1beta1 NodePool is deprecated\n${kubectlYaml([{ apiVersion: 'karpenter.sh/v1beta1', kind: 'NodePool', metadata: { name: 'default' } }])}`,
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods).toHaveLength(1);
    expect(snapshot.nodePools.map((n) => n.metadata?.name)).toEqual(['default']);
    expect(snapshot.gaps).toEqual([
      { source: 'nodeclaims', error: expect.stringContaining('cannot list resource "nodeclaims"') },
    ]);
    expect(snapshot.captured).toEqual(new Set(['pods', 'nodepools']));
  });

  it("skips Karpenter's alpha kinds (Provisioner, Machine, AWSNodeTemplate) with a notice naming the versions it reads", async () => {
    // Prepare
    const dir = await captureDir({
      'karpenter.yaml': kubectlYaml([
        {
          apiVersion: 'karpenter.sh/v1alpha5',
          kind: 'Provisioner',
          metadata: { name: 'default' },
          spec: { providerRef: { name: 'default' } },
        },
        { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Machine', metadata: { name: 'default-x7k2p' } },
        { apiVersion: 'karpenter.k8s.aws/v1alpha1', kind: 'AWSNodeTemplate', metadata: { name: 'default' } },
        { apiVersion: 'karpenter.sh/v1beta1', kind: 'NodePool', metadata: { name: 'default' } },
      ]),
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodePools).toHaveLength(1);
    expect(notices).toEqual([
      `${join(dir, 'karpenter.yaml')}: skipped 3 objects of Karpenter's alpha API (1 Provisioner (karpenter.sh/v1alpha5), 1 Machine (karpenter.sh/v1alpha5), 1 AWSNodeTemplate (karpenter.k8s.aws/v1alpha1)): karpenter-sentinel reads Karpenter v0.32 and later (karpenter.sh v1beta1 and v1)`,
    ]);
  });

  it('treats a PodList page read with ?limit= (metadata.continue) as a gap, unless its last page is there too', async () => {
    // Prepare
    const page = (name: string, next: string) => ({
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '48213', ...(next ? { continue: next, remainingItemCount: 1 } : {}) },
      items: [pod({ name })],
    });
    const first = await captureDir({ 'pods-1.json': page('inflate-1', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDgyMTN9') });
    const both = await captureDir({
      'pods-1.json': page('inflate-1', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDgyMTN9'),
      'pods-2.json': page('inflate-2', ''),
    });

    // Act
    const partial = await loadSnapshot([first]);
    const whole = await loadSnapshot([both]);

    // Assess
    expect(partial.snapshot.gaps).toEqual([{ source: 'pods', error: expect.stringContaining('ends with metadata.continue') }]);
    expect(whole.snapshot.gaps).toEqual([]);
    expect(whole.snapshot.pods).toHaveLength(2);
  });
});
