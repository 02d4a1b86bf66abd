/**
 * Which admission webhook configurations are Karpenter's, and which of Karpenter's writes they
 * would refuse. Karpenter's chart created them from v0.5 to v0.37 (docs/findings.md#admission_webhook_broken
 * lists them by version); v1.0 serves no admission webhook (only CRD conversion) and v1.1 serves
 * none at all, so any of them left in a v1 cluster is stale.
 */
import { failsClosed, webhookMatches } from '../../domain/admission-webhooks.ts';
import type { AdmissionWebhook, CustomResourceDefinition, WebhookConfiguration } from '../../domain/kube.ts';
import { hasControllerLabel } from '../../domain/snapshot-index.ts';
import { KARPENTER_API_GROUPS } from '../../domain/tags.ts';

/**
 * The names Karpenter's chart gave them: the four of v0.28–v0.37 (the v1 migration guide's list),
 * `defaulting.webhook.karpenter.sh` (removed in v0.27.3) and the Provisioner-era ones (≤ v0.18).
 */
const KARPENTER_WEBHOOK_NAMES: ReadonlySet<string> = new Set([
  'validation.webhook.karpenter.sh',
  'validation.webhook.config.karpenter.sh',
  'validation.webhook.karpenter.k8s.aws',
  'defaulting.webhook.karpenter.k8s.aws',
  'defaulting.webhook.karpenter.sh',
  'defaulting.webhook.provisioners.karpenter.sh',
  'validation.webhook.provisioners.karpenter.sh',
]);

/** One webhook of a configuration. */
export type { AdmissionWebhook };

export type ConfigurationKind = 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';

/** A webhook named like Karpenter's: `defaulting.*` ones are mutating, `validation.*` ones validating. */
export function karpenterKindOf(name: string): ConfigurationKind | undefined {
  if (!KARPENTER_WEBHOOK_NAMES.has(name)) return undefined;
  return name.startsWith('defaulting.') ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
}

/** The configuration's kind, from the object (both kinds come in one list). */
export function configurationKind(config: WebhookConfiguration): ConfigurationKind | undefined {
  return config.kind === 'ValidatingWebhookConfiguration' || config.kind === 'MutatingWebhookConfiguration'
    ? config.kind
    : undefined;
}

/** Karpenter created it: one of its names, or its chart's labels. Only these can be stale after v1. */
export function isKarpenterConfiguration(config: WebhookConfiguration): boolean {
  const labels = config.metadata?.labels ?? {};
  return (
    KARPENTER_WEBHOOK_NAMES.has(config.metadata?.name ?? '') ||
    (labels['helm.sh/chart'] ?? '').startsWith('karpenter-') ||
    hasControllerLabel(labels)
  );
}

/** A rule that names one of Karpenter's API groups (not `*`: a policy engine's catch-all is not about Karpenter). */
export function coversKarpenter(webhook: AdmissionWebhook): boolean {
  return (webhook.rules ?? []).some((r) => (r.apiGroups ?? []).some((g) => KARPENTER_API_GROUPS.includes(g)));
}

/** The writes Karpenter and its users make: NodeClaims (the provisioner, every controller's patches), NodePools, EC2NodeClasses. */
const KARPENTER_WRITES: readonly { group: string; resource: string }[] = [
  { group: 'karpenter.sh', resource: 'nodeclaims' },
  { group: 'karpenter.sh', resource: 'nodepools' },
  { group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses' },
];

const anyOf = (values: readonly string[] | undefined, wanted: string) => (values ?? []).some((v) => v === '*' || v === wanted);
const WRITES: ReadonlySet<string> = new Set(['*', 'CREATE', 'UPDATE']);

/**
 * The Karpenter writes the webhook refuses when it cannot answer: none when its failurePolicy is
 * `Ignore` (the API server then lets the write through); else those its rules select on CREATE or
 * UPDATE through a version the CRD serves (the API server's own matching, with matchPolicy
 * Equivalent: a `v1beta1` rule selects `v1` writes only while `v1beta1` is still served). When the
 * CRD was not captured its versions are unknown, and a rule naming the group, resource and
 * operation counts.
 */
export function refusedWrites(webhook: AdmissionWebhook, crds: readonly CustomResourceDefinition[]): string[] {
  if (!failsClosed(webhook)) return [];
  return KARPENTER_WRITES.filter(({ group, resource }) => {
    const crd = crds.find((c) => c.metadata?.name === `${resource}.${group}`);
    if (!crd) {
      return (webhook.rules ?? []).some(
        (r) => anyOf(r.apiGroups, group) && anyOf(r.resources, resource) && (r.operations ?? []).some((o) => WRITES.has(o)),
      );
    }
    const served = (crd.spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
    return served.some((version) =>
      (['CREATE', 'UPDATE'] as const).some((operation) => webhookMatches(webhook, { group, version, resource, operation }, crds)),
    );
  }).map(({ group, resource }) => `${resource}.${group}`);
}
