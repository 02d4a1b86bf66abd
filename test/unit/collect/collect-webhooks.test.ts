/**
 * The live reads of ADMISSION_WEBHOOK_BROKEN: one list each of Validating and Mutating webhook
 * configurations, then the EndpointSlices (else the Endpoints) of the Services Karpenter's webhooks
 * post to, and of no other Service. Each failure is a gap.
 */
import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../../src/collect/collect.ts';
import { SOURCE_NAMES, type ClusterSnapshot } from '../../../src/domain/snapshot.ts';
import type { ClusterConnection } from '../../../src/ports/cluster.ts';
import type { KubeResourceName } from '../../../src/ports/kubernetes.ts';
import { simulateSnapshot, type Simulation } from '../../../src/simulator/simulation.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { admissionWebhookConfiguration, endpointSlice, karpenterDeployment, service } from '../../factories/kube.ts';
import { closedAfterEachTest, simulatedDemo } from '../../support/simulation.ts';

const simulations = closedAfterEachTest();

/** Every request the collector makes of these resources: `list endpointslices karpenter/...`, `get endpoints ...`. */
function recording(simulation: Simulation): { connection: ClusterConnection; asked: string[] } {
  const asked: string[] = [];
  const watched: KubeResourceName[] = [
    'validatingwebhookconfigurations',
    'mutatingwebhookconfigurations',
    'endpointslices',
    'endpoints',
  ];
  const connection: ClusterConnection = {
    aws: simulation.connection.aws,
    connectKube: async (info) => {
      const kube = await simulation.connection.connectKube(info);
      return {
        ...kube,
        list: (query) => {
          if (watched.includes(query.resource)) {
            asked.push(`list ${query.resource} ${query.namespace ?? ''} ${query.labelSelector ?? ''}`.trim());
          }
          return kube.list(query);
        },
        get: (resource, name, namespace) => {
          if (watched.includes(resource)) asked.push(`get ${resource} ${namespace ?? ''}/${name}`);
          return kube.get(resource, name, namespace);
        },
        podLog: (query) => kube.podLog(query),
        patchDeploymentAnnotations: (patch) => kube.patchDeploymentAnnotations(patch),
        deleteNodePool: (name) => kube.deleteNodePool(name),
      };
    },
  };
  return { connection, asked };
}

const KARPENTER_VWC = admissionWebhookConfiguration({ name: 'validation.webhook.karpenter.sh' });
const KARPENTER_MWC = admissionWebhookConfiguration({
  name: 'defaulting.webhook.karpenter.k8s.aws',
  kind: 'MutatingWebhookConfiguration',
  group: 'karpenter.k8s.aws',
  resources: ['ec2nodeclasses'],
});
/** Another product's webhook: its Service's endpoints are none of the scan's business. */
const OTHER_VWC = admissionWebhookConfiguration({
  name: 'vpc-resource-validating-webhook',
  service: { name: 'eks-vpc-resource-controller', namespace: 'kube-system', port: 443 },
  group: '',
  resources: ['pods'],
});

function parts() {
  return {
    deployments: [karpenterDeployment()],
    services: [
      service({ name: 'karpenter', namespace: 'karpenter', ports: [8000, 8443] }),
      service({ name: 'eks-vpc-resource-controller', namespace: 'kube-system', ports: [443] }),
    ],
    webhookConfigurations: [KARPENTER_VWC, KARPENTER_MWC, OTHER_VWC],
    endpoints: [
      endpointSlice({ service: 'karpenter', namespace: 'karpenter', ports: [{ name: 'p8443', port: 8443 }] }),
      endpointSlice({ service: 'eks-vpc-resource-controller', namespace: 'kube-system', ports: [{ name: 'p443', port: 443 }] }),
    ],
  };
}

