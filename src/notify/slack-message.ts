/**
 * An alert-topic message as a Slack incoming-webhook payload (Block Kit). The message body is a
 * chat notification (src/domain/alert.ts) or the notification of one of the service's CloudWatch
 * alarms (infra/alarms.yml publishes ALARM and OK to the topic); anything else on the topic
 * (another publisher's text or JSON) is posted as plain text rather than dropped.
 *
 * Block Kit limits respected here (docs.slack.dev "Block Kit" reference): at most 50 blocks per
 * message, a header's plain_text at most 150 characters, a section's text at most 3000, a context
 * block at most 10 elements.
 */
import type { ContextBlock, HeaderBlock, KnownBlock, MrkdwnElement, PlainTextElement, SectionBlock } from '@slack/types';
import type { ChatNotification } from '../domain/alert.ts';
import { isRecord, oneLine } from '../domain/shape.ts';
import { visibleLine, visibleStrings, visibleText } from '../domain/visible.ts';

export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  contextElements: 10,
  /** Slack truncates a message's top-level text beyond 40,000 characters; plain posts stay well below. */
  plainText: 39_000,
} as const;

/** Description sections kept before the rest is cut: the steps matter more than a very long story. */
const MAX_DESCRIPTION_SECTIONS = 20;

/** One SNS message as the function receives it. */
export interface TopicMessage {
  message: string;
  subject?: string;
  /** SNS message attributes (`severity`, `cluster`, `code`, `event`), as strings. */
  attributes: Readonly<Record<string, string>>;
}

/** Text the builder writes: Slack's `mrkdwn` text object. */
type MrkdwnText = MrkdwnElement;

/**
 * The three Block Kit blocks the messages are made of, as @slack/types defines them, narrowed to
 * what is built here (a section always has mrkdwn text, a context only mrkdwn elements).
 */
export type SlackBlock =
  | (Omit<HeaderBlock, 'text'> & { text: PlainTextElement & { emoji: true } })
  | (Omit<SectionBlock, 'text'> & { text: MrkdwnElement })
  | (Omit<ContextBlock, 'elements'> & { elements: MrkdwnElement[] });

/** The incoming-webhook body: `text` is the notification and screen-reader fallback. */
export interface SlackPayload {
  text: string;
  blocks?: KnownSlackBlock[];
}

/**
 * Every block built here is a Block Kit block Slack knows: the compiler checks it, nothing runs
 * (were one not, `blocks` would be `never[]` and no payload would compile).
 */
type KnownSlackBlock = [SlackBlock] extends [KnownBlock] ? SlackBlock : never;

const SEVERITY_EMOJI: Readonly<Record<string, string>> = {
  critical: ':red_circle:',
  warning: ':large_orange_circle:',
  info: ':large_blue_circle:',
};
const RESOLVED_EMOJI = ':white_check_mark:';
const ALARM_EMOJI = ':rotating_light:';
const UNKNOWN_SEVERITY_EMOJI = ':bell:';

export function slackPayloadOf(unsafe: TopicMessage): SlackPayload {
  // Whoever published it, only escapes we chose reach Slack: controls and bidi overrides are written out.
  const input: TopicMessage = {
    message: unsafe.message,
    subject: unsafe.subject === undefined ? undefined : visibleLine(unsafe.subject),
    attributes: Object.fromEntries(Object.entries(unsafe.attributes).map(([k, v]) => [k, visibleLine(v)])),
  };
  const body = visibleStrings(jsonOf(input.message));
  const notification = chatNotificationIn(body);
  if (notification) return blockMessage(notification, input.attributes);
  const alarm = cloudWatchAlarmIn(body);
  return alarm ? alarmMessage(alarm) : plainMessage({ ...input, message: visibleText(input.message) });
}

function jsonOf(message: string): unknown {
  try {
    return JSON.parse(message);
  } catch {
    return undefined;
  }
}

