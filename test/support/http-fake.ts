/**
 * A recording HTTP(S) server on 127.0.0.1: every request is kept (method, path, headers, body) and
 * answered by the test's `Answerer`. The bundle smoke test fakes AWS APIs with it, the function
 * tests Slack's webhook.
 */
import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeAnswer {
  status: number;
  contentType?: string;
  headers?: Record<string, string>;
  body: string;
}

export interface FakeServer {
  /** `http://127.0.0.1:<port>` (or https). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Answerer = (request: RecordedRequest) => FakeAnswer;

const TLS_DIR = new URL('../../src/simulator/tls/', import.meta.url);
/** The simulator's test CA: give a child `NODE_EXTRA_CA_CERTS=<this>` so it verifies the fake's certificate. */
export const TEST_CA_FILE = new URL('ca.crt', TLS_DIR).pathname;

export function startHttpFake(answer: Answerer): Promise<FakeServer> {
  return listen('http', http.createServer(), answer);
}

/** HTTPS with the simulator's certificate (SAN IP:127.0.0.1), signed by TEST_CA_FILE. */
export function startHttpsFake(answer: Answerer): Promise<FakeServer> {
  const tls = { cert: readFileSync(new URL('server.crt', TLS_DIR)), key: readFileSync(new URL('server.key', TLS_DIR)) };
  return listen('https', https.createServer(tls), answer);
}

async function listen(scheme: string, server: http.Server, answer: Answerer): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const { status, contentType = 'application/json', headers = {}, body } = answer(recorded);
      res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
