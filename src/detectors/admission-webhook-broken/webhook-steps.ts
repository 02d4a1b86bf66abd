/**
 * The steps of ADMISSION_WEBHOOK_BROKEN. Deleting the configuration is printed as the fix only
 * when the capture proves nothing will ever answer it (a v1.0+ controller, which serves no
 * admission webhook; or the Service gone or without its port while the controller serves no
 * webhook); otherwise the checks that tell the causes apart come first and the delete is printed
 * under the condition that makes it right. Re-enabling the chart's webhook is never advised: it
 * was the v0.37 migration step, and v1.1+ charts have no such value.
 */
import type { CauseCodeOf } from '../../domain/codes.ts';
import { commandStep } from '../../domain/finding.ts';
import { shellQuote } from '../../domain/shell.ts';
import type { ConfigurationKind } from './karpenter-webhooks.ts';
import type { Target } from './reachability.ts';

/** A controller pod or Deployment still running a Karpenter before v1.0. */
export interface OlderController {
  kind: 'pod' | 'deployment';
  namespace: string;
  name: string;
  version: string;
}

export interface StepFacts {
  name: string;
  /** Unknown for a webhook known only from an error text that does not say its kind. */
  kind: ConfigurationKind | undefined;
  cause: CauseCodeOf<'ADMISSION_WEBHOOK_BROKEN'>;
  /** Karpenter created it (its names or chart labels): only then may the delete be the fix. */
  karpenters: boolean;
  /** Why nothing will answer it, when the capture proves it. */
  deleteProven: string | undefined;
  /** The controller's version, when the capture says it. */
  version: string | undefined;
  /** Whether that version serves webhooks (< v1.0), when known. */
  servesWebhooks: boolean | undefined;
  /** A pod or Deployment still running a Karpenter before v1.0 beside a v1 one (it re-creates the configurations). */
  older: OlderController | undefined;
  controller: { namespace: string; deployment: string };
  target: Target | undefined;
  /** Whether the configuration itself is in the capture (else the error text named it). */
  captured: boolean;
  /** The Argo CD application that renders it (`argocd.argoproj.io/instance`), which would put it back. */
  gitops: string | undefined;
}

const resourceOf = (kind: ConfigurationKind) => kind.toLowerCase();

export function webhookSteps(f: StepFacts): string[] {
  const del = f.kind ? `kubectl delete ${resourceOf(f.kind)} ${shellQuote(f.name)}` : undefined;
  const look = f.kind
    ? `kubectl get ${resourceOf(f.kind)} ${shellQuote(f.name)} -o yaml`
    : 'kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations';
  const steps: string[] = [];
  if (!f.captured) steps.push(commandStep(`Confirm that ${f.name} is still registered`, look));
  if (f.karpenters && f.deleteProven && del) {
    steps.push(
      commandStep(
        `${f.deleteProven}: nothing will answer ${f.name}, so delete it (Karpenter's v1 migration guide lists its webhook configurations among those to remove by hand)`,
        del,
      ),
    );
    if (f.gitops) {
      steps.push(
        `Argo CD application ${f.gitops} rendered it: drop it from what that application renders (or let it prune), or it comes back.`,
      );
    }
    return steps;
  }
  const { namespace, deployment } = f.controller;
  if (f.karpenters && f.older) {
    const o = f.older;
    steps.push(
      commandStep(
        `FIRST: ${o.kind} ${o.namespace}/${o.name} still runs Karpenter v${o.version}, which serves ${f.name} and re-creates it: is it still running, and what owns it`,
        o.kind === 'pod'
          ? `kubectl get pod -n ${shellQuote(o.namespace)} ${shellQuote(o.name)} -o jsonpath='{.metadata.ownerReferences[*].name} {.spec.containers[*].image}'`
          : `kubectl get deployment -n ${shellQuote(o.namespace)} ${shellQuote(o.name)} -o jsonpath='{.spec.template.spec.containers[*].image}'`,
      ),
    );
  } else if (f.karpenters && f.servesWebhooks === undefined && f.version === undefined) {
    steps.push(
      commandStep(
        'FIRST: which Karpenter runs. v1.0 and later serve no admission webhook, so from v1.0 on this configuration is a leftover',
        `kubectl get deployment -n ${shellQuote(namespace)} ${shellQuote(deployment)} -o jsonpath='{.spec.template.spec.containers[*].image}'`,
      ),
    );
  }
  steps.push(...checks(f, look));
  if (f.karpenters && del && f.servesWebhooks !== true) {
    steps.push(
      commandStep(
        f.older
          ? `once no pod or Deployment runs a Karpenter before v1.0: nothing serves ${f.name}, delete it`
          : `if the controller is v1.0 or later, v0.33–v0.37 without DISABLE_WEBHOOK=false, or older with DISABLE_WEBHOOK=true: nothing serves ${f.name}, delete it`,
        del,
      ),
    );
  }
  steps.push(...repairs(f));
  return steps;
}

/** What tells this cause from the others. */
function checks(f: StepFacts, look: string): string[] {
  const t = f.target;
  switch (f.cause) {
    case 'SERVICE_MISSING':
      return t
        ? [
            commandStep(
              `Does Service ${t.namespace}/${t.name} exist, and expose port ${t.port}?`,
              `kubectl get service -n ${shellQuote(t.namespace)} ${shellQuote(t.name)} -o yaml`,
            ),
          ]
        : [commandStep('Which Service does it call?', look)];
    case 'NO_ENDPOINTS':
      return t
        ? [
            commandStep(
              `Which pods serve Service ${t.namespace}/${t.name}, and on which ports (the API server wants a ready one on the port named like the Service's)`,
              `kubectl get endpointslices -n ${shellQuote(t.namespace)} -l kubernetes.io/service-name=${shellQuote(t.name)} -o yaml`,
            ),
          ]
        : [commandStep('Which Service does it call?', look)];
    case 'CERTIFICATE_INVALID':
      return [
        commandStep(
          `Which keys the webhook's certificate Secret holds (names only): Karpenter's webhook needs ca-cert.pem, server-cert.pem and server-key.pem`,
          `kubectl get secret -n ${shellQuote(t?.namespace ?? f.controller.namespace)} ${shellQuote(`${t?.name ?? 'karpenter'}-cert`)} -o go-template='{{range $k, $v := .data}}{{$k}}{{"\\n"}}{{end}}'`,
        ),
      ];
    default:
      return [commandStep('What it calls, and with which CA bundle', look)];
  }
}

/** The repair of a webhook that should answer (a pre-v1 controller that serves it). */
function repairs(f: StepFacts): string[] {
  if (!f.karpenters) {
    return [
      `${f.name} is not Karpenter's: whoever installed it must repair it (or delete it); while it cannot answer, the API server refuses the Karpenter writes its rules cover.`,
    ];
  }
  if (f.servesWebhooks === false) return [];
  const { namespace, deployment } = f.controller;
  switch (f.cause) {
    case 'NO_ENDPOINTS':
      return [
        `if the controller serves webhooks (before v1.0) and no pod of it is ready: that is the fault to repair (the KARPENTER_CONTROLLER_* findings say why it is down).`,
      ];
    case 'CERTIFICATE_INVALID':
      return [
        commandStep(
          'if the controller serves webhooks (before v1.0): on start its certificate reconciler fills the Secret and writes the CA into the configuration again',
          `kubectl rollout restart deployment -n ${shellQuote(namespace)} ${shellQuote(deployment)}`,
        ),
      ];
    default:
      return [];
  }
}
