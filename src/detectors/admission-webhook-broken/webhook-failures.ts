/**
 * The API server's words when an admission webhook could not be called (k8s.io/apiserver: the
 * fail-closed dispatcher wraps `failed calling webhook "<name>": failed to call webhook: Post
 * "<url>": <cause>` in `Internal error occurred: ...`; servers before 1.16 left out `failed to call
 * webhook: ` and the quotes). Karpenter logs them as they came (`creating node claim, Internal error
 * occurred: ...`, a `Reconciler error`'s `error`), kubectl prints them after `Error from server
 * (InternalError): error when creating "x.yaml": `, GitOps tools after their own words. A CRD's
 * conversion webhook fails in other words (`conversion webhook for ... failed`), read by
 * CRD_CONVERSION_WEBHOOK_BROKEN: no text matches both.
 */
import { FAILED_CALLING_WEBHOOK } from '../../domain/admission-webhooks.ts';
import type { LogLine } from '../../domain/aws.ts';
import { oneLine } from '../../domain/shape.ts';
import type { ClusterSnapshot } from '../../domain/snapshot.ts';
import { logText } from '../cloud-errors/cloud-errors.ts';
import { webhookServiceOf, type WebhookService } from '../karpenter/webhook-services.ts';

/** What the text says went wrong, before the configurations are looked at. */
type FailureKind = 'SERVICE_MISSING' | 'NO_ENDPOINTS' | 'CERTIFICATE_INVALID' | 'REJECTED' | 'UNKNOWN';

export interface WebhookFailure {
  /** The webhook's name (`webhooks[].name`; Karpenter names its one webhook like its configuration). */
  webhook: string;
  /** The Service the call went to, from the URL in the text. */
  service?: WebhookService;
  kind: FailureKind;
  /** Why, in a few words, for the title. */
  why: string;
  /** The failure, one line, bounded. */
  text: string;
  /** Where it was read: `karpenter.log:12`, `event on NodePool default`, `a saved error`. */
  where: string;
  /** The write that was refused, when the text says it: `creating node claim`, `creating "nodepool.yaml"` (kubectl's). */
  write?: string;
  /** Read in Karpenter's log, or in an event about a Karpenter object: a write of Karpenter's was refused. */
  karpenterWrite: boolean;
  /** The API server refused a write (`failed calling webhook`), not a reconciler's complaint. */
  refusal: boolean;
  time?: string;
}

/** src/domain/admission-webhooks.ts's words (which the loader keeps saved errors by), then the cause. */
const FAILED_CALLING = new RegExp(`${FAILED_CALLING_WEBHOOK.source}:?[ \\t]*([^;\\r\\n]*)`, 'g');

/**
 * The causes the API server and Go's HTTP client give (k8s.io/apiserver pkg/util/proxy, apimachinery
 * errors, crypto/x509), most specific first. The service resolver's port text goes with the missing
 * Service: in both the webhook names a Service port that does not exist.
 */
const CAUSES: readonly { test: RegExp; kind: FailureKind; why: (m: RegExpExecArray) => string }[] = [
  { test: /service "([^"]+)" not found/, kind: 'SERVICE_MISSING', why: (m) => `Service ${m[1]} not found` },
  {
    test: /no service port (\d+) found for service "([^"]+)"/,
    kind: 'SERVICE_MISSING',
    why: (m) => `Service ${m[2]} has no port ${m[1]}`,
  },
  { test: /no endpoints available for service "([^"]+)"/, kind: 'NO_ENDPOINTS', why: (m) => `no pod serves Service ${m[1]}` },
  {
    test: /x509: certificate signed by unknown authority/,
    kind: 'CERTIFICATE_INVALID',
    why: () => 'its certificate is signed by an unknown authority',
  },
  {
    // apimachinery's text for an HTTP 400 without a Status body: something answered, but not this webhook.
    test: /the server rejected our request for an unknown reason/,
    kind: 'REJECTED',
    why: () => 'the server at its address rejected the call',
  },
];

/** Karpenter's words for the write the failure refused (core pkg/controllers/provisioning, kubectl's AddSourceToErr). */
const WRITE = /(creating node claim|error when (?:creating|patching|replacing|serverside-apply) "[^"\r\n]{1,200}")/;

/** knative's certificate reconciler (Karpenter ≤ v1.0) when the cert Secret lacks its CA: `secret "karpenter-cert" is missing "ca-cert.pem" key`. */
const CA_KEY_MISSING = /secret "([^"]+)" is missing "ca-cert\.pem" key/;

function failuresIn(text: string, where: string, karpenterWrite: boolean, time: string | undefined): WebhookFailure[] {
  const out: WebhookFailure[] = [];
  const write = WRITE.exec(text)?.[1]?.replace(/^error when /, '');
  for (const m of text.matchAll(FAILED_CALLING)) {
    const [whole, webhook = '', rest = ''] = m;
    const cause = CAUSES.map((c) => ({ c, m: c.test.exec(rest) })).find((x) => x.m !== null);
    const service = webhookServiceOf(rest);
    out.push({
      webhook,
      ...(service ? { service } : {}),
      kind: cause?.c.kind ?? 'UNKNOWN',
      why: cause?.m ? cause.c.why(cause.m) : 'the call failed',
      text: oneLine(whole, 400),
      where,
      ...(write ? { write } : {}),
      karpenterWrite,
      refusal: true,
      ...(time ? { time } : {}),
    });
  }
  return out;
}

/** A knative certificate error names the configuration it reconciles in `knative.dev/key`. */
function caKeyFailure(line: LogLine): WebhookFailure | undefined {
  const text = logText(line);
  const m = CA_KEY_MISSING.exec(text);
  const key = line.fields['knative.dev/key'];
  if (!m || typeof key !== 'string' || key === '') return undefined;
  return {
    webhook: key,
    kind: 'CERTIFICATE_INVALID',
    why: `Secret ${m[1]} has no ca-cert.pem`,
    text: oneLine(m[0], 400),
    where: line.origin,
    karpenterWrite: false,
    refusal: false,
    ...(line.time ? { time: line.time } : {}),
  };
}

const KARPENTER_KINDS: ReadonlySet<string> = new Set(['NodeClaim', 'NodePool', 'EC2NodeClass']);

/**
 * Every admission webhook failure in the controller's log, the events, the saved client errors (a
 * refused `kubectl apply`, Flux or Terraform output: ClusterSnapshot.refusedWrites) and the gaps'
 * errors, in that order.
 */
export function webhookFailures(snapshot: ClusterSnapshot): WebhookFailure[] {
  const { logs, events, gaps } = snapshot;
  const out: WebhookFailure[] = [];
  for (const line of logs) {
    out.push(...failuresIn(logText(line), line.origin, true, line.time));
    const ca = caKeyFailure(line);
    if (ca) out.push(ca);
  }
  for (const e of events) {
    const about = `${e.regarding.kind ?? 'object'} ${e.regarding.namespace ? `${e.regarding.namespace}/` : ''}${e.regarding.name ?? '?'}`;
    out.push(
      ...failuresIn(e.message ?? '', `event on ${about}`, KARPENTER_KINDS.has(e.regarding.kind ?? ''), e.lastTime ?? e.firstTime),
    );
  }
  for (const saved of snapshot.refusedWrites ?? []) out.push(...failuresIn(saved.text, saved.origin, false, undefined));
  for (const gap of gaps) out.push(...failuresIn(gap.error, `a saved or live error (${gap.source})`, false, undefined));
  return out;
}
