/** Plain HTTPS requests to the simulated API server, verifying TLS against its CA. */
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { SimulatedKubeApi } from '../../../src/simulator/kube-api-server.ts';

export interface SimResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): Record<string, unknown> & { items?: Record<string, unknown>[]; metadata?: Record<string, unknown> };
}

export interface SimRequestOptions {
  method?: string;
  body?: string | object;
  contentType?: string;
  /** `null` sends no Authorization header; default: the server's token. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** One keep-alive agent per server: a TLS handshake per request would dominate the tests' time. */
const agents = new WeakMap<SimulatedKubeApi, Agent>();

function agentFor(api: SimulatedKubeApi): Agent {
  let agent = agents.get(api);
  if (!agent) {
    agent = new Agent({ keepAlive: true, ca: api.caPem });
    agents.set(api, agent);
  }
  return agent;
}

export function call(api: SimulatedKubeApi, path: string, options: SimRequestOptions = {}): Promise<SimResponse> {
  const url = new URL(path, api.url);
  const body =
    options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const token = options.token === undefined ? api.token : options.token;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: options.method ?? 'GET',
        agent: agentFor(api),
        headers: {
          Accept: 'application/json',
          ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined
            ? {
                'Content-Type': options.contentType ?? 'application/merge-patch+json',
                'Content-Length': String(Buffer.byteLength(body)),
              }
            : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text) as ReturnType<SimResponse['json']>,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every item of a list, following `continue` tokens with the given page size. */
export async function listAll(
  api: SimulatedKubeApi,
  path: string,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; pages: number }> {
  const items: Record<string, unknown>[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page = await call(api, `${path}${separator}limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
    if (page.status !== 200) throw new Error(`page ${pages + 1}: ${page.status} ${page.text}`);
    const body = page.json();
    items.push(...(body.items ?? []));
    token = typeof body.metadata?.continue === 'string' && body.metadata.continue !== '' ? body.metadata.continue : undefined;
    pages++;
  } while (token);
  return { items, pages };
}

export function namesOf(items: readonly Record<string, unknown>[]): string[] {
  return items.map((i) => {
    const m = i.metadata as { name?: string; namespace?: string } | undefined;
    return m?.namespace ? `${m.namespace}/${m.name ?? ''}` : (m?.name ?? '');
  });
}
