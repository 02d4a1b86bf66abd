/**
 * Posts alert-topic messages to a Slack incoming webhook. A message Slack did not take rejects the
 * invocation: Lambda retries the asynchronous event, then sends it to the function's on-failure
 * DLQ, so nothing is silently dropped.
 *
 * Retried here (support/retry.ts: exponential backoff with full jitter), up to `maxAttempts` posts: 429 (after
 * Retry-After, capped), 5xx, network errors and timeouts. Any other status is permanent (Slack
 * answers 400 invalid_payload, 403 invalid_token / action_prohibited, 404 no_service /
 * channel_not_found, 410 channel_is_archived): posting again would only fail again.
 *
 * The webhook URL is read once per cold start. A 403, 404 or 410 may mean the secret was rotated
 * (the old webhook revoked): the URL is read again, and when it changed the post is tried with the
 * new one at once; when it did not, the next invocation (Lambda's retry) reads it again too. The
 * URL is never logged nor put in an error: it is the webhook's only credential.
 */
import { slackPayloadOf, type TopicMessage } from '../notify/slack-message.ts';
import type { Clock } from '../ports/clock.ts';
import type { WebhookPoster, WebhookResponse, WebhookUrlSource } from '../ports/notify.ts';
import type { Logger } from '../support/logger.ts';
import { oneLine } from '../domain/shape.ts';
import { attemptsText, retry, RetriesExhaustedError } from '../support/retry.ts';

