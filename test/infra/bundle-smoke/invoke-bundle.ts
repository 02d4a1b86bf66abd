/**
 * Child process of bundle-smoke.test.ts: one cold start and one invocation of a built bundle.
 *
 *   node invoke-bundle.ts <dist/<fn>/index.mjs> <event.json>
 *
 * The bundle reads its configuration when it is imported, so the parent sets the environment before
 * spawning. stdout: the bundle's log lines, then `{"result": <handler's response>}`. A rejection is
 * one line on stderr and exit 1. Any TCP connection to a host other than 127.0.0.1 is refused and
 * reported on stderr (`network guard: ...`), so a test cannot pass by reaching a real endpoint.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '../../support/lambda.ts';

const NETWORK_GUARD = 'network guard';
const ALLOWED_HOST = '127.0.0.1';

type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

/** Where `Socket#connect` was asked to go: `net.connect` passes its normalised `[options, cb]` array. */
function hostOf(args: readonly unknown[]): string | undefined {
  const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'number') return typeof args[1] === 'string' ? args[1] : 'localhost';
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: unknown; path?: unknown };
    if (typeof options.path === 'string') return undefined; // a local socket file, not the network
    return typeof options.host === 'string' ? options.host : 'localhost';
  }
  return undefined; // connect(path): a local socket file
}

/** Every TCP connection (http, https, fetch, tls) goes through `Socket#connect`. */
function guardNetwork(): void {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const host = hostOf(args);
    if (host !== undefined && host !== ALLOWED_HOST) {
      process.stderr.write(`${NETWORK_GUARD}: refused a connection to ${host}\n`);
      const refused = new Error(`${NETWORK_GUARD}: connection to ${host} refused (only ${ALLOWED_HOST} is allowed)`);
      process.nextTick(() => this.destroy(refused));
      return this;
    }
    return Reflect.apply(connect, this, args) as net.Socket;
  } as typeof connect;
}

async function main(bundleFile: string, eventFile: string): Promise<number> {
  guardNetwork();
  const event: unknown = JSON.parse(readFileSync(eventFile, 'utf8'));
  try {
    const bundle = (await import(pathToFileURL(bundleFile).href)) as { handler?: Handler };
    if (typeof bundle.handler !== 'function') throw new TypeError(`${bundleFile} exports no handler function`);
    const result = await bundle.handler(event, lambdaContext());
    process.stdout.write(`${JSON.stringify({ result: result ?? null })}\n`);
    return 0;
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stderr.write(`${text.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
}

const [bundleFile, eventFile] = process.argv.slice(2);
if (bundleFile === undefined || eventFile === undefined) {
  process.stderr.write('usage: invoke-bundle.ts <bundle.mjs> <event.json>\n');
  process.exitCode = 2;
} else {
  process.exitCode = await main(bundleFile, eventFile);
}
