/**
 * The inputs of ADMISSION_WEBHOOK_BROKEN: `kubectl get validatingwebhookconfigurations,
 * mutatingwebhookconfigurations -o json` (one List of both kinds) and the EndpointSlices or
 * Endpoints of the Services they post to, read like every other capture file (by content, and by
 * name for empty lists), checked field by field (docs/capture.md "Admission webhooks").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { captureDir, EMPTY_LIST_JSON, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const CA_BUNDLE = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUNhekNDQWRTZ0F3SUJBZ0lRZmFrZQ==';

/** The chart karpenter-0.37.2's validating webhook, as the controller patched it (path, caBundle). */
const VALIDATING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: {
    name: 'validation.webhook.karpenter.sh',
    uid: '0b6f4f9e-3c1a-4b8e-9d57-6a2f1e0c7d11',
    creationTimestamp: '2024-06-12T09:14:03Z',
    labels: { 'helm.sh/chart': 'karpenter-0.37.2', 'app.kubernetes.io/version': '0.37.2' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'kube-system', uid: 'a1', controller: true }],
  },
  webhooks: [
    {
      name: 'validation.webhook.karpenter.sh',
      admissionReviewVersions: ['v1'],
      clientConfig: {
        service: { name: 'karpenter', namespace: 'kube-system', port: 8443, path: '/validate/karpenter.sh' },
        caBundle: CA_BUNDLE,
      },
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      sideEffects: 'None',
      rules: [
        {
          apiGroups: ['karpenter.sh'],
          apiVersions: ['v1beta1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['nodeclaims', 'nodeclaims/status'],
          scope: '*',
        },
      ],
    },
  ],
};

const MUTATING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'defaulting.webhook.karpenter.k8s.aws', labels: { 'helm.sh/chart': 'karpenter-0.37.2' } },
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

/** `kubectl get endpointslices -n kube-system -l kubernetes.io/service-name=karpenter -o json`: one ready pod. */
const SLICE = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'karpenter-x7k2p', namespace: 'kube-system', labels: { 'kubernetes.io/service-name': 'karpenter' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['192.20.25.225'], conditions: { ready: true, serving: true, terminating: false } }],
  ports: [{ name: 'https-webhook', port: 8443, protocol: 'TCP' }],
};

/** `kubectl get ep` after the webhook was disabled (aws/karpenter-provider-aws#5758): metrics only. */
const ENDPOINTS = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'karpenter', namespace: 'karpenter' },
  subsets: [
    {
      addresses: [{ ip: '192.20.25.225' }, { ip: '192.20.32.130' }],
      ports: [{ name: 'http-metrics', port: 8000, protocol: 'TCP' }],
    },
  ],
};

