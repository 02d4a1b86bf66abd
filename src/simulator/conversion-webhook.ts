/**
 * A CRD whose conversion webhook cannot be reached, as kube-apiserver reports it: every read of
 * the custom resource (list or get, any version) answers HTTP 500 with a Status whose reason is
 * empty (apiserver's ErrorToAPIStatus for an error that is not a Status), so kubectl prints
 * `Error from server: conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post
 * "https://karpenter.kube-system.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found`.
 * Switched on by a test: it stands for objects stored at an older version than the one served,
 * which the API server must convert (with none stored, a real server never calls the webhook).
 */
import type { CustomResourceDefinition, Service } from '../domain/kube.ts';
import type { FaultSpec } from './faults.ts';
import type { KubeStore } from './kube-store.ts';

/** The Status reason kube-apiserver sends for an error that is not a Status (`StatusReasonUnknown`). */
export const UNKNOWN_REASON = '';

/**
 * The standing faults of every CRD in the store whose conversion webhook Service is missing or
 * lacks the port, as if its objects were stored at a version needing conversion.
 */
export function brokenConversionFaults(store: KubeStore): FaultSpec[] {
  return store
    .list('customresourcedefinitions')
    .map((stored) => conversionFault(stored.object as CustomResourceDefinition, store))
    .filter((fault): fault is FaultSpec => fault !== undefined);
}

/** The fault for one CRD, when its webhook Service cannot be reached; undefined otherwise. */
function conversionFault(crd: CustomResourceDefinition, store: KubeStore): FaultSpec | undefined {
  const message = conversionFailureMessage(crd, store);
  const group = crd.spec?.group;
  const plural = crd.spec?.names?.plural;
  if (!message || !group || !plural) return undefined;
  return {
    method: 'GET',
    path: new RegExp(`^/apis/${escapeRegExp(group)}/[^/]+/(?:namespaces/[^/]+/)?${escapeRegExp(plural)}(?:/[^/]+)?$`),
    status: 500,
    reason: UNKNOWN_REASON,
    message,
  };
}

/**
 * apiextensions-apiserver's words (`conversion webhook for %v failed: %v`, the converted-from
 * version being the first stored version that is not the storage version) around the service
 * resolver's error.
 */
export function conversionFailureMessage(crd: CustomResourceDefinition, store: KubeStore): string | undefined {
  const spec = crd.spec;
  const service = spec?.conversion?.webhook?.clientConfig?.service;
  if (spec?.conversion?.strategy !== 'Webhook' || !service?.name || !service.namespace || !spec.group) return undefined;
  const storage = spec.versions?.find((v) => v.storage)?.name;
  // Without status.storedVersions (a trimmed capture), any other served version may be stored.
  const stored = (storedVersionsOf(crd) ?? (spec.versions ?? []).map((v) => v.name)).find((v) => v !== storage);
  if (!stored) return undefined;
  const port = service.port ?? 443;
  const found = store.get('services', service.name, service.namespace)?.object as Service | undefined;
  const why = !found
    ? `service "${service.name}" not found`
    : !(found.spec?.ports ?? []).some((p) => p.port === port)
      ? `no service port ${port} found for service "${service.name}"`
      : undefined;
  if (!why) return undefined;
  const url = `https://${service.name}.${service.namespace}.svc:${port}${service.path ?? '/'}?timeout=30s`;
  return `conversion webhook for ${spec.group}/${stored}, Kind=${spec.names?.kind ?? ''} failed: Post "${url}": ${why}`;
}

function storedVersionsOf(crd: CustomResourceDefinition): string[] | undefined {
  const status = (crd as { status?: { storedVersions?: unknown } }).status;
  return Array.isArray(status?.storedVersions)
    ? status.storedVersions.filter((v): v is string => typeof v === 'string')
    : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
