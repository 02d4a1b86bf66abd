/**
 * Quoting for the shell commands findings print (remediation steps, alert next steps, notes).
 * Anything that came from a capture, a cluster or an event goes through `shellQuote`: people paste
 * these commands into a terminal, so a name like `x'; touch PWNED; echo '` must arrive as one
 * argument and never run. Constants we write ourselves need no quoting.
 */

/**
 * Characters that mean nothing to a POSIX shell (nor bash or zsh) in a word, so such words stay
 * readable. Not a leading `=`: zsh expands `=name` to the path of the command `name`.
 */
const SAFE_WORD = /^(?!=)[A-Za-z0-9_./:=@%+,-]+$/;

/**
 * One shell word that stands for exactly `value` (POSIX single quotes: everything inside is
 * literal, and a `'` is written as `'\''`). Ordinary names and ids are left as they are; the empty
 * string becomes `''`.
 */
export function shellQuote(value: string): string {
  if (SAFE_WORD.test(value)) return value;
  return `'${value.replaceAll("'", String.raw`'\''`)}'`;
}

/** Several values as separate shell words: `a 'b c' d`. */
export function shellWords(values: readonly string[]): string {
  return values.map(shellQuote).join(' ');
}

/**
 * The argument of `kubectl patch -p` (or any JSON argument): built from the object by
 * JSON.stringify, then quoted as a whole, never assembled by hand.
 */
export function shellJson(value: unknown): string {
  return shellQuote(JSON.stringify(value));
}
