/**
 * The meter of the measured calls: what a drain hands over when nothing drained it for a long while
 * (a flush cut short), bounded for the durations and exact for the counts.
 */
import { describe, expect, it } from 'vitest';
import { ApiCallMeter } from '../../../src/adapters/calls/api-call-metrics.ts';

describe('the API call meter', () => {
  it('keeps at most 1,000 durations per API between drains, while its count still counts every call', () => {
    // Prepare
    const meter = new ApiCallMeter();

    // Act
    for (let call = 0; call < 1_001; call += 1) meter.record('k8s:list pods', 'ok', call);
    meter.record('ec2:DescribeInstances', 'ok', 12);
    const datums = meter.drain();

    // Assess
    const durations = datums.filter((d) => d.name === 'ApiCallDurationMs' && d.dimensions.Api === 'k8s:list pods');
    expect(durations).toHaveLength(1_000);
    expect(durations.at(-1)?.value).toBe(999);
    expect(datums.filter((d) => d.name === 'ApiCalls')).toEqual([
      { name: 'ApiCalls', unit: 'Count', value: 1_001, dimensions: { Api: 'k8s:list pods', Outcome: 'ok' } },
      { name: 'ApiCalls', unit: 'Count', value: 1, dimensions: { Api: 'ec2:DescribeInstances', Outcome: 'ok' } },
    ]);
    expect(datums.filter((d) => d.name === 'ApiCallDurationMs' && d.dimensions.Api === 'ec2:DescribeInstances')).toHaveLength(1);
  });

  it('starts afresh after a drain: the cap is per drain, not for the life of the function', () => {
    // Prepare
    const meter = new ApiCallMeter();
    for (let call = 0; call < 1_001; call += 1) meter.record('k8s:list pods', 'ok', 5);
    meter.drain();

    // Act
    meter.record('k8s:list pods', 'throttled', 7, 2);
    const datums = meter.drain();

    // Assess
    expect(datums).toEqual([
      { name: 'ApiCalls', unit: 'Count', value: 1, dimensions: { Api: 'k8s:list pods', Outcome: 'throttled' } },
      { name: 'ApiCallDurationMs', unit: 'Milliseconds', value: 7, dimensions: { Api: 'k8s:list pods' } },
      { name: 'ApiCallRetries', unit: 'Count', value: 2, dimensions: { Api: 'k8s:list pods' } },
    ]);
  });
});
