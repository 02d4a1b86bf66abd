/**
 * POSTs JSON to a webhook over Node's global fetch. Statuses are returned, not thrown (the caller
 * decides what to retry); only the network failing or the timeout rejects, with a message that
 * never holds the URL (for a Slack webhook, the URL is the credential).
 */
import type { WebhookPoster, WebhookResponse } from '../../ports/notify.ts';
import { oneLine } from '../../domain/shape.ts';
import { InvocationTimeoutError, withCurrent, type SignalSource } from '../../support/abort.ts';

const WEBHOOK_TIMEOUT_MS = 10_000;

export class FetchWebhookPoster implements WebhookPoster {
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #signal: SignalSource | undefined;

  /** `signal`: the invocation's AbortSignal (a Lambda function), read per POST. */
  constructor(options: { timeoutMs?: number; now?: () => number; signal?: SignalSource } = {}) {
    this.#timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.#now = options.now ?? Date.now;
    this.#signal = options.signal;
  }

  async post(url: string, body: string): Promise<WebhookResponse> {
    let response: Response;
    const invocation = this.#signal?.();
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body,
        // A redirect is returned as its status (and not retried), never followed with the body.
        redirect: 'manual',
        signal: withCurrent(() => invocation, AbortSignal.timeout(this.#timeoutMs)),
      });
    } catch (error) {
      if (invocation?.aborted) {
        throw new InvocationTimeoutError('webhook POST stopped: the invocation’s deadline', {
          cause: new WebhookNetworkError('aborted'),
        });
      }
      throw new WebhookNetworkError(networkProblem(error, this.#timeoutMs).replaceAll(url, '[webhook URL]'));
    }
    // Slack answers with a word or two; a proxy's error page is cut short.
    const text = await response.text().catch(() => '');
    const retryAfterSeconds = retryAfterOf(response.headers.get('retry-after'), this.#now());
    return {
      status: response.status,
      body: oneLine(text, 200),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  }
}

export class WebhookNetworkError extends Error {
  override name = 'WebhookNetworkError';
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterOf(header: string | null, nowMs: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** `timed out after 10 s`, `ECONNREFUSED`, `ENOTFOUND`: the cause's code, never its URL. */
function networkProblem(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `timed out after ${timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`;
  const cause = error instanceof Error ? error.cause : undefined;
  const code = cause instanceof Error && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  if (code) return code;
  return error instanceof Error ? `${error.name}: ${error.message}` : 'request failed';
}
