import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under src/, as a path relative to the repository. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// `import … from '…'`, `export … from '…'` (type-only included), `import '…'` and `import('…')`.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)'([^']+)'/g;

/** The import graph of src/: file → the src files it imports (relative specifiers only). */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1]!;
      if (!specifier.startsWith('.')) continue;
      targets.add(relative(root, resolve(dirname(file), specifier)));
    }
    graph.set(relative(root, file), [...targets]);
  }
  return graph;
}

/** One cycle of the graph (as a path that starts and ends at the same file), or undefined. */
export function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.get(node) !== undefined) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

describe('import graph of src/', () => {
  const root = resolve(import.meta.dirname, '../..');

  it('sees the imports (type-only ones too)', () => {
    const graph = importGraph(root);
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/cli/main.ts')?.length).toBeGreaterThan(0);
  });

  it('has no import cycle', () => {
    const cycle = findCycle(importGraph(root));
    expect(cycle?.join('\n  → '), `import cycle:\n  ${cycle?.join('\n  → ')}`).toBeUndefined();
  });

  it('finds a planted cycle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(findCycle(graph)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });
});
