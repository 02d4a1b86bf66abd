/**
 * The steps of CRD_CONVERSION_WEBHOOK_BROKEN, decided by what the CRD stores.
 *
 * `strategy: None` makes the API server hand out stored objects with only their apiVersion
 * rewritten. That is safe when `status.storedVersions` lists the storage version alone; when it
 * still lists an older one (v1beta1 after an upgrade from v0.3x; the list is never pruned by
 * itself), objects may be stored in that older form, and `None` would serve them unconverted. So:
 *
 * - storedVersions is the storage version alone: lead with `strategy: None`;
 * - it lists an older version too: keep the webhook and repair it, migrate every object to the
 *   storage version, drop the older one from storedVersions, then `strategy: None`;
 * - it was not captured: lead with the command that reads it, then each branch under its condition.
 *
 * The repair follows the capture's evidence: a Karpenter Service elsewhere that exposes a webhook
 * port (point the CRD at it); the CRD's own Service, installed by Helm, with no webhook port
 * (Karpenter's chart v0.32–v1.0.x exposes port 8443 only with `webhook.enabled=true`); else find
 * the Service, or run a Karpenter that still serves conversion (v1.0.x; v1.1 removed it).
 */
import { chartVersionOf, helmUpgrade } from '../karpenter/helm.ts';
import { commandStep } from '../../domain/finding.ts';
import type { CustomResourceDefinition, Service } from '../../domain/kube.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';

/** The default port of the chart's webhook (`webhook.port`). */
const CHART_WEBHOOK_PORT = 8443;

interface ConversionTarget {
  namespace: string;
  name: string;
  port: number | undefined;
  /** `clientConfig.service.path` (Karpenter v1.0: `/conversion/karpenter.sh`): kept when the CRD is pointed elsewhere. */
  path?: string;
}

export interface StepInput {
  crdName: string;
  /** The captured CRD, or undefined when the finding comes from the API server's error alone. */
  crd: CustomResourceDefinition | undefined;
  /** The Service the CRD's webhook posts to, when known. */
  target: ConversionTarget | undefined;
  services: readonly Service[];
  karpenterServices: readonly Service[];
  servicesSeen: boolean;
}

/** What `status.storedVersions` says about `strategy: None`. */
type StoredVerdict =
  | { kind: 'safe'; storage: string }
  | { kind: 'needs-conversion'; storage: string; older: string[] }
  | { kind: 'unknown'; storage: string | undefined };

function storedVerdict(crd: CustomResourceDefinition | undefined): StoredVerdict {
  const versions = crd?.spec?.versions ?? [];
  const storage = versions.find((v) => v.storage)?.name;
  const stored = crd?.status?.storedVersions;
  // The API server keeps every stored version in spec.versions: a CRD defining one version stores only it.
  if (storage && versions.length === 1) return { kind: 'safe', storage };
  if (!storage || !stored || stored.length === 0) return { kind: 'unknown', storage };
  const older = stored.filter((v) => v !== storage);
  return older.length === 0 ? { kind: 'safe', storage } : { kind: 'needs-conversion', storage, older };
}

/** The evidence line for the finding: what the CRD stores. */
export function storedEvidence(crdName: string, crd: CustomResourceDefinition | undefined): string {
  const stored = crd?.status?.storedVersions;
  if (!crd) return `status.storedVersions: CRD ${crdName} not captured`;
  if (stored?.length) return `status.storedVersions: ${stored.join(', ')}`;
  const versions = crd.spec?.versions ?? [];
  return versions.length === 1
    ? `status.storedVersions: not in the capture, but the CRD defines ${versions[0]?.name ?? '?'} alone, so nothing else can be stored`
    : 'status.storedVersions: not in the capture';
}

const noneStep = (crdName: string, why: string) =>
  commandStep(
    why,
    `kubectl patch crd ${shellQuote(crdName)} --type='json' -p='[{"op": "replace", "path": "/spec/conversion", "value": {"strategy": "None"}}]'`,
  );

function checkStep(crdName: string, storage: string | undefined): string {
  return commandStep(
    `FIRST: which versions are stored. strategy None is safe only if this lists ${storage ?? 'the storage version'} alone; an older version listed means objects may be stored in that form, which None would serve unconverted`,
    `kubectl get crd ${shellQuote(crdName)} -o jsonpath='{.status.storedVersions}'`,
  );
}

/** The plural resource of the CRD (`nodeclaims.karpenter.sh`) is its name. */
function migrateSteps(crdName: string, storage: string, older: readonly string[], when: string): string[] {
  return [
    commandStep(
      `${when}once conversion answers, rewrite every ${crdName} object so it is stored as ${storage}`,
      `kubectl get ${shellQuote(crdName)} -o json | kubectl replace -f -`,
    ),
    commandStep(
      `then drop ${older.join(', ')} from status.storedVersions (kubectl v1.24+)`,
      `kubectl patch crd ${shellQuote(crdName)} --subresource=status --type=merge -p ${shellJson({ status: { storedVersions: [storage] } })}`,
    ),
    noneStep(crdName, `then no stored object needs conversion: drop the webhook`),
  ];
}

/** `release`, `--version` of a Helm-installed Karpenter Service, from its annotations and labels. */
function helmRelease(s: Service): { release: string; version: string | undefined } | undefined {
  const annotations = s.metadata?.annotations ?? {};
  const labels = s.metadata?.labels ?? {};
  const release =
    annotations['meta.helm.sh/release-name'] ??
    (labels['app.kubernetes.io/managed-by'] === 'Helm' ? labels['app.kubernetes.io/instance'] : undefined);
  if (!release) return undefined;
  return { release, version: chartVersionOf(labels) };
}

