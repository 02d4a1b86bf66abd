import type { Finding } from '../../domain/finding.ts';
import { commandStep, manualRemediation, newFinding } from '../../domain/finding.ts';
import type { CustomResourceDefinition, Service } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { conversionFailures, type ConversionFailure } from './conversion-failures.ts';
import { KARPENTER_API_GROUPS } from '../../domain/tags.ts';
import { coversNamespace, describeService, isKarpenterService } from '../karpenter/webhook-services.ts';
import type { Detector } from '../detector.ts';
import { shellQuote } from '../../domain/shell.ts';
import { conversionSteps, storedEvidence } from './conversion-steps.ts';

/** apiextensions.k8s.io/v1 default for `clientConfig.service.port`. */
const DEFAULT_WEBHOOK_PORT = 443;

/**
 * CRD_CONVERSION_WEBHOOK_BROKEN: a Karpenter CRD converts through a webhook whose Service does not
 * exist or does not expose the port. Every request that needs conversion then fails, which makes
 * `kubectl get nodeclaims` (and Karpenter itself) fail. Whether `strategy: None` is the fix depends
 * on the CRD's `status.storedVersions` (conversion-steps.ts). The webhook's `port` is the Service's `port` (its
 * `targetPort`, named or not, is the Service's business). A Service is missing only if the capture
 * covers its namespace; when it does not but Karpenter plainly runs in another namespace, the
 * finding says the Service was not seen. Webhooks given by `url` are not checked: the snapshot
 * cannot tell whether a URL answers.
 *
 * The API server's own error is evidence too: `kubectl get nodeclaims` (or a live list) failing
 * with "conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: ..." is a gap whose
 * text names the CRD and why; the detector then runs even when no CRD or Service was captured.
 */
export const crdConversionWebhookBroken: Detector<'CRD_CONVERSION_WEBHOOK_BROKEN'> = {
  code: 'CRD_CONVERSION_WEBHOOK_BROKEN',
  requires: ['crds', 'services'],
  refinedBy: [],
  evidenceIn: (snapshot) => conversionFailures(snapshot.gaps).length > 0,
  detect(ctx) {
    const findings = fromCrds(ctx.snapshot, ctx.index);
    for (const failure of conversionFailures(ctx.snapshot.gaps)) {
      const same = findings.find((f) => f.resource.name === failure.crdName);
      if (same) same.evidence.push(`the API server answered: ${failure.text}`);
      else findings.push(fromFailure(ctx.snapshot, failure));
    }
    return findings;
  },
};

function fromCrds(snapshot: ClusterSnapshot, index: SnapshotIndex): Finding<'CRD_CONVERSION_WEBHOOK_BROKEN'>[] {
  {
    const services = snapshot.services;
    const karpenterServices = services.filter(isKarpenterService);
    const findings: Finding<'CRD_CONVERSION_WEBHOOK_BROKEN'>[] = [];
    for (const crd of snapshot.crds) {
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
      const unseen = !service && !coversNamespace(services, ns);
      const elsewhere = unseen ? karpenterNamespaces(snapshot, index, karpenterServices, ns) : [];
      if (unseen && elsewhere.length === 0) continue;
      const url = `https://${svcName}.${ns}.svc:${port}${target?.path ?? '/'}`;
      const kind = crd.spec.names?.kind ?? '?';
      const served = `${crd.spec.group}/${otherVersion(crd)}, Kind=${kind}`;
      const cause = service
        ? {
            code: 'PORT_MISMATCH' as const,
            detail: `CRD ${crdName} sends conversions to ${url}, but Service ${ns}/${svcName} exposes port ${ports.join(', ') || '(none)'}, not ${port}; requests that need conversion cannot reach a webhook.`,
          }
        : unseen
          ? {
              code: 'SERVICE_MISSING' as const,
              detail: `CRD ${crdName} sends conversions to Service ${ns}/${svcName}, but Karpenter runs in namespace ${elsewhere.join(', ')}; the capture holds no Service of namespace ${ns}, so its absence was not seen (capture \`kubectl get svc -A -o json\` to confirm). If it is missing, requests that need conversion fail with: conversion webhook for ${served} failed: Post "${url}?timeout=30s": service "${svcName}" not found`,
            }
          : {
              code: 'SERVICE_MISSING' as const,
              detail: `CRD ${crdName} sends conversions to Service ${ns}/${svcName}, which does not exist; requests that need conversion fail with: conversion webhook for ${served} failed: Post "${url}?timeout=30s": service "${svcName}" not found`,
            };
      findings.push(
        newFinding({
          code: 'CRD_CONVERSION_WEBHOOK_BROKEN',
          severity: 'critical',
          title: `CRD ${crdName} converts through a webhook that cannot be reached (${service ? `port ${port} not exposed` : unseen ? `Service ${ns}/${svcName} not seen, Karpenter runs in ${elsewhere.join(', ')}` : `Service ${ns}/${svcName} missing`})`,
          resource: { kind: 'CustomResourceDefinition', name: crdName },
          since: null,
          cause,
          evidence: [
            `spec.conversion: strategy Webhook, service ${ns}/${svcName} port ${port}${target?.port === undefined ? ' (default)' : ''}`,
            service
              ? `Service ${ns}/${svcName} ports: ${ports.join(', ') || '(none)'}`
              : unseen
                ? `Service ${ns}/${svcName}: not seen (no Service of namespace ${ns} was captured)`
                : `Service ${ns}/${svcName}: not found`,
            karpenterServices.length
              ? `Karpenter Services: ${karpenterServices.map(describeService).join('; ')}`
              : 'no Karpenter Service exists',
            `served versions: ${(crd.spec.versions ?? []).map((v) => `${v.name}${v.storage ? ' (storage)' : ''}`).join(', ')}`,
            storedEvidence(crdName, crd),
          ],
          remediation: manualRemediation([
            ...(unseen
              ? [
                  commandStep(
                    `Confirm that Service ${ns}/${svcName} is missing`,
                    `kubectl get service -n ${shellQuote(ns)} ${shellQuote(svcName)}`,
                  ),
                ]
              : []),
            ...conversionSteps({
              crdName,
              crd,
              target: { namespace: ns, name: svcName, port, ...(target?.path ? { path: target.path } : {}) },
              services,
              karpenterServices,
              servicesSeen: true,
            }),
          ]),
        }),
      );
    }
    return findings;
  }
}

