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
  isKarpenterWebhook,
  unreachableCause,
  webhookMatches,
  webhookServiceRef,
  webhookUrl,
  type AdmissionRequest,
} from '../domain/admission-webhooks.ts';
import { chartVersionFrom, imageVersion, pickControllerContainer } from '../domain/controller-image.ts';
import type {
  AdmissionWebhook,
  Container,
  CustomResourceDefinition,
  Service,
  ServiceEndpoints,
  WebhookConfiguration,
} from '../domain/kube.ts';
import { KUBE_SHAPES } from '../domain/object-shapes.ts';
import { KARPENTER_API_GROUPS } from '../domain/tags.ts';
import { SIM_RESOURCES, type KubeStore, type SimResourceName } from './kube-store.ts';
import { ApiStatusError } from './status.ts';

/** k8s.io/apiserver's words when the webhook answered with no Status (the v1 controller's 400 for a path it does not serve). */
const REJECTED_UNKNOWN = 'the server rejected our request for an unknown reason';
/** Go's TLS error through the apiserver's client when no caBundle lets it trust the webhook's certificate. */
const UNKNOWN_AUTHORITY = 'tls: failed to verify certificate: x509: certificate signed by unknown authority';

/** Throws the API server's refusal when a webhook selecting this write cannot answer; returns otherwise. */
export function admitWrite(store: KubeStore, resource: SimResourceName, operation: AdmissionRequest['operation']): void {
  const { group } = SIM_RESOURCES[resource];
  if (!KARPENTER_API_GROUPS.includes(group)) return;
  const crds = objects<CustomResourceDefinition>(store, 'customresourcedefinitions');
  const requests = requestVersions(crds, group, resource).map((version): AdmissionRequest => ({
    group,
    version,
    resource,
    operation,
  }));
  for (const configurations of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'] as const) {
    for (const configuration of objects<WebhookConfiguration>(store, configurations)) {
      // A configuration the product could not read (written through the API with wrong types) is not judged.
      if (KUBE_SHAPES.webhookconfigurations?.(configuration)) continue;
      for (const webhook of configuration.webhooks ?? []) {
        // Only Karpenter's webhooks: theirs are the Services whose endpoints a scan reads (a policy
        // engine's catch-all posts to a Service whose endpoints were never captured).
        if (!isKarpenterWebhook(webhook, configuration) || !failsClosed(webhook) || hasObjectSelector(webhook)) continue;
        if (!requests.some((request) => webhookMatches(webhook, request, crds))) continue;
        const failure = callFailure(store, webhook);
        if (failure) throw refusal(failure);
      }
    }
  }
}

/**
 * The version a write arrives in: the simulator serves Karpenter's kinds at v1, but a cluster whose
 * CRD serves only others (v1beta1, before Karpenter v1) was written to in those, so its rules are
 * matched against each version the CRD serves.
 */
function requestVersions(crds: readonly CustomResourceDefinition[], group: string, resource: SimResourceName): string[] {
  const { version } = SIM_RESOURCES[resource];
  const crd = crds.find((c) => c.spec?.group === group && c.spec.names?.plural === resource);
  const served = (crd?.spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
  return served.length === 0 || served.includes(version) ? [version] : served;
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
  // What the capture did not hold is not judged: a Service not captured is unknown, not "not found".
  if (!store.knows('services')) return undefined;
  const services = objects<Service>(store, 'services');
  const endpoints = store.knows('endpointslices')
    ? [...objects<ServiceEndpoints>(store, 'endpointslices'), ...objects<ServiceEndpoints>(store, 'endpoints')]
    : undefined;
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
 * Whether the Service selects the pods of a Karpenter controller at v1 or later, which serves no
 * admission webhook: its webhook port answers only CRD conversion (v1.0.x), so the API server gets
 * a 400 without a Status. The pods the Service selects say which controller answers (a capture may
 * hold only those); the Deployments whose pods it selects when there are none. The version is read
 * as the detectors read it: the chart label, else the controller container's image tag.
 */
function servedByKarpenterV1(store: KubeStore, service: Service): boolean {
  const selector = service.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return false;
  const namespace = service.metadata?.namespace;
  const selects = (labels: Readonly<Record<string, string>> | undefined) =>
    Object.entries(selector).every(([key, value]) => labels?.[key] === value);
  const pods = objects<PodLike>(store, 'pods').filter((p) => p.metadata?.namespace === namespace && selects(p.metadata?.labels));
  const controllers: { labels: Readonly<Record<string, string>> | undefined; containers: Container[] | undefined }[] =
    pods.length > 0
      ? pods.map((p) => ({ labels: p.metadata?.labels, containers: p.spec?.containers }))
      : objects<PodLike & { spec?: { template?: PodLike } }>(store, 'deployments')
          .filter((d) => d.metadata?.namespace === namespace && selects(d.spec?.template?.metadata?.labels))
          .map((d) => ({ labels: d.metadata?.labels, containers: d.spec?.template?.spec?.containers }));
  return controllers.some(({ labels, containers }) => {
    const version =
      chartVersionFrom(labels?.['helm.sh/chart'], labels?.['app.kubernetes.io/version'])?.replace(/^v/, '') ??
      imageVersion(pickControllerContainer(containers)?.image);
    const major = /^(\d+)\./.exec(version ?? '')?.[1];
    return major !== undefined && Number(major) >= 1;
  });
}

/** A pod or a pod template: labels and containers. */
interface PodLike {
  metadata?: { namespace?: string; labels?: Record<string, string> };
  spec?: { containers?: Container[] };
}

/** The Status kube-apiserver sends (webhook errors are wrapped as an internal error: apierrors.NewInternalError). */
function refusal(failure: string): ApiStatusError {
  return new ApiStatusError(500, 'InternalError', `Internal error occurred: ${failure}`, { causes: [{ message: failure }] });
}
