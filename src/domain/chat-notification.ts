/**
 * An alert as the SNS message body Amazon Q Developer in chat applications (formerly AWS Chatbot)
 * renders with no code: its custom notification format (`version` 1.0, `source` custom, `content`
 * with title, description and next steps; `metadata.threadId` threads every alert of one problem).
 * https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html
 */
import type { Alert, ChatNotification } from './alert.ts';
import { shellQuote } from './shell.ts';
import { startsWithCommand } from './finding.ts';
import { markdownCode, markdownFence, markdownParagraph, markdownText } from './markdown.ts';
import { visibleLine, visibleText } from './visible.ts';

/**
 * Sizes kept well inside what chat clients show (a Slack section holds 3000 characters, a message
 * about 40000) and SNS carries (256 KiB per PublishBatch): an alert is read, not scrolled.
 */
export const CHAT_LIMITS = {
  title: 250,
  description: 8000,
  /** All next steps together, as rendered. */
  steps: 6000,
  /** One step (a YAML manifest to apply can be long). */
  step: 2500,
} as const;

const TRUNCATED = '\n... (truncated)';

export function chatNotificationOf(unsafe: Alert): ChatNotification {
  const alert = visibleAlert(unsafe);
  const title = chatTitle(alert);
  const keywords = [alert.severity, alert.code, ...(alert.cluster === '-' ? [] : [alert.cluster])];
  return {
    version: '1.0',
    source: 'custom',
    content: {
      textType: 'client-markdown',
      // Rendered as Markdown like the description: a name in it must not become a link or emphasis.
      title: markdownTitle(title),
      description: truncateLines(alert.description.trim() || title, CHAT_LIMITS.description),
      nextSteps: chatSteps(alert),
      keywords,
    },
    metadata: {
      // Finding ids are per cluster (two clusters can both have karpenter/karpenter Pending).
      threadId: `${alert.cluster}/${alert.threadId}`,
      // Plain text, like the SNS subject.
      summary: title,
      eventType: alert.event,
      relatedResources: alert.cluster === '-' ? [] : [alert.cluster],
      additionalContext: { cluster: alert.cluster, code: alert.code, severity: alert.severity, event: alert.event },
    },
  };
}

/** SNS message attributes, for subscription filter policies (`{"severity": ["critical"]}`). */
export function alertMessageAttributes(alert: Alert): { severity: string; cluster: string; code: string; event: string } {
  return { severity: alert.severity, cluster: visibleLine(alert.cluster), code: visibleLine(alert.code), event: alert.event };
}

/**
 * The alert as chat clients may show it: controls and bidi overrides written out, the title and
 * names on one line. Values in the description and the steps' reasons are Markdown-escaped where
 * the text is built (finding-text.ts), commands are shell-quoted where the steps are.
 */
function visibleAlert(alert: Alert): Alert {
  return {
    ...alert,
    cluster: visibleLine(alert.cluster),
    code: visibleLine(alert.code),
    title: visibleLine(alert.title),
    description: visibleText(alert.description),
    nextSteps: alert.nextSteps.map(visibleText),
    threadId: visibleLine(alert.threadId),
  };
}

/**
 * `[critical] prod: Karpenter controller ...`, `[resolved] prod: ...`: one line, shown as visible
 * text whoever calls it (the SNS subject is built from it too).
 */
export function chatTitle(alert: Alert): string {
  const marker = alert.event === 'resolved' ? 'resolved' : alert.severity;
  const where = alert.cluster === '-' ? '' : `${alert.cluster}: `;
  return cut(visibleLine(`[${marker}] ${where}${alert.title}`).replace(/\s+/g, ' ').trim(), CHAT_LIMITS.title);
}

/**
 * `chatTitle` with everything after its `[critical] ` marker Markdown-escaped (the marker is ours,
 * and text, as no link definition can follow it), within the same limit, never cut inside an escape.
 */
function markdownTitle(title: string): string {
  const marker = /^\[[a-z]+\] /.exec(title)?.[0] ?? '';
  const escaped = `${marker}${markdownText(title.slice(marker.length))}`;
  if (escaped.length <= CHAT_LIMITS.title) return escaped;
  let end = CHAT_LIMITS.title - 3;
  let backslashes = 0;
  while (escaped[end - 1 - backslashes] === '\\') backslashes++;
  // An odd run ends in a backslash that escapes nothing kept: it would escape the `.` after it.
  if (backslashes % 2 === 1) end--;
  return `${escaped.slice(0, end)}...`;
}

/** Every step that fits, whole and in order; a step too long on its own loses its last lines. */
function chatSteps(alert: Alert): string[] {
  const out: string[] = [];
  let used = 0;
  for (const [i, step] of alert.nextSteps.entries()) {
    const rendered = stepMarkdown(truncateLines(step, CHAT_LIMITS.step));
    if (used + rendered.length > CHAT_LIMITS.steps) {
      const left = alert.nextSteps.length - i;
      const where =
        alert.cluster === '-' ? 'the full report' : `\`karpenter-sentinel scan --cluster ${shellQuote(alert.cluster)}\``;
      out.push(`... ${left} more step${left === 1 ? '' : 's'}: ${where} lists them all`);
      break;
    }
    out.push(rendered);
    used += rendered.length;
  }
  return out;
}

/**
 * A step as written by `commandStep` (`# why` lines, then the command) becomes `why:` and the
 * command as code; a bare command becomes code; prose stays as it is.
 */
export function stepMarkdown(step: string): string {
  const lines = step.split('\n');
  const why: string[] = [];
  while (lines.length > 1 && lines[0]?.startsWith('# ')) why.push((lines.shift() as string).slice(2));
  const command = lines.join('\n');
  // The reason names data (a NodePool, a role): shown as text, never as Markdown.
  const intro = why.length > 0 ? `${markdownText(why.join(' '))}:` : '';
  if (lines.length > 1 || command.includes('`')) return `${intro ? `${intro}\n` : ''}${markdownFence('', command).join('\n')}`;
  if (intro || startsWithCommand(command)) return `${intro ? `${intro} ` : ''}${markdownCode(command)}`;
  return markdownParagraph(command);
}

/** At most `max` characters, cut at a line break when one is near, marked as truncated. */
export function truncateLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - TRUNCATED.length;
  const lineEnd = text.lastIndexOf('\n', room);
  return `${text.slice(0, lineEnd > room / 2 ? lineEnd : room)}${TRUNCATED}`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}