describe('loadSnapshot: admission webhook configurations and Service endpoints', () => {
  it('reads the mixed List of both configuration kinds, and slices and Endpoints, keeping kind and caBundle', async () => {
    const dir = await captureDir({
      'webhookconfigurations.json': kubeList([VALIDATING, MUTATING]),
      'endpointslices.yaml': stringify(kubeList([SLICE])),
      'endpoints.json': kubeList([ENDPOINTS]),
    });

    const { snapshot, notices } = await loadSnapshot([dir]);

    expect([...snapshot.captured].sort()).toEqual(['endpoints', 'webhookconfigurations']);
    expect(snapshot.webhookConfigurations?.map((c) => [c.kind, c.metadata?.name])).toEqual([
      ['ValidatingWebhookConfiguration', 'validation.webhook.karpenter.sh'],
      ['MutatingWebhookConfiguration', 'defaulting.webhook.karpenter.k8s.aws'],
    ]);
    expect(snapshot.webhookConfigurations?.[0]?.webhooks?.[0]?.clientConfig?.caBundle).toBe(CA_BUNDLE);
    expect(snapshot.webhookConfigurations?.[0]?.metadata?.labels?.['helm.sh/chart']).toBe('karpenter-0.37.2');
    expect(snapshot.endpoints?.map((e) => [e.kind, e.metadata?.name]).sort()).toEqual([
      ['EndpointSlice', 'karpenter-x7k2p'],
      ['Endpoints', 'karpenter'],
    ]);
    expect(notices).toEqual([]);
  });

  it('recognises them by content whatever the file is called', async () => {
    const dir = await captureDir({ 'out1.json': kubeList([MUTATING, SLICE]) });

    const { snapshot } = await loadSnapshot([dir]);

    expect(snapshot.webhookConfigurations?.map((c) => c.metadata?.name)).toEqual(['defaulting.webhook.karpenter.k8s.aws']);
    expect(snapshot.endpoints?.map((e) => e.metadata?.name)).toEqual(['karpenter-x7k2p']);
  });

  it.each([
    ['webhookconfigurations.json', 'webhookconfigurations'],
    ['validatingwebhookconfigurations.json', 'webhookconfigurations'],
    ['mutatingwebhookconfigurations.json', 'webhookconfigurations'],
    ['endpointslices.json', 'endpoints'],
    ['endpoints.json', 'endpoints'],
  ])('%s holding no object means "captured, none exist"', async (name, source) => {
    const dir = await captureDir({ [name]: EMPTY_LIST_JSON });

    const { snapshot, notices } = await loadSnapshot([dir]);

    expect([...snapshot.captured]).toEqual([source]);
    expect(notices).toEqual([]);
  });

  it('sets aside a configuration whose port is no number, with a note naming the field', async () => {
    const bad = structuredClone(VALIDATING);
    (bad.webhooks[0]!.clientConfig.service as Record<string, unknown>).port = 'https';
    const dir = await captureDir({ 'webhookconfigurations.json': kubeList([bad, MUTATING]) });

    const { snapshot, notices } = await loadSnapshot([dir]);

    expect(snapshot.webhookConfigurations?.map((c) => c.metadata?.name)).toEqual(['defaulting.webhook.karpenter.k8s.aws']);
    expect(snapshot.gaps.map((g) => g.source)).toEqual(['webhookconfigurations']);
    expect(notices.join('\n')).toContain(
      'ValidatingWebhookConfiguration validation.webhook.karpenter.sh: webhooks[0].clientConfig.service.port',
    );
  });

  it('a denied list is a gap on its source', async () => {
    const dir = await captureDir({
      'webhookconfigurations.txt':
        'Error from server (Forbidden): validatingwebhookconfigurations.admissionregistration.k8s.io is forbidden: User "audit" cannot list resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope\n',
    });

    const { snapshot } = await loadSnapshot([dir]);

    expect(snapshot.gaps.map((g) => g.source)).toEqual(['webhookconfigurations']);
    expect(snapshot.captured.size).toBe(0);
  });

  it('a capture without them (as before) captures neither and holds none', async () => {
    const dir = await captureDir({ 'pods.json': EMPTY_LIST_JSON });

    const { snapshot } = await loadSnapshot([dir]);

    expect([...snapshot.captured]).toEqual(['pods']);
    expect(snapshot.webhookConfigurations).toEqual([]);
    expect(snapshot.endpoints).toEqual([]);
    expect(snapshot.gaps).toEqual([]);
  });

  it('reads a saved refused `kubectl apply` as evidence of the webhook (not as an error instead of an output), each line once with its file and line', async () => {
    // aws/karpenter-provider-aws#5133 (chart v0.32.1), verbatim, and the Flux form of #2983.
    const kubectl =
      'Error from server (InternalError): error when creating "../Buckeye(us-east-2)provisioner/default-nodepool.yaml": Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: Post "https://karpenter.karpenter.svc:8443/?timeout=10s": no endpoints available for service "karpenter"';
    const flux =
      'AWSNodeTemplate/karpenter/default dry-run failed, reason: InternalError, error: Internal error occurred: failed calling webhook "defaulting.webhook.karpenter.k8s.aws": failed to call webhook: Post "https://karpenter.karpenter.svc:443/?timeout=10s": x509: certificate signed by unknown authority';
    const dir = await captureDir({ 'kubectl-apply-error.txt': `${kubectl}\n${kubectl}\n`, 'flux.txt': `${flux}\n` });

    const { snapshot } = await loadSnapshot([dir]);

    expect(snapshot.refusedWrites?.map((r) => [r.text, r.origin.replace(/^.*\//, '')]).sort()).toEqual([
      [flux, 'flux.txt:1'],
      [kubectl, 'kubectl-apply-error.txt:1'],
    ]);
    expect(snapshot.gaps).toEqual([]);
  });

  it('says in a note that a saved error was read as refused writes, and a file named after a source that holds one leaves that source a gap', async () => {
    const refused =
      'Error from server (InternalError): error when creating "nodepool.yaml": Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: Post "https://karpenter.karpenter.svc:8443/?timeout=10s": no endpoints available for service "karpenter"';
    const dir = await captureDir({ 'kubectl-apply-error.txt': `${refused}\n`, 'ec2nodeclasses.yaml': `${refused}\n` });

    const { snapshot, notices } = await loadSnapshot([dir]);

    expect(snapshot.refusedWrites?.map((r) => r.origin.replace(/^.*\//, '')).sort()).toEqual([
      'ec2nodeclasses.yaml:1',
      'kubectl-apply-error.txt:1',
    ]);
    expect(snapshot.gaps.map((g) => [g.source, g.error])).toEqual([['ec2nodeclasses', refused]]);
    expect(snapshot.captured.has('ec2nodeclasses')).toBe(false);
    const notes = notices.map((n) => n.replace(/^.*\//, ''));
    expect(notes).toContain(
      'kubectl-apply-error.txt: read as a saved client error: a line naming an admission webhook the API server could not call',
    );
    expect(notes).toContain(
      'ec2nodeclasses.yaml: read as a saved client error: a line naming an admission webhook the API server could not call (ec2nodeclasses is a gap)',
    );
  });

  it('a CRD conversion webhook failure stays a gap on its kind, no refused write; a long line is kept bounded, on one line', async () => {
    const conversion =
      'Error from server: error when creating "nodepool.yaml": conversion webhook for karpenter.sh/v1beta1, Kind=NodePool failed: Post "https://karpenter.kube-system.svc:8443/?timeout=30s": no service port 8443 found for service "karpenter"';
    const joined = Array.from(
      { length: 200 },
      () =>
        'creating node claim, Internal error occurred: failed calling webhook \\"validation.webhook.karpenter.sh\\": failed to call webhook: Post \\"https://karpenter-controller.kube-system.svc:8443/validate/karpenter.sh?timeout=10s\\": no service port 8443 found for service \\"karpenter-controller\\"',
    ).join('; ');
    const dir = await captureDir({
      'conversion.txt': `${conversion}\n`,
      'refused.txt': `Error from server (InternalError): Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": ${joined}\n`,
    });

    const { snapshot } = await loadSnapshot([dir]);

    expect(snapshot.gaps.map((g) => g.source)).toEqual(['nodepools']);
    expect(snapshot.refusedWrites).toHaveLength(1);
    expect(snapshot.refusedWrites?.[0]?.text.length).toBeLessThanOrEqual(4000);
    expect(snapshot.refusedWrites?.[0]?.text).not.toContain('\n');
  });
});
