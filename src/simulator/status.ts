/**
 * Failures as the API server reports them: a `metav1.Status` body with the HTTP code, a
 * machine-readable `reason` and the message clients show.
 */
import { SIM_RESOURCES, type SimResourceName } from './kube-store.ts';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  /** What went wrong, one entry per cause (an admission webhook's refusal carries its error here). */
  causes?: { message: string }[];
}

export class ApiStatusError extends Error {
  override name = 'ApiStatusError';
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }
}

const REASON_OF_STATUS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function reasonOfStatus(code: number): string {
  return REASON_OF_STATUS[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest');
}

/** A failure Status; an empty reason (`StatusReasonUnknown`) is left out, as the API server omits it. */
export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    ...(reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  });
}

export function successStatusBody(details: StatusDetails): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
}

/** `deployments.apps`, `pods`: how messages name a resource. */
function qualifiedResource(resource: SimResourceName): string {
  const group = SIM_RESOURCES[resource].group;
  return group ? `${resource}.${group}` : resource;
}

export function notFound(resource: SimResourceName, name: string): ApiStatusError {
  return new ApiStatusError(404, 'NotFound', `${qualifiedResource(resource)} "${name}" not found`, {
    name,
    group: SIM_RESOURCES[resource].group,
    kind: resource,
  });
}

export function conflict(resource: SimResourceName, name: string): ApiStatusError {
  return new ApiStatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: SIM_RESOURCES[resource].group, kind: resource },
  );
}

export function alreadyExists(resource: SimResourceName, name: string): ApiStatusError {
  return new ApiStatusError(409, 'AlreadyExists', `${qualifiedResource(resource)} "${name}" already exists`, {
    name,
    group: SIM_RESOURCES[resource].group,
    kind: resource,
  });
}

export function badRequest(message: string): ApiStatusError {
  return new ApiStatusError(400, 'BadRequest', message);
}

export function invalid(resource: SimResourceName, name: string, message: string): ApiStatusError {
  const { kind, group } = SIM_RESOURCES[resource];
  return new ApiStatusError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${message}`, {
    name,
    group,
    kind,
  });
}

export const RESOURCE_NOT_FOUND = new ApiStatusError(404, 'NotFound', 'the server could not find the requested resource');
export const METHOD_NOT_ALLOWED = new ApiStatusError(
  405,
  'MethodNotAllowed',
  'the server does not allow this method on the requested resource',
);
