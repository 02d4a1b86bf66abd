/**
 * Hostile captures through everything a user sees: loader → analysis → the three report renderers
 * → the alert texts (SNS chat notification, Slack). Each run takes a bundled example capture and
 * replaces fields at arbitrary paths with arbitrary JSON values (or slips control characters into
 * its strings), written back as JSON or YAML.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { readScanConfig } from '../../../src/config.ts';
import { EXAMPLES_NOW } from '../../../src/cli/commands/demo.ts';
import { reportError } from '../../../src/cli/errors.ts';
import { printNotices, type CliContext } from '../../../src/cli/io.ts';
import { incompleteWarning } from '../../../src/cli/render/format.ts';
import { renderReport } from '../../../src/cli/render/index.ts';
import { CAUSES_BY_FINDING, FINDING_CODES, REMEDIATION_STATUSES, SEVERITIES } from '../../../src/domain/codes.ts';
import { InputError, UsageError } from '../../../src/domain/errors.ts';
import type { Finding } from '../../../src/domain/finding.ts';
import { SOURCE_NAMES } from '../../../src/domain/snapshot.ts';
import { buildReport, type Report } from '../../../src/domain/report.ts';
import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { alertMessageAttributes, chatNotificationOf, chatTitle } from '../../../src/domain/chat-notification.ts';
import { planScanAlerts } from '../../../src/notify/finding-alerts.ts';
import { slackPayloadOf } from '../../../src/notify/slack-message.ts';
import { snapshotFromFiles, type CaptureFile } from '../../../src/snapshot/build-snapshot.ts';
import { analyze } from '../../../src/usecases/analyze.ts';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const NOW = new Date(EXAMPLES_NOW);
const ALERTS = readScanConfig({
  AWS_REGION: 'eu-west-1',
  STATE_TABLE: 'state',
  ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
}).alerts;

interface BaseFile {
  name: string;
  text: string;
  /** Parsed documents (several for multi-document YAML, one per line of a log). */
  documents: unknown[];
}

/** A log line: its JSON value, or the line itself when it is plain text. */
function jsonLine(line: string): unknown {
  try {
    return line.startsWith('{') ? (JSON.parse(line) as unknown) : line;
  } catch {
    return line;
  }
}

const BASES: { example: string; files: BaseFile[] }[] = readdirSync(EXAMPLES)
  .sort()
  .map((example) => ({
    example,
    files: readdirSync(join(EXAMPLES, example))
      .filter((name) => /\.(json|ya?ml|log)$/.test(name))
      .sort()
      .map((name) => {
        const text = readFileSync(join(EXAMPLES, example, name), 'utf8');
        // A log's JSON lines are its documents (plain-text lines stay as they are).
        if (name.endsWith('.log')) return { name, text, documents: text.split('\n').map(jsonLine) };
        // A .json holding an error saved with `> file 2>&1` (SQS's NonExistentQueue) is its text.
        const documents = name.endsWith('.json')
          ? [text.trimStart().startsWith('{') ? (JSON.parse(text) as unknown) : text]
          : parseAllDocuments(text).map((d) => d.toJS() as unknown);
        return { name, text, documents };
      }),
  }));

/** Control characters a hostile capture may carry: C0, DEL, C1, ESC sequences, bidi overrides. */
const CONTROLS = [
  '\u0000',
  '\u0007',
  '\b',
  '\r',
  '\u000b',
  '\u001b[2J',
  '\u001b]8;;https://evil.example\u0007x\u001b]8;;\u0007',
  '\u007f',
  '\u0085',
  '\u009b31m',
  '\u202e',
  '\u2066',
  '\u2069',
  '\u2028',
  '\u2029',
  '\u200f',
  '\u061c',
];
const hostileString = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...CONTROLS), fc.string({ maxLength: 8 }))
  .map(([a, c, b]) => `${a}${c}${b}`);
