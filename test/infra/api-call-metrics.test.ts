/**
 * The API call metrics as the dashboard and docs/service.md name them: both held to the names and
 * dimensions declared beside the decorator (src/adapters/calls/api-call-metrics.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_CALL_METRIC } from '../../src/adapters/calls/api-call-metrics.ts';
import { METRICS_NAMESPACE } from '../../src/config.ts';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const DIMENSIONS = {
  [API_CALL_METRIC.calls]: ['Api', 'Outcome'],
  [API_CALL_METRIC.duration]: ['Api'],
  [API_CALL_METRIC.retries]: ['Api'],
};

describe('the API call metrics', () => {
  it.each(Object.entries(DIMENSIONS))('the dashboard searches %s by its exact dimensions %j', (metric, dimensions) => {
    const searches = [...read('infra/dashboard.yml').matchAll(/SEARCH\('\{([^}]*)\} MetricName=\\"([A-Za-z]+)\\"/g)];

    const schema = searches.find((m) => m[2] === metric)?.[1]?.split(',');

    expect(schema).toEqual([METRICS_NAMESPACE, ...dimensions]);
  });

  it.each(Object.entries(DIMENSIONS))('docs/service.md lists %s with its dimensions', (metric, dimensions) => {
    const row = read('docs/service.md')
      .split('\n')
      .find((line) => line.startsWith(`| \`${metric}\``));

    expect(row?.split('|')[3]?.trim()).toBe(dimensions.join(', '));
  });
});
