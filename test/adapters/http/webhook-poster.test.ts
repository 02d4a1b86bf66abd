import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FetchWebhookPoster, WebhookNetworkError, retryAfterOf } from '../../../src/adapters/http/webhook-poster.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(listener: RequestListener): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T0EXAMPLE/B0EXAMPLE/s3cr3tT0k3nXYZ`;
}

describe('FetchWebhookPoster', () => {
  it('returns the status, Slack’s answer and Retry-After without throwing on an error status', async () => {
    // Prepare
    const url = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end('rate_limited');
    });

    // Act
    const response = await new FetchWebhookPoster().post(url, '{"text":"x"}');

    // Assess
    expect(response).toEqual({ status: 429, body: 'rate_limited', retryAfterSeconds: 7 });
  });

  it('rejects with a timeout that names neither the URL nor its token', async () => {
    // Prepare: a server that never answers.
    const url = await serve(() => undefined);

    // Act
    const error = await new FetchWebhookPoster({ timeoutMs: 150 }).post(url, '{}').then(
      () => undefined,
      (e: unknown) => e,
    );

    // Assess
    expect(error).toBeInstanceOf(WebhookNetworkError);
    expect((error as Error).message).toBe('timed out after 150 ms');
    expect((error as Error).message).not.toContain('s3cr3t');
  });
});

describe('retryAfterOf', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');

  it.each([
    ['30', 30],
    [' 0 ', 0],
    ['Thu, 01 Jan 2026 01:00:45 GMT', 45],
    ['Thu, 01 Jan 2026 00:59:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [null, undefined],
  ])('reads %j as %j seconds', (header, seconds) => {
    expect(retryAfterOf(header, now)).toBe(seconds);
  });
});
