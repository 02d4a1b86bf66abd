import { afterEach, describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../../src/domain/kube.ts';
import { brokenConversionFaults, conversionFailureMessage } from '../../src/simulator/conversion-webhook.ts';
import { startKubeApiServer, type SimulatedKubeApi } from '../../src/simulator/kube-api-server.ts';
import { KubeStore } from '../../src/simulator/kube-store.ts';
import type { JsonRecord } from '../../src/domain/shape.ts';
import { crd, service } from '../factories/kube.ts';
import { call } from './support/https-client.ts';

/** A Karpenter CRD converting through kube-system/karpenter:8443, its objects still stored as v1beta1. */
function nodeClaimCrd(storedVersions = ['v1beta1', 'v1']): CustomResourceDefinition {
  const base = crd({
    plural: 'nodeclaims',
    group: 'karpenter.sh',
    kind: 'NodeClaim',
    webhook: { name: 'karpenter', namespace: 'kube-system', port: 8443 },
  });
  const webhook = base.spec?.conversion?.webhook;
  return {
    ...base,
    spec: {
      ...base.spec,
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v1beta1', served: true, storage: false },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          ...webhook,
          clientConfig: { service: { ...webhook?.clientConfig?.service, path: '/conversion/karpenter.sh' } },
        },
      },
    },
    status: { storedVersions },
  } as CustomResourceDefinition;
}

function storeWith(...objects: [resource: 'customresourcedefinitions' | 'services', object: object][]): KubeStore {
  const store = new KubeStore();
  for (const [resource, object] of objects) store.put(resource, object as JsonRecord);
  return store;
}

let api: SimulatedKubeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('a CRD whose conversion webhook cannot be reached', () => {
  it('is said as kube-apiserver says it: the stored version, the webhook URL, why the Service cannot be reached', () => {
    const missing = storeWith();
    const noPort = storeWith(['services', service({ name: 'karpenter', namespace: 'kube-system', ports: [8000] })]);
    const fine = storeWith(['services', service({ name: 'karpenter', namespace: 'kube-system', ports: [8443] })]);

    expect(conversionFailureMessage(nodeClaimCrd(), missing)).toBe(
      'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.kube-system.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found',
    );
    expect(conversionFailureMessage(nodeClaimCrd(), noPort)).toMatch(/: no service port 8443 found for service "karpenter"$/);
    expect(conversionFailureMessage(nodeClaimCrd(), fine)).toBeUndefined();
  });

  it('answers every read of the resource, any version, with 500 and no reason; the CRD itself and other resources are served', async () => {
    const store = storeWith(['customresourcedefinitions', nodeClaimCrd()]);
    api = await startKubeApiServer(store);
    for (const fault of brokenConversionFaults(store)) api.faults.add(fault);

    const list = await call(api, '/apis/karpenter.sh/v1/nodeclaims?limit=500');
    const old = await call(api, '/apis/karpenter.sh/v1beta1/nodeclaims/default-abc');
    const definition = await call(api, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodeclaims.karpenter.sh');
    const pools = await call(api, '/apis/karpenter.sh/v1/nodepools');

    expect(list.status).toBe(500);
    expect(list.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: expect.stringMatching(/^conversion webhook for karpenter\.sh\/v1beta1, Kind=NodeClaim failed: Post /),
      code: 500,
    });
    expect(old.status).toBe(500);
    expect(definition.status).toBe(200);
    expect(pools.status).toBe(200);
  });

  it('needs no conversion once only the storage version is stored', () => {
    const store = storeWith(['customresourcedefinitions', nodeClaimCrd(['v1'])]);

    expect(brokenConversionFaults(store)).toEqual([]);
  });
});
