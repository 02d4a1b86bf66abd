import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeNote, type CliContext } from './io.ts';

/** An example's folder name: nothing that could climb out of examples/. */
const EXAMPLE_NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Capture paths with bundled examples resolved, so `scan --from healthy` (or `examples/healthy`,
 * as the docs and the demo write it) works from any folder, not only from the package's own. A path
 * that exists is always taken as it is; one that does not and names a bundled example is that
 * example, said in a note; anything else is left for the loader to refuse.
 */
export function withBundledExamples(paths: readonly string[], ctx: CliContext): string[] {
  return paths.map((given) => {
    const folder = bundledExampleFor(given, ctx.services.examplesRoot);
    if (folder === undefined) return given;
    writeNote(ctx, `note: no file or folder ${given} here: using the bundled example ${folder}`);
    return folder;
  });
}

/** The bundled example's folder `given` names, when no file or folder `given` exists here; else none. */
export function bundledExampleFor(given: string, examplesRoot: URL): string | undefined {
  if (existsSync(given)) return undefined;
  const name = given.replace(/^(\.\/)?examples\//, '').replace(/\/$/, '');
  if (!EXAMPLE_NAME.test(name)) return undefined;
  const folder = fileURLToPath(new URL(name, examplesRoot));
  return isDirectory(folder) ? folder : undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
