import type { Finding } from '../domain/finding.ts';
import { commandStep, manualRemediation, newFinding } from '../domain/finding.ts';
import type { CustomResourceDefinition, Service } from '../domain/kube.ts';
import { KARPENTER_API_GROUPS } from '../domain/tags.ts';
import { hasControllerLabel } from '../snapshot/snapshot-index.ts';
import type { Detector } from './detector.ts';
import { shellJson, shellQuote } from '../domain/shell.ts';

/** apiextensions.k8s.io/v1 default for `clientConfig.service.port`. */
const DEFAULT_WEBHOOK_PORT = 443;

/**
 * CRD_CONVERSION_WEBHOOK_BROKEN: a Karpenter CRD converts through a webhook whose Service does not
 * exist or does not expose the port. Every request that needs conversion then fails, which makes
 * `kubectl get nodeclaims` (and Karpenter itself) fail. Karpenter v1 serves only v1 and needs no
 * conversion, so the fix is `strategy: None`. The webhook's `port` is the Service's `port` (its
 * `targetPort`, named or not, is the Service's business). A Service is missing only if the capture
 * covers its namespace. Webhooks given by `url` are not checked: the
 * snapshot cannot tell whether a URL answers.
 */
export const crdConversionWebhookBroken: Detector<'CRD_CONVERSION_WEBHOOK_BROKEN'> = {
  code: 'CRD_CONVERSION_WEBHOOK_BROKEN',
  requires: ['crds', 'services'],
  refinedBy: [],
  detect(ctx) {
    const services = ctx.snapshot.services;
    const karpenterServices = services.filter(isKarpenterService);
    const findings: Finding<'CRD_CONVERSION_WEBHOOK_BROKEN'>[] = [];
    for (const crd of ctx.snapshot.crds) {
      if (!isKarpenterCrd(crd) || crd.spec?.conversion?.strategy !== 'Webhook') continue;
      const clientConfig = crd.spec.conversion.webhook?.clientConfig;
      if (clientConfig?.url) continue;
      const target = clientConfig?.service;
      const crdName = crd.metadata?.name ?? '?';
      const ns = target?.namespace ?? '?';
      const svcName = target?.name ?? '?';
      const port = target?.port ?? DEFAULT_WEBHOOK_PORT;
      const service = services.find((s) => s.metadata?.namespace === ns && s.metadata?.name === svcName);
      const ports = service?.spec?.ports?.map((p) => p.port) ?? [];
      if (service && ports.includes(port)) continue;
      if (!service && !coversNamespace(services, ns)) continue;
      const url = `https://${svcName}.${ns}.svc:${port}${target?.path ?? '/'}`;
      const kind = crd.spec.names?.kind ?? '?';
      const served = `${crd.spec.group}/${otherVersion(crd)}, Kind=${kind}`;
      const cause = service
        ? {
            code: 'PORT_MISMATCH' as const,
            detail: `CRD ${crdName} sends conversions to ${url}, but Service ${ns}/${svcName} exposes port ${ports.join(', ') || '(none)'}, not ${port}; requests that need conversion cannot reach a webhook.`,
          }
        : {
            code: 'SERVICE_MISSING' as const,
            detail: `CRD ${crdName} sends conversions to Service ${ns}/${svcName}, which does not exist; requests that need conversion fail with: conversion webhook for ${served} failed: Post "${url}?timeout=30s": service "${svcName}" not found`,
          };
      findings.push(
        newFinding({
          code: 'CRD_CONVERSION_WEBHOOK_BROKEN',
          severity: 'critical',
          title: `CRD ${crdName} converts through a webhook that cannot be reached (${service ? `port ${port} not exposed` : `Service ${ns}/${svcName} missing`})`,
          resource: { kind: 'CustomResourceDefinition', name: crdName },
          since: null,
          cause,
          evidence: [
            `spec.conversion: strategy Webhook, service ${ns}/${svcName} port ${port}${target?.port === undefined ? ' (default)' : ''}`,
            service ? `Service ${ns}/${svcName} ports: ${ports.join(', ') || '(none)'}` : `Service ${ns}/${svcName}: not found`,
            karpenterServices.length
              ? `Karpenter Services: ${karpenterServices.map(describeService).join('; ')}`
              : 'no Karpenter Service exists',
            `served versions: ${(crd.spec.versions ?? []).map((v) => `${v.name}${v.storage ? ' (storage)' : ''}`).join(', ')}`,
          ],
          remediation: manualRemediation(steps(crdName, karpenterServices)),
        }),
      );
    }
    return findings;
  },
};

/**
 * A Service's absence is known only when the capture covers its namespace: some Service of it was
 * captured, or the capture is cluster-wide (every cluster has `default/kubernetes`). Services of
 * namespace karpenter alone (`kubectl get svc -n karpenter`) say nothing about kube-system.
 */
function coversNamespace(services: readonly Service[], namespace: string): boolean {
  return (
    services.length === 0 ||
    services.some(
      (s) => s.metadata?.namespace === namespace || (s.metadata?.namespace === 'default' && s.metadata?.name === 'kubernetes'),
    )
  );
}

function isKarpenterCrd(crd: CustomResourceDefinition): boolean {
  const group = crd.spec?.group ?? crd.metadata?.name?.split('.').slice(1).join('.');
  return !!group && KARPENTER_API_GROUPS.includes(group);
}

function isKarpenterService(s: Service): boolean {
  return hasControllerLabel(s.metadata?.labels) || /karpenter/.test(s.metadata?.name ?? '');
}

function describeService(s: Service): string {
  const ports = (s.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? 'TCP'}${p.name ? ` (${p.name})` : ''}`);
  return `${s.metadata?.namespace}/${s.metadata?.name} ${ports.join(', ') || 'no ports'}`;
}

/** A version other than the storage one: what a conversion request would be for (v1beta1 in practice). */
function otherVersion(crd: CustomResourceDefinition): string {
  const versions = crd.spec?.versions ?? [];
  return (versions.find((v) => !v.storage) ?? versions[0])?.name ?? 'v1beta1';
}

function steps(crdName: string, karpenterServices: Service[]): string[] {
  const out = [
    `kubectl patch crd ${shellQuote(crdName)} --type='json' -p='[{"op": "replace", "path": "/spec/conversion", "value": {"strategy": "None"}}]'`,
  ];
  const webhook = karpenterServices
    .flatMap((s) => (s.spec?.ports ?? []).filter((p) => /webhook/i.test(p.name ?? '')).map((p) => ({ s, port: p.port })))
    .at(0);
  out.push(
    commandStep(
      'Are objects still stored as v1beta1? Only then is conversion needed instead of strategy None',
      `kubectl get crd ${shellQuote(crdName)} -o jsonpath='{.status.storedVersions}'`,
    ),
  );
  if (webhook) {
    const value = { name: webhook.s.metadata?.name, namespace: webhook.s.metadata?.namespace, port: webhook.port };
    out.push(
      commandStep(
        'Only if v1beta1 is listed and your Karpenter still serves conversion: point the webhook at the Service that exists instead',
        `kubectl patch crd ${shellQuote(crdName)} --type=json -p ${shellJson([{ op: 'replace', path: '/spec/conversion/webhook/clientConfig/service', value }])}`,
      ),
    );
  } else {
    out.push(
      'Only if v1beta1 is listed: no Karpenter Service exposes a webhook port, so install a Karpenter version that serves conversion (v1.0.x) and point spec.conversion.webhook.clientConfig.service at its Service, then migrate to v1 and set strategy None.',
    );
  }
  return out;
}
