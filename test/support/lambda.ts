/** A Lambda context and the sample events in events/, as the functions' tests feed them. */
import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';

export function lambdaContext(overrides: Partial<Context> = {}, remainingMs = 60_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'karpenter-sentinel-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:karpenter-sentinel-test',
    memoryLimitInMB: '512',
    awsRequestId: 'c0ffee00-0000-4000-8000-000000000001',
    logGroupName: '/aws/lambda/karpenter-sentinel-test',
    logStreamName: '2026/11/21/[$LATEST]0000',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    ...overrides,
  };
}

/** `events/<name>.json`, parsed; a fresh copy each call so tests may change it. */
export function sampleEvent<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../events/${name}.json`, import.meta.url), 'utf8')) as T;
}
