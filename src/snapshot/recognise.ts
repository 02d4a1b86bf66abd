import type { SourceName } from '../domain/snapshot.ts';
import { isAwsCliOutput, readAwsCliOutput, type AwsCliOutput } from './aws-cli.ts';
import type { CaptureContent } from './capture-content.ts';
import { readCliErrorText, stderrPreambleLength, type CliErrorFact } from './cli-error-text.ts';
import {
  classifyKubeObject,
  EXAMPLE_RESOURCE_FILE_NAMES,
  sourceNamedByFile,
  sourceOfKind,
  type KubeObjectVerdict,
} from './kube-objects.ts';
import { sourceMeantByFile } from './file-source.ts';
import { isGapsDocument, readGapsDocument } from './gaps-file.ts';
import { diagnoseNotAnOutput, LOOKS_LIKE_LOGS, SavedCliError, savedCliError } from './not-an-output.ts';
import { parseDocuments } from './parse-documents.ts';
import { isRecord, oneLine, ShapeError, type JsonRecord } from '../domain/shape.ts';

/**
 * What one capture file adds to the snapshot. Pure data: the builder merges contributions. A
 * Kubernetes object contributes its verdict as it is (an object, an Event, one set aside, ...).
 */
export type Contribution =
  | KubeObjectVerdict
  | { type: 'captured'; source: SourceName }
  | { type: 'aws'; output: AwsCliOutput }
  /** One page of a paginated output; `more` names the token saying pages follow. */
  | { type: 'page'; source: SourceName; more?: string }
  /** What the capture's gaps.json recorded (objects set aside when it was written, and why). */
  | { type: 'note'; text: string }
  | Exclude<CliErrorFact, { type: 'no-resources' }>;

/** Error messages and pasted tables are short; a large file that is no output is just that. */
const MAX_TEXT_BYTES = 1024 * 1024;
const NOT_UNDERSTOOD = 'not a kubectl or aws CLI output this tool understands';
const EMPTY_FILE = 'empty file: the command that wrote it printed nothing; run it again (`> file 2>&1` keeps its error)';

/** An empty `List` names no kind; the caller resolves it against the file name. */
type Recognised = Contribution | { type: 'empty-list' };

/**
 * A capture file's text → its contributions, recognised from content. `baseName` (file name
 * without directory and extension) matters only for empty lists, which name no kind.
 * Throws ShapeError with a one-line reason.
 */
export function recogniseCapture(content: CaptureContent, baseName: string): Contribution[] {
  let failure: ShapeError;
  try {
    // What kubectl printed on stderr before the output (with 2>&1) is not part of it; its errors
    // are gaps all the same.
    const preamble = stderrPreambleLength(content.head);
    const documents = parseDocuments(preamble > 0 ? content.blankedUpTo(preamble) : content);
    if (documents.length === 0) throw new ShapeError(EMPTY_FILE);
    const several = documents.length > 1;
    const gaps = preamble > 0 ? readCliErrorText(content.head.toString('utf8', 0, preamble)).filter((f) => f.type === 'gap') : [];
    return [
      ...documents
        .flatMap((document, i) => recogniseDocument(document, several ? `document ${i + 1}: ` : ''))
        .flatMap((r) => (r.type === 'empty-list' ? capturedByFileName(baseName) : [r])),
      ...gaps,
    ];
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    failure = error;
  }
  // Not an output: perhaps the error the CLI printed instead of one, or a table (all short).
  if (!content.hasAtMost(MAX_TEXT_BYTES)) throw failure;
  const text = content.text();
  const facts = readCliErrorText(text);
  if (facts.length === 0) {
    const problem = diagnoseNotAnOutput(text);
    const saved = problem === undefined ? undefined : savedCliError(text);
    if (problem?.startsWith('holds an error') && saved) throw new SavedCliError(problem, saved, { cause: failure });
    throw problem ? new ShapeError(problem, { cause: failure }) : failure;
  }
  // `kubectl logs -l ...` denied says it cannot list pods: what is missing is the log.
  const meant = sourceMeantByFile(baseName);
  const forLogs = meant === 'logs';
  return [
    ...facts.flatMap((fact): Contribution[] => {
      if (fact.type === 'no-resources') return capturedByFileName(baseName);
      if (fact.type === 'queue-not-found') return [{ ...fact, name: queueNamedByFile(baseName) }];
      return [forLogs && fact.type === 'gap' ? { ...fact, source: 'logs' as const } : fact];
    }),
    ...refusedWriteNotes(facts, meant),
  ];
}

/**
 * A saved client error read as refused writes (ADMISSION_WEBHOOK_BROKEN's evidence) says so in a
 * note; when the file's name says it was meant to hold a source (`ec2nodeclasses.yaml` holding
 * the error), that source was not captured: a gap, as for any other saved error.
 */
