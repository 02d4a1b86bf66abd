import { startsWithCommand } from '../../domain/finding.ts';
import { displayWidth, wrapLine } from './wrap.ts';

/** How the table prints one line of a step. */
type StepLineKind = 'comment' | 'prose' | 'verbatim';

/**
 * `# why` lines are comments; a one-line step that does not start with a command is prose (the
 * step builders put a command first, or on the line after a `# why`); everything else (commands,
 * the YAML or JSON under them, a command with a trailing `# note`) is verbatim.
 */
function stepLineKind(step: string, index: number): StepLineKind {
  const line = step.split('\n')[index] ?? '';
  if (line.startsWith('# ')) return 'comment';
  if (index === 0 && !step.includes('\n') && !startsWithCommand(line)) return 'prose';
  return 'verbatim';
}

/**
 * A step under its number (`first`, say `    2. `) and, for its further lines, the indent `rest`.
 * Prose wraps under `rest`; a comment wraps into more `# ` lines, so selecting the comment and the
 * command still pastes; verbatim lines stay whole however wide they are.
 */
export function wrapStep(step: string, first: string, rest: string, width: number): string[] {
  return step.split('\n').flatMap((line, i) => {
    const lead = i === 0 ? first : line === '' ? '' : rest;
    const kind = stepLineKind(step, i);
    if (kind === 'verbatim' || displayWidth(lead + line) <= width) return [lead + line];
    return wrapLine(lead + line, width, kind === 'comment' ? `${rest}# ` : rest);
  });
}
