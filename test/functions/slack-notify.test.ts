import type { SNSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FetchWebhookPoster } from '../../src/adapters/http/webhook-poster.ts';
import { slackPayloadOf } from '../../src/notify/slack-message.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { WebhookUrlSource } from '../../src/ports/notify.ts';
import { createSlackNotifyHandler, type SlackNotifyDependencies } from '../../src/service/handlers/slack-notify.ts';
import { jsonLogger } from '../../src/support/logger.ts';
import { SlackDeliveryError } from '../../src/usecases/notify-slack.ts';
import { startHttpFake, type FakeServer, type RecordedRequest } from '../support/http-fake.ts';
import { lambdaContext, sampleEvent } from '../support/lambda.ts';

const SECRET_PATH = '/services/T0EXAMPLE/B0EXAMPLE/s3cr3tT0k3nXYZ';
const MAX_ATTEMPTS = 3;

interface SlackReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** Plays Slack's incoming-webhook endpoint on 127.0.0.1: answers the queued replies in turn, then `200 ok`. */
class FakeSlack {
  readonly #replies: SlackReply[] = [];
  #server: FakeServer | undefined;

  get posts(): RecordedRequest[] {
    return this.#server?.requests ?? [];
  }

  async start(): Promise<void> {
    this.#server = await startHttpFake(() => {
      const { status, body = '', headers = {} } = this.#replies.shift() ?? { status: 200, body: 'ok' };
      return { status, contentType: 'text/html', headers, body };
    });
  }

  url(path = SECRET_PATH): string {
    return `${this.#server?.url ?? ''}${path}`;
  }

  reply(...replies: SlackReply[]): void {
    this.#replies.push(...replies);
  }

  async stop(): Promise<void> {
    await this.#server?.close();
  }
}

/** A webhook URL source answering the given URLs in turn (the last one again and again), counting reads. */
function webhookUrls(...urls: string[]): WebhookUrlSource & { reads: number } {
  const source = {
    reads: 0,
    webhookUrl: async () => {
      source.reads++;
      return urls[Math.min(source.reads - 1, urls.length - 1)] ?? '';
    },
  };
  return source;
}

let slack: FakeSlack;
let logLines: string[];
let waits: number[];

beforeEach(async () => {
  slack = new FakeSlack();
  await slack.start();
  logLines = [];
  waits = [];
});
afterEach(() => slack.stop());

