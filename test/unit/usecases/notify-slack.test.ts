import { describe, expect, it } from 'vitest';
import type { WebhookPoster, WebhookResponse } from '../../../src/ports/notify.ts';
import { jsonLogger } from '../../../src/support/logger.ts';
import {
  DEFAULT_RETRY_TIMING,
  SlackDeliveryError,
  slackNotifier,
  type NotifySlackDependencies,
  type SlackDelivery,
} from '../../../src/usecases/notify-slack.ts';

const URL_VALUE = 'https://hooks.slack.com/services/T0EXAMPLE/B0EXAMPLE/s3cr3tT0k3nXYZ';

/** Answers the scripted responses in turn (an Error rejects, as a network failure would), then 200. */
class ScriptedPoster implements WebhookPoster {
  readonly posts: { url: string; body: string }[] = [];
  readonly #script: (WebhookResponse | Error)[];
  constructor(...script: (WebhookResponse | Error)[]) {
    this.#script = script;
  }
  async post(url: string, body: string): Promise<WebhookResponse> {
    this.posts.push({ url, body });
    const next = this.#script.shift() ?? { status: 200 };
    if (next instanceof Error) throw next;
    return next;
  }
}

function setup(poster: WebhookPoster, overrides: Partial<NotifySlackDependencies> = {}) {
  const waits: number[] = [];
  const logs: string[] = [];
  const deps: NotifySlackDependencies = {
    webhookUrl: { webhookUrl: async () => URL_VALUE },
    poster,
    clock: { now: () => new Date(0), sleep: async (ms) => void waits.push(ms) },
    logger: jsonLogger({}, (line) => logs.push(line)),
    maxAttempts: 5,
    random: () => 1,
    ...overrides,
  };
  return { notify: slackNotifier(deps), waits, logs };
}

const message = (messageId: string, text = 'hello'): SlackDelivery => ({ messageId, message: text, attributes: {} });

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('expected a rejection');
  return error;
}

describe('slackNotifier retries', () => {
  it('doubles the backoff after each 5xx, up to its ceiling', async () => {
    // Prepare
    const poster = new ScriptedPoster(...Array.from({ length: 7 }, () => ({ status: 503 })));
    const { notify, waits } = setup(poster, { maxAttempts: 8 });

    // Act
    const result = await notify([message('m-1')]);

    // Assess
    expect(result).toEqual({ posted: 1, attempts: 8 });
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('puts each backoff to chance below its ceiling (full jitter)', async () => {
    // Prepare
    const poster = new ScriptedPoster({ status: 502 }, { status: 502 });
    const { notify, waits } = setup(poster, { random: () => 0.25 });

    // Act
    await notify([message('m-1')]);

    // Assess
    expect(waits).toEqual([125, 250]);
  });

  it('caps a long Retry-After, and backs off when a 429 gives none', async () => {
    // Prepare
    const poster = new ScriptedPoster({ status: 429, retryAfterSeconds: 3600 }, { status: 429 });
    const { notify, waits } = setup(poster);

    // Act
    await notify([message('m-1')]);

    // Assess
    expect(waits).toEqual([DEFAULT_RETRY_TIMING.maxRetryAfterMs, 1000]);
  });

  it.each([
    [400, 'invalid_payload'],
    [403, 'action_prohibited'],
    [410, 'channel_is_archived'],
  ])('does not retry %i %s', async (status, body) => {
    // Prepare
    const poster = new ScriptedPoster({ status, body } as WebhookResponse);
    const { notify, waits } = setup(poster);

    // Act
    const error = await rejectionOf(notify([message('m-1')]));

    // Assess
    expect(error.message).toBe(`1 of 1 message(s) not posted to Slack: m-1: ${status} ${body} (not retried)`);
    expect(poster.posts).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('posts the other messages when one fails, then fails naming it', async () => {
    // Prepare
    const poster = new ScriptedPoster({ status: 200 }, { status: 400 }, { status: 200 });
    const { notify } = setup(poster);

    // Act
    const error = await rejectionOf(notify([message('m-1'), message('m-2'), message('m-3')]));

    // Assess
    expect(poster.posts).toHaveLength(3);
    expect(error).toBeInstanceOf(SlackDeliveryError);
    expect((error as SlackDeliveryError).failedMessageIds).toEqual(['m-2']);
    expect(error.message).toBe('1 of 3 message(s) not posted to Slack: m-2: 400 (not retried)');
  });

  it('removes the URL from a network error before it is logged or thrown', async () => {
    // Prepare
    const poster = new ScriptedPoster(new Error(`getaddrinfo ENOTFOUND for ${URL_VALUE}`));
    const { notify, logs } = setup(poster, { maxAttempts: 2 });

    // Act
    await notify([message('m-1')]);

    // Assess
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('network error: getaddrinfo ENOTFOUND for [webhook URL]');
    expect(logs[0]).not.toContain('s3cr3t');
  });
});

describe('slackNotifier webhook URL', () => {
  it('fails the invocation when the URL cannot be read, and reads it again next time', async () => {
    // Prepare
    let reads = 0;
    const webhookUrl = {
      webhookUrl: async () => {
        reads++;
        if (reads === 1) throw new Error('GetParameter /karpenter-sentinel/slack failed: AccessDeniedException: denied');
        return URL_VALUE;
      },
    };
    const poster = new ScriptedPoster();
    const { notify } = setup(poster, { webhookUrl });

    // Act
    const first = await rejectionOf(notify([message('m-1')]));
    const second = await notify([message('m-1')]);

    // Assess
    expect(first.message).toBe('GetParameter /karpenter-sentinel/slack failed: AccessDeniedException: denied');
    expect(second.posted).toBe(1);
    expect(poster.posts).toHaveLength(1);
    expect(reads).toBe(2);
  });

  it('reads the URL again on the next invocation after a 404, when the first re-read was unchanged', async () => {
    // Prepare
    let reads = 0;
    const webhookUrl = {
      webhookUrl: async () => {
        reads++;
        return reads <= 2 ? URL_VALUE : `${URL_VALUE}-rotated`;
      },
    };
    const poster = new ScriptedPoster({ status: 404 });
    const { notify } = setup(poster, { webhookUrl });

    // Act
    await rejectionOf(notify([message('m-1')]));
    await notify([message('m-1')]);

    // Assess
    expect(poster.posts.map((p) => p.url)).toEqual([URL_VALUE, `${URL_VALUE}-rotated`]);
  });
});
