/**
 * The measured-ports decorator: the AWS and Kubernetes ports, unchanged in interface, with every
 * call counted and timed per API and outcome into an ApiCallMeter (api-call-metrics.ts), as
 * Karpenter wraps its cloud provider in a metrics decorator (pkg/cloudprovider/metrics). The
 * composition roots wrap the ports once; nothing under them knows.
 *
 * Each port method gets one API name, the IAM action it is (`ec2:DescribeInstances`) or the actions
 * it chains (`eks:ListFargateProfiles+DescribeFargateProfile`); a Kubernetes call is named by its RBAC
 * verb and resource (`k8s:list nodeclaims`, `k8s:get pods/log`): ../aws/measured-aws.ts and
 * ../kubernetes/measured-kubernetes.ts. The names are a fixed set, so a cluster's data cannot mint new metric series.
 */
import { performance } from 'node:perf_hooks';
import type { ApiCallMeter, ApiCallOutcome } from './api-call-metrics.ts';
import { notingCall, type CallNotes } from './call-retries.ts';

type AsyncMethod = (...args: never[]) => Promise<unknown>;

/** For each async method of P, its API name from its arguments: a port method added without a name does not compile. */
export type ApiNames<P> = {
  [K in keyof P as P[K] extends AsyncMethod ? K : never]: P[K] extends (...args: infer A) => Promise<unknown>
    ? (...args: A) => string
    : never;
};

/**
 * `port` with each method named in `apis` measured; every other member (a connection's `close`, a
 * field) is the port's own, bound to it (adapters keep private fields a bare delegate could not reach).
 */
export function measured<P extends object>(
  port: P,
  apis: ApiNames<P>,
  outcomeOf: (error: unknown) => ApiCallOutcome,
  meter: ApiCallMeter,
): P {
  const named = apis as Record<PropertyKey, ((...args: unknown[]) => string) | undefined>;
  return new Proxy(port, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const apiOf = Object.hasOwn(named, key) ? named[key] : undefined;
      if (!apiOf) return value.bind(target);
      return async (...args: unknown[]) => {
        const api = apiOf(...args);
        const notes: CallNotes = { retries: 0, outcomeOf };
        const started = performance.now();
        // A call answered without a request made no API call; a resolved one ends as its first failed request did.
        const done = (outcome: ApiCallOutcome) => {
          if (!notes.withoutRequest) meter.record(api, outcome, performance.now() - started, notes.retries);
        };
        try {
          const result: unknown = await notingCall(notes, () => value.apply(target, args) as Promise<unknown>);
          done(notes.failed ?? 'ok');
          return result;
        } catch (error) {
          done(outcomeOf(error));
          throw error;
        }
      };
    },
  });
}
