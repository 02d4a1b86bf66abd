import { isEksClusterName } from '../domain/aws.ts';
import { parseIsoTime, toIsoSeconds } from '../domain/kube-helpers.ts';
import type { ScanRequest } from '../ports/notify.ts';

export type ParsedScanRequest = { ok: true; request: ScanRequest } | { ok: false; problem: string };

/**
 * A scan-queue message body, checked: a malformed one is a poison message (it can never succeed),
 * so the problem is named once in the log and SQS moves it to the DLQ after its receives.
 * `requestedAt` comes back in ISO seconds, so every spelling of one tick is one idempotency key.
 */
export function parseScanRequest(body: string): ParsedScanRequest {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, problem: `body is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'body is not a JSON object like {"cluster": "...", "requestedAt": "..."}' };
  }
  const { cluster, requestedAt } = value as Record<string, unknown>;
  if (typeof cluster !== 'string' || cluster === '') return { ok: false, problem: 'body has no "cluster" (a cluster name)' };
  if (!isEksClusterName(cluster))
    return { ok: false, problem: `"cluster" ${JSON.stringify(cluster)} is not an EKS cluster name` };
  const time = typeof requestedAt === 'string' ? parseIsoTime(requestedAt) : undefined;
  if (!time) return { ok: false, problem: `"requestedAt" ${JSON.stringify(requestedAt ?? null)} is not an ISO-8601 time` };
  return { ok: true, request: { cluster, requestedAt: toIsoSeconds(time) } };
}

/** The idempotency key of one scan request: a re-delivery or a re-sent tick shares it. */
export function scanDeliveryKey(request: ScanRequest): string {
  return `scan#${request.cluster}#${request.requestedAt}`;
}