/** Namespaces other than `ns` where Karpenter plainly runs: its Services, its controller. */
function karpenterNamespaces(
  snapshot: ClusterSnapshot,
  index: SnapshotIndex,
  karpenterServices: Service[],
  ns: string,
): string[] {
  const namespaces = [
    ...karpenterServices.map((s) => s.metadata?.namespace),
    ...(snapshot.pods.length > 0 || snapshot.deployments.length > 0 ? index.controllers.map((c) => c.namespace) : []),
  ];
  return [...new Set(namespaces.filter((n): n is string => !!n && n !== ns))].sort();
}

/** A finding from the API server's own error, when no CRD (or not this one) was captured to show it. */
function fromFailure(snapshot: ClusterSnapshot, failure: ConversionFailure): Finding<'CRD_CONVERSION_WEBHOOK_BROKEN'> {
  const karpenterServices = snapshot.services.filter(isKarpenterService);
  const crdCaptured = snapshot.captured.has('crds');
  const servicesCaptured = snapshot.captured.has('services');
  const target = failure.service ? `${failure.service.namespace}/${failure.service.name}` : 'its webhook';
  return newFinding({
    code: 'CRD_CONVERSION_WEBHOOK_BROKEN',
    severity: 'critical',
    title: `CRD ${failure.crdName} converts through a webhook that fails (${failure.why}): ${failure.kind} objects cannot be read`,
    resource: { kind: 'CustomResourceDefinition', name: failure.crdName },
    since: null,
    cause: {
      code: failure.cause,
      detail: `Reading ${failure.kind} objects (${failure.group}/${failure.version}) needs conversion through ${target}, and it fails: ${failure.text}`,
    },
    evidence: [
      `the API server answered: ${failure.text}`,
      crdCaptured
        ? `CRD ${failure.crdName}: not in the capture`
        : `CRDs: not captured (kubectl get crd ${failure.crdName} -o yaml shows spec.conversion)`,
      servicesCaptured
        ? karpenterServices.length
          ? `Karpenter Services: ${karpenterServices.map(describeService).join('; ')}`
          : 'no Karpenter Service exists'
        : 'Services: not captured',
    ],
    remediation: manualRemediation([
      commandStep(
        'Confirm that the CRD converts through the webhook the error names',
        `kubectl get crd ${shellQuote(failure.crdName)} -o jsonpath='{.spec.conversion}'`,
      ),
      ...conversionSteps({
        crdName: failure.crdName,
        crd: undefined,
        target: failure.service
          ? {
              namespace: failure.service.namespace,
              name: failure.service.name,
              port: failure.service.port,
              ...(failure.service.path ? { path: failure.service.path } : {}),
            }
          : undefined,
        services: snapshot.services,
        karpenterServices,
        servicesSeen: servicesCaptured,
      }),
    ]),
  });
}

function isKarpenterCrd(crd: CustomResourceDefinition): boolean {
  const group = crd.spec?.group ?? crd.metadata?.name?.split('.').slice(1).join('.');
  return !!group && KARPENTER_API_GROUPS.includes(group);
}

/** A version other than the storage one: what a conversion request would be for (v1beta1 in practice). */
function otherVersion(crd: CustomResourceDefinition): string {
  const versions = crd.spec?.versions ?? [];
  return (versions.find((v) => !v.storage) ?? versions[0])?.name ?? 'v1beta1';
}