function dependencies(webhookUrl: WebhookUrlSource): SlackNotifyDependencies {
  const clock: Clock = {
    now: () => new Date('2026-01-01T01:00:05Z'),
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
  return {
    webhookUrl,
    poster: new FetchWebhookPoster(),
    clock,
    logger: jsonLogger({}, (line) => logLines.push(line)),
    maxAttempts: MAX_ATTEMPTS,
    random: () => 0.5,
  };
}

async function rejectionOf(invocation: Promise<unknown>): Promise<Error> {
  const error = await invocation.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('expected the invocation to reject');
  return error;
}

function expectNoTraceOfTheUrl(...texts: string[]): void {
  for (const text of [...texts, ...logLines]) {
    expect(text).not.toContain('s3cr3tT0k3nXYZ');
    expect(text).not.toContain(slack.url());
  }
}

describe('slack-notify handler', () => {
  it('posts the alert once, as Block Kit JSON, to the webhook', async () => {
    // Prepare
    const event = sampleEvent<SNSEvent>('slack-notify.alert');
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(slack.url())));

    // Act
    const result = await handler(event, lambdaContext());

    // Assess
    expect(result).toEqual({ posted: 1, attempts: 1 });
    expect(slack.posts).toHaveLength(1);
    const [post] = slack.posts;
    expect(post?.path).toBe(SECRET_PATH);
    expect(post?.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(post?.body ?? '{}') as { text: string; blocks: { type: string; text?: { text: string } }[] };
    expect(body.text).toBe('[critical] aws-2026-eks: 2 NodeClaims of NodePool default launched but never registered a Node');
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(body.blocks[0]?.text?.text).toBe(
      ':red_circle: aws-2026-eks: 2 NodeClaims of NodePool default launched but never registered a Node',
    );
    expect(body.blocks[2]?.text?.text).toContain('```\neksctl create iamidentitymapping --cluster aws-2026-eks');
    const sns = event.Records[0]?.Sns;
    expect(body).toEqual(
      slackPayloadOf({
        message: sns?.Message ?? '',
        attributes: { severity: 'critical', cluster: 'aws-2026-eks', code: 'NODECLAIM_NOT_REGISTERED', event: 'opened' },
      }),
    );
    expect(waits).toEqual([]);
    expectNoTraceOfTheUrl();
  });

  it('posts the resolved alert and a plain-text message', async () => {
    // Prepare
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(slack.url())));

    // Act
    await handler(sampleEvent<SNSEvent>('slack-notify.resolved'), lambdaContext());
    await handler(sampleEvent<SNSEvent>('slack-notify.plain-text'), lambdaContext());

    // Assess
    expect(slack.posts).toHaveLength(2);
    const [resolved, plain] = slack.posts.map((p) => JSON.parse(p.body) as { text: string; blocks?: unknown[] });
    expect(resolved?.text).toMatch(/^\[resolved\] aws-2026-eks: /);
    expect(plain).toEqual({
      text: 'Test from ops\nTest message from the AWS console: checking the karpenter-sentinel alert topic reaches Slack &lt;!channel&gt; &amp; friends.',
    });
  });

  it('posts a CloudWatch alarm of the service as a readable message, not its JSON', async () => {
    // Prepare
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(slack.url())));

    // Act
    const result = await handler(sampleEvent<SNSEvent>('slack-notify.cloudwatch-alarm'), lambdaContext());

    // Assess
    expect(result).toEqual({ posted: 1, attempts: 1 });
    const body = JSON.parse(slack.posts[0]?.body ?? '{}') as {
      text: string;
      blocks: { type: string; text?: { text: string } }[];
    };
    expect(body.text).toBe('ALARM: karpenter-sentinel-prod-scan-dlq-not-empty');
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(body.blocks[0]?.text?.text).toBe(':rotating_light: ALARM: karpenter-sentinel-prod-scan-dlq-not-empty');
    expect(body.blocks[1]?.text?.text).toMatch(/^Scan messages that could not be processed \(malformed\) reached the scan DLQ/);
    expect(body.blocks[2]?.text?.text).toMatch(/^\*Reason:\* Threshold Crossed: 1 out of the last 1 datapoints/);
    expect(slack.posts[0]?.body).not.toContain('AlarmArn');
  });

  it('reads the webhook URL once per cold start', async () => {
    // Prepare
    const urls = webhookUrls(slack.url());
    const handler = createSlackNotifyHandler(dependencies(urls));

    // Act
    await handler(sampleEvent<SNSEvent>('slack-notify.alert'), lambdaContext());
    await handler(sampleEvent<SNSEvent>('slack-notify.resolved'), lambdaContext());

    // Assess
    expect(slack.posts).toHaveLength(2);
    expect(urls.reads).toBe(1);
  });

  it('waits as long as a 429 says (Retry-After: 1), then posts again', async () => {
    // Prepare
    slack.reply({ status: 429, body: 'rate_limited', headers: { 'retry-after': '1' } }, { status: 200, body: 'ok' });
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(slack.url())));

    // Act
    const result = await handler(sampleEvent<SNSEvent>('slack-notify.alert'), lambdaContext());

    // Assess
    expect(result).toEqual({ posted: 1, attempts: 2 });
    expect(slack.posts).toHaveLength(2);
    expect(slack.posts[1]?.body).toBe(slack.posts[0]?.body);
    expect(waits).toEqual([1000]);
    expect(logLines.some((l) => l.includes('"problem":"429 rate_limited"'))).toBe(true);
  });

  it('fails the invocation after maxAttempts 500s, so Lambda retries it and then sends it to the DLQ', async () => {
    // Prepare
    slack.reply(...Array.from({ length: MAX_ATTEMPTS }, () => ({ status: 500, body: 'rollup_error' })));
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(slack.url())));

    // Act
    const error = await rejectionOf(handler(sampleEvent<SNSEvent>('slack-notify.alert'), lambdaContext()));

    // Assess
    expect(error).toBeInstanceOf(SlackDeliveryError);
    expect(error.message).toBe(
      `1 of 1 message(s) not posted to Slack: 6f1c0e52-1b7a-5d3e-9a44-2f0b8c7d6e15: 500 rollup_error after ${MAX_ATTEMPTS} attempts`,
    );
    expect(slack.posts).toHaveLength(MAX_ATTEMPTS);
    // Exponential backoff with full jitter (random() = 0.5: half of 500 ms, then of 1000 ms).
    expect(waits).toEqual([250, 500]);
    expect(logLines.at(-1)).toContain('"message":"invocation failed"');
    expectNoTraceOfTheUrl(error.message);
  });

  it('fails after one post on 404 no_service: a permanent answer is not retried', async () => {
    // Prepare
    slack.reply({ status: 404, body: 'no_service' });
    const urls = webhookUrls(slack.url());
    const handler = createSlackNotifyHandler(dependencies(urls));

    // Act
    const error = await rejectionOf(handler(sampleEvent<SNSEvent>('slack-notify.alert'), lambdaContext()));

    // Assess
    expect(error.message).toBe(
      '1 of 1 message(s) not posted to Slack: 6f1c0e52-1b7a-5d3e-9a44-2f0b8c7d6e15: 404 no_service (not retried)',
    );
    expect(slack.posts).toHaveLength(1);
    expect(waits).toEqual([]);
    // Read again in case the secret was rotated; it was not, so no second post.
    expect(urls.reads).toBe(2);
    expectNoTraceOfTheUrl(error.message);
  });

  it('posts with the new URL at once when a 403 follows a rotated secret', async () => {
    // Prepare
    slack.reply({ status: 403, body: 'invalid_token' });
    const rotated = slack.url('/services/T0EXAMPLE/B0NEW/n3wT0k3n');
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(slack.url(), rotated)));

    // Act
    const result = await handler(sampleEvent<SNSEvent>('slack-notify.alert'), lambdaContext());

    // Assess
    expect(result).toEqual({ posted: 1, attempts: 2 });
    expect(slack.posts.map((p) => p.path)).toEqual([SECRET_PATH, '/services/T0EXAMPLE/B0NEW/n3wT0k3n']);
    expect(waits).toEqual([]);
    expectNoTraceOfTheUrl();
  });

  it('retries network errors and fails naming the error, never the URL', async () => {
    // Prepare: nothing listens there any more.
    const closed = new FakeSlack();
    await closed.start();
    const deadUrl = closed.url();
    await closed.stop();
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(deadUrl)));

    // Act
    const error = await rejectionOf(handler(sampleEvent<SNSEvent>('slack-notify.alert'), lambdaContext()));

    // Assess
    expect(error.message).toMatch(/: network error: ECONNREFUSED after 3 attempts$/);
    expect(waits).toHaveLength(MAX_ATTEMPTS - 1);
    for (const text of [error.message, ...logLines]) {
      expect(text).not.toContain('s3cr3tT0k3nXYZ');
      expect(text).not.toContain(deadUrl);
    }
  });

  it('does not start a wait the invocation has no time left for', async () => {
    // Prepare
    slack.reply({ status: 429, body: 'rate_limited', headers: { 'retry-after': '20' } });
    const handler = createSlackNotifyHandler(dependencies(webhookUrls(slack.url())));

    // Act
    const error = await rejectionOf(handler(sampleEvent<SNSEvent>('slack-notify.alert'), lambdaContext({}, 25_000)));

    // Assess
    expect(error.message).toMatch(/429 rate_limited after 1 attempt \(no time left to wait 20000 ms\)$/);
    expect(slack.posts).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});
