import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The project's docs/ folder beside the running CLI: the checkout's (src/cli/ → docs/), the
 * installed package's (dist/cli/ → docs/, shipped by package.json `files`) or the single
 * executable's (unpacked with its examples, scripts/build-cli.ts). The project names no public
 * repository, so there is no URL to give instead.
 */
const DOCS_ROOT = new URL('../../docs/', import.meta.url);

/**
 * Where the reader finds `docs/<name>`: its absolute path when the file is there (so a user of the
 * installed package or the binary can open it), else the path inside the project.
 */
export function docReference(name: string): string {
  const file = fileURLToPath(new URL(name, DOCS_ROOT));
  return existsSync(file) ? file : `docs/${name}`;
}
