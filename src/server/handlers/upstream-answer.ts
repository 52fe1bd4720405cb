/**
 * What the browser hears when the service failed or refused the relay:
 * the statuses the element acts on, generic messages, and
 * never an upstream detail or key. The details go to `onEvent` only, as
 * `upstream_error`, from the route that answers.
 */
import { HttpError } from '../../http/http-error.js';
import { SERVICE_ERRORS } from '../../shared/service-contract.js';
import type { RelayRoute } from '../events/relay-events.js';
import { rateLimited } from '../limits/relay-limits.js';
import {
  type ServiceError,
  ServiceInvalidRequestError,
  ServiceNotFoundError,
} from '../service-client/service-errors.js';

const GENERIC_UPSTREAM_MESSAGE = 'The payment service is unavailable. Try again in a moment.';

/** A field the shopper typed: the only kind of upstream `param` named back to the browser. */
const SHOPPER_FIELD = /^(?:customer_data|payment_method_data)\.[a-z_.]+$/;

/** The `422` of a key already used for another checkout: the service's, or the relay's own when it knows. */
export function idempotencyKeyReused(): HttpError {
  return new HttpError(
    'idempotencyKeyReused',
    'This Idempotency-Key was already used for another checkout. Start a new attempt with a new key.',
  );
}

/** The browser's answer on `route` to a service call that failed with `error`. */
export function upstreamAnswer(route: RelayRoute, error: ServiceError): HttpError {
  switch (error.status) {
    case SERVICE_ERRORS.idempotencyRequestInProgress.status:
      return new HttpError(
        'idempotencyRequestInProgress',
        'This checkout attempt is still being processed. Try again in a moment with the same key.',
      );
    case SERVICE_ERRORS.idempotencyKeyReused.status:
      return idempotencyKeyReused();
    case SERVICE_ERRORS.rateLimited.status:
      return rateLimited(error.retryAfterMs ?? 1000);
    case SERVICE_ERRORS.resourceNotFound.status:
      // Only the service's own 404 says the order is unknown; a proxy's page is the service failing.
      if (route === 'lookup' && error instanceof ServiceNotFoundError) {
        return new HttpError('resourceNotFound', 'No such order.');
      }
      break;
  }
  if (
    route === 'create' &&
    error instanceof ServiceInvalidRequestError &&
    error.param !== undefined &&
    SHOPPER_FIELD.test(error.param)
  ) {
    return new HttpError('invalidRequest', 'The payment service did not accept this value.', {
      param: error.param,
    });
  }
  return new HttpError('upstreamFailed', GENERIC_UPSTREAM_MESSAGE);
}