describe('collectSnapshot: admission webhooks', () => {
  it('lists both configuration kinds once, then the slices of the one Service Karpenter’s webhooks name', async () => {
    const { connection, asked } = recording(await simulatedDemo(simulations, parts()));

    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo' });

    expect(snapshot.gaps).toEqual([]);
    expect(snapshot.webhookConfigurations?.map((c) => [c.kind, c.metadata?.name])).toEqual([
      ['ValidatingWebhookConfiguration', 'validation.webhook.karpenter.sh'],
      ['ValidatingWebhookConfiguration', 'vpc-resource-validating-webhook'],
      ['MutatingWebhookConfiguration', 'defaulting.webhook.karpenter.k8s.aws'],
    ]);
    expect(snapshot.endpoints?.map((e) => [e.kind, e.metadata?.namespace, e.metadata?.name])).toEqual([
      ['EndpointSlice', 'karpenter', 'karpenter-x7k2p'],
    ]);
    expect(asked.sort()).toEqual([
      'list endpointslices karpenter kubernetes.io/service-name=karpenter',
      'list mutatingwebhookconfigurations',
      'list validatingwebhookconfigurations',
    ]);
  });

  it('a Service with no slice has its Endpoints read instead (a capture of `kubectl get ep` served again)', async () => {
    const legacy = {
      apiVersion: 'v1',
      kind: 'Endpoints' as const,
      metadata: { name: 'karpenter', namespace: 'karpenter' },
      subsets: [{ addresses: [{ ip: '192.20.25.225' }], ports: [{ name: 'http-metrics', port: 8000, protocol: 'TCP' }] }],
    };
    const { connection, asked } = recording(await simulatedDemo(simulations, { ...parts(), endpoints: [legacy] }));

    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo' });

    expect(snapshot.endpoints).toEqual([expect.objectContaining({ kind: 'Endpoints', subsets: legacy.subsets })]);
    expect(asked).toContain('get endpoints karpenter/karpenter');
  });

  it('Karpenter v1 (no webhook configurations of its own): no endpoints asked, the source captured and empty', async () => {
    const { connection, asked } = recording(await simulatedDemo(simulations, { ...parts(), webhookConfigurations: [OTHER_VWC] }));

    const { snapshot } = await collectSnapshot(connection, { clusterName: 'demo' });

    expect(snapshot.captured.has('endpoints')).toBe(true);
    expect(snapshot.endpoints).toEqual([]);
    expect(asked.filter((a) => a.includes('endpoint'))).toEqual([]);
  });

  it('a denied configurations list is a gap, and the endpoints (which Services is unknown) a gap too; the rest is read', async () => {
    const seed = snapshotOf(parts(), 'demo');
    seed.cluster = { name: 'demo', status: 'ACTIVE' };
    for (const source of SOURCE_NAMES) seed.captured.add(source);
    const forbidden =
      '403 Forbidden: validatingwebhookconfigurations.admissionregistration.k8s.io is forbidden: User "sentinel" cannot list resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope';
    seed.gaps.push({ source: 'webhookconfigurations', error: forbidden });
    const simulation = await simulateSnapshot(seed);
    simulations.push(simulation);

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(gapsOf(snapshot)).toEqual([
      ['webhookconfigurations', forbidden],
      ['endpoints', 'not read: the webhook configurations naming the Services could not be listed'],
    ]);
    expect(snapshot.services).toHaveLength(2);
  });

  it('denied EndpointSlices: a gap on endpoints only', async () => {
    const seed = snapshotOf(parts(), 'demo');
    seed.cluster = { name: 'demo', status: 'ACTIVE' };
    for (const source of SOURCE_NAMES) seed.captured.add(source);
    const forbidden =
      '403 Forbidden: endpointslices.discovery.k8s.io is forbidden: User "sentinel" cannot list resource "endpointslices" in API group "discovery.k8s.io" in the namespace "karpenter"';
    seed.gaps.push({ source: 'endpoints', error: forbidden });
    const simulation = await simulateSnapshot(seed);
    simulations.push(simulation);

    const { snapshot } = await collectSnapshot(simulation.connection, { clusterName: 'demo' });

    expect(gapsOf(snapshot)).toEqual([['endpoints', forbidden]]);
    expect(snapshot.webhookConfigurations).toHaveLength(3);
  });
});

function gapsOf(snapshot: ClusterSnapshot): [string, string][] {
  return snapshot.gaps.map((g) => [g.source, g.error]);
}
