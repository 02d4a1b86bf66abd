import type { KubeEvent, KubeObject } from '../domain/kube.ts';
import type { SourceName } from '../domain/snapshot.ts';
import { readAwsCliOutput, type AwsCliOutput } from './aws-cli.ts';
import { readCliErrorText, type CliErrorFact } from './cli-error-text.ts';
import { classifyKubeObject, EXAMPLE_RESOURCE_FILE_NAMES, sourceNamedByFile, sourceOfKind } from './kube-objects.ts';
import { parseDocuments } from './parse-documents.ts';
import { isRecord, oneLine, ShapeError, type JsonRecord } from './shape.ts';

/** What one capture file adds to the snapshot. Pure data: the builder merges contributions. */
export type Contribution =
  | { type: 'captured'; source: SourceName }
  | { type: 'object'; source: Exclude<SourceName, 'events'>; object: KubeObject; key: string }
  | { type: 'event'; event: KubeEvent; key: string }
  | { type: 'aws'; output: AwsCliOutput }
  | { type: 'secret' }
  | { type: 'unused'; kind: string }
  | Exclude<CliErrorFact, { type: 'no-resources' }>;

const NOT_UNDERSTOOD = 'not a kubectl or aws CLI output this tool understands';

/** An empty `List` names no kind; the caller resolves it against the file name. */
type Recognised = Contribution | { type: 'empty-list' };

/**
 * A capture file's text → its contributions, recognised from content. `baseName` (file name
 * without directory and extension) matters only for empty lists, which name no kind.
 * Throws ShapeError with a one-line reason.
 */
export function recogniseCapture(text: string, baseName: string): Contribution[] {
  let failure: ShapeError;
  try {
    const documents = parseDocuments(text);
    if (documents.length === 0) throw new ShapeError(`empty file: ${NOT_UNDERSTOOD}`);
    const several = documents.length > 1;
    return documents
      .flatMap((document, i) => recogniseDocument(document, several ? `document ${i + 1}: ` : ''))
      .map((r) => (r.type === 'empty-list' ? capturedByFileName(baseName) : r));
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    failure = error;
  }
  // Not an output: perhaps the error the CLI printed instead of one.
  const facts = readCliErrorText(text);
  if (facts.length === 0) throw failure;
  return facts.map((fact) => (fact.type === 'no-resources' ? capturedByFileName(baseName) : fact));
}

function capturedByFileName(baseName: string): Contribution {
  const source = sourceNamedByFile(baseName);
  if (!source) {
    throw new ShapeError(
      `an empty list names no kind of resource: name the file after the resource it lists (${EXAMPLE_RESOURCE_FILE_NAMES})`,
    );
  }
  return { type: 'captured', source };
}

function recogniseDocument(document: unknown, prefix: string): Recognised[] {
  if (Array.isArray(document)) {
    // A bare JSON array (e.g. `jq .items`): its elements are objects, like list items.
    if (document.length === 0) return [{ type: 'empty-list' }];
    return document.map((item, i) => recogniseListItem(item, undefined, `${prefix}[${i}]`));
  }
  if (!isRecord(document)) {
    const hint = typeof document === 'string' ? ' (controller logs need a .log suffix)' : '';
    throw new ShapeError(`${prefix}${NOT_UNDERSTOOD}${hint}`);
  }
  const { kind, apiVersion } = document;
  if (typeof kind === 'string' && typeof apiVersion === 'string') {
    if (Array.isArray(document.items) && (kind === 'List' || kind.endsWith('List'))) {
      return recogniseList(document.items, kind, apiVersion, prefix);
    }
    return [fromKubeObject(document, apiVersion, kind, prefix.replace(/: $/, ''))];
  }
  const outputs = readAwsCliOutput(document);
  if (outputs) return outputs.map((output) => ({ type: 'aws', output }));
  const keys = Object.keys(document)
    .slice(0, 5)
    .map((k) => oneLine(k, 40));
  throw new ShapeError(`${prefix}${NOT_UNDERSTOOD}${keys.length ? ` (top-level keys: ${keys.join(', ')})` : ''}`);
}

function recogniseList(items: unknown[], kind: string, apiVersion: string, prefix: string): Recognised[] {
  // `kubectl get` prints `List` with typed items; the API prints `PodList` with untyped items.
  const itemKind = kind === 'List' ? undefined : { kind: kind.slice(0, -'List'.length), apiVersion };
  if (items.length === 0) {
    if (!itemKind) return [{ type: 'empty-list' }];
    const source = sourceOfKind(itemKind.apiVersion, itemKind.kind);
    return source ? [{ type: 'captured', source }] : [];
  }
  return items.map((item, i) => recogniseListItem(item, itemKind, `${prefix}items[${i}]`));
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
  return fromKubeObject(item, apiVersion, kind, where);
}

function fromKubeObject(object: JsonRecord, apiVersion: string, kind: string, where: string): Contribution {
  const verdict = classifyKubeObject(object, apiVersion, kind, where);
  return verdict.type === 'kept' ? { type: 'object', source: verdict.source, object: verdict.object, key: verdict.key } : verdict;
}
