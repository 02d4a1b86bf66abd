import type { CauseCodeOf } from '../../domain/codes.ts';
import type { Finding } from '../../domain/finding.ts';
import { manualRemediation, newFinding } from '../../domain/finding.ts';
import type { Container, WebhookConfiguration } from '../../domain/kube.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import type { SnapshotIndex } from '../../domain/snapshot-index.ts';
import { visibleLine } from '../../domain/visible.ts';
import type { Detector } from '../detector.ts';
import { controllerAbsenceKnown } from '../karpenter/controller-presence.ts';
import { imageVersion } from '../../domain/karpenter-controller.ts';
import { deploymentNameFromPod, pickControllerContainer } from '../karpenter/controller-deployment.ts';
import { controllerVersionOf } from '../karpenter/feature-gates.ts';
import { versionAtLeast } from '../karpenter/version.ts';
import {
  configurationKind,
  coversKarpenter,
  isKarpenterConfiguration,
  karpenterKindOf,
  refusedWrites,
  type AdmissionWebhook,
} from './karpenter-webhooks.ts';
import { webhookServiceRef } from '../../domain/admission-webhooks.ts';
import { reachOf, serviceEvidence, type Reach, type Target } from './reachability.ts';
import { webhookFailures, type WebhookFailure } from './webhook-failures.ts';
import { webhookSteps, type OlderController } from './webhook-steps.ts';

type Cause = CauseCodeOf<'ADMISSION_WEBHOOK_BROKEN'>;

/**
 * ADMISSION_WEBHOOK_BROKEN: a Validating/MutatingWebhookConfiguration that covers Karpenter's
 * kinds (or is Karpenter's own) cannot answer, so the API server refuses NodeClaim, NodePool and
 * EC2NodeClass writes with `failed calling webhook "<name>"`. Read from the configurations with
 * their Services and endpoints (reachability.ts), and from that error text wherever the capture
 * holds it: the controller's log, events, a saved kubectl error (webhook-failures.ts). A CRD's
 * conversion webhook is CRD_CONVERSION_WEBHOOK_BROKEN's: it lives in the CRD and fails in other
 * words, so the two never report the same webhook.
 */
export const admissionWebhookBroken: Detector<'ADMISSION_WEBHOOK_BROKEN'> = {
  code: 'ADMISSION_WEBHOOK_BROKEN',
  requires: ['webhookconfigurations'],
  // Not `endpoints`: captures and live scans read them only for the Services Karpenter's webhooks call.
  refinedBy: ['services', 'crds', 'deployments', 'pods'],
  // The API server's words in the log, an event or a saved error: judged without the configurations.
  evidenceIn: (snapshot) => webhookFailures(snapshot).some(isAboutKarpenter),
  detect(ctx) {
    const { snapshot, index } = ctx;
    const controller = controllerFacts(snapshot, index);
    const failures = webhookFailures(snapshot);
    const captured = snapshot.webhookConfigurations ?? [];
    // A third party's webhook (a policy engine's catch-all) is Karpenter's business once it refused a Karpenter write.
    const refusedKarpenter = (w: AdmissionWebhook) => failures.some((f) => f.karpenterWrite && f.webhook === w.name);
    const configs = captured.filter(
      (c) => isKarpenterConfiguration(c) || (c.webhooks ?? []).some((w) => coversKarpenter(w) || refusedKarpenter(w)),
    );
    const findings: Finding<'ADMISSION_WEBHOOK_BROKEN'>[] = [];
    const named = new Set(captured.flatMap((c) => (c.webhooks ?? []).map((w) => w.name ?? '')));
    for (const config of configs) {
      const finding = fromConfiguration(config, snapshot, controller, failures);
      if (finding) findings.push(finding);
    }
    // An error naming a webhook the capture did not list: judged from the text, unless the
    // configurations were listed without it (deleted since: the failure is over).
    const byWebhook = new Map<string, WebhookFailure[]>();
    for (const f of failures) {
      if (named.has(f.webhook) || snapshot.captured.has('webhookconfigurations')) continue;
      if (!isAboutKarpenter(f)) continue;
      byWebhook.set(f.webhook, [...(byWebhook.get(f.webhook) ?? []), f]);
    }
    for (const [webhook, texts] of byWebhook) findings.push(fromText(webhook, texts, controller));
    return findings;
  },
};

