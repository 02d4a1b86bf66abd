/**
 * "did you mean": the known name nearest a mistyped one (`scna` → scan, `--form` → --from), when
 * it is at most two edits away, as git and kubectl suggest. Nothing when two names tie: a guess
 * between them would be as likely wrong as right.
 */
const MAX_EDITS = 2;

function nearestName(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_EDITS + 1;
  let tie = false;
  for (const name of known) {
    const distance = editDistance(typed, name);
    if (distance < bestDistance) [best, bestDistance, tie] = [name, distance, false];
    else if (distance === bestDistance && name !== best) tie = true;
  }
  return best !== undefined && !tie ? best : undefined;
}

/** `; did you mean X?`, or nothing. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const name = nearestName(typed, known);
  return name === undefined ? '' : `; did you mean ${name}?`;
}

/** Levenshtein distance (insert, delete, substitute), over code points; long input is cut short. */
function editDistance(a: string, b: string): number {
  const [x, y] = [[...a.slice(0, 200)], [...b.slice(0, 200)]];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const substitute = (previous[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitute);
    }
    previous = current;
  }
  return previous[y.length] as number;
}
