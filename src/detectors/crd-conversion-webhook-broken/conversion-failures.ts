import type { CauseCode } from '../../domain/codes.ts';
import type { Gap } from '../../domain/snapshot.ts';
import { CONVERSION_WEBHOOK_FAILED } from '../../domain/conversion-webhook.ts';
import { webhookServiceOf, type WebhookService } from '../karpenter/webhook-services.ts';

/** What the API server said when it could not convert a Karpenter object (a gap's text, saved or live). */
export interface ConversionFailure {
  group: string;
  version: string;
  kind: string;
  /** `nodeclaims.karpenter.sh`. */
  crdName: string;
  /** The Service the webhook posts to, from the URL in the error. */
  service?: WebhookService;
  cause: Extract<CauseCode, 'SERVICE_MISSING' | 'PORT_MISMATCH' | 'UNKNOWN'>;
  /** Why, in a few words, for the title. */
  why: string;
  /** The error, one line. */
  text: string;
}

const ONE = new RegExp(CONVERSION_WEBHOOK_FAILED.source);

/** The API server's reasons (k8s.io/apiserver's service resolver, the dialer, TLS), most specific first. */
const REASONS: readonly { test: RegExp; cause: ConversionFailure['cause']; why: (m: RegExpExecArray) => string }[] = [
  { test: /service "([^"]+)" not found/, cause: 'SERVICE_MISSING', why: (m) => `Service ${m[1]} not found` },
  {
    test: /no service port (\d+) found for service "([^"]+)"/,
    cause: 'PORT_MISMATCH',
    why: (m) => `Service ${m[2]} has no port ${m[1]}`,
  },
  { test: /no endpoints available for service "([^"]+)"/, cause: 'UNKNOWN', why: (m) => `no pod serves Service ${m[1]}` },
  { test: /connection refused/, cause: 'UNKNOWN', why: () => 'connection refused' },
  { test: /x509|certificate/, cause: 'UNKNOWN', why: () => 'its TLS certificate is not trusted' },
  { test: /deadline exceeded|timeout|i\/o timeout/i, cause: 'UNKNOWN', why: () => 'it did not answer in time' },
];

/** Every distinct conversion failure in the gaps, one per CRD (the first text wins). */
export function conversionFailures(gaps: readonly Gap[]): ConversionFailure[] {
  const byCrd = new Map<string, ConversionFailure>();
  for (const gap of gaps) {
    const m = ONE.exec(gap.error);
    if (!m) continue;
    const [whole, group = '', version = '', kind = ''] = m;
    const crdName = `${pluralOf(kind)}.${group}`;
    if (byCrd.has(crdName)) continue;
    const text = whole.replace(/\s+/g, ' ').trim();
    const service = webhookServiceOf(text);
    const reason = REASONS.map((r) => ({ r, m: r.test.exec(text) })).find((x) => x.m !== null);
    byCrd.set(crdName, {
      group,
      version,
      kind,
      crdName,
      ...(service ? { service } : {}),
      cause: reason?.r.cause ?? 'UNKNOWN',
      why: reason?.m ? reason.r.why(reason.m) : 'the webhook call failed',
      text,
    });
  }
  return [...byCrd.values()];
}

/** NodeClaim → nodeclaims, EC2NodeClass → ec2nodeclasses: how Karpenter's CRDs are named. */
function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  return lower.endsWith('s') ? `${lower}es` : `${lower}s`;
}
