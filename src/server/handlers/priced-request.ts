/**
 * What a create or a price request is priced from: the browser's `cart`,
 * priced by the merchant's `priceCart`, or a server-created checkout's
 * client secret (`checkout`), priced from what the merchant's server
 * recorded. A secret that opens nothing is the one `404` `checkout_not_found`,
 * whatever was wrong with it, and costs the client a token of its lookup
 * limit: guessing secrets runs into the same `429` as guessing lookup tokens.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import type { CheckoutBook, OpenedCheckout } from '../checkouts/checkout-book.js';
import { pricedCheckout } from '../checkouts/server-checkout.js';
import { takeClientToken } from '../limits/relay-limits.js';
import type { PricedCart } from '../pricing/priced-cart.js';
import { priceCart } from './cart-price.js';
import type { HandlerConfig } from './handler-config.js';

/** A priced request: its cart and, when it named a checkout, that checkout; or a cart's refusal. */
export type PricedRequest =
  | { ok: true; cart: PricedCart; opened?: OpenedCheckout }
  | { ok: false; refusal: HttpError };

/** The `404` of a client secret that opens no checkout, for every reason alike. */
export function checkoutNotFound(): HttpError {
  return new HttpError('checkoutNotFound', 'This checkout does not exist, or this page may not use it.', {
    param: 'checkout',
  });
}

/** The `409` of a checkout that takes no new payment: paid (`checkout_paid`) or past its expiry (`checkout_expired`). */
export function closedCheckout(status: 'paid' | 'expired'): HttpError {
  return status === 'paid'
    ? new HttpError('checkoutPaid', 'This checkout is already paid.', { param: 'checkout' })
    : new HttpError('checkoutExpired', 'This checkout has expired. Ask the shop for a new one.', {
        param: 'checkout',
      });
}

/**
 * The checkout `clientSecret` opens for `request`; a failed guess takes a
 * token of the client's lookup limit (the `429` once they are gone), then is
 * the `404`.
 */
export async function openCheckout(
  config: HandlerConfig,
  book: CheckoutBook,
  clientSecret: unknown,
  request: Request,
  connection: ConnectionInfo | undefined,
  within: <T>(read: Promise<T>) => Promise<T> = (read) => read,
): Promise<OpenedCheckout> {
  const opened = await within(book.open(clientSecret, request));
  if (opened) return opened;
  await takeClientToken(config, 'lookup', request, connection);
  throw checkoutNotFound();
}

/**
 * Prices `body`'s cart, or the checkout its `checkout` opens, its journal
 * reads waited for `within` the caller's allowance; both given is a `400` at `cart`.
 */
export async function priceRequest(
  config: HandlerConfig,
  book: CheckoutBook,
  body: { cart?: unknown; checkout?: string | null | undefined },
  request: Request,
  connection: ConnectionInfo | undefined,
  within?: <T>(read: Promise<T>) => Promise<T>,
): Promise<PricedRequest> {
  const { cart, checkout } = body;
  if (checkout === undefined || checkout === null) return priceCart(config, cart, request);
  if (cart !== undefined && cart !== null) {
    throw new HttpError('invalidRequest', 'Send either a cart or a checkout, not both.', { param: 'cart' });
  }
  const opened = await openCheckout(config, book, checkout, request, connection, within);
  return { ok: true, cart: pricedCheckout(opened.stored), opened };
}
