/**
 * The merchant relay (contract §1, §3): the part a merchant mounts on their
 * own server between `<pay-checkout>` and the payments service. Its options
 * are checked in relay-config.ts; its two handlers are create-order.ts and
 * lookup-order.ts. Here they are wrapped with CORS, the method check, and the
 * one place their thrown errors become answers. Web-standard handlers, so it
 * runs on Node and edge runtimes.
 */
import { answerFor } from '../http/answer-errors.js';
import type { ConnectionInfo, WebHandler } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import { type NodeListener, toNodeListener } from '../http/node/node-listener.js';
import { pathnameOf } from '../http/pathname.js';
import type { HttpTransport } from '../http/transport.js';
import { createOrderHandler, GENERIC_INTERNAL_MESSAGE } from './create-order.js';
import { lookupOrderHandler } from './lookup-order.js';
import {
  type CheckoutRelayOptions,
  RELAY_MAX_BODY_BYTES,
  type RelayConfig,
  resolveRelayConfig,
} from './relay-config.js';
import type { RelayRoute } from './relay-events.js';

/** The handlers {@link createCheckoutRelay} returns. */
export interface CheckoutRelay {
  /** `POST` create-url: validates, prices, creates the order, answers status fields and a lookup token. */
  create: WebHandler;
  /** `POST` lookup-url: checks the lookup token, answers status fields only. */
  lookup: WebHandler;
  /** Both, routed by path: `…/orders` is create, `…/lookup` is lookup; `OPTIONS` answers preflights. */
  handle: WebHandler;
  /** `handle` as a `node:http` listener (Express and Fastify accept it too). */
  node: NodeListener;
}

/**
 * Creates the relay. Throws a TypeError with a clear message, at startup, for
 * a missing, publishable or malformed key, a missing `priceCart` or `baseUrl`,
 * a short `lookupSecret`, or a bad `allowedOrigins` entry or rate rule.
 */
export function createCheckoutRelay(options: CheckoutRelayOptions): CheckoutRelay {
  return assembleCheckoutRelay(options);
}

/** The relay, calling the service through `defaultTransport` when no `fetch` is given. */
export function assembleCheckoutRelay(
  options: CheckoutRelayOptions,
  defaultTransport?: HttpTransport,
): CheckoutRelay {
  const config = resolveRelayConfig(options, defaultTransport);
  const create = route(config, 'create', createOrderHandler(config));
  const lookup = route(config, 'lookup', lookupOrderHandler(config));
  const handle: WebHandler = (request, connection) => {
    const path = pathnameOf(request.url).replace(/\/+$/, '');
    if (path.endsWith('/orders')) return create(request, connection);
    if (path.endsWith('/lookup')) return lookup(request, connection);
    const message = 'No such checkout route: POST …/orders to create, …/lookup to look up.';
    return answer(config, 'unknown', request, new HttpError('resourceNotFound', message));
  };
  // The listener's own cap sits above the relay's, so the relay's 413 (with CORS headers) is the one seen.
  const node = toNodeListener(handle, { maxBodyBytes: RELAY_MAX_BODY_BYTES * 4 });
  return { create, lookup, handle, node };
}

/** Wraps a handler: preflight, the method check, CORS headers, and its throws answered. */
function route(
  config: RelayConfig,
  name: RelayRoute,
  serve: (request: Request, connection?: ConnectionInfo) => Promise<Response>,
): WebHandler {
  return async (request, connection) => {
    if (request.method === 'OPTIONS') return config.cors.preflight(request);
    if (request.method !== 'POST') {
      return answer(
        config,
        name,
        request,
        new HttpError('methodNotAllowed', 'Use POST.', { headers: { allow: 'POST, OPTIONS' } }),
      );
    }
    try {
      return withHeaders(await serve(request, connection), config.cors.headersFor(request));
    } catch (error) {
      return answer(config, name, request, error);
    }
  };
}

/** The answer to a throw: reported once, CORS headers added; anything unexpected is a bare 500. */
function answer(
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
