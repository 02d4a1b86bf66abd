import { readAwsCliOutput, type AwsCliOutput } from '../../snapshot/aws-cli.ts';
import { isRecord, ShapeError } from '../../domain/shape.ts';
import { SourceError } from '../../ports/errors.ts';

type OutputOf<S extends AwsCliOutput['source']> = Extract<AwsCliOutput, { source: S }>;

/**
 * An SDK response → domain records, read by the loader's own AWS CLI reader: the CLI prints the
 * SDK's fields under the same names, and a JSON round trip turns the SDK's Dates into the ISO text
 * the CLI prints. So a live scan and a scan of captured files read AWS alike by construction.
 */
export function fromSdkOutput<S extends AwsCliOutput['source']>(operation: string, source: S, document: object): OutputOf<S> {
  try {
    const cliShaped: unknown = JSON.parse(JSON.stringify(document));
    const output = isRecord(cliShaped) ? readAwsCliOutput(cliShaped)?.find((o) => o.source === source) : undefined;
    if (output) return output as OutputOf<S>;
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    throw new SourceError(`${operation} failed: unexpected response: ${error.message}`, {
      code: 'UnexpectedResponse',
      cause: error,
    });
  }
  throw new SourceError(`${operation} failed: unexpected response`, { code: 'UnexpectedResponse' });
}

/**
 * Pages one listing may take. Far above any real account (10,000 pages are millions of items), it
 * stops a NextToken that never ends, from a broken or hostile endpoint, reading forever.
 */
const MAX_PAGES = 10_000;

/** Every page's items in order, from an SDK paginator (`itemsOf` may convert a page on the way). */
export async function allPages<P, T>(
  pages: AsyncIterable<P>,
  itemsOf: (page: P) => readonly T[] | undefined,
  maxPages = MAX_PAGES,
): Promise<T[]> {
  const items: T[] = [];
  let count = 0;
  for await (const page of pages) {
    if (++count > maxPages)
      throw new SourceError(`listing stopped after ${maxPages} pages: the endpoint keeps returning a next token`, {
        code: 'TooManyPages',
      });
    items.push(...(itemsOf(page) ?? []));
  }
  return items;
}
