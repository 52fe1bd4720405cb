/**
 * `GET …/checkouts/<client secret>`: what a server-created checkout sells
 * and where it stands, for the page that holds its client secret: the
 * amount, each line's name, quantity and unit price, the reference, the
 * status and the expiry. Never the metadata or the order ids, which are the
 * merchant's. Limited per client like lookups, each read taking a token of
 * the lookup limit, so guessing secrets here runs into the same `429`.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { jsonResponse } from '../../http/json-response.js';
import { pathnameOf } from '../../http/pathname.js';
import type { CheckoutAnswer } from '../../shared/wire.js';
import type { CheckoutBook } from '../checkouts/checkout-book.js';
import { takeClientToken } from '../limits/relay-limits.js';
import type { HandlerConfig } from './handler-config.js';
import { checkoutNotFound } from './priced-request.js';

/** The client secret of a checkout read's path (`…/checkouts/<client secret>`), or `undefined` when the path names none. */
export function clientSecretOfPath(path: string): string | undefined {
  const match = /\/checkouts\/([^/]+)$/.exec(path);
  return match?.[1];
}

/** `GET` …/checkouts/<client secret>; throws for every refusal. */
export function readCheckoutHandler(config: HandlerConfig, book: CheckoutBook) {
  return async function readCheckout(request: Request, connection?: ConnectionInfo): Promise<Response> {
    await takeClientToken(config, 'lookup', request, connection);
    // Not decoded: a client secret is base64url, and anything escaped is not one.
    const path = pathnameOf(request.url).replace(/\/+$/, '');
    const opened = await book.open(clientSecretOfPath(path), request);
    if (!opened) throw checkoutNotFound();
    const { checkout } = opened;
    // Built field by field: nothing the browser has no use for (metadata, order ids) reaches it.
    const answer: CheckoutAnswer = {
      amount: { currency: checkout.amount.currency, value: checkout.amount.value },
      line_items: checkout.lineItems.map((item) => ({
        name: item.name,
        quantity: item.quantity,
        unit_price: { currency: item.unitPrice.currency, value: item.unitPrice.value },
      })),
      reference: checkout.reference,
      status: checkout.status,
      expires_at: new Date(checkout.expiresAt).toISOString(),
    };
    return jsonResponse(answer);
  };
}
