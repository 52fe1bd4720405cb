/**
 * The merchant relay: the part a merchant mounts on their own server between
 * `<pay-checkout>` and the payments service. Its options are checked in
 * relay-config.ts; its handlers (create, lookup, price, the checkout read)
 * are in handlers/, and the checkouts the merchant's server creates in checkouts/;
 * relay-route.ts wraps each with CORS, the method check, and reports their
 * throws. Here they are routed by path. Web-standard handlers, so it runs on
 * Node and edge runtimes; the entries (web.ts, node.ts) give it the Node
 * listener, which this module never loads.
 */
import type { WebHandler } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import { pathnameOf } from '../http/pathname.js';
import type { HttpTransport } from '../http/transport.js';
import { RETRY_AFTER_HEADER } from '../shared/service-contract.js';
import { createCheckoutBook } from './checkouts/checkout-book.js';
import type { ServerCheckouts } from './checkouts/server-checkout.js';
import type { RelayRoute } from './events/relay-events.js';
import {
  type FulfilmentRunner,
  type RelayFulfilment,
  startFulfilment,
} from './fulfilment/fulfilment-runner.js';
import { relayJournal } from './fulfilment/journal-steps.js';
import { type CheckoutOrders, NO_ORDERS } from './fulfilment/order-records.js';
import { createOrderHandler } from './handlers/create-order.js';
import { RELAY_MAX_BODY_BYTES } from './handlers/handler-config.js';
import { lookupOrderHandler } from './handlers/lookup-order.js';
import { priceCartHandler } from './handlers/price-cart.js';
import { clientSecretOfPath, readCheckoutHandler } from './handlers/read-checkout.js';
import { rememberedAttempts } from './journal/relay-journal.js';
import { createCustomersInHand } from './lookups/customers-in-hand.js';
import { createOrderLookups } from './lookups/order-lookups.js';
import { type CheckoutRelayOptions, type RelayConfig, resolveRelayConfig } from './relay-config.js';
import { answerThrow, route } from './relay-route.js';
import { createCheckoutSecrets } from './tokens/checkout-secret.js';

/** The relay's handlers, with `handle` as the listener `Listener` of the runtime (on Node, a `node:http` listener). */
export interface CheckoutRelayOn<Listener> {
  /** `POST` create-url: validates, prices, creates the order, answers status fields and a lookup token. */
  create: WebHandler;
  /** `POST` lookup-url: checks the lookup token, answers status fields only. */
  lookup: WebHandler;
  /** `POST` price-url: prices `{ cart }` as a create would, answers the amount, line items and reference; no service call. */
  price: WebHandler;
  /** `GET` …/checkouts/<client secret>: a server-created checkout's amount, line items, reference, status and expiry. */
  checkout: WebHandler;
  /**
   * All four, routed by path: `…/orders` is create, `…/lookup` lookup, `…/price` price,
   * `…/checkouts/<client secret>` the checkout read; `OPTIONS` answers preflights.
   */
  handle: WebHandler;
  /** `handle` as a `node:http` listener (Express and Fastify accept it too). */
  node: Listener;
  /** The watcher and delivery, when a journal was given; `tick()` runs a pass now. */
  fulfilment: FulfilmentRunner | undefined;
  /**
   * The journal's orders, for a thank-you page or a support
   * desk: `get(orderId)` and `byReference(reference)`. Without a journal
   * both reject with an error that names the `journal` option.
   */
  orders: CheckoutOrders;
  /**
   * Checkouts the merchant's server creates (`create`, with the client secret
   * a page pays it with) and reads back (`get`, its status from the orders of
   * its reference). Without a journal both reject with an error that names
   * the `journal` option.
   */
  checkouts: ServerCheckouts;
  /**
   * Stops watching, lets calls in flight finish, and closes the journal; from
   * then on creates and lookups get `503` with `Retry-After`. Nothing to do without a journal.
   */
  close(): Promise<void>;
}

/** The options of the relay's listener: how much body it reads, and the headers of what it answers itself. */
export interface RelayListenerOptions {
  readonly maxBodyBytes: number;
  readonly errorHeaders: (request: Request) => Readonly<Record<string, string>>;
}

/** How an entry makes the listener of the relay's `handle` (on Node, `toNodeListener`). */
export type RelayListenerMaker<Listener> = (handle: WebHandler, options: RelayListenerOptions) => Listener;

/**
 * The relay, its `node` made by `listenerOf`, calling the service through
 * `defaultTransport` when no `fetch` is given.
 */