/** Karpenter's own webhooks, or any webhook that refused a write of Karpenter's controller. */
function isAboutKarpenter(f: WebhookFailure): boolean {
  return karpenterKindOf(f.webhook) !== undefined || f.karpenterWrite;
}

/** What the capture says of the controller: its version, where it runs, whether it serves webhooks. */
interface ControllerFacts {
  version: string | undefined;
  /** true when every controller pod and Deployment runs v1.0+ (no admission webhook), false before, undefined when unknown. */
  v1: boolean | undefined;
  /** Whether a controller was captured at all (else its namespace and name are the webhook Service's). */
  found: boolean;
  namespace: string;
  deployment: string;
  /** Whether it serves admission webhooks: false from v1.0 or with its webhook off, undefined when unknown. */
  serves: boolean | undefined;
  /** Why the controller serves no webhook at all, when the capture shows it. */
  servesNone: string | undefined;
  /** A pod or Deployment still running a Karpenter before v1.0 beside a v1 one: it re-creates the configurations. */
  older: OlderController | undefined;
}

/** `--disable-webhook[=bool]` (it wins over the variable), else `DISABLE_WEBHOOK`: undefined when neither is set. */
function webhookDisabled(container: Container | undefined): boolean | undefined {
  const parse = (v: string) => (/^(1|t|true)$/i.test(v) ? true : /^(0|f|false)$/i.test(v) ? false : undefined);
  for (const arg of container?.args ?? []) {
    const m = /^--?disable-webhook(?:=(.*))?$/.exec(arg);
    if (m) return m[1] === undefined ? true : parse(m[1]);
  }
  const env = container?.env?.find((e) => e.name === 'DISABLE_WEBHOOK')?.value;
  return env === undefined ? undefined : parse(env);
}

/**
 * Whether this version serves its admission webhooks: DISABLE_WEBHOOK defaults to false before
 * v0.33 and to true from v0.33 to v0.37 (kubernetes-sigs/karpenter pkg/operator/options), where the
 * chart writes DISABLE_WEBHOOK: "false" only with webhook.enabled; v1.0+ serves none.
 */
function servesAdmission(version: string | undefined, disabled: boolean | undefined): boolean | undefined {
  if (versionAtLeast(version, 1, 0, 0) === true) return false;
  if (disabled === true) return false;
  const from033 = versionAtLeast(version, 0, 33, 0);
  if (from033 === undefined) return undefined;
  return from033 ? disabled === false : true;
}

/** Every controller pod and Deployment image with its version, when its tag says it. */
function controllersRunning(index: SnapshotIndex): (Omit<OlderController, 'version'> & { version: string | undefined })[] {
  return index.controllers.flatMap((info) => [
    ...(info.deployment
      ? [
          {
            kind: 'deployment' as const,
            namespace: info.namespace,
            name: info.deployment.metadata?.name ?? '?',
            version: imageVersion(pickControllerContainer(info.deployment.spec?.template?.spec?.containers)?.image),
          },
        ]
      : []),
    ...info.pods.map((p) => ({
      kind: 'pod' as const,
      namespace: info.namespace,
      name: p.metadata?.name ?? '?',
      version: imageVersion(pickControllerContainer(p.spec?.containers)?.image),
    })),
  ]);
}

function controllerFacts(snapshot: ClusterSnapshot, index: SnapshotIndex): ControllerFacts {
  const info = index.controllers[0];
  const version = controllerVersionOf(info);
  const atLeastV1 = versionAtLeast(version, 1, 0, 0);
  // Only beside a v1 controller: alone, a pre-v1 controller is simply the one that serves the webhooks.
  const older =
    atLeastV1 === true
      ? controllersRunning(index).find((r): r is OlderController => versionAtLeast(r.version, 1, 0, 0) === false)
      : undefined;
  const v1 = atLeastV1 === true && older ? undefined : atLeastV1;
  const container = pickControllerContainer(
    info?.deployment?.spec?.template?.spec?.containers ?? info?.pods[0]?.spec?.containers,
  );
  const disabled = webhookDisabled(container);
  const serves = older ? undefined : servesAdmission(version, disabled);
  const absent =
    !info && controllerAbsenceKnown(snapshot, index) && (snapshot.pods.length > 0 || snapshot.deployments.length > 0);
  return {
    version,
    v1,
    found: info !== undefined,
    namespace: info?.namespace ?? 'karpenter',
    deployment: info?.deploymentName ?? (info ? deploymentNameFromPod(info.pods[0]) : 'karpenter'),
    serves,
    servesNone:
      disabled === true
        ? 'the controller runs with DISABLE_WEBHOOK=true'
        : serves === false && atLeastV1 === false
          ? `Karpenter v${version ?? '?'} runs with its webhook off (from v0.33 to v0.37 DISABLE_WEBHOOK defaults to true; the chart sets it to "false" only with webhook.enabled)`
          : absent
            ? 'no Karpenter controller runs in the cluster'
            : undefined,
    older,
  };
}

