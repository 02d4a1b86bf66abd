import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellJson, shellQuote, shellWords } from '../../../src/domain/shell.ts';

/** What /bin/sh makes of `printf %s <word>`: the one argument the word stands for. */
function shellSees(word: string): string {
  return execFileSync('/bin/sh', ['-c', `printf %s ${word}`], { encoding: 'utf8' });
}

describe('shellQuote', () => {
  it('leaves ordinary names, ids, ARNs and label selectors readable', () => {
    for (const value of [
      'karpenter',
      'i-0abc123',
      'arn:aws:iam::123456789012:role/node',
      'karpenter.sh/nodepool=default',
      'us-east-1',
    ]) {
      expect(shellQuote(value)).toBe(value);
    }
  });

  it('quotes what a shell would interpret', () => {
    expect(shellQuote("x'; touch PWNED; echo '")).toBe(String.raw`'x'\''; touch PWNED; echo '\'''`);
    expect(shellQuote('$(id)')).toBe("'$(id)'");
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote('~root')).toBe("'~root'");
    expect(shellQuote('=ls')).toBe("'=ls'");
    expect(shellQuote('')).toBe("''");
  });

  it('gives the shell back exactly the value, whatever it holds', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
        (value) => {
          expect(shellSees(shellQuote(value))).toBe(value);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps a hostile value one argument that runs nothing', () => {
    const hostile = "x'; touch PWNED; echo '";
    const args = execFileSync('/bin/sh', ['-c', `for a in ${shellWords(['a', hostile, '$(echo b)'])}; do echo "[$a]"; done`], {
      encoding: 'utf8',
    });
    expect(args).toBe(`[a]\n[${hostile}]\n[$(echo b)]\n`);
  });
});

describe('shellJson', () => {
  it('quotes a JSON argument as one word the shell hands over unchanged', () => {
    const patch = { spec: { amiSelectorTerms: [{ name: "x'; touch PWNED; echo '", owner: 'amazon' }] } };
    expect(JSON.parse(shellSees(shellJson(patch)))).toEqual(patch);
  });
});