function refusedWriteNotes(facts: readonly CliErrorFact[], meant: SourceName | undefined): Contribution[] {
  const refused = facts.filter((f) => f.type === 'refused-write');
  const first = refused[0];
  if (!first) return [];
  const explained = facts.some((f) => (f.type === 'gap' || f.type === 'captured') && f.source === meant);
  const gap = meant !== undefined && !explained;
  const lines = refused.length === 1 ? 'a line' : `${refused.length} lines`;
  return [
    ...(gap ? [{ type: 'gap' as const, source: meant, error: oneLine(first.text, 300) }] : []),
    {
      type: 'note',
      text: `read as a saved client error: ${lines} naming an admission webhook the API server could not call${gap ? ` (${meant} is a gap)` : ''}`,
    },
  ];
}

/**
 * A saved NonExistentQueue error names no queue: `sqs-queue-url-NAME` says which (snapshot --out
 * writes that), plain `sqs-queue-url` is the queue the setting names (the recipe's, '').
 */
function queueNamedByFile(baseName: string): string {
  const named = /^sqs-queue-url-([A-Za-z0-9_-]{1,80})$/.exec(baseName)?.[1];
  return named === undefined || named === 'configured' ? '' : named;
}

/** AWS CLI outputs an empty `--query` result (`[]`) may stand for, by file name. */
const AWS_LIST_FILE_NAMES: Readonly<Record<string, SourceName>> = {
  subnets: 'subnets',
  'describe-subnets': 'subnets',
  'instance-types': 'instancetypes',
  'describe-instance-types': 'instancetypes',
  'spot-prices': 'spotprices',
  'describe-spot-price-history': 'spotprices',
  // snapshot --out's for "no queue looked up" (the setting is unset).
  'sqs-queue-url': 'interruptionqueue',
};

function capturedByFileName(baseName: string): Contribution[] {
  const key = baseName.toLowerCase();
  const source = sourceNamedByFile(baseName) ?? (Object.hasOwn(AWS_LIST_FILE_NAMES, key) ? AWS_LIST_FILE_NAMES[key] : undefined);
  if (!source) {
    throw new ShapeError(
      `an empty list names no kind of resource: name the file after the resource it lists (${EXAMPLE_RESOURCE_FILE_NAMES})`,
    );
  }
  return [{ type: 'captured', source }];
}

function recogniseDocument(document: unknown, prefix: string): Recognised[] {
  if (Array.isArray(document)) return recogniseArray(document, prefix);
  if (!isRecord(document)) {
    const hint = typeof document === 'string' ? ' (controller logs need a .log suffix)' : '';
    throw new ShapeError(`${prefix}${NOT_UNDERSTOOD}${hint}`);
  }
  if (isGapsDocument(document)) {
    const { gaps, notes } = readGapsDocument(document);
    return [
      ...gaps.map((g): Contribution => ({ type: 'gap', source: g.source, error: g.error })),
      ...notes.map((text): Contribution => ({ type: 'note', text })),
    ];
  }
  const { kind, apiVersion } = document;
  if (typeof kind === 'string' && typeof apiVersion === 'string') {
    if (Array.isArray(document.items) && (kind === 'List' || kind.endsWith('List'))) {
      return recogniseList(document.items, kind, apiVersion, prefix, continueToken(document.metadata));
    }
    return [classifyKubeObject(document, apiVersion, kind, prefix.replace(/: $/, ''))];
  }
  const outputs = readAwsCliOutput(document);
  if (outputs) return awsContributions(outputs, awsPaginationToken(document));
  if (looksLikeLogRecord(document)) throw new ShapeError(`${prefix}${LOOKS_LIKE_LOGS}`);
  const keys = Object.keys(document)
    .slice(0, 5)
    .map((k) => oneLine(k, 40));
  throw new ShapeError(`${prefix}${NOT_UNDERSTOOD}${keys.length ? ` (top-level keys: ${keys.join(', ')})` : ''}`);
}

const WHOLE_OUTPUT = 'capture the whole output (`kubectl get ... -o json`, or the AWS CLI without --query)';

/**
 * A bare JSON array: `jq .items` (objects, like list items), or the AWS CLI's `--query`. Instances
 * flattened by `--query 'Reservations[].Instances[]'` (or reservations by `Reservations[]`) are
 * still whole instances, and `--query Subnets` whole subnets (`--query InstanceTypes` whole instance types); a projection down to IDs or columns is not enough to judge anything.
 */
