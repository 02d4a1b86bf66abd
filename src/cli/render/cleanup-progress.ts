import type { CleanupProgress } from '../../domain/cleanup.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { OutputStream } from '../io.ts';
import { counted } from '../../domain/words.ts';
import { visibleLine as visible } from '../../domain/visible.ts';
import { stepLabel } from './cleanup-text.ts';
import { PLAIN_STYLE, type Style } from './style.ts';
import { NO_WRAP, wrapBeforeCommand, wrapLine } from './wrap.ts';

/** Back to the start of the line and erase it. */
const ERASE_LINE = '\r\u001b[2K';

export interface CleanupProgressDisplay {
  show(progress: CleanupProgress): void;
  /** Takes the status line off a terminal, so the result starts on a clean line. */
  clear(): void;
}

export interface ProgressOptions {
  /** One status line rewritten in place (a terminal); otherwise plain lines for logs. */
  inPlace: boolean;
  style?: Style;
  /** Lasting lines wrap to it (a command in them stays whole); default: no wrapping. */
  width?: number;
}

/**
 * What a cleanup run is doing, on stderr. On a terminal: every step and note as a lasting line (they
 * carry what a human must read: the commands for stuck NodeClaims, why NodePools were left), and the
 * wait as one status line below them, rewritten in place. In a log (CI, a Terraform provisioner): one
 * line per step and one per change in what is waited for, never an escape code, so a 10-minute wait
 * is a handful of lines rather than sixty.
 */
export function cleanupProgressDisplay(stream: OutputStream, options: ProgressOptions): CleanupProgressDisplay {
  const style = options.style ?? PLAIN_STYLE;
  const lasting = (label: string, text: string) => {
    const [first = '', ...rest] = lastingLines(`${label} ${text}`, options.width ?? NO_WRAP);
    // Bold labels on a terminal only: a log gets no escape codes.
    return `${[options.inPlace ? first.replace(label, style.bold(label)) : first, ...rest].join('\n')}\n`;
  };
  let shown = false;
  let lastWaiting: string | undefined;
  return {
    show(progress) {
      const [label, text] = describeProgress(progress);
      if (options.inPlace && progress.kind === 'step') {
        stream.write(`${shown ? ERASE_LINE : ''}${lasting(label, text)}`);
        shown = false;
        return;
      }
      if (options.inPlace) {
        stream.write(`${ERASE_LINE}${style.bold(label)} ${fit(text, stream.columns, label.length + 1)}`);
        shown = true;
        return;
      }
      if (progress.kind === 'waiting') {
        const waitingFor = `${progress.step}:${progress.step === 'nodepools' ? progress.nodeClaims : progress.shuttingDown}`;
        if (waitingFor === lastWaiting) return;
        lastWaiting = waitingFor;
      } else {
        lastWaiting = undefined;
      }
      stream.write(lasting(label, text));
    },
    clear() {
      if (shown) stream.write(ERASE_LINE);
      shown = false;
    },
  };
}

/** `['[2/4] instances:', 'waiting for 3 instances still shutting down (1m10s)']`. */
function describeProgress(progress: CleanupProgress): [label: string, text: string] {
  const label = `${stepLabel(progress.step)}:`;
  if (progress.kind === 'step') return [label, visible(progress.message)];
  if (progress.step === 'nodepools') {
    const claims = counted(progress.nodeClaims, 'NodeClaim');
    return [label, `waiting for ${claims} to go (${formatDuration(progress.waitedMs)} of ${formatDuration(progress.limitMs)})`];
  }
  const instances = counted(progress.shuttingDown, 'instance');
  return [label, `waiting for ${instances} still shutting down (${formatDuration(progress.waitedMs)})`];
}

/** What a note tells to run: `...; once their instances are terminated, run: kubectl patch ...`. */
const COMMAND_AFTER = /^(.*?:) ((?:kubectl|aws|helm|eksctl|karpenter-sentinel) .*)$/;

/**
 * A step's note wrapped to the width under a four-space indent. A command at its end goes whole
 * onto a line of its own when the note does not fit, so it can still be pasted.
 */
function lastingLines(line: string, width: number): string[] {
  const command = COMMAND_AFTER.exec(line);
  if (command) return wrapBeforeCommand(command[1]!, command[2]!, width, '    ');
  return wrapLine(line, width, '    ');
}

/** A line that wraps cannot be rewritten in place: cut it to the terminal's width. */
function fit(text: string, columns: number | undefined, used: number): string {
  if (columns === undefined || columns <= 0) return text;
  const room = columns - 1 - used;
  if (text.length <= room) return text;
  return room > 1 ? `${text.slice(0, room - 1)}…` : '';
}
