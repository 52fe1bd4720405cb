/**
 * Which service failures mean "the service is down or asks us to slow down"
 * (the watcher pauses and keeps the order) and which refuse a call for good.
 */
import { CLIENT_ERROR_CODES, ServiceError, ServiceRateLimitError } from './service-errors.js';

/** A failure the watcher waits out: a `429`, no answer, a time-out, a `5xx`, or an answer it cannot read. */
export interface ServiceTrouble {
  reason: 'rate_limited' | 'unavailable';
  /** The wait the service asked for in `Retry-After`, if any. */
  retryAfterMs: number;
}

/** The trouble `error` shows, or `undefined` when it is not an outage or a `429`. */
export function serviceTroubleOf(error: unknown): ServiceTrouble | undefined {
  if (error instanceof ServiceRateLimitError) {
    return { reason: 'rate_limited', retryAfterMs: error.retryAfterMs ?? 0 };
  }
  if (error instanceof ServiceError && (error.status === 0 || error.status >= 500 || isUnreadable(error))) {
    return { reason: 'unavailable', retryAfterMs: 0 };
  }
  return undefined;
}

/** Whether the service refused a call for good (a `4xx` other than `409` and `429`): retrying changes nothing. */
export function isRefusedForGood(error: unknown): boolean {
  return error instanceof ServiceError && !error.retryable && error.status >= 400 && error.status < 500;
}

/** The refusals that prove the service holds no order under the key: the body (`400`) or the API key (`401`, `403`) refused. */
const NO_ORDER_STATUSES = new Set([400, 401, 403]);

/**
 * Whether a create's refusal proves no order exists under its key, so its
 * intent may be dropped. A `422` does not: it says an order exists under the
 * key with another body.
 */
export function provesNoOrder(error: unknown): boolean {
  return error instanceof ServiceError && NO_ORDER_STATUSES.has(error.status);
}

/**
 * A `2xx` whose body is not the documented answer (broken JSON, an HTML page
 * from a proxy): the service is as good as down, and asking again at once,
 * order after order, would only hammer it.
 */
function isUnreadable(error: ServiceError): boolean {
  return error.code === CLIENT_ERROR_CODES.invalidResponse.code;
}
