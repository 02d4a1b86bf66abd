#!/usr/bin/env node
// The command. In the checkout it runs the TypeScript sources (Node >= 22.18 strips types
// natively); an installed tarball has no sources (Node never strips types under node_modules) and
// runs the bundle `npm pack` built, dist/cli/karpenter-sentinel.mjs (scripts/build-cli.ts).
// The version is checked first, so an older Node fails with one clear line, not a syntax error.
import { existsSync } from 'node:fs';

const fromSources = existsSync(new URL('../src/cli/main.ts', import.meta.url));
// The bundle runs on any Node 22 (package.json engines); the sources need 22.18's type stripping.
const [needMinor, [major, minor]] = [fromSources ? 18 : 0, process.versions.node.split('.').map(Number)];
if (major < 22 || (major === 22 && minor < needMinor)) {
  const hint = fromSources
    ? "run it with the checkout's own Node 22 (node_modules/.bin/node bin/karpenter-sentinel.js …, or npm run demo)"
    : 'install a newer Node.js, or use the kubectl-sentinel binary, which needs none';
  process.stderr.write(`karpenter-sentinel: needs Node.js >= 22.${needMinor}, this is ${process.version}; ${hint}\n`);
  process.exit(2);
}
if (!fromSources) {
  // The bundle is one large file: V8's code cache (Node >= 22.1, kept in the temp folder) spares
  // compiling it again on every start.
  const { enableCompileCache } = await import('node:module');
  enableCompileCache?.();
}
const { runCli, programName } = await import(fromSources ? '../src/cli/main.ts' : '../dist/cli/karpenter-sentinel.mjs');
// Installed as `kubectl-sentinel` too (package.json bin): kubectl runs that for `kubectl sentinel`,
// and the usage then says what the user types (src/cli/program-name.ts, shared with the executable).
const program = programName(process.argv[1] ?? '');
const options = program === 'karpenter-sentinel' ? {} : { program };
process.exitCode = await runCli(process.argv.slice(2), undefined, {}, options);