/** Where the controller runs: the captured one's, else the webhook Service's (the chart names both alike). */
function controllerAt(controller: ControllerFacts, target: Target | undefined): { namespace: string; deployment: string } {
  if (controller.found || !target) return controller;
  return { namespace: target.namespace, deployment: target.name };
}

interface Verdict {
  webhook: AdmissionWebhook;
  reach: Reach;
  cause: Cause;
  why: string;
  texts: WebhookFailure[];
}

/** The cause of one webhook, or undefined when nothing shows it broken. */
function judge(
  webhook: AdmissionWebhook,
  karpenters: boolean,
  snapshot: ClusterSnapshot,
  controller: ControllerFacts,
  failures: readonly WebhookFailure[],
): Verdict | undefined {
  const reach = reachOf(webhook, snapshot);
  const texts = failures.filter((f) => f.webhook === webhook.name);
  const v = (cause: Cause, why: string): Verdict => ({ webhook, reach, cause, why, texts });
  if (karpenters && controller.v1)
    return v(
      'STALE_AFTER_V1_UPGRADE',
      `Karpenter ${controller.version ? `v${controller.version}` : 'v1'} serves no admission webhook`,
    );
  const t = 'target' in reach ? reach.target : undefined;
  if (reach.state === 'service-missing') return v('SERVICE_MISSING', `Service ${t?.namespace}/${t?.name} missing`);
  if (reach.state === 'port-missing') return v('SERVICE_MISSING', `Service ${t?.namespace}/${t?.name} has no port ${t?.port}`);
  if (reach.state === 'no-endpoints') return v('NO_ENDPOINTS', `no ready pod serves Service ${t?.namespace}/${t?.name}`);
  if (reach.state === 'no-ca-bundle') return v('CERTIFICATE_INVALID', 'no caBundle to trust its certificate');
  for (const kind of ['SERVICE_MISSING', 'NO_ENDPOINTS', 'CERTIFICATE_INVALID'] as const) {
    const text = texts.find((f) => f.kind === kind);
    if (text) return v(kind, text.why);
  }
  const text = texts[0];
  return text ? v('UNKNOWN', text.why) : undefined;
}

/** Why nothing will ever answer the webhook, when the capture proves it. */
function deleteProven(verdict: Verdict, controller: ControllerFacts): string | undefined {
  if (verdict.cause === 'STALE_AFTER_V1_UPGRADE') return verdict.why;
  if (verdict.cause === 'SERVICE_MISSING' && controller.servesNone) return controller.servesNone;
  if (verdict.reach.state === 'no-endpoints' && verdict.reach.addressesWithoutPort) {
    return `the pods behind Service ${verdict.reach.target.namespace}/${verdict.reach.target.name} serve no port named ${verdict.reach.portName || '(unnamed)'}: they serve no webhook`;
  }
  return undefined;
}

const CAUSE_ORDER: readonly Cause[] = [
  'STALE_AFTER_V1_UPGRADE',
  'SERVICE_MISSING',
  'NO_ENDPOINTS',
  'CERTIFICATE_INVALID',
  'UNKNOWN',
];

