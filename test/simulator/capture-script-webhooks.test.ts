/**
 * The capture recipe's admission webhook inputs, run with the real kubectl v1.32 against the
 * simulator: the one List of Validating and Mutating configurations, and the EndpointSlices of
 * the Service Karpenter's webhooks name (not those of another product's webhook Service), read
 * back by `scan --from` into their sources.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonRecord } from '../../src/domain/shape.ts';
import { loadSnapshot } from '../../src/snapshot/load.ts';
import { startSimulation, type Simulation } from '../../src/simulator/simulation.ts';
import { run } from '../unit/cli/cli-harness.ts';
import { admissionWebhookConfiguration, endpointSlice, service } from '../factories/kube.ts';
import { captureWorkspace, type CaptureWorkspace } from './support/capture-workspace.ts';

const EXAMPLE = new URL('../../examples/healthy/', import.meta.url).pathname;
const CLUSTER = 'aws-2026-eks';

let sim: Simulation;
let work: CaptureWorkspace;

beforeAll(async () => {
  sim = await startSimulation([EXAMPLE]);
  const store = sim.kubeApi.store;
  const put = (resource: Parameters<typeof store.put>[0], object: object) => store.put(resource, object as JsonRecord);
  put('validatingwebhookconfigurations', admissionWebhookConfiguration({ name: 'validation.webhook.karpenter.sh' }));
  put(
    'mutatingwebhookconfigurations',
    admissionWebhookConfiguration({
      name: 'defaulting.webhook.karpenter.k8s.aws',
      kind: 'MutatingWebhookConfiguration',
      group: 'karpenter.k8s.aws',
      resources: ['ec2nodeclasses'],
    }),
  );
  put(
    'validatingwebhookconfigurations',
    admissionWebhookConfiguration({
      name: 'vpc-resource-validating-webhook',
      service: { name: 'eks-vpc-resource-controller', namespace: 'kube-system', port: 443 },
      group: '',
      resources: ['pods'],
    }),
  );
  // Karpenter's chart under a renamed release: a ConfigMap webhook (no Karpenter group, no Karpenter name), labelled by the chart.
  const labelled = admissionWebhookConfiguration({
    name: 'config-validation.example.com',
    service: { name: 'kp-karpenter', namespace: 'karpenter', port: 8443 },
    group: '',
    resources: ['configmaps'],
  });
  put('validatingwebhookconfigurations', {
    ...labelled,
    metadata: { ...labelled.metadata, labels: { 'helm.sh/chart': 'karpenter-0.37.2' } },
  });
  put(
    'endpointslices',
    endpointSlice({ service: 'kp-karpenter', namespace: 'karpenter', ports: [{ name: 'p8443', port: 8443 }] }),
  );
  put('services', service({ name: 'eks-vpc-resource-controller', namespace: 'kube-system', ports: [443] }));
  put('endpointslices', endpointSlice({ service: 'karpenter', namespace: 'karpenter', ports: [{ name: 'p8443', port: 8443 }] }));
  put(
    'endpointslices',
    endpointSlice({ service: 'eks-vpc-resource-controller', namespace: 'kube-system', ports: [{ name: 'p443', port: 443 }] }),
  );
  work = await captureWorkspace(sim, EXAMPLE, 'vpc-0a7c3e91d5b2f4816');
});

afterAll(async () => {
  await sim.close();
  await work.remove();
});

describe('the capture recipe with the real kubectl: admission webhooks', () => {
  it('saves webhookconfigurations.json and the Karpenter webhook Service’s endpointslices.json; the loader reads both', async () => {
    const printed = await run(['capture-script', '--cluster', CLUSTER, '--region', 'us-east-1']);
    await writeFile(join(work.dir, 'capture.sh'), printed.stdout);

    const captured = await work.sh('capture.sh');
    const { path: dir } = await work.captureFolder(CLUSTER);
    const { snapshot } = await loadSnapshot([dir]);

    expect(captured.stdout).toContain('/webhookconfigurations.json\n');
    expect(captured.stdout).toContain('/endpointslices.json\n');
    expect(await readFile(join(dir, 'endpointslices.json'), 'utf8')).toContain('"kind": "EndpointSlice"');
    expect(snapshot.webhookConfigurations?.map((c) => c.metadata?.name).sort()).toEqual([
      'config-validation.example.com',
      'defaulting.webhook.karpenter.k8s.aws',
      'validation.webhook.karpenter.sh',
      'vpc-resource-validating-webhook',
    ]);
    // The chart-labelled configuration's Service too: the finding judges it (test/unit/domain/admission-webhooks.test.ts).
    expect(snapshot.endpoints?.map((e) => `${e.metadata?.namespace}/${e.metadata?.name}`).sort()).toEqual([
      'karpenter/karpenter-x7k2p',
      'karpenter/kp-karpenter-x7k2p',
    ]);
    expect(snapshot.gaps).toEqual([]);
  }, 180_000);
});
