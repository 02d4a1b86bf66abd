/**
 * The docs tables read from the finding catalogue (scripts/catalogue-tables.ts) are the committed
 * ones: a threshold or a finding metric added to the catalogue fails here until
 * `npm run docs:catalogue -- --write` has rewritten them.
 */
import { describe, expect, it } from 'vitest';
import { catalogueTables, catalogueYaml, expectedDocs } from '../../scripts/catalogue-tables.ts';
import { FINDING_METRICS, THRESHOLDS } from '../../src/domain/finding-catalogue.ts';

describe('docs tables from the finding catalogue', () => {
  it('each committed table is the one the catalogue writes (npm run docs:catalogue -- --write)', async () => {
    const docs = await expectedDocs();

    expect([...docs.keys()]).toContain('serverless.yml');
    for (const [doc, { now, expected }] of docs) expect(now, doc).toBe(expected);
  });

  it('one row per threshold in the flag, param and variable tables, one per finding metric in the metrics table', () => {
    const tables = catalogueTables();
    const rowsOf = (name: string) => tables.filter((t) => t.name === name).map((t) => t.rows.length);

    expect(rowsOf('thresholds')).toEqual([THRESHOLDS.length, THRESHOLDS.length, THRESHOLDS.length]);
    expect(rowsOf('metrics')).toEqual([FINDING_METRICS.length]);
    expect(tables.find((t) => t.doc === 'docs/deploy.md')?.rows.map((r) => r[1])).toEqual(THRESHOLDS.map((t) => `\`${t.env}\``));
  });

  it('serverless.yml: one param and one scan variable per threshold, the variable set from the param', () => {
    const [params, environment] = catalogueYaml();

    expect(params?.entries.map(([key]) => key)).toEqual(THRESHOLDS.map((t) => t.param));
    expect(environment?.entries).toEqual(THRESHOLDS.map((t) => [t.env, `\${param:${t.param}}`]));
  });
});