/** The parsed message body as a chat notification, or undefined when it is something else. */
function chatNotificationIn(value: unknown): ChatNotification | undefined {
  if (!isRecord(value) || value.source !== 'custom' || !isRecord(value.content)) return undefined;
  const { title, description, nextSteps } = value.content;
  if (typeof description !== 'string' || (title !== undefined && typeof title !== 'string')) return undefined;
  return {
    version: '1.0',
    source: 'custom',
    content: {
      title: title ?? '',
      description,
      nextSteps: Array.isArray(nextSteps) ? nextSteps.filter((s): s is string => typeof s === 'string') : [],
    },
    metadata: isRecord(value.metadata) ? (value.metadata as ChatNotification['metadata']) : undefined,
  };
}

function blockMessage(notification: ChatNotification, attributes: Readonly<Record<string, string>>): SlackPayload {
  const facts = factsOf(notification, attributes);
  // The title is Markdown (escaped by chatNotificationOf); Slack shows it as plain text.
  const title =
    oneLineOf(markdownPlain(notification.content.title ?? '')) || firstLine(notification.content.description) || 'Notification';
  const emoji = facts.event === 'resolved' ? RESOLVED_EMOJI : (SEVERITY_EMOJI[facts.severity ?? ''] ?? UNKNOWN_SEVERITY_EMOJI);

  const description = sectionTexts(toMrkdwn(notification.content.description));
  const steps = stepSectionTexts(notification.content.nextSteps ?? []);
  // The header and the context always fit; when sections must go, one says how many.
  const room = SLACK_LIMITS.blocks - 2;
  let sections = [...description.slice(0, MAX_DESCRIPTION_SECTIONS), ...steps];
  let omitted = Math.max(0, description.length - MAX_DESCRIPTION_SECTIONS);
  if (omitted > 0 || sections.length > room) {
    const keep = Math.min(sections.length, room - 1);
    omitted += sections.length - keep;
    sections = sections.slice(0, keep);
  }

  // chatTitle's `[critical] ` marker says what the emoji already shows.
  const headline = title.replace(/^\[(critical|warning|info|resolved)\]\s+/, '');
  const blocks: SlackBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: truncate(`${emoji} ${headline}`, SLACK_LIMITS.headerText), emoji: true },
    },
    ...sections.map(section),
  ];
  if (omitted > 0) blocks.push(section(`_${omitted} more section(s) did not fit in one Slack message._`));
  const context = contextElements([
    ['Cluster', facts.cluster],
    ['Severity', facts.severity],
    ['Code', facts.code],
    ['Event', facts.event],
  ]);
  if (context.length > 0) blocks.push({ type: 'context', elements: context });
  return { text: plainMrkdwn(truncate(title, SLACK_LIMITS.sectionText)), blocks };
}

/**
 * The fields of a CloudWatch alarm's SNS notification shown in Slack (CloudWatch sends them all,
 * composite alarms included; AlarmDescription is null when the alarm has none).
 */
interface CloudWatchAlarm {
  AlarmName: string;
  /** `ALARM`, `OK` or `INSUFFICIENT_DATA`. */
  NewStateValue: string;
  NewStateReason: string;
  OldStateValue: string | undefined;
  AlarmDescription: string | undefined;
  /** The region's long name, e.g. `US East (N. Virginia)`. */
  Region: string | undefined;
  AWSAccountId: string | undefined;
  StateChangeTime: string | undefined;
}

function cloudWatchAlarmIn(value: unknown): CloudWatchAlarm | undefined {
  if (!isRecord(value)) return undefined;
  const text = (key: keyof CloudWatchAlarm) => {
    const field = value[key];
    return typeof field === 'string' && field.trim() !== '' ? field : undefined;
  };
  const [name, state, reason] = [text('AlarmName'), text('NewStateValue'), text('NewStateReason')];
  if (name === undefined || state === undefined || reason === undefined) return undefined;
  return {
    AlarmName: name,
    NewStateValue: state,
    NewStateReason: reason,
    OldStateValue: text('OldStateValue'),
    AlarmDescription: text('AlarmDescription'),
    Region: text('Region'),
    AWSAccountId: text('AWSAccountId'),
    StateChangeTime: text('StateChangeTime'),
  };
}

