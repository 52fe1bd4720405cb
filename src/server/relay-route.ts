/**
 * What every relay route does around its handler: answers `OPTIONS`
 * preflights, refuses other methods than `POST`, adds the CORS headers, and
 * is the one place a handler's throw becomes its answer (reported once to
 * `onEvent`; anything unexpected is a bare `500`).
 */
import { answerFor } from '../http/answer-errors.js';
import type { ConnectionInfo, WebHandler } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import type { RelayRoute } from './events/relay-events.js';
import { GENERIC_INTERNAL_MESSAGE } from './handlers/order-creation.js';
import type { RelayConfig } from './relay-config.js';

/** Wraps a handler: preflight, the method check, CORS headers, and its throws answered. */
export function route(
  config: RelayConfig,
  name: RelayRoute,
  serve: (request: Request, connection?: ConnectionInfo) => Promise<Response>,
): WebHandler {
  return async (request, connection) => {
    if (request.method === 'OPTIONS') return config.cors.preflight(request);
    if (request.method !== 'POST') {
      return answerThrow(
        config,
        name,
        request,
        new HttpError('methodNotAllowed', 'Use POST.', { headers: { allow: 'POST, OPTIONS' } }),
      );
    }
    try {
      return withHeaders(await serve(request, connection), config.cors.headersFor(request));
    } catch (error) {
      return answerThrow(config, name, request, error);
    }
  };
}

/** The answer to a throw: reported once, CORS headers added; anything unexpected is a bare 500. */
export function answerThrow(
  config: RelayConfig,
  name: RelayRoute | 'unknown',
  request: Request,
  error: unknown,
): Response {
  if (error instanceof HttpError) config.reporter.rejected(name, error);
  const response = answerFor(error, request, {
    onUnexpected: (cause) => config.reporter.emit({ type: 'internal_error', route: name, error: cause }),
    unexpectedMessage: GENERIC_INTERNAL_MESSAGE,
  });
  return withHeaders(response, config.cors.headersFor(request));
}

/** `response` with `headers` added. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const name of Object.keys(headers)) response.headers.set(name, headers[name] as string);
  return response;
}