/** Values to put anywhere: any JSON, the shapes of the reported defects, strings with controls. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 4 },
  {
    arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1e308, 'x', '', {}, [], [null], [{}], ['x'], { a: {} }),
    weight: 3,
  },
  { arbitrary: hostileString, weight: 2 },
  { arbitrary: fc.array(hostileString, { maxLength: 2 }), weight: 1 },
);

type Path = (string | number)[];

/** Fields read somewhere (src/domain/object-shapes.ts), for adding where an example has none. */
const READ_FIELDS = [
  'metadata',
  'spec',
  'status',
  'labels',
  'annotations',
  'ownerReferences',
  'deletionTimestamp',
  'creationTimestamp',
  'namespace',
  'name',
  'uid',
  'containers',
  'initContainers',
  'env',
  'resources',
  'requests',
  'limits',
  'tolerations',
  'nodeSelector',
  'affinity',
  'nodeAffinity',
  'podAntiAffinity',
  'requiredDuringSchedulingIgnoredDuringExecution',
  'nodeSelectorTerms',
  'matchExpressions',
  'matchFields',
  'labelSelector',
  'matchLabels',
  'topologyKey',
  'namespaces',
  'values',
  'schedulingGates',
  'schedulerName',
  'nodeName',
  'serviceAccountName',
  'conditions',
  'phase',
  'startTime',
  'nominatedNodeName',
  'replicas',
  'readyReplicas',
  'selector',
  'template',
  'paused',
  'taints',
  'providerID',
  'unschedulable',
  'allocatable',
  'capacity',
  'data',
  'ports',
  'port',
  'targetPort',
  'group',
  'names',
  'versions',
  'storage',
  'conversion',
  'strategy',
  'webhook',
  'clientConfig',
  'service',
  'storedVersions',
  'nodeClassRef',
  'requirements',
  'disruption',
  'consolidationPolicy',
  'consolidateAfter',
  'budgets',
  'nodes',
  'schedule',
  'duration',
  'reasons',
  'amiSelectorTerms',
  'subnetSelectorTerms',
  'securityGroupSelectorTerms',
  'amiFamily',
  'role',
  'instanceProfile',
  'tags',
  'amis',
  'subnets',
  'owner',
  'alias',
  'id',
  'key',
  'operator',
  'effect',
  'value',
  'type',
  'reason',
  'message',
  'lastTransitionTime',
  'involvedObject',
  'regarding',
  'series',
  'count',
  'Tags',
  'State',
  'LaunchTime',
  'IamInstanceProfile',
  'Roles',
  'selectors',
  'kubernetesGroups',
  'accessConfig',
  'computeConfig',
  'fields',
  'error',
  'NodeClaim',
  'NodePool',
  'Pod',
];

/** Every path into a document (the document itself is `[]`), with whether the value there is a string. */
function pathsOf(value: unknown, at: Path = [], out: { path: Path; isString: boolean; isObject: boolean }[] = []) {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  out.push({ path: at, isString: typeof value === 'string', isObject });
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

function replaced(document: unknown, path: Path, make: (old: unknown) => unknown): unknown {
  if (path.length === 0) return make(document);
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(document)) return document.map((v, i) => (i === head ? replaced(v, rest, make) : v));
  const record = document as Record<string, unknown>;
  return { ...record, [head]: replaced(record[head], rest, make) };
}

interface Mutation {
  /** Picks the file, the document and the path (indices taken modulo what exists). */
  file: number;
  document: number;
  path: number;
  /**
   * Replace the value; (for a string) slip control characters into it; or (for an object) add a
   * field some object somewhere has, which the example may lack.
   */
  kind: 'replace' | 'inject' | 'add';
  field: string;
  focus: boolean;
  value: unknown;
  control: string;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  file: fc.nat(),
  document: fc.nat(),
  path: fc.nat(),
  kind: fc.constantFrom('replace', 'replace', 'inject', 'add'),
  field: fc.constantFrom(...READ_FIELDS),
  focus: fc.boolean(),
  value: anyValue,
  control: hostileString,
});

const capture = fc.record({
  base: fc.nat({ max: BASES.length - 1 }),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
  yaml: fc.boolean(),
  /** Logs take hostile lines too: a line with control characters appended. */
  logLine: fc.option(hostileString, { nil: undefined }),
});

type CaptureInput = typeof capture extends fc.Arbitrary<infer T> ? T : never;

