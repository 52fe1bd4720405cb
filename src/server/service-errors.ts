/**
 * Typed errors of the service client. Every failure of a service call is one
 * {@link ServiceError}: the service's own error shape (spec §7: `code`,
 * `message`, `type`, plus `param` for invalid input) with the HTTP status, or
 * a client-side code when no answer came. None of them ever holds the key.
 */
import { SERVICE_ERRORS } from '../shared/service-contract.js';

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
  /** The original failure (a network error), never the request. */
  cause?: unknown;
}

/** Base class of every error the service client throws about a call. */
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

  constructor(details: ServiceErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.type = details.type;
    if (details.param !== undefined) this.param = details.param;
    if (details.requestId !== undefined) this.requestId = details.requestId;
  }

  /** True for failures a retry with the same idempotency key may cure. */
  get retryable(): boolean {
    return false;
  }
}

/** `401`: the key is missing, malformed, unknown, deleted, expired or of the wrong mode (spec §5.5). */
export class ServiceAuthenticationError extends ServiceError {}

/** `403`: the key is valid but may not do this (spec §5.6): publishable, restricted, read-only. */
export class ServicePermissionError extends ServiceError {}

/** `400` and other `4xx` about the request itself; `param` names the field. */
export class ServiceInvalidRequestError extends ServiceError {}

/** `404`: no resource with that identifier. */
export class ServiceNotFoundError extends ServiceError {}

/**
 * `409` (the same key is still in flight: retryable) or `422` (the key was
 * used with another body: a new key is needed).
 */
export class ServiceIdempotencyError extends ServiceError {
  override get retryable(): boolean {
    return this.status === SERVICE_ERRORS.idempotencyRequestInProgress.status;
  }
}

/** `429`: too many requests; `retryAfterMs` says how long the service asked to wait. */
export class ServiceRateLimitError extends ServiceError {
  /** The wait the service asked for in `Retry-After`, in milliseconds, when it gave one. */
  readonly retryAfterMs?: number;

  constructor(details: ServiceErrorDetails & { retryAfterMs?: number }) {
    super(details);
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }

  override get retryable(): boolean {
    return true;
  }
}

/** `5xx`, or an answer that is not what the specification describes. */
export class ServiceApiError extends ServiceError {
  override get retryable(): boolean {
    return this.status >= 500;
  }
}

/** The request or its answer was lost on the way (refused, reset, cut mid-body). */
export class ServiceNetworkError extends ServiceError {
  override get retryable(): boolean {
    return true;
  }
}

/** No complete answer within `timeoutMs`. */
export class ServiceTimeoutError extends ServiceError {
  override get retryable(): boolean {
    return true;
  }
}

/** The error class for an HTTP error status, as spec §7 and the contract assign them. */
export function serviceErrorClassFor(status: number): typeof ServiceError {
  if (status === 401) return ServiceAuthenticationError;
  if (status === 403) return ServicePermissionError;
  if (status === 404) return ServiceNotFoundError;
  if (status === 409 || status === 422) return ServiceIdempotencyError;
  if (status === 429) return ServiceRateLimitError;
  if (status >= 500) return ServiceApiError;
  if (status >= 400) return ServiceInvalidRequestError;
  return ServiceApiError;
}
