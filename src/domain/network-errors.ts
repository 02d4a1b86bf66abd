/**
 * What a failure below HTTP means, by the code Node (or the project's Kubernetes transport) gives
 * it: the one classifier of network failures, shared by the Kubernetes adapter (retry or give up)
 * and the cleanup's advice (reachability, not RBAC).
 */

/** Certificate problems as Node names them (OpenSSL verify codes, and Node's own hostname check). */
const TLS_ERROR_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

/** Dropped or stalled connections: the request may well succeed on a fresh one. */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'KUBE_REQUEST_TIMEOUT',
]);

/**
 * - `tls`: the server's certificate was not trusted;
 * - `refused`: nothing listens there (ECONNREFUSED);
 * - `unresolved`: the name does not resolve (ENOTFOUND);
 * - `connect-timeout`: no connection within the transport's connect timeout (KUBE_CONNECT_TIMEOUT);
 * - `transient`: dropped, reset or stalled, or DNS failing for now (EAI_AGAIN): worth another try.
 */
export type NetworkFailure = 'tls' | 'refused' | 'unresolved' | 'connect-timeout' | 'transient';

/** The kind of network failure `code` names, or undefined when it names none (an HTTP status, an AWS error code). */
export function networkFailureOf(code: string | undefined): NetworkFailure | undefined {
  if (code === undefined) return undefined;
  if (TLS_ERROR_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'tls';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND') return 'unresolved';
  if (code === 'KUBE_CONNECT_TIMEOUT') return 'connect-timeout';
  if (TRANSIENT_NETWORK_CODES.has(code)) return 'transient';
  return undefined;
}
