/** `1 instance`, `3 instances`: the cleanup's lines and the CLI drawing its result count things alike. */
export function counted(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}