/** A Service port that serves webhooks: named like the chart's `https-webhook`, not its `webhook-metrics`. */
const isWebhookPort = (p: { name?: string }) => /webhook/i.test(p.name ?? '') && !/metrics/i.test(p.name ?? '');
const hasWebhookPort = (s: Service) => (s.spec?.ports ?? []).some(isWebhookPort);

/** The CRD's own Service, when the capture holds it. */
function ownService(input: StepInput): Service | undefined {
  const t = input.target;
  return t ? input.services.find((s) => s.metadata?.namespace === t.namespace && s.metadata?.name === t.name) : undefined;
}

/** The Helm release of the CRD's own Service, when it is Karpenter's, installed by Helm, with no webhook port. */
function webhookOffRelease(input: StepInput): { release: string; version: string | undefined } | undefined {
  const own = ownService(input);
  return own && input.karpenterServices.includes(own) && !hasWebhookPort(own) ? helmRelease(own) : undefined;
}

/**
 * Another Karpenter Service port that serves webhooks (named like the chart's `https-webhook`, not
 * its `webhook-metrics`), the CRD's port first: where the CRD could point instead.
 */
function otherWebhook(input: StepInput): { s: Service; port: number } | undefined {
  const own = ownService(input);
  const candidates = input.karpenterServices
    .flatMap((s) => (s.spec?.ports ?? []).filter(isWebhookPort).map((p) => ({ s, port: p.port })))
    .filter(({ s, port }) => !(s === own && port === input.target?.port));
  return candidates.find(({ port }) => port === input.target?.port) ?? candidates[0];
}

/** A repair the capture shows (the chart's webhook off, or a webhook Service to point at), not a guess. */
function repairIsEvidenced(input: StepInput): boolean {
  return (webhookOffRelease(input) !== undefined && input.target !== undefined) || otherWebhook(input) !== undefined;
}

/** The steps that make conversion answer again, from the evidence. */
function repairSteps(input: StepInput, when: string): string[] {
  const { crdName, target, servicesSeen } = input;
  const helm = webhookOffRelease(input);
  if (helm && target) {
    const port = target.port ?? 443;
    const sets = ['webhook.enabled=true', ...(port === CHART_WEBHOOK_PORT ? [] : [`webhook.port=${port}`])];
    return [
      commandStep(
        `${when}Service ${target.namespace}/${target.name} was installed by Helm without a webhook port: Karpenter's chart (v0.32–v1.0.x) exposes port ${CHART_WEBHOOK_PORT} only with webhook.enabled=true, so turn it on${helm.version ? '' : ' (add --version with the installed chart version, `helm list -n ' + target.namespace + '`, or Helm upgrades Karpenter too)'}`,
        helmUpgrade({ release: helm.release, namespace: target.namespace, chartVersion: helm.version }, sets),
      ),
    ];
  }
  const webhook = otherWebhook(input);
  if (webhook) {
    const value = {
      name: webhook.s.metadata?.name,
      namespace: webhook.s.metadata?.namespace,
      port: webhook.port,
      ...(target?.path ? { path: target.path } : {}),
    };
    return [
      commandStep(
        `${when}point the webhook at the Karpenter Service that exposes one (${value.namespace}/${value.name} port ${value.port})`,
        `kubectl patch crd ${shellQuote(crdName)} --type=json -p ${shellJson([{ op: 'replace', path: '/spec/conversion/webhook/clientConfig/service', value }])}`,
      ),
    ];
  }
  if (!servicesSeen) {
    return [
      commandStep(
        `${when}Services were not captured: find the Karpenter Service and its webhook port, then point spec.conversion.webhook.clientConfig.service at it`,
        'kubectl get service -A -l app.kubernetes.io/name=karpenter',
      ),
    ];
  }
  return [
    `${when}no Karpenter Service exposes a webhook port, so install a Karpenter version that serves conversion (v1.0.x; v1.1 removed it) and point spec.conversion.webhook.clientConfig.service at its Service.`,
  ];
}

export function conversionSteps(input: StepInput): string[] {
  const { crdName } = input;
  const verdict = storedVerdict(input.crd);
  switch (verdict.kind) {
    case 'safe': {
      const none = noneStep(
        crdName,
        `${repairIsEvidenced(input) ? 'or, ' : ''}only ${verdict.storage} is stored: no stored object needs conversion, so strategy None is safe and drops the webhook`,
      );
      // A repair the capture shows restores what the CRD expects; it leads, None is the alternative.
      return repairIsEvidenced(input)
        ? [...repairSteps(input, ''), none]
        : [none, ...repairSteps(input, 'or keep conversion and repair it: ')];
    }
    case 'needs-conversion':
      return [
        ...repairSteps(
          input,
          `status.storedVersions still lists ${verdict.older.join(', ')}: objects may be stored in that form and need the webhook to be read (strategy None would serve them unconverted). Keep it and repair it: `,
        ),
        ...migrateSteps(crdName, verdict.storage, verdict.older, ''),
      ];
    case 'unknown': {
      const storage = verdict.storage ?? 'the storage version';
      const check = checkStep(crdName, verdict.storage);
      const none = noneStep(crdName, `if it lists ${storage} alone: no stored object needs conversion, so drop the webhook`);
      const migrate = commandStep(
        `if it lists an older version too: once conversion answers, rewrite every ${crdName} object so it is stored as ${storage}, then drop the older versions from status.storedVersions and set strategy None`,
        `kubectl get ${shellQuote(crdName)} -o json | kubectl replace -f -`,
      );
      const repair = repairSteps(input, 'whatever it lists, this makes conversion answer again: ');
      if (repairIsEvidenced(input)) return [check, ...repair, none, migrate];
      return [check, none, ...repairSteps(input, 'if it lists an older version too, keep the webhook: '), migrate];
    }
  }
}