function fromConfiguration(
  config: WebhookConfiguration,
  snapshot: ClusterSnapshot,
  controller: ControllerFacts,
  failures: readonly WebhookFailure[],
): Finding<'ADMISSION_WEBHOOK_BROKEN'> | undefined {
  const karpenters = isKarpenterConfiguration(config);
  const verdicts = (config.webhooks ?? [])
    .map((w) => judge(w, karpenters, snapshot, controller, failures))
    .filter((v): v is Verdict => v !== undefined)
    .sort((a, b) => CAUSE_ORDER.indexOf(a.cause) - CAUSE_ORDER.indexOf(b.cause));
  const verdict = verdicts[0];
  if (!verdict) return undefined;
  const name = config.metadata?.name ?? verdict.webhook.name ?? '?';
  const kind = configurationKind(config) ?? karpenterKindOf(name);
  const writes = [...new Set(verdicts.flatMap((v) => refusedWrites(v.webhook, snapshot.crds)))];
  const refused = verdicts.flatMap((v) => v.texts);
  const critical = writes.length > 0 || refused.some((f) => f.refusal);
  const labels = config.metadata?.labels ?? {};
  const installedBy = [
    labels['helm.sh/chart'],
    labels['app.kubernetes.io/version'] && `version ${labels['app.kubernetes.io/version']}`,
  ]
    .filter(Boolean)
    .join(', ');
  const webhook = verdict.webhook;
  return newFinding({
    code: 'ADMISSION_WEBHOOK_BROKEN',
    severity: critical ? 'critical' : 'warning',
    title: `${kind ?? 'Webhook configuration'} ${name} cannot answer (${verdict.why})${critical ? `: the API server refuses ${writes.length ? writes.join(', ') : 'Karpenter'} writes` : ''}`,
    resource: { kind: kind ?? 'WebhookConfiguration', name },
    since:
      refused
        .map((f) => f.time)
        .filter((t): t is string => !!t)
        .sort()[0] ?? null,
    cause: { code: verdict.cause, detail: detailOf(verdict, name, controller, writes) },
    evidence: [
      `${kind ?? 'configuration'} ${name}${installedBy ? ` (${installedBy})` : ''}: webhook ${webhook.name ?? '?'} calls ${describeTarget(webhook)}, failurePolicy ${webhook.failurePolicy ?? 'Fail (default)'}`,
      serviceEvidence(verdict.reach, snapshot),
      ...(verdict.reach.state === 'no-endpoints' ? [verdict.reach.seen] : []),
      `rules: ${describeRules(webhook)}${writes.length ? ` (match ${writes.join(', ')})` : ' (match no Karpenter write the CRDs still serve)'}`,
      `Karpenter controller: ${controller.version ? `v${controller.version}` : 'version not in the capture'}${controller.servesNone ? `; ${controller.servesNone}` : ''}`,
      ...refused.slice(0, 3).map((f) => `${f.where}: ${f.text}`),
    ].map(visibleLine),
    remediation: manualRemediation(
      webhookSteps({
        name,
        kind,
        cause: verdict.cause,
        karpenters,
        deleteProven: karpenters ? deleteProven(verdict, controller) : undefined,
        version: controller.version,
        servesWebhooks: controller.serves,
        older: controller.older,
        controller: controllerAt(controller, webhookServiceRef(webhook)),
        target: webhookServiceRef(webhook),
        captured: true,
        gitops: labels['argocd.argoproj.io/instance'],
      }),
    ),
    counts: { objects: 1 },
  });
}