/** The capture files of one run: the example's, some of them mutated. */
function filesOf(input: CaptureInput): CaptureFile[] {
  const base = BASES[input.base]!;
  const documents = new Map<number, unknown[]>();
  for (const m of input.mutations) {
    const i = m.file % base.files.length;
    const docs = documents.get(i) ?? [...base.files[i]!.documents];
    const d = m.document % docs.length;
    const paths = pathsOf(docs[d]);
    // Half the replacements aim at one field something reads, wherever the document has it.
    const aimed = m.kind === 'replace' && m.focus ? paths.filter((p) => p.path.at(-1) === m.field) : [];
    const candidates =
      aimed.length > 0
        ? aimed
        : paths.filter((p) => (m.kind === 'replace' ? true : m.kind === 'inject' ? p.isString : p.isObject));
    if (candidates.length === 0) continue;
    const { path } = candidates[m.path % candidates.length]!;
    docs[d] = replaced(docs[d], path, (old) =>
      m.kind === 'inject'
        ? `${String(old)}${m.control}`
        : m.kind === 'add'
          ? { ...(old as object), [m.field]: m.value }
          : m.value,
    );
    documents.set(i, docs);
  }
  return base.files.map((f, i) => {
    const docs = documents.get(i);
    if (f.name.endsWith('.log')) {
      const text = docs ? docs.map((d) => (typeof d === 'string' ? d : JSON.stringify(d))).join('\n') : f.text;
      return { path: `${base.example}/${f.name}`, text: input.logLine === undefined ? text : `${text}${input.logLine}\n` };
    }
    if (!docs) return { path: `${base.example}/${f.name}`, text: f.text };
    const text = input.yaml
      ? docs.map((d) => stringify(d)).join('---\n')
      : docs.map((d) => JSON.stringify(d, null, 2)).join('\n');
    return { path: `${base.example}/${f.name.replace(/\.json$/, input.yaml ? '.yaml' : '.json')}`, text };
  });
}

/**
 * Taints, tolerations and selector requirements (objects with a `key` and an `effect` or an
 * `operator`) with their fields dropped, null, or anything else: one per pick, in any file.
 */
