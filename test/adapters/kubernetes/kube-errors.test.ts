import { describe, expect, it } from 'vitest';
import {
  errorForNetwork,
  errorForStatus,
  kubeCallOutcome,
  parseRetryAfter,
  statusSummary,
  TransientKubeError,
} from '../../../src/adapters/kubernetes/kube-errors.ts';
import { KubeConflictError, KubeUnreachableError, ReadLimitError, SourceError } from '../../../src/ports/errors.ts';
import { InvocationTimeoutError } from '../../../src/support/abort.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const FORBIDDEN_BODY = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'nodeclaims.karpenter.sh is forbidden: User "system:serviceaccount:sentinel:scan" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
  reason: 'Forbidden',
  code: 403,
});

function networkError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('statusSummary', () => {
  it('is the status, its phrase and the Status message', () => {
    expect(statusSummary(403, FORBIDDEN_BODY)).toBe(
      '403 Forbidden: nodeclaims.karpenter.sh is forbidden: User "system:serviceaccount:sentinel:scan" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope',
    );
  });

  it('folds a non-JSON body (a proxy page) to one short line', () => {
    const summary = statusSummary(502, '<html><body><h1>502 Bad Gateway</h1>\n<p>upstream\nclosed</p></body></html>');
    expect(summary).toBe('502 Bad Gateway: 502 Bad Gateway upstream closed');
  });

  it('is just the status when there is no message', () => {
    expect(statusSummary(500, '')).toBe('500 Internal Server Error');
    expect(statusSummary(429, '{"kind":"Status","message":""}')).toBe('429 Too Many Requests');
  });

  it('cuts very long messages', () => {
    const summary = statusSummary(400, JSON.stringify({ message: 'x'.repeat(1000) }));
    expect(summary.length).toBeLessThan(320);
    expect(summary.endsWith('…')).toBe(true);
  });
});

describe('errorForStatus', () => {
  it.each([400, 403, 404, 422])('%i is permanent: a SourceError with the code', (status) => {
    const error = errorForStatus(status, FORBIDDEN_BODY, undefined, NOW);
    expect(error).toBeInstanceOf(SourceError);
    expect(error).not.toBeInstanceOf(KubeConflictError);
    expect(error).not.toBeInstanceOf(KubeUnreachableError);
    expect((error as SourceError).code).toBe(String(status));
  });

  it('409 is a KubeConflictError', () => {
    expect(errorForStatus(409, '{"message":"the object has been modified"}', undefined, NOW)).toBeInstanceOf(KubeConflictError);
  });

  it('401 means the API is unusable: KubeUnreachableError', () => {
    const error = errorForStatus(401, '{"message":"Unauthorized"}', undefined, NOW);
    expect(error).toBeInstanceOf(KubeUnreachableError);
    expect((error as SourceError).summary).toBe('401 Unauthorized: Unauthorized');
  });

  it.each([429, 500, 502, 503, 504])('%i is transient', (status) => {
    expect(errorForStatus(status, '', undefined, NOW)).toBeInstanceOf(TransientKubeError);
  });

  it('carries Retry-After in milliseconds', () => {
    const error = errorForStatus(429, '', '2', NOW);
    expect(error instanceof TransientKubeError && error.retryAfterMs).toBe(2000);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, ignores garbage', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('errorForNetwork', () => {
  const server = 'https://127.0.0.1:6443';

  it.each(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'KUBE_REQUEST_TIMEOUT'])('%s is transient', (code) => {
    expect(errorForNetwork(networkError(code, 'socket hang up'), server)).toBeInstanceOf(TransientKubeError);
  });

  it('connection refused is unreachable, not retried', () => {
    const error = errorForNetwork(networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'), server);
    expect(error).toBeInstanceOf(KubeUnreachableError);
    expect((error as SourceError).summary).toBe('connection refused by https://127.0.0.1:6443');
  });

  it('a DNS failure is unreachable', () => {
    const error = errorForNetwork(networkError('ENOTFOUND', 'getaddrinfo ENOTFOUND abc.gr7.us-east-1.eks.amazonaws.com'), server);
    expect(error).toBeInstanceOf(KubeUnreachableError);
  });

  it.each(['SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED'])(
    '%s is a TLS failure: unreachable',
    (code) => {
      const error = errorForNetwork(networkError(code, 'self-signed certificate in certificate chain'), server);
      expect(error).toBeInstanceOf(KubeUnreachableError);
      expect((error as SourceError).summary).toBe(
        `TLS verification failed for ${server}: self-signed certificate in certificate chain`,
      );
    },
  );
});

describe('kubeCallOutcome: how a failed Kubernetes call is counted (ApiCalls, Outcome)', () => {
  const SERVER = 'https://127.0.0.1:6443';
  /** What the client throws for a status once its retries are spent: the error the transient one carries. */
  const afterRetries = (status: number) => {
    const error = errorForStatus(status, FORBIDDEN_BODY, undefined, NOW);
    return error instanceof TransientKubeError ? error.error : error;
  };
  const afterNetwork = (code: string) => {
    const error = errorForNetwork(networkError(code, `${code} happened`), SERVER);
    return error instanceof TransientKubeError ? error.error : error;
  };

  it.each([
    [429, 'throttled'],
    [401, 'access-denied'],
    [403, 'access-denied'],
    [404, 'not-found'],
    [409, 'other'],
    [500, 'other'],
    [503, 'other'],
  ])('HTTP %i → %s', (status, outcome) => {
    expect(kubeCallOutcome(afterRetries(status))).toBe(outcome);
  });

  it.each([
    ['KUBE_CONNECT_TIMEOUT', 'timeout'],
    ['KUBE_REQUEST_TIMEOUT', 'timeout'],
    ['ECONNREFUSED', 'network'],
    ['ENOTFOUND', 'network'],
    ['ECONNRESET', 'network'],
    ['CERT_HAS_EXPIRED', 'network'],
  ])('%s → %s', (code, outcome) => {
    expect(kubeCallOutcome(afterNetwork(code))).toBe(outcome);
  });

  it("counts the invocation's deadline as a timeout, a read limit as other", () => {
    expect(kubeCallOutcome(new InvocationTimeoutError())).toBe('timeout');
    expect(kubeCallOutcome(new ReadLimitError('pods: more than 5000 items', 'listItems'))).toBe('other');
  });
});