export interface RetryTiming {
  /** The first backoff's ceiling; each further one doubles, up to `maxDelayMs`. Each wait is random below its ceiling (full jitter). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A 429's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_TIMING: RetryTiming = { baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 30_000 };

/** Time kept back before the invocation's deadline for one more post (the poster's timeout and some). */
const POST_TIME_RESERVE_MS = 12_000;

export interface NotifySlackDependencies {
  webhookUrl: WebhookUrlSource;
  poster: WebhookPoster;
  /** Only its `sleep` is used: tests record the waits instead of waiting. */
  clock: Clock;
  logger: Logger;
  /** Posts per message, the first included. */
  maxAttempts: number;
  retryTiming?: RetryTiming;
  /** [0, 1): the jitter's source. */
  random?: () => number;
}

export interface SlackDelivery extends TopicMessage {
  /** The SNS MessageId: names the message in logs and errors. */
  messageId: string;
}

interface NotifySlackOptions {
  /** The invocation's remaining time: no wait is started that would leave too little for its post. */
  remainingTimeMs?: () => number;
}

export interface NotifySlackResult {
  posted: number;
  /** Posts made, retries included. */
  attempts: number;
}

/** Some messages were not posted; the message is one line (status and Slack's answer, never the URL). */
export class SlackDeliveryError extends Error {
  override name = 'SlackDeliveryError';
  readonly failedMessageIds: string[];
  constructor(message: string, failedMessageIds: string[]) {
    super(message);
    this.failedMessageIds = failedMessageIds;
  }
}

export type SlackNotifier = (messages: readonly SlackDelivery[], options?: NotifySlackOptions) => Promise<NotifySlackResult>;

/** The notifier for one cold start: it keeps the webhook URL between invocations. */
export function slackNotifier(deps: NotifySlackDependencies): SlackNotifier {
  const url = new CachedWebhookUrl(deps.webhookUrl);
  const timing = deps.retryTiming ?? DEFAULT_RETRY_TIMING;
  const random = deps.random ?? Math.random;

  /** Posts one message; resolves with the posts made, or rejects with the reason it was not taken. */
  async function deliver(message: SlackDelivery, options: NotifySlackOptions): Promise<number> {
    const body = JSON.stringify(slackPayloadOf(message));
    const log = deps.logger.with({ messageId: message.messageId });
    const { remainingTimeMs } = options;
    let rereadUrl = false;
    let posts = 0;
    try {
      await retry(
        async (attempt) => {
          posts = attempt;
          const target = await url.get();
          const outcome = await postOnce(deps.poster, target, body);
          if (outcome.kind === 'posted') return;
          if (outcome.kind === 'stale-url') {
            // Read the URL again now, and once more on the next invocation (Lambda's retry of this event).
            url.forget();
            const fresh = !rereadUrl && attempt < deps.maxAttempts ? await url.get() : target;
            rereadUrl = true;
            if (fresh !== target) {
              log.warn('Slack webhook refused the post; the webhook URL has changed, posting with the new one', {
                attempt,
                problem: outcome.problem,
              });
              throw new PostProblem({ kind: 'new-url', problem: outcome.problem });
            }
            url.forget();
          }
          throw new PostProblem(outcome);
        },
        {
          maxAttempts: deps.maxAttempts,
          ...timing,
          clock: deps.clock,
          random,
          retryable: (error) => error instanceof PostProblem && (error.kind === 'retry' || error.kind === 'new-url'),
          // With a new URL, the post is tried again at once.
          retryAfterMs: (error) =>
            error instanceof PostProblem && error.kind === 'new-url' ? 0 : (error as PostProblem).retryAfterMs,
          ...(remainingTimeMs ? { timeLeftMs: () => remainingTimeMs() - POST_TIME_RESERVE_MS } : {}),
          onRetry: ({ attempt, error, delayMs }) => {
            if (error instanceof PostProblem && error.kind === 'retry')
              log.warn('Slack post failed; retrying', { attempt, problem: error.problem, waitMs: delayMs });
          },
        },
      );
      return posts;
    } catch (error) {
      if (error instanceof RetriesExhaustedError) {
        const { problem } = error.cause as PostProblem;
        const tried = `${problem} after ${attemptsText(error.attempts)}`;
        throw new PostFailure(
          error.reason === 'attempts' ? tried : `${tried} (no time left to wait ${error.nextDelayMs} ms)`,
          error.attempts,
        );
      }
      if (error instanceof PostProblem) throw new PostFailure(`${error.problem} (not retried)`, posts);
      throw error;
    }
  }

  return async (messages, options = {}) => {
    let posted = 0;
    let attempts = 0;
    const failures: { messageId: string; problem: string }[] = [];
    // One at a time: Slack allows about one message per second per webhook.
    for (const message of messages) {
      try {
        attempts += await deliver(message, options);
        posted++;
      } catch (error) {
        if (!(error instanceof PostFailure)) throw error;
        attempts += error.attempts;
        failures.push({ messageId: message.messageId, problem: error.message });
        deps.logger.error('message not posted to Slack', { messageId: message.messageId, problem: error.message });
      }
    }
    if (failures.length > 0) {
      const first = failures[0];
      const more = failures.length > 1 ? ` (and ${failures.length - 1} more)` : '';
      throw new SlackDeliveryError(
        `${failures.length} of ${messages.length} message(s) not posted to Slack: ${first?.messageId}: ${first?.problem}${more}`,
        failures.map((f) => f.messageId),
      );
    }
    return { posted, attempts };
  };
}

type PostOutcome =
  | { kind: 'posted' }
  | { kind: 'retry'; problem: string; retryAfterMs?: number }
  | { kind: 'stale-url'; problem: string }
  | { kind: 'permanent'; problem: string };

async function postOnce(poster: WebhookPoster, url: string, body: string): Promise<PostOutcome> {
  let response: WebhookResponse;
  try {
    response = await poster.post(url, body);
  } catch (error) {
    return { kind: 'retry', problem: redact(`network error: ${error instanceof Error ? error.message : String(error)}`, url) };
  }
  const { status } = response;
  if (status >= 200 && status < 300) return { kind: 'posted' };
  const problem = redact(`${status} ${answerOf(response)}`.trim(), url);
  if (status === 429)
    return {
      kind: 'retry',
      problem,
      ...(response.retryAfterSeconds !== undefined ? { retryAfterMs: response.retryAfterSeconds * 1000 } : {}),
    };
  if (status >= 500) return { kind: 'retry', problem };
  if (status === 403 || status === 404 || status === 410) return { kind: 'stale-url', problem };
  return { kind: 'permanent', problem };
}

/** Slack's answer (`no_service`, `invalid_token`, ...) when the poster passes the response body on. */
function answerOf(response: WebhookResponse): string {
  return response.body === undefined ? '' : oneLine(response.body, 200);
}

/** No trace of the URL, whole or its secret path, in a text that may be logged. */
function redact(text: string, url: string): string {
  let path = '';
  try {
    path = new URL(url).pathname;
  } catch {
    // not a URL: only the whole string is removed
  }
  let safe = text.replaceAll(url, '[webhook URL]');
  if (path.length > 1) safe = safe.replaceAll(path, '[webhook path]');
  return oneLine(safe, 300);
}

/** One post not taken: thrown for the retry helper to judge. */
class PostProblem extends Error {
  readonly kind: 'retry' | 'new-url' | 'stale-url' | 'permanent';
  readonly problem: string;
  readonly retryAfterMs: number | undefined;
  constructor(outcome: Exclude<PostOutcome, { kind: 'posted' }> | { kind: 'new-url'; problem: string }) {
    super(outcome.problem);
    this.kind = outcome.kind;
    this.problem = outcome.problem;
    this.retryAfterMs = 'retryAfterMs' in outcome ? outcome.retryAfterMs : undefined;
  }
}

class PostFailure extends Error {
  readonly attempts: number;
  constructor(problem: string, attempts: number) {
    super(problem);
    this.attempts = attempts;
  }
}

/** One read per cold start; a failed read is not remembered, so the next call tries again. */
class CachedWebhookUrl {
  readonly #source: WebhookUrlSource;
  #url: Promise<string> | undefined;

  constructor(source: WebhookUrlSource) {
    this.#source = source;
  }

  get(): Promise<string> {
    if (this.#url === undefined) {
      const read = this.#source.webhookUrl();
      this.#url = read;
      read.catch(() => {
        if (this.#url === read) this.#url = undefined;
      });
    }
    return this.#url;
  }

  forget(): void {
    this.#url = undefined;
  }
}
