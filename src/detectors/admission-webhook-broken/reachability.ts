/**
 * Can the API server reach a webhook? The same questions in the same order as its service
 * resolver (k8s.io/apiserver pkg/util/proxy): does the Service exist, does it expose the port
 * (`clientConfig.service.port`, 443 when unset), does an endpoint serve the Service port of that
 * name (up to Kubernetes 1.33 an Endpoints subset with an address, from 1.34 an EndpointSlice
 * endpoint not marked unready), then TLS: without a `caBundle` the API server trusts only its
 * system roots, which never signed the certificate a webhook makes itself.
 */
import { hasReadyEndpoint, webhookServiceRef, type WebhookServiceRef } from '../../domain/admission-webhooks.ts';
import type { Service, ServiceEndpoints } from '../../domain/kube.ts';
import type { AdmissionWebhook } from './karpenter-webhooks.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import { coversNamespace, describeService } from '../karpenter/webhook-services.ts';

/** The Service a webhook posts to (port 443 and path `/` when unset). */
export type Target = WebhookServiceRef;

export type Reach =
  /** Given by `url`: the snapshot cannot tell whether it answers. */
  | { state: 'url' }
  | { state: 'not-seen'; target: Target; why: string }
  | { state: 'service-missing'; target: Target }
  | { state: 'port-missing'; target: Target; service: Service }
  /** No ready address; `addressesWithoutPort`: ready pods serve the Service but none on this port (they serve no webhook). */
  | { state: 'no-endpoints'; target: Target; portName: string; addressesWithoutPort: boolean; seen: string }
  | { state: 'no-ca-bundle'; target: Target; endpointsSeen: boolean }
  | { state: 'ok'; target: Target; endpointsSeen: boolean };

export function reachOf(webhook: AdmissionWebhook, snapshot: ClusterSnapshot): Reach {
  const target = webhookServiceRef(webhook);
  if (!target) return { state: 'url' };
  const { namespace, name, port } = target;
  if (!snapshot.captured.has('services')) return { state: 'not-seen', target, why: 'Services were not captured' };
  const service = snapshot.services.find((s) => s.metadata?.namespace === namespace && s.metadata.name === name);
  if (!service) {
    return coversNamespace(snapshot.services, namespace)
      ? { state: 'service-missing', target }
      : { state: 'not-seen', target, why: `no Service of namespace ${namespace} was captured` };
  }
  const servicePort = service.spec?.ports?.find((p) => p.port === port);
  if (!servicePort) return { state: 'port-missing', target, service };
  const portName = servicePort.name ?? '';
  const mine = (snapshot.endpoints ?? []).filter((e) => endpointsOf(e, namespace, name));
  if (mine.length > 0) {
    // The API server's own test (EndpointSlices when there are any, else Endpoints).
    if (!hasReadyEndpoint(target, portName, mine)) {
      return {
        state: 'no-endpoints',
        target,
        portName,
        addressesWithoutPort: mine.some(hasReadyAddress),
        seen: mine.map(describeEndpoints).join('; '),
      };
    }
  }
  const ca = webhook.clientConfig?.caBundle;
  if (ca === undefined || ca === '') return { state: 'no-ca-bundle', target, endpointsSeen: mine.length > 0 };
  return { state: 'ok', target, endpointsSeen: mine.length > 0 };
}

/** The Endpoints named like the Service, or an EndpointSlice labelled with it. */
function endpointsOf(e: ServiceEndpoints, namespace: string, name: string): boolean {
  if (e.metadata?.namespace !== namespace) return false;
  return e.kind === 'EndpointSlice' ? e.metadata.labels?.['kubernetes.io/service-name'] === name : e.metadata.name === name;
}

/** A ready address on any port: pods that serve the Service, though maybe not the webhook's port. */
function hasReadyAddress(e: ServiceEndpoints): boolean {
  if (e.kind === 'EndpointSlice')
    return (e.endpoints ?? []).some((ep) => ep.conditions?.ready !== false && (ep.addresses ?? []).length > 0);
  return 'subsets' in e && (e.subsets ?? []).some((s) => (s.addresses ?? []).length > 0);
}

function describeEndpoints(e: ServiceEndpoints): string {
  if (e.kind === 'EndpointSlice') {
    const ready = (e.endpoints ?? []).filter((ep) => ep.conditions?.ready !== false).length;
    const ports = (e.ports ?? []).map((p) => `${p.port ?? '?'}${p.name ? ` (${p.name})` : ''}`).join(', ') || 'no ports';
    return `EndpointSlice ${e.metadata?.name ?? '?'}: ${ready} ready of ${(e.endpoints ?? []).length}, ports ${ports}`;
  }
  const subsets = 'subsets' in e ? (e.subsets ?? []) : [];
  const ready = subsets.reduce((n, s) => n + (s.addresses ?? []).length, 0);
  const ports = subsets.flatMap((s) => (s.ports ?? []).map((p) => `${p.port ?? '?'}${p.name ? ` (${p.name})` : ''}`));
  return `Endpoints ${e.metadata?.name ?? '?'}: ${ready} ready address${ready === 1 ? '' : 'es'}, ports ${ports.join(', ') || 'none'}`;
}

/** The Service as evidence, or what was seen of it. */
export function serviceEvidence(reach: Reach, snapshot: ClusterSnapshot): string {
  switch (reach.state) {
    case 'url':
      return 'clientConfig.url: not checked (the capture cannot tell whether a URL answers)';
    case 'not-seen':
      return `Service ${reach.target.namespace}/${reach.target.name}: not seen (${reach.why})`;
    case 'service-missing':
      return `Service ${reach.target.namespace}/${reach.target.name}: not found among the captured Services`;
    default: {
      const t = reach.target;
      const s = snapshot.services.find((x) => x.metadata?.namespace === t.namespace && x.metadata.name === t.name);
      const service = s ? `Service ${describeService(s)}` : `Service ${t.namespace}/${t.name}`;
      // The endpoints are read only when captured: without them a Service's readiness is not judged.
      const unseen = 'endpointsSeen' in reach && !reach.endpointsSeen;
      return unseen ? `${service}; its EndpointSlices: not in the capture` : service;
    }
  }
}
