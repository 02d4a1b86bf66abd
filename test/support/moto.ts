/**
 * moto_server (pip install 'moto[server]') on 127.0.0.1 as the AWS endpoint: the real SDK, its
 * real protocol and serialisation, no account.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface Moto {
  endpoint: string;
  close(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  let exited: string | undefined;
  child.once('exit', (code) => (exited = `moto_server exited (${String(code)})`));
  child.once('error', (error) => (exited = `moto_server could not start: ${error.message} (pip install 'moto[server]')`));
  for (let attempt = 0; attempt < 150; attempt++) {
    if (exited) throw new Error(exited);
    try {
      await fetch(`${endpoint}/moto-api/`);
      return { endpoint, close: () => child.kill() };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill();
  throw new Error('moto_server did not answer within 15 s');
}
