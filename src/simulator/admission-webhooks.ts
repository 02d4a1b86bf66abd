/**
 * Admission webhooks as kube-apiserver calls them on a write of a Karpenter kind: a matching
 * webhook with failurePolicy Fail that cannot answer refuses the write with HTTP 500, reason
 * InternalError, `Internal error occurred: failed calling webhook "<name>": ...` (the mutating
 * webhooks run first, then the validating ones, each in name order). What the simulator judges
 * from the cluster's objects, in the API server's order (docs/simulator.md "Admission webhooks"):
 * the Service, its port, a ready endpoint on the port's name, a caBundle, and a Karpenter v1
 * controller behind the Service (it serves no admission webhook paths).
 */
import {
  failedCallingWebhook,
  failsClosed,
  unreachableCause,
  webhookMatches,
  webhookServiceRef,
  webhookUrl,
  type AdmissionRequest,
} from '../domain/admission-webhooks.ts';
import type { CustomResourceDefinition, Deployment, Service, ServiceEndpoints, WebhookConfiguration } from '../domain/kube.ts';
import { KUBE_SHAPES } from '../domain/object-shapes.ts';
import { KARPENTER_API_GROUPS } from '../domain/tags.ts';
import { SIM_RESOURCES, type KubeStore, type SimResourceName } from './kube-store.ts';
import { ApiStatusError } from './status.ts';

type AdmissionWebhook = NonNullable<WebhookConfiguration['webhooks']>[number];

/** k8s.io/apiserver's words when the webhook answered with no Status (the v1 controller's 400 for a path it does not serve). */
const REJECTED_UNKNOWN = 'the server rejected our request for an unknown reason';
/** Go's TLS error through the apiserver's client when no caBundle lets it trust the webhook's certificate. */
const UNKNOWN_AUTHORITY = 'tls: failed to verify certificate: x509: certificate signed by unknown authority';

/** Throws the API server's refusal when a webhook selecting this write cannot answer; returns otherwise. */
export function admitWrite(store: KubeStore, resource: SimResourceName, operation: AdmissionRequest['operation']): void {
  const { group, version } = SIM_RESOURCES[resource];
  if (!KARPENTER_API_GROUPS.includes(group)) return;
  const request: AdmissionRequest = { group, version, resource, operation };
  const crds = objects<CustomResourceDefinition>(store, 'customresourcedefinitions');
  for (const configurations of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'] as const) {
    for (const configuration of objects<WebhookConfiguration>(store, configurations)) {
      // A configuration the product could not read (written through the API with wrong types) is not judged.
      if (KUBE_SHAPES.webhookconfigurations?.(configuration)) continue;
      for (const webhook of configuration.webhooks ?? []) {
        if (!failsClosed(webhook) || hasObjectSelector(webhook) || !webhookMatches(webhook, request, crds)) continue;
        const failure = callFailure(store, webhook);
        if (failure) throw refusal(failure);
      }
    }
  }
}

function objects<T>(store: KubeStore, resource: SimResourceName): T[] {
  return store.list(resource).map((stored) => stored.object as T);
}

/** An objectSelector depends on the written object's labels: not judged (Karpenter's own webhooks with rules have none). */
function hasObjectSelector(webhook: AdmissionWebhook): boolean {
  const selector = webhook.objectSelector;
  return (
    selector !== undefined && (Object.keys(selector.matchLabels ?? {}).length > 0 || (selector.matchExpressions ?? []).length > 0)
  );
}

/** Why the API server cannot call this webhook, in its words; undefined when it can (or a `url` webhook, not judged). */
function callFailure(store: KubeStore, webhook: AdmissionWebhook): string | undefined {
  const ref = webhookServiceRef(webhook);
  const name = webhook.name ?? '';
  if (!ref) return undefined;
  const services = objects<Service>(store, 'services');
  const endpoints = [...objects<ServiceEndpoints>(store, 'endpointslices'), ...objects<ServiceEndpoints>(store, 'endpoints')];
  const url = webhookUrl(ref, timeoutSecondsOf(webhook));
  const unreachable = unreachableCause(ref, services, endpoints);
  if (unreachable) return failedCallingWebhook(name, url, unreachable);
  if (!webhook.clientConfig?.caBundle) return failedCallingWebhook(name, url, UNKNOWN_AUTHORITY);
  const service = services.find((s) => s.metadata?.namespace === ref.namespace && s.metadata.name === ref.name);
  if (service && servedByKarpenterV1(store, service)) {
    return `failed calling webhook "${name}": failed to call webhook: ${REJECTED_UNKNOWN}`;
  }
  return undefined;
}

function timeoutSecondsOf(webhook: AdmissionWebhook): number {
  const value = (webhook as { timeoutSeconds?: unknown }).timeoutSeconds;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 10;
}

/**
 * Whether the Service selects the pods of a Karpenter controller at v1 or later (image tag
 * `controller:v1.0.1`), which serves no admission webhook: its webhook port answers only CRD
 * conversion (v1.0.x), so the API server gets a 400 without a Status.
 */
function servedByKarpenterV1(store: KubeStore, service: Service): boolean {
  const selector = service.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return false;
  return objects<Deployment>(store, 'deployments').some((deployment) => {
    if (deployment.metadata?.namespace !== service.metadata?.namespace) return false;
    const labels = deployment.spec?.template?.metadata?.labels ?? {};
    if (!Object.entries(selector).every(([key, value]) => labels[key] === value)) return false;
    const containers = deployment.spec?.template?.spec?.containers ?? [];
    const controller = containers.find((c) => c.name === 'controller') ?? containers[0];
    const major = /\/controller:v?(\d+)\.\d+\.\d+(?:[@-]|$)/.exec(controller?.image ?? '')?.[1];
    return major !== undefined && Number(major) >= 1;
  });
}

/** The Status kube-apiserver sends (webhook errors are wrapped as an internal error: apierrors.NewInternalError). */
function refusal(failure: string): ApiStatusError {
  return new ApiStatusError(500, 'InternalError', `Internal error occurred: ${failure}`, { causes: [{ message: failure }] });
}
