/**
 * What every relay route does around its handler: answers `OPTIONS`
 * preflights, refuses other methods than the route's (`POST`, `GET` for a checkout read), adds the CORS headers, and
 * is the relay's `onError`. Handlers only throw; here a throw is reported to
 * `onEvent`, once, and put as the browser may hear it: a RelayRefusal as its
 * own event and answer, any other HttpError as `request_rejected`, a service
 * failure as `upstream_error` with a generic answer, anything else as
 * `internal_error`. `answerFor` (src/http/answer-errors.ts), the one place a
 * throw becomes an answer, then answers it: anything but an HttpError with a
 * bare `500`.
 */

import { answerFor } from '../http/answer-errors.js';
import type { ConnectionInfo, WebHandler } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import type { CheckoutRelayEvent, RelayRoute } from './events/relay-events.js';
import { GENERIC_INTERNAL_MESSAGE, RelayRefusal } from './events/relay-refusal.js';
import { upstreamAnswer } from './handlers/upstream-answer.js';
import type { RelayConfig } from './relay-config.js';
import { ServiceError } from './service-client/service-errors.js';

/** Wraps a handler: preflight, the method check (`method`, POST unless told), CORS headers, and its throws answered. */
export function route(
  config: RelayConfig,
  name: RelayRoute,
  serve: (request: Request, connection?: ConnectionInfo) => Promise<Response>,
  method: 'POST' | 'GET' = 'POST',
): WebHandler {
  return async (request, connection) => {
    if (request.method === 'OPTIONS') return config.cors.preflight(request);
    if (request.method !== method) {
      return answerThrow(
        config,
        name,
        request,
        new HttpError('methodNotAllowed', `Use ${method}.`, { headers: { allow: `${method}, OPTIONS` } }),
      );
    }
    try {
      return withHeaders(await serve(request, connection), config.cors.headersFor(request));
    } catch (error) {
      return answerThrow(config, name, request, error);
    }
  };
}

/** The answer to a throw, reported to `onEvent` once, with CORS headers. */
export function answerThrow(
  config: RelayConfig,
  name: RelayRoute | 'unknown',
  request: Request,
  error: unknown,
): Response {
  const { answer, event } = refusalFor(name, error);
  config.reporter.emit(event);
  const response = answerFor(answer, request, { unexpectedMessage: GENERIC_INTERNAL_MESSAGE });
  return withHeaders(response, config.cors.headersFor(request));
}

/** What the merchant hears about a throw, and the throw as the browser may hear it (anything but an HttpError: a bare `500`). */
function refusalFor(
  name: RelayRoute | 'unknown',
  error: unknown,
): { answer: unknown; event: CheckoutRelayEvent } {
  if (error instanceof RelayRefusal) return { answer: error.answer, event: error.event };
  if (error instanceof HttpError) return { answer: error, event: rejected(name, error) };
  if (error instanceof ServiceError && name !== 'unknown') {
    const answer = upstreamAnswer(name, error);
    return { answer, event: { type: 'upstream_error', route: name, answeredStatus: answer.status, error } };
  }
  return { answer: error, event: { type: 'internal_error', route: name, error } };
}

function rejected(name: RelayRoute | 'unknown', error: HttpError): CheckoutRelayEvent {
  return {
    type: 'request_rejected',
    route: name,
    status: error.status,
    code: error.code,
    message: error.message,
    ...(error.param === undefined ? {} : { param: error.param }),
  };
}

/** `response` with `headers` added. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const name of Object.keys(headers)) response.headers.set(name, headers[name] as string);
  return response;
}
