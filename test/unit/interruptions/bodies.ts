/** EventBridge event bodies as the sentinel's queue delivers them, for the parser tests. */
import { parseRecord, type ParsedRecord } from '../../../src/interruptions/parse.ts';
import { isParseError, type ParseError } from '../../../src/interruptions/event.ts';

const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';

export function eventBody(input: {
  detailType: string;
  source?: string;
  detail: Record<string, unknown>;
  id?: string;
  time?: string;
  resources?: string[];
}): string {
  return JSON.stringify({
    version: '0',
    id: input.id ?? '1e5527d7-bb36-4607-3370-4164db56a40e',
    'detail-type': input.detailType,
    source: input.source ?? 'aws.ec2',
    account: ACCOUNT,
    time: input.time ?? '2027-06-01T12:00:03Z',
    region: REGION,
    resources: input.resources ?? [],
    detail: input.detail,
  });
}

/** The parsed record; fails the test with the parse error's message when there is one. */
export function parsed(body: string): ParsedRecord {
  const result = parseRecord({ body });
  if (isParseError(result)) throw new Error(`expected a parsed record, got ${result.code}: ${result.message}`);
  return result;
}

/** The parse error; fails the test when the record parsed. */
export function parseError(body: string): ParseError {
  const result = parseRecord({ body });
  if (!isParseError(result)) throw new Error(`expected a parse error, got ${JSON.stringify(result)}`);
  return result;
}
