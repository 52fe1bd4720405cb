/**
 * The merchant API's routes, once the key is checked: a checkout created
 * and read, an order read by id or by the shop's reference. Each throws an
 * HttpError for what the caller must change; the answers are the relay's
 * own reads in snake_case (api-wire.ts).
 */
import { HttpError } from '../../http/http-error.js';
import { jsonResponse } from '../../http/json-response.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { ORDER_ID_PATTERN } from '../../shared/service-contract.js';
import { REFERENCE_PATTERN } from '../../shared/wire.js';
import type { ServerCheckouts } from '../checkouts/server-checkout.js';
import type { CheckoutOrders } from '../fulfilment/order-records.js';
import { CHECKOUT_ID_PATTERN } from '../tokens/checkout-secret.js';
import { checkoutOnWire, createdCheckoutOnWire, orderOnWire } from './api-wire.js';
import { checkoutInputOf, refusedCheckout } from './checkout-body.js';

/** Largest body the merchant API reads: 16 KiB, as the relay's own routes. */
export const MERCHANT_API_MAX_BODY_BYTES = 16 * 1024;

/** What the routes read: the relay's checkouts and orders, and the shop origins a checkout may be bound to. */
export interface ApiRouteContext {
  readonly checkouts: ServerCheckouts;
  readonly orders: CheckoutOrders;
  readonly allowedOrigins: readonly string[];
}

/** The answer to an authenticated request for `path` (below `/v1/`, no trailing slash). */
export function answerRoute(context: ApiRouteContext, request: Request, path: string): Promise<Response> {
  const [collection, id, ...rest] = path.split('/');
  if (rest.length > 0 || id === '') throw noSuchRoute();
  if (collection === 'checkouts') {
    if (id === undefined) return only('POST', request, () => createCheckout(context, request));
    return only('GET', request, () => readCheckout(context, id));
  }
  if (collection === 'orders') {
    if (id === undefined) return only('GET', request, () => ordersOfReference(context, request));
    return only('GET', request, () => readOrder(context, id));
  }
  throw noSuchRoute();
}

function only(method: 'GET' | 'POST', request: Request, answer: () => Promise<Response>): Promise<Response> {
  if (request.method !== method) {
    throw new HttpError('methodNotAllowed', `Use ${method} here.`, { headers: { allow: method } });
  }
  return answer();
}

function noSuchRoute(): HttpError {
  return new HttpError(
    'resourceNotFound',
    'No such route: POST /v1/checkouts, GET /v1/checkouts/{id}, GET /v1/orders/{order_id}, GET /v1/orders?reference=…',
  );
}

async function createCheckout(context: ApiRouteContext, request: Request): Promise<Response> {
  const body = await readJsonObject(
    request,
    MERCHANT_API_MAX_BODY_BYTES,
    'Send the checkout as a JSON object.',
  );
  const input = checkoutInputOf(body, context.allowedOrigins);
  let created: Awaited<ReturnType<ServerCheckouts['create']>>;
  try {
    created = await context.checkouts.create(input);
  } catch (error) {
    // The relay names what it refuses with a TypeError; the wire checks above catch all they know first.
    if (error instanceof TypeError) throw refusedCheckout(error);
    throw error;
  }
  return jsonResponse(createdCheckoutOnWire(created), 201);
}

async function readCheckout(context: ApiRouteContext, id: string): Promise<Response> {
  const checkout = CHECKOUT_ID_PATTERN.test(id) ? await context.checkouts.get(id) : undefined;
  if (!checkout) throw new HttpError('resourceNotFound', 'No checkout has this id.', { param: 'id' });
  return jsonResponse(checkoutOnWire(checkout));
}

async function readOrder(context: ApiRouteContext, orderId: string): Promise<Response> {
  const order = ORDER_ID_PATTERN.test(orderId) ? await context.orders.get(orderId) : null;
  if (!order) {
    throw new HttpError('resourceNotFound', 'No order with this id was created here.', { param: 'order_id' });
  }
  return jsonResponse(orderOnWire(order));
}

async function ordersOfReference(context: ApiRouteContext, request: Request): Promise<Response> {
  const reference = new URL(request.url).searchParams.get('reference');
  if (reference === null || !REFERENCE_PATTERN.test(reference)) {
    throw new HttpError(
      'invalidRequest',
      'reference: expected ?reference= the shop’s reference (1 to 64 characters of A-Z, a-z, 0-9, _ . : and -).',
      { param: 'reference' },
    );
  }
  const orders = await context.orders.byReference(reference);
  return jsonResponse({ data: orders.map(orderOnWire) });
}
