/** Words built from counts and sentences, said alike by every rendering (CLI, alerts, cleanup lines, notices). */

/** `1 instance`, `3 instances`: the cleanup's lines and the CLI drawing its result count things alike. */
export function counted(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

/** `Restart applied`: a sentence's first letter in capitals (titles and lines built from words). */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
