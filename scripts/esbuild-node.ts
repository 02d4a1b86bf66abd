import type { BuildOptions } from 'esbuild';

/** Some bundled CommonJS packages call `require` for Node built-ins; ESM has none, so give them one. */
export const CJS_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * The esbuild settings every ESM bundle of ours shares (the Lambda functions and the CLI): Node 22,
 * packages' ESM builds preferred (smaller after tree shaking, and faster to import than CJS),
 * minified with class names kept, since error classes name themselves from `new.target.name`
 * (src/domain/errors.ts) and logs and Lambda's errorType would otherwise say `Uh` instead of
 * `CleanupRequestError`; license notices kept at the end (the SDK's and others' terms ask for it).
 */
export const NODE_ESM_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  minify: true,
  keepNames: true,
  legalComments: 'eof',
  banner: { js: CJS_REQUIRE_BANNER },
  logLevel: 'silent',
} as const satisfies BuildOptions;
