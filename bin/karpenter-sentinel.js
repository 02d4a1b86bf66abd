#!/usr/bin/env node
// Runs the TypeScript CLI directly (Node >= 22.18 strips types natively). Checked first, so an
// older Node fails with one clear line instead of a syntax error.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `karpenter-sentinel: needs Node.js >= 22.18, this is ${process.version}; run it through npm (npx karpenter-sentinel, npm run demo) to use the project's Node 22\n`,
  );
  process.exit(2);
}
const { runCli } = await import('../src/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