const keyedEdits = fc.record({
  base: fc.nat(),
  yaml: fc.boolean(),
  /** The first edit made to every one of them, not one. */
  everywhere: fc.boolean(),
  edits: fc.array(
    fc.record({
      at: fc.nat(),
      field: fc.constantFrom('key', 'key', 'operator', 'effect', 'value', 'values'),
      value: fc.oneof(fc.constant(undefined), fc.constant(null), fc.constantFrom<unknown>('', 'Exists', 'Equal', 'In'), anyValue),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

const isKeyed = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && 'key' in v && ('effect' in v || 'operator' in v);

/** Where in `doc` the taints, tolerations and selector requirements are. */
function keyedPaths(doc: unknown): Path[] {
  const at = (path: Path) => path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], doc);
  return pathsOf(doc)
    .filter((p) => p.isObject && isKeyed(at(p.path)))
    .map((p) => p.path);
}

/** The examples holding any. */
const KEYED_BASES = BASES.filter((b) => b.files.some((f) => f.documents.some((d) => keyedPaths(d).length > 0)));

/** One of those examples' files with the edits made (undefined: the field dropped). */
function keyedFilesOf(input: typeof keyedEdits extends fc.Arbitrary<infer T> ? T : never): CaptureFile[] {
  const base = KEYED_BASES[input.base % KEYED_BASES.length]!;
  const docs = base.files.map((f) => [...f.documents]);
  const targets = docs.flatMap((fileDocs, file) =>
    fileDocs.flatMap((doc, document) => keyedPaths(doc).map((path) => ({ file, document, path }))),
  );
  const [first] = input.edits;
  const edits = input.everywhere && first ? targets.map((_, at) => ({ ...first, at })) : input.edits;
  for (const edit of edits) {
    const { file, document, path } = targets[edit.at % targets.length]!;
    const fileDocs = docs[file]!;
    fileDocs[document] = replaced(fileDocs[document], path, (old) => {
      const { [edit.field]: _dropped, ...rest } = old as Record<string, unknown>;
      return edit.value === undefined ? rest : { ...rest, [edit.field]: edit.value };
    });
  }
  return base.files.map((file, i) => {
    if (file.name.endsWith('.log')) return { path: `${base.example}/${file.name}`, text: file.text };
    const text = input.yaml
      ? docs[i]!.map((d) => stringify(d)).join('---\n')
      : docs[i]!.map((d) => JSON.stringify(d, null, 2)).join('\n');
    return { path: `${base.example}/${file.name.replace(/\.(json|ya?ml)$/, input.yaml ? '.yaml' : '.json')}`, text };
  });
}

/** Odd but valid text: empty, blank, long, multi-line, Markdown and mrkdwn syntax, controls. */
const oddText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('', ' ', '\n', '*_~`|>#', '<!channel>', '```', '&lt;', 'a'.repeat(5000), 'x\n'.repeat(300)),
  hostileString,
);
const finding: fc.Arbitrary<Finding> = fc
  .record({
    id: fc.string({ maxLength: 16 }),
    code: fc.constantFrom(...FINDING_CODES),
    severity: fc.constantFrom(...SEVERITIES),
    title: oddText,
    resource: fc.record({ kind: oddText, namespace: oddText, name: oddText, id: oddText }, { requiredKeys: ['kind'] }),
    since: fc.option(fc.oneof(fc.constant('2025-12-31T23:00:00Z'), fc.constant('2027-01-01T00:00:00Z'), oddText), { nil: null }),
    cause: fc.option(fc.record({ code: fc.string(), detail: oddText }), { nil: null }),
    evidence: fc.array(oddText, { maxLength: 12 }),
    remediation: fc.option(
      fc.record({
        action: fc.constantFrom('MANUAL', 'ROLLOUT_RESTART', 'TERMINATE_INSTANCE' as const),
        status: fc.constantFrom(...REMEDIATION_STATUSES),
        reason: oddText,
        steps: fc.array(oddText, { maxLength: 8 }),
      }),
      { nil: null },
    ),
  })
  .map((f) => {
    const causes: readonly string[] = CAUSES_BY_FINDING[f.code];
    return { ...f, cause: f.cause && { ...f.cause, code: causes[f.cause.code.length % causes.length] } } as Finding;
  });
const report: fc.Arbitrary<Report> = fc
  .record({
    cluster: oddText,
    gaps: fc.array(fc.record({ source: fc.constantFrom(...SOURCE_NAMES), error: oddText }), { maxLength: 3 }),
    findings: fc.array(finding, { maxLength: 6 }),
  })
  .map((r) => buildReport({ ...r, now: NOW }));

/** Everything a user or a chat channel is shown for one capture: notes, reports, alert texts. */
interface Outputs {
  error?: string;
  /** The error as the CLI prints it on stderr. */
  printedError?: string;
  /** The loader's notes as they come from it. */
  notices: string[];
  /** The same notes as the CLI prints them on stderr (`note: ...` lines). */
  printedNotices: string;
  report?: Report;
  rendered: string[];
  alerts: unknown[];
}

function pipeline(files: CaptureFile[]): Outputs {
  let loaded: ReturnType<typeof snapshotFromFiles>;
  try {
    loaded = snapshotFromFiles(files);
  } catch (error) {
    // One clean error about the input, or nothing.
    if (!(error instanceof InputError || error instanceof UsageError)) throw error;
    const printedError = printed((stderr) => reportError(error, stderr, false));
    return { error: error.message, printedError, notices: [], printedNotices: '', rendered: [], alerts: [] };
  }
  const report = analyze(loaded.snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: NOW });
  const outcome = { code: 1, failOn: 'warning' as const };
  const rendered = [
    renderReport(report, 'table', { colour: false, outcome }),
    renderReport(report, 'markdown', { colour: false, outcome }),
    renderReport(report, 'json', { colour: false, outcome }),
  ];
  renderReport(report, 'table', { colour: true, outcome });
  // Wrapped to a narrow terminal: the escaping holds on every line.
  rendered.push(renderReport(report, 'table', { colour: false, outcome, width: 60 }));
  // `scan -o json` on incomplete data: the one human line, on stderr.
  if (!report.complete) rendered.push(incompleteWarning(report));
  const plan = planScanAlerts({ cluster: report.cluster, report, open: [], now: NOW, settings: ALERTS });
  const alerts = plan.alerts.flatMap((alert) => {
    const notification = chatNotificationOf(alert);
    const message = JSON.stringify(notification);
    return [chatTitle(alert), notification, slackPayloadOf({ message, attributes: alertMessageAttributes(alert) })];
  });
  const printedNotices = printed((stderr) =>
    printNotices(loaded.notices, { io: { stderr, terminal: { noColor: false, forceColor: false } } } as CliContext),
  );
  return { notices: loaded.notices, printedNotices, report, rendered, alerts };
}

/** What `print` writes to stderr, through the functions the CLI prints with. */
function printed(print: (stderr: { write(s: string): unknown }) => unknown): string {
  const out: string[] = [];
  print({ write: (s: string) => out.push(s) });
  return out.join('');
}

/** Every string inside a value (alert payloads are objects). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

// C0 but newline and tab, DEL, C1, bidi marks, embeddings, overrides and isolates, line and paragraph separators.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

describe('hostile captures: loader → analysis → reports → alerts', () => {
  it('every capture gives a report (or one clean input error), every renderer and alert text, and no check fails', () => {
    fc.assert(
      fc.property(capture, (input) => {
        const out = pipeline(filesOf(input));
        if (out.error !== undefined) {
          expect(out.error).not.toContain('\n');
          return;
        }
        // The loader's checks cover what detectors read: none of them trips over a field's type.
        expect(out.report?.gaps.filter((g) => g.detector)).toEqual([]);
        for (const text of out.rendered) expect(text.length).toBeGreaterThan(0);
        for (const notice of out.notices) expect(notice).not.toContain('\n');
      }),
      { numRuns: 150 },
    );
  });

  it('a taint, toleration or selector requirement without its key (or with any other value there) is a note, never a failed check', () => {
    fc.assert(
      fc.property(keyedEdits, (input) => {
        const out = pipeline(keyedFilesOf(input));
        if (out.error !== undefined) {
          expect(out.error).not.toContain('\n');
          return;
        }
        expect(out.report?.gaps.filter((g) => g.detector)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('every renderer and alert text copes with any valid report: odd text, null causes and remediations, long steps', () => {
    fc.assert(
      fc.property(report, fc.constantFrom<'warning' | 'info' | 'never'>('warning', 'info', 'never'), (r, failOn) => {
        for (const format of ['table', 'markdown', 'json'] as const) {
          for (const colour of [false, true]) {
            expect(renderReport(r, format, { colour, outcome: { code: 1, failOn } }).length).toBeGreaterThan(0);
          }
        }
        const settings = { ...ALERTS, minSeverity: 'info' as const };
        const unreadable = r.findings.length === 0 ? 'nothing could be read' : undefined;
        const plan = planScanAlerts({
          cluster: r.cluster,
          report: r,
          open: [],
          now: NOW,
          settings,
          ...(unreadable ? { unreadable } : {}),
        });
        for (const alert of plan.alerts) {
          const notification = chatNotificationOf(alert);
          expect(chatTitle(alert)).not.toContain('\n');
          const slack = slackPayloadOf({ message: JSON.stringify(notification), attributes: alertMessageAttributes(alert) });
          expect(slack.text.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('no output holds a raw control character: notes, table, markdown, json, chat and Slack texts', () => {
    fc.assert(
      fc.property(capture, (input) => {
        const out = pipeline(filesOf(input));
        // Every note reaches the user: one `note:` each, wrapped lines hanging under it.
        const printedLines = out.printedNotices.split('\n').filter(Boolean);
        expect(printedLines.filter((l) => l.startsWith('note: '))).toHaveLength(out.notices.length);
        for (const line of printedLines) expect(line).toMatch(/^(note: | {2}[^ ])/);
        const texts = [
          // Notes are visible as the loader builds them (service logs show them too) and as printed.
          ...out.notices,
          ...(out.printedError?.split('\n') ?? []),
          ...out.printedNotices.split('\n'),
          ...out.rendered.flatMap((t) => t.split('\n')),
          ...out.alerts.flatMap(stringsIn),
        ];
        for (const text of texts) expect(text).not.toMatch(RAW_CONTROL);
        // The JSON output writes them as `\uXXXX` escapes: it parses back to exactly the report.
        const json = out.rendered[2];
        if (json !== undefined) expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(out.report)));
      }),
      { numRuns: 150 },
    );
  });
});