function recogniseArray(document: unknown[], prefix: string): Recognised[] {
  if (document.length === 0) return [{ type: 'empty-list' }];
  if (document.every((e) => !isRecord(e))) {
    const ids = document.every((e) => typeof e === 'string' && /^i-[0-9a-f]{8,17}$/.test(e));
    throw new ShapeError(
      ids
        ? `${prefix}a list of EC2 instance IDs (a --query result): capture \`aws ec2 describe-instances --output json\` without --query (--filters is fine)`
        : `${prefix}a list of plain values, not objects (a --query or jq result?): ${WHOLE_OUTPUT}`,
    );
  }
  const first = document[0];
  if (isRecord(first) && first.kind === undefined) {
    // `aws ... --output yaml-stream`: one AWS CLI output per page.
    if (isAwsCliOutput(first)) return document.flatMap((page, i) => recogniseDocument(page, `${prefix}[${i}]: `));
    const wrapped =
      typeof first.InstanceId === 'string'
        ? { Reservations: [{ Instances: document }] }
        : Array.isArray(first.Instances)
          ? { Reservations: document }
          : typeof first.SubnetId === 'string'
            ? { Subnets: document }
            : typeof first.InstanceType === 'string' && isRecord(first.VCpuInfo)
              ? { InstanceTypes: document }
              : undefined;
    const outputs = wrapped ? readAwsCliOutput(wrapped) : undefined;
    if (outputs) return awsContributions(outputs, undefined);
  }
  return document.map((item, i) => {
    if (isRecord(item) && item.kind === undefined && item.apiVersion === undefined) {
      throw new ShapeError(`${prefix}[${i}] is not a Kubernetes object (a --query or jq projection?): ${WHOLE_OUTPUT}`);
    }
    return recogniseListItem(item, undefined, `${prefix}[${i}]`);
  });
}

/** Each output, and one page of its source (`more`: the token saying pages follow). */
function awsContributions(outputs: readonly AwsCliOutput[], more: string | undefined): Contribution[] {
  return outputs.flatMap((output) => [
    { type: 'aws', output },
    { type: 'page', source: output.source, ...(more ? { more } : {}) },
  ]);
}

function recogniseList(
  items: unknown[],
  kind: string,
  apiVersion: string,
  prefix: string,
  more: string | undefined,
): Recognised[] {
  // `kubectl get` prints `List` with typed items; the API prints `PodList` with untyped items.
  const itemKind = kind === 'List' ? undefined : { kind: kind.slice(0, -'List'.length), apiVersion };
  if (items.length === 0) {
    if (!itemKind) return [{ type: 'empty-list' }];
    const source = sourceOfKind(itemKind.apiVersion, itemKind.kind);
    return source
      ? [
          { type: 'captured', source },
          { type: 'page', source },
        ]
      : [];
  }
  const sources = new Set<SourceName>();
  const recognised: Recognised[] = items.map((item, i) => {
    const r = recogniseListItem(item, itemKind, `${prefix}items[${i}]`);
    if (r.type === 'object' || r.type === 'malformed') sources.add(r.source);
    else if (r.type === 'event') sources.add('events');
    return r;
  });
  for (const source of sources) recognised.push({ type: 'page', source, ...(more ? { more } : {}) });
  return recognised;
}

/** A List read from the API with `?limit=` carries `metadata.continue` until its last page. */
function continueToken(metadata: unknown): string | undefined {
  return isRecord(metadata) && typeof metadata.continue === 'string' && metadata.continue !== ''
    ? 'metadata.continue'
    : undefined;
}

/**
 * `--max-items` (or `--no-paginate`) makes the AWS CLI stop after one page and print the token
 * for the next: EC2 `NextToken`, EKS `nextToken`, IAM `IsTruncated` with `Marker`.
 */
function awsPaginationToken(document: JsonRecord): string | undefined {
  for (const key of ['NextToken', 'nextToken']) {
    if (typeof document[key] === 'string' && document[key] !== '') return key;
  }
  return document.IsTruncated === true ? 'IsTruncated' : undefined;
}

function looksLikeLogRecord(document: JsonRecord): boolean {
  const has = (...keys: string[]) => keys.some((k) => Object.hasOwn(document, k));
  return has('level', 'severity') && has('message', 'msg') && has('time', 'ts', 'timestamp');
}

function recogniseListItem(
  item: unknown,
  itemKind: { kind: string; apiVersion: string } | undefined,
  where: string,
): Contribution {
  if (!isRecord(item)) throw new ShapeError(`${where} is not an object`);
  const kind = typeof item.kind === 'string' ? item.kind : itemKind?.kind;
  const apiVersion = typeof item.apiVersion === 'string' ? item.apiVersion : itemKind?.apiVersion;
  if (kind === undefined || apiVersion === undefined) throw new ShapeError(`${where} has no kind and apiVersion`);
  return classifyKubeObject(item, apiVersion, kind, where);
}