/** `ALARM: <name>` as the header, what the alarm means (its description), why it changed state, and where. */
function alarmMessage(alarm: CloudWatchAlarm): SlackPayload {
  const state = oneLineOf(alarm.NewStateValue, 40);
  const title = `${state}: ${oneLineOf(alarm.AlarmName)}`;
  const emoji = state === 'ALARM' ? ALARM_EMOJI : state === 'OK' ? RESOLVED_EMOJI : UNKNOWN_SEVERITY_EMOJI;
  const sections = [
    ...(alarm.AlarmDescription ? [escapeMrkdwn(alarm.AlarmDescription)] : []),
    `*Reason:* ${escapeMrkdwn(alarm.NewStateReason)}`,
  ].map((text) => section(truncate(text, SLACK_LIMITS.sectionText)));
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(`${emoji} ${title}`, SLACK_LIMITS.headerText), emoji: true } },
    ...sections,
    {
      type: 'context',
      elements: contextElements([
        ['State', alarm.OldStateValue ? `${alarm.OldStateValue} → ${state}` : state],
        ['Region', alarm.Region],
        ['Account', alarm.AWSAccountId],
        ['Changed', alarm.StateChangeTime],
      ]),
    },
  ];
  return { text: escapeMrkdwn(truncate(title, SLACK_LIMITS.sectionText)), blocks };
}

function plainMessage(input: TopicMessage): SlackPayload {
  const body = input.message.trim() === '' ? '(empty message)' : input.message;
  const text = input.subject ? `${oneLineOf(input.subject)}\n${body}` : body;
  // Escaped: a stranger's message must not mention @channel or forge links.
  return { text: escapeMrkdwn(truncate(text, SLACK_LIMITS.plainText)) };
}

interface Facts {
  severity?: string;
  cluster?: string;
  code?: string;
  event?: string;
}

/** The message attributes first (the topic's contract), then what the notification's metadata says. */
function factsOf(notification: ChatNotification, attributes: Readonly<Record<string, string>>): Facts {
  const extra = notification.metadata?.additionalContext;
  const pick = (key: keyof Facts, ...more: (string | undefined)[]) =>
    [attributes[key], isRecord(extra) ? extra[key] : undefined, ...more].find(
      (v): v is string => typeof v === 'string' && v !== '',
    );
  return {
    severity: pick('severity'),
    cluster: pick('cluster'),
    code: pick('code'),
    event: pick('event', typeof notification.metadata?.eventType === 'string' ? notification.metadata.eventType : undefined),
  };
}

function contextElements(labelled: readonly [string, string | undefined][]): MrkdwnText[] {
  return labelled
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .slice(0, SLACK_LIMITS.contextElements)
    .map(([label, value]) => ({ type: 'mrkdwn', text: `*${label}:* ${plainMrkdwn(oneLineOf(value, 200))}` }));
}

function section(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

// --- description: Markdown to Slack mrkdwn, split at line boundaries ---------------------------

const FENCE = '```';

/**
 * Slack's mrkdwn is not Markdown: `*bold*`, `_italic_`, `<url|text>` links, no headings, and `&`,
 * `<`, `>` must be escaped (else `<!channel>` pings everyone). Code keeps its text, only escaped.
 */
export function toMrkdwn(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let inFence = false;
  for (const line of lines) {
    if (/^\s*```/.test(line)) {
      // A language tag would show as text in Slack: drop it.
      out.push(line.replace(/```.*$/, FENCE));
      inFence = !inFence;
      continue;
    }
    out.push(inFence ? escapeMrkdwn(line) : inlineMrkdwn(line));
  }
  return out.join('\n');
}