export function assembleCheckoutRelay<Listener>(
  options: CheckoutRelayOptions,
  listenerOf: RelayListenerMaker<Listener>,
  defaultTransport?: HttpTransport,
): CheckoutRelayOn<Listener> {
  const config = resolveRelayConfig(options, defaultTransport);
  const settings = config.fulfilment;
  // The runner keeps close() waiting for the lookups' journal writes, and its watcher looks up through them.
  const tracking: { by?: RelayFulfilment } = {};
  // A lookup that sees an order settle hands its customer to the delivery, in this process only.
  const customers = createCustomersInHand(config.clock);
  const lookups = createOrderLookups({
    client: config.client,
    clock: config.clock,
    reporter: config.reporter,
    customers,
    shared: settings && {
      journal: settings.requestJournal,
      watcherJournal: settings.journal,
      intervalMs: settings.intervalMs,
      track: (work) => tracking.by?.track(work) ?? work,
    },
  });
  const fulfilment =
    settings && startFulfilment(settings, config.watcherClient, config.reporter, { lookups, customers });
  tracking.by = fulfilment;
  const journal =
    settings && fulfilment ? relayJournal(settings, fulfilment, config.reporter) : rememberedAttempts();
  let closing = false;
  // Once close() began the journal is going: a clear 503 the element retries, never a 500 from a closed journal.
  const whileOpen =
    (name: RelayRoute, serve: WebHandler, method: 'POST' | 'GET' = 'POST'): WebHandler =>
    (request, connection) =>
      closing && request.method === method
        ? answerThrow(config, name, request, relayClosing())
        : serve(request, connection);
  const book = createCheckoutBook({
    journal: settings?.requestJournal,
    secrets: createCheckoutSecrets(options.secretKey),
    clock: config.clock,
    allowedOrigins: config.cors.origins,
  });
  const create = whileOpen('create', route(config, 'create', createOrderHandler(config, journal, book)));
  const lookup = whileOpen('lookup', route(config, 'lookup', lookupOrderHandler(config, lookups, journal)));
  const price = route(config, 'price', priceCartHandler(config, book));
  const checkout = whileOpen(
    'checkout',
    route(config, 'checkout', readCheckoutHandler(config, book), 'GET'),
    'GET',
  );
  const handle = routedByPath(config, { create, lookup, price, checkout });
  // The listener reads no more than the relay would; its own answers (413, 408) carry the CORS headers.
  const node = listenerOf(handle, {
    maxBodyBytes: RELAY_MAX_BODY_BYTES,
    errorHeaders: (request) => config.cors.headersFor(request),
  });
  const close = async () => {
    closing = fulfilment !== undefined;
    await fulfilment?.close();
  };
  const runner = fulfilment && { tick: fulfilment.tick, deliverNow: fulfilment.deliverNow };
  const orders = fulfilment
    ? { get: fulfilment.orders.get, byReference: fulfilment.orders.byReference }
    : NO_ORDERS;
  const checkouts: ServerCheckouts = { create: book.create, get: book.get };
  return { create, lookup, price, checkout, handle, node, fulfilment: runner, orders, checkouts, close };
}

/** The relay's routes as `handle` routes them, by the end of the path. */
function routedByPath(
  config: RelayConfig,
  routes: Record<'create' | 'lookup' | 'price' | 'checkout', WebHandler>,
): WebHandler {
  return (request, connection) => {
    let path: string;
    try {
      path = pathnameOf(request.url).replace(/\/+$/, '');
    } catch (error) {
      // A Host that is not a plain host name (the Node listener's 400): answered with CORS headers.
      return answerThrow(config, 'unknown', request, error);
    }
    if (path.endsWith('/orders')) return routes.create(request, connection);
    if (path.endsWith('/lookup')) return routes.lookup(request, connection);
    if (path.endsWith('/price')) return routes.price(request, connection);
    if (clientSecretOfPath(path) !== undefined) return routes.checkout(request, connection);
    const message =
      'No such checkout route: POST …/orders to create, …/lookup to look up, …/price to price; GET …/checkouts/<client secret> to read a checkout.';
    return answerThrow(config, 'unknown', request, new HttpError('resourceNotFound', message));
  };
}

/** The answer of a relay whose `close()` began: try again shortly (a 5xx the element retries). */
function relayClosing(): HttpError {
  return new HttpError('relayClosing', 'The checkout is restarting. Try again in a moment.', {
    headers: { [RETRY_AFTER_HEADER]: '2' },
  });
}