/** A finding from the API server's words alone: the configurations were not captured. */
function fromText(
  webhook: string,
  texts: readonly WebhookFailure[],
  controller: ControllerFacts,
): Finding<'ADMISSION_WEBHOOK_BROKEN'> {
  const kind = karpenterKindOf(webhook);
  const karpenters = kind !== undefined;
  const first = texts.find((t) => t.kind !== 'UNKNOWN' && t.kind !== 'REJECTED') ?? texts[0];
  const textCause: Cause =
    first && (first.kind === 'SERVICE_MISSING' || first.kind === 'NO_ENDPOINTS' || first.kind === 'CERTIFICATE_INVALID')
      ? first.kind
      : 'UNKNOWN';
  const stale = karpenters && controller.v1 === true;
  const cause: Cause = stale ? 'STALE_AFTER_V1_UPGRADE' : textCause;
  const why = stale
    ? `Karpenter ${controller.version ? `v${controller.version}` : 'v1'} serves no admission webhook`
    : (first?.why ?? 'the call failed');
  const service = texts.find((t) => t.service)?.service;
  const target = service
    ? { namespace: service.namespace, name: service.name, port: service.port ?? 443, path: service.path ?? '/' }
    : undefined;
  // A refusal is the API server's; the rest is the controller's certificate reconciler complaining (knative).
  const refusal = texts.some((t) => t.refusal);
  const reconciled = texts.some((t) => !t.refusal);
  return newFinding({
    code: 'ADMISSION_WEBHOOK_BROKEN',
    severity: refusal ? 'critical' : 'warning',
    title: `Webhook ${webhook} cannot answer (${why})${refusal ? ': the API server refuses Karpenter writes' : ''}`,
    resource: { kind: kind ?? 'WebhookConfiguration', name: webhook },
    since:
      texts
        .map((f) => f.time)
        .filter((t): t is string => !!t)
        .sort()[0] ?? null,
    cause: {
      code: cause,
      detail: `${
        first?.refusal === false
          ? `The controller's webhook certificate reconciler could not reconcile ${webhook}: ${first.text}; it reconciles only the webhooks it serves, so this controller serves ${webhook} (before v1.0)`
          : `The API server refused a write${first?.write ? ` (${first.write})` : ''} because it could not call webhook ${webhook}: ${first?.text ?? ''}`
      }${stale ? `. Karpenter v1.0 and later serve no admission webhook (v1.0 serves only CRD conversion), so a configuration of this name is left over from before the upgrade.` : ''}`,
    },
    evidence: [
      ...texts.slice(0, 3).map((f) => `${f.where}: ${f.text}`),
      'webhook configurations: not captured (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o json)',
      `Karpenter controller: ${controller.version ? `v${controller.version}` : 'version not in the capture'}`,
    ].map(visibleLine),
    remediation: manualRemediation(
      webhookSteps({
        name: webhook,
        kind,
        cause,
        karpenters,
        deleteProven: stale ? why : undefined,
        version: controller.version,
        // knative reconciles only the configurations of a controller that serves them (before v1.0).
        servesWebhooks: !stale && reconciled ? true : controller.serves,
        older: controller.older,
        controller: controllerAt(controller, target),
        target,
        captured: false,
        gitops: undefined,
      }),
    ),
    counts: { objects: 1 },
  });
}

function detailOf(verdict: Verdict, name: string, controller: ControllerFacts, writes: readonly string[]): string {
  const t = 'target' in verdict.reach ? verdict.reach.target : undefined;
  const where = t ? `Service ${t.namespace}/${t.name} port ${t.port}` : 'its URL';
  const blocks = writes.length
    ? ` With failurePolicy Fail the API server refuses every ${writes.join(', ')} create and update it cannot send there.`
    : '';
  switch (verdict.cause) {
    case 'STALE_AFTER_V1_UPGRADE':
      return `${name} was created by a Karpenter before v1.0; the controller now runs v${controller.version ?? '1'}, which serves no admission webhook (v1.0 serves only CRD conversion, v1.1 nothing), so the upgrade left it behind and nothing at ${where} answers it.${blocks}`;
    case 'SERVICE_MISSING':
      return verdict.reach.state === 'port-missing'
        ? `${name} calls ${where}, but the Service exposes no port ${t?.port}: the API server answers "no service port ${t?.port} found for service "${t?.name}"".${blocks}`
        : `${name} calls ${where}, which ${verdict.reach.state === 'service-missing' ? 'does not exist' : 'the error says does not exist or lacks the port'}.${blocks}`;
    case 'NO_ENDPOINTS':
      return `${name} calls ${where}, but no ready pod serves that port: the API server answers "no endpoints available for service "${t?.name}"".${blocks}`;
    case 'CERTIFICATE_INVALID':
      return verdict.reach.state === 'no-ca-bundle'
        ? `${name} calls ${where} with no caBundle, so the API server checks the webhook's self-made certificate against its system roots and fails (x509: certificate signed by unknown authority).${blocks}`
        : `${name} calls ${where}, and the API server does not trust its certificate: ${verdict.texts.find((f) => f.kind === 'CERTIFICATE_INVALID')?.text ?? ''}.${blocks}`;
    default:
      return `${name} calls ${where} and the call fails: ${verdict.texts[0]?.text ?? ''}.${blocks}`;
  }
}

function describeTarget(w: AdmissionWebhook): string {
  const s = w.clientConfig?.service;
  if (s)
    return `Service ${s.namespace ?? '?'}/${s.name ?? '?'} port ${s.port ?? '443 (default)'}${s.path ? ` path ${s.path}` : ''}`;
  return w.clientConfig?.url ? `URL ${w.clientConfig.url}` : 'nothing';
}

function describeRules(w: AdmissionWebhook): string {
  const rules = (w.rules ?? []).map(
    (r) =>
      `${(r.operations ?? []).join('/')} ${(r.apiGroups ?? []).join(',')}/${(r.apiVersions ?? []).join(',')} ${(r.resources ?? []).join(',')}`,
  );
  return rules.join('; ') || 'none (matches no write)';
}