function inlineMrkdwn(line: string): string {
  // Code spans and backslash escapes are set aside so no emphasis or link rule touches their text.
  const spans: string[] = [];
  const text = setAside(line.replace(/[\uE000\uE001]/g, ''), (piece) => `\uE001${spans.push(piece) - 1}\uE001`);
  const heading = /^\s*#{1,6}\s+(.+?)[\s#]*$/.exec(text);
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(text);
  const body = heading?.[1] ?? bullet?.[2] ?? text;
  const converted = emphasisMrkdwn(escapeMrkdwn(body));
  const shaped = heading ? `*${converted}*` : bullet ? `${bullet[1]}• ${converted}` : converted;
  return shaped.replace(/\uE001(\d+)\uE001/g, (_m, i: string) => spans[Number(i)] ?? '');
}

/** ASCII punctuation: what a Markdown backslash escape may stand before. */
const ESCAPABLE = /[!-/:-@[-`{-~]/;

/** Markdown text (a title) as the plain text it shows: its backslash escapes taken off. */
function markdownPlain(markdown: string): string {
  return markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/**
 * Lookalikes for the characters Slack formats with, which mrkdwn cannot escape: a value the
 * Markdown escaped (`\*bold\*`, `\_x\_`) shows as text, never as emphasis. Code keeps the real ones.
 */
const LITERAL_MARKER: Readonly<Record<string, string>> = { '*': '\u2217', _: '\u02cd', '~': '\u223c', '`': '\u02cb' };

/** A character a Markdown escape or a stray backtick stands for, as mrkdwn shows it literally. */
function literalMrkdwn(c: string): string {
  return LITERAL_MARKER[c] ?? escapeMrkdwn(c);
}

/**
 * CommonMark's code spans (a backtick run up to the same run) and backslash escapes, left to
 * right, each replaced by `keep(its mrkdwn)`; everything else is returned as it is.
 */
function setAside(line: string, keep: (mrkdwn: string) => string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line.charAt(i);
    const next = line.charAt(i + 1);
    if (c === '\\' && ESCAPABLE.test(next)) {
      out += keep(literalMrkdwn(next));
      i += 2;
    } else if (c === '`') {
      const run = /^`+/.exec(line.slice(i))?.[0] ?? '`';
      const close = closingRun(line, i + run.length, run.length);
      if (close < 0) {
        out += keep([...run].map(literalMrkdwn).join(''));
        i += run.length;
        continue;
      }
      let code = line.slice(i + run.length, close);
      if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
      // Slack's inline code cannot hold a backtick: one inside shows as its lookalike.
      out += keep(`\`${escapeMrkdwn(code).replaceAll('`', LITERAL_MARKER['`'] ?? '')}\``);
      i = close + run.length;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** Where the backtick run of exactly `length` that closes a code span starts, or -1. */
function closingRun(line: string, from: number, length: number): number {
  const runs = /`+/g;
  runs.lastIndex = from;
  for (let m = runs.exec(line); m; m = runs.exec(line)) if (m[0].length === length) return m.index;
  return -1;
}

function emphasisMrkdwn(text: string): string {
  const BOLD = '\uE000';
  return text
    .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '<$2|$1>')
    .replace(/\*\*(.+?)\*\*|__(.+?)__/g, (_m, a: string | undefined, b: string | undefined) => `${BOLD}${a ?? b}${BOLD}`)
    .replace(/(^|[^\w*])\*(\S(?:[^*]*\S)?)\*(?=$|[^\w*])/g, '$1_$2_')
    .replace(/~~(.+?)~~/g, '~$1~')
    .replaceAll(BOLD, '*');
}

function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * Plain text (a title, a cluster name) as mrkdwn that shows it as it is: no mention, link or
 * emphasis. `_` inside a word (`NODECLAIM_NOT_REGISTERED`) cannot start emphasis and stays.
 */
function plainMrkdwn(text: string): string {
  return escapeMrkdwn(text).replace(/[*~`]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, (c) => LITERAL_MARKER[c] ?? c);
}

/**
 * Sections of at most 3000 characters, cut between lines; a code block too long for one section
 * becomes several, each closed and opened again, and a line too long for one at a space.
 */
export function sectionTexts(mrkdwn: string, limit: number = SLACK_LIMITS.sectionText): string[] {
  const sections: string[] = [];
  let current = '';
  for (const piece of piecesOf(mrkdwn, limit)) {
    if (current !== '' && current.length + 1 + piece.length > limit) {
      sections.push(current);
      current = '';
    }
    current = current === '' ? piece : `${current}\n${piece}`;
  }
  if (current.trim() !== '') sections.push(current);
  return sections;
}

/** Lines of text and whole code blocks, each at most `limit` long: what a section may hold. */
function piecesOf(mrkdwn: string, limit: number): string[] {
  const pieces: string[] = [];
  let code: string[] | undefined;
  const codeRoom = limit - 2 * (FENCE.length + 1);
  const closeCode = (lines: string[]) => {
    let block: string[] = [];
    const emit = () => block.length > 0 && pieces.push(`${FENCE}\n${block.join('\n')}\n${FENCE}`);
    for (const line of lines.flatMap((l) => splitLine(l, codeRoom))) {
      if (block.length > 0 && block.join('\n').length + 1 + line.length > codeRoom) {
        emit();
        block = [];
      }
      block.push(line);
    }
    emit();
  };
  for (const line of mrkdwn.split('\n')) {
    if (/^\s*```/.test(line)) {
      if (code) closeCode(code);
      code = code ? undefined : [];
    } else if (code) code.push(line);
    else pieces.push(...splitLine(line, limit));
  }
  if (code) closeCode(code);
  // Leading and trailing blank lines would only pad the sections.
  while (pieces[0]?.trim() === '') pieces.shift();
  while (pieces.at(-1)?.trim() === '') pieces.pop();
  return pieces;
}

/** A line as parts of at most `max`: cut at the last space in the second half, else hard. */
function splitLine(line: string, max: number): string[] {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const cutAt = space > max / 2 ? space : Math.max(1, safeCut(rest, max).length);
    parts.push(rest.slice(0, cutAt));
    rest = rest.slice(cutAt).trimStart();
  }
  parts.push(rest);
  return parts;
}

// --- next steps: numbered, commands in code blocks ---------------------------------------------

/**
 * The steps as chatNotificationOf writes them (Markdown: `why: \`command\``, a bare command in
 * backticks, a fenced block, or prose), numbered; a command becomes a code block, easy to copy.
 */
function stepSectionTexts(steps: readonly string[]): string[] {
  if (steps.length === 0) return [];
  const lines = steps.map((step, i) => {
    const text = stepMrkdwn(step.replace(/\r\n?/g, '\n').trim());
    return text.startsWith(FENCE) ? `*${i + 1}.*\n${text}` : `*${i + 1}.* ${text}`;
  });
  return sectionTexts(['*Next steps*', ...lines].join('\n'));
}

function stepMrkdwn(step: string): string {
  // A step that ends in one code span is a command (with its reason before it, if any).
  const command = /^([^`]*?)\s*`([^`\n]+)`$/.exec(step);
  if (command?.[2] !== undefined) {
    const intro = command[1] ?? '';
    return `${intro ? `${toMrkdwn(intro)}\n` : ''}${FENCE}\n${escapeMrkdwn(command[2])}\n${FENCE}`;
  }
  return toMrkdwn(step);
}

// --- text helpers -------------------------------------------------------------------------------

function truncate(text: string, max: number): string {
  return text.length > max ? `${safeCut(text, max - 1).trimEnd()}…` : text;
}

/** The first `max` characters at most, never half of a surrogate pair or of an `&amp;` escape. */
function safeCut(text: string, max: number): string {
  let cut = text.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const entity = /&[a-z]{0,3}$/.exec(cut);
  if (entity && /^&(amp|lt|gt);/.test(text.slice(entity.index, entity.index + 5))) cut = cut.slice(0, entity.index);
  return cut;
}

/** shape's oneLine, cut here: never in the middle of an `&amp;` escape or a surrogate pair. */
function oneLineOf(text: string, max = Number.MAX_SAFE_INTEGER): string {
  return truncate(oneLine(text, Number.MAX_SAFE_INTEGER), max);
}

function firstLine(text: string): string {
  return oneLineOf(text.split('\n').find((l) => l.trim() !== '') ?? '');
}
