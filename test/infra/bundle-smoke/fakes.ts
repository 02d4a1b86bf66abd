/**
 * The AWS APIs and the Slack webhook a bundle talks to, faked on 127.0.0.1 at the wire level: the
 * bundled SDK serialises, signs, sends and parses exactly as it does in Lambda. Each fake records
 * every request; an unexpected one is answered 400 (and stays in the record for the test to see).
 */
import { createHash, randomUUID } from 'node:crypto';
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

const TLS_DIR = new URL('../../../src/simulator/tls/', import.meta.url);
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

export interface FakeCluster {
  name: string;
  status: string;
  tags: Record<string, string>;
}

/** EKS (REST JSON): ListClusters and DescribeCluster. */
export function eksApi(clusters: readonly FakeCluster[]): Answerer {
  return ({ method, path }) => {
    const url = new URL(path, 'http://eks');
    if (method === 'GET' && url.pathname === '/clusters') return json(200, { clusters: clusters.map((c) => c.name) });
    const name = /^\/clusters\/([^/]+)$/.exec(url.pathname)?.[1];
    const cluster = clusters.find((c) => c.name === decodeURIComponent(name ?? ''));
    if (method === 'GET' && cluster)
      return json(200, {
        cluster: {
          ...cluster,
          arn: `arn:aws:eks:eu-west-1:111122223333:cluster/${cluster.name}`,
          version: '1.32',
          createdAt: 1_767_225_600,
          accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
        },
      });
    return json(404, { message: `no such cluster: ${method} ${path}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
  };
}

/** SQS (AWS JSON 1.0): SendMessageBatch, every entry accepted with the MD5 the SDK checks. */
export function sqsApi(): Answerer {
  return ({ headers, body }) => {
    if (headers['x-amz-target'] !== 'AmazonSQS.SendMessageBatch')
      return awsJsonError('1.0', 'com.amazonaws.sqs#UnsupportedOperation', `unexpected ${String(headers['x-amz-target'])}`);
    const { Entries = [] } = JSON.parse(body) as { Entries?: { Id: string; MessageBody: string }[] };
    const Successful = Entries.map((e) => ({ Id: e.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(e.MessageBody) }));
    return { status: 200, contentType: 'application/x-amz-json-1.0', body: JSON.stringify({ Successful, Failed: [] }) };
  };
}

/** SSM (AWS JSON 1.1): GetParameter of one SecureString. */
export function ssmApi(name: string, value: string): Answerer {
  return ({ headers, body }) => {
    const request = JSON.parse(body || '{}') as { Name?: string };
    if (headers['x-amz-target'] !== 'AmazonSSM.GetParameter' || request.Name !== name)
      return awsJsonError('1.1', 'ParameterNotFound', `unexpected ${String(headers['x-amz-target'])} ${String(request.Name)}`);
    const Parameter = {
      Name: name,
      Type: 'SecureString',
      Value: value,
      Version: 3,
      LastModifiedDate: 1_767_225_600,
      ARN: `arn:aws:ssm:eu-west-1:111122223333:parameter${name}`,
      DataType: 'text',
    };
    return { status: 200, contentType: 'application/x-amz-json-1.1', body: JSON.stringify({ Parameter }) };
  };
}

/** A Slack incoming webhook answering every post with `status` (Slack answers 200 `ok`). */
export function slackWebhook(status: () => number): Answerer {
  return () => {
    const code = status();
    return { status: code, contentType: 'text/plain', body: code === 200 ? 'ok' : 'internal_error' };
  };
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): FakeAnswer {
  return { status, contentType: 'application/json', headers, body: JSON.stringify(value) };
}

function awsJsonError(version: '1.0' | '1.1', type: string, message: string): FakeAnswer {
  return { status: 400, contentType: `application/x-amz-json-${version}`, body: JSON.stringify({ __type: type, message }) };
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}
