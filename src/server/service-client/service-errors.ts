/**
 * The service client's one error. Every failure of a service call is a
 * {@link ServiceError}: the service's own error shape (`code`,
 * `message`, `type`, plus `param` for invalid input) with the HTTP status, or
 * a client-side code when no answer came, and whether a retry with the same
 * idempotency key may cure it. None of them ever holds the key.
 *
 * The subclasses carry nothing of their own: they are there so a merchant can
 * branch with `instanceof` as the README shows (`ServiceNotFoundError`…).
 */
import { SERVICE_ERRORS } from '../../shared/service-contract.js';

/** Codes the client itself gives when the service did not answer usefully. */
export const CLIENT_ERROR_CODES = {
  network: { code: 'network_error', type: 'network_error' },
  timeout: { code: 'timeout', type: 'timeout_error' },
  invalidResponse: { code: 'invalid_response', type: 'api_error' },
} as const;

/** What every {@link ServiceError} carries. */
export interface ServiceErrorDetails {
  /** HTTP status of the answer; 0 when no answer came (network failure, time-out). */
  status: number;
  code: string;
  type: string;
  message: string;
  /** The request field the service found wrong, dotted (`customer_data.name`). */
  param?: string;
  /** The service's request identifier, when the answer had one. */
  requestId?: string;
  /** For a `429`: the wait the service asked for in `Retry-After`, in milliseconds. */
  retryAfterMs?: number;
  /** The original failure (a network error), never the request. */
  cause?: unknown;
}

/** A failed service call. */
export class ServiceError extends Error {
  /** HTTP status of the answer; 0 when no answer came. */
  readonly status: number;
  /** The service's `error.code`, or one of {@link CLIENT_ERROR_CODES}. */
  readonly code: string;
  /** The service's `error.type`. */
  readonly type: string;
  /** The request field at fault, for invalid requests. */
  readonly param?: string;
  /** The service's request identifier, when it sent one. */
  readonly requestId?: string;
  /** For a `429`: the wait the service asked for, in milliseconds, when it gave one. */
  readonly retryAfterMs?: number;
  /** True for failures a retry with the same idempotency key may cure. */
  readonly retryable: boolean;

  constructor(details: ServiceErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.type = details.type;
    if (details.param !== undefined) this.param = details.param;
    if (details.requestId !== undefined) this.requestId = details.requestId;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    this.retryable = isRetryableFailure(details.status);
  }
}

/**
 * Whether a retry with the same key may cure a failure of this status: no
 * answer (0), the key still in flight (409), rate limited (429), or the
 * service failing (5xx). Not 422: the key was used with another body.
 */
function isRetryableFailure(status: number): boolean {
  return (
    status === 0 ||
    status === SERVICE_ERRORS.idempotencyRequestInProgress.status ||
    status === SERVICE_ERRORS.rateLimited.status ||
    status >= 500
  );
}

/** `401`: the key is missing, malformed, unknown, deleted, expired or of the wrong mode. */
export class ServiceAuthenticationError extends ServiceError {}

/** `403`: the key is valid but may not do this: publishable, restricted, read-only. */
export class ServicePermissionError extends ServiceError {}

/** `400` and other `4xx` about the request itself; `param` names the field. */
export class ServiceInvalidRequestError extends ServiceError {}

/** `404` in the service's error shape: no resource with that identifier (any other `404`, a proxy's page, is a {@link ServiceApiError}). */
export class ServiceNotFoundError extends ServiceError {}

/** `409` (the same key is still in flight: retryable) or `422` (the key was used with another body). */
export class ServiceIdempotencyError extends ServiceError {}

/** `429`: too many requests; `retryAfterMs` says how long the service asked to wait. */
export class ServiceRateLimitError extends ServiceError {}

/** `5xx`, or an answer that is not what the specification describes. */
export class ServiceApiError extends ServiceError {}

/** The request or its answer was lost on the way (refused, reset, cut mid-body). */
export class ServiceNetworkError extends ServiceError {}

/** No complete answer within `timeoutMs`. */
export class ServiceTimeoutError extends ServiceError {}

/** The error class for an HTTP error status, as the service and the relay assign them. */
export function serviceErrorClassFor(status: number): typeof ServiceError {
  if (status === 401) return ServiceAuthenticationError;
  if (status === 403) return ServicePermissionError;
  if (status === 404) return ServiceNotFoundError;
  if (status === 409 || status === 422) return ServiceIdempotencyError;
  if (status === 429) return ServiceRateLimitError;
  if (status >= 400 && status < 500) return ServiceInvalidRequestError;
  return ServiceApiError;
}
