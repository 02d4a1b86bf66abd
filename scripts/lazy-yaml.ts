import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/**
 * src/detectors/support/aws-auth.ts loads `yaml` on first use through `createRequire(import.meta.url)`,
 * which esbuild cannot follow: left alone, the bundle would look for a node_modules/yaml that an
 * installed tarball, the binary or a Lambda zip does not have. A plain `require('yaml')` is bundled (lazily still).
 */
export const LAZY_YAML: Plugin = {
  name: 'lazy-yaml',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]detectors[\\/]support[\\/]aws-auth\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const lazy = "createRequire(import.meta.url)('yaml')";
      if (!source.includes(lazy)) throw new Error(`${args.path}: expected ${lazy} (update scripts/lazy-yaml.ts)`);
      return { contents: source.replace(lazy, "require('yaml')"), loader: 'ts' };
    });
  },
};
