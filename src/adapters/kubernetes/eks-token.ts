/**
 * EKS bearer tokens, as `aws eks get-token` makes them: `k8s-aws-v1.` + base64url (no padding) of
 * an STS `GetCallerIdentity` URL presigned with SigV4, with the header `x-k8s-aws-id: <cluster>`
 * signed. EKS calls that URL to learn who we are; nothing is sent to STS from here.
 */
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { SYSTEM_CLOCK } from '../../ports/clock.ts';
import type { Clock } from '../../ports/clock.ts';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; a token signed with them dies with them. */
  expiration?: Date;
}

export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/**
 * `regional` (`sts.<region>.amazonaws.com`) is what the AWS CLI's `aws eks get-token` signs for,
 * us-east-1 included; `global` (`sts.amazonaws.com`, signed for us-east-1) is what older
 * aws-iam-authenticator versions used and still works where regional STS is disabled.
 */
export type StsEndpoint = 'regional' | 'global';

const TOKEN_PREFIX = 'k8s-aws-v1.';
// @smithy/hash-node 4.x exports a generic Hash; the SDK's clients bind it to sha256 the same way.
const SHA256 = Hash.bind(null, 'sha256');
const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** What the AWS CLI and aws-iam-authenticator put in the URL; EKS accepts the token for 15 min regardless. */
const PRESIGN_EXPIRES_SECONDS = 60;
/** A token older than this is not reused: EKS rejects it after 15 min, and clocks drift. */
const DEFAULT_TOKEN_MAX_AGE_MS = 10 * 60_000;
/** Temporary credentials this close to expiry are not signed with again. */
const CREDENTIAL_EXPIRY_MARGIN_MS = 60_000;

export interface PresignEksTokenInput {
  clusterName: string;
  region: string;
  credentials: AwsCredentials;
  signingDate: Date;
  stsEndpoint?: StsEndpoint;
}

export function stsHost(region: string, endpoint: StsEndpoint): string {
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return endpoint === 'global' ? `sts.${suffix}` : `sts.${region}.${suffix}`;
}

/** One token, signed at `signingDate`. Pure apart from the hashing. */
export async function presignEksToken(input: PresignEksTokenInput): Promise<string> {
  const endpoint = input.stsEndpoint ?? 'regional';
  const hostname = stsHost(input.region, endpoint);
  const signingRegion = endpoint === 'global' ? 'us-east-1' : input.region;
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: input.credentials.accessKeyId,
      secretAccessKey: input.credentials.secretAccessKey,
      sessionToken: input.credentials.sessionToken,
    },
    region: signingRegion,
    service: 'sts',
    sha256: SHA256,
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    headers: { host: hostname, [CLUSTER_ID_HEADER]: input.clusterName },
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
  });
  const signed = await signer.presign(request, { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: input.signingDate });
  const url = `https://${hostname}/?${orderedQuery(signed.query)}`;
  return TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

// The AWS CLI's parameter order, so tokens compare byte for byte (the signature does not depend on it).
const QUERY_ORDER = [
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
];

function orderedQuery(query: Readonly<Record<string, unknown>> = {}): string {
  const parts: string[] = [];
  const names = [...QUERY_ORDER, ...Object.keys(query).filter((name) => !QUERY_ORDER.includes(name))];
  for (const name of names) {
    const value = query[name];
    if (typeof value === 'string') parts.push(`${rfc3986(name)}=${rfc3986(value)}`);
  }
  return parts.join('&');
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export interface EksTokenSourceOptions {
  clusterName: string;
  region: string;
  stsEndpoint?: StsEndpoint;
  /** Default: the AWS SDK's default chain (env, SSO, profile, web identity, container, IMDS). */
  credentials?: AwsCredentialsProvider;
  clock?: Pick<Clock, 'now'>;
  maxAgeMs?: number;
}

/** Hands out a cached token, signing a fresh one when the cached one is too old. */
export class EksTokenSource {
  readonly #options: EksTokenSourceOptions;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #maxAgeMs: number;
  #credentials: AwsCredentialsProvider | undefined;
  #cached: { token: string; validUntil: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(options: EksTokenSourceOptions) {
    this.#options = options;
    this.#credentials = options.credentials;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULT_TOKEN_MAX_AGE_MS;
  }

  async token(): Promise<string> {
    const now = this.#clock.now().getTime();
    if (this.#cached && now < this.#cached.validUntil) return this.#cached.token;
    // Concurrent requests share one signing (and one credential lookup).
    this.#pending ??= this.#sign().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #sign(): Promise<string> {
    const provider = this.#credentials ?? (this.#credentials = await defaultCredentialsProvider());
    const credentials = await provider();
    const signingDate = this.#clock.now();
    const token = await presignEksToken({
      clusterName: this.#options.clusterName,
      region: this.#options.region,
      stsEndpoint: this.#options.stsEndpoint,
      credentials,
      signingDate,
    });
    let validUntil = signingDate.getTime() + this.#maxAgeMs;
    if (credentials.expiration) validUntil = Math.min(validUntil, credentials.expiration.getTime() - CREDENTIAL_EXPIRY_MARGIN_MS);
    this.#cached = { token, validUntil };
    return token;
  }
}

// Loaded on first use: tests and callers with their own provider never pay for the SDK chain.
async function defaultCredentialsProvider(): Promise<AwsCredentialsProvider> {
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  return defaultProvider();
}
