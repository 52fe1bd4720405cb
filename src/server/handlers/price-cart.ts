/**
 * The relay's price route: the browser sends `{ cart }`, the
 * merchant's `priceCart` prices it exactly as a create would (or
 * `{ checkout }`, a server-created checkout priced as recorded), and the answer
 * is the total, each line item's name, quantity and unit price, and the
 * merchant's reference. No service call, no journal, limited per client like
 * lookups; never the metadata, which stays on the server. So the element
 * shows the amount the create will charge before any prompt is sent.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { jsonResponse } from '../../http/json-response.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { type PriceAnswer, priceRequestSchema } from '../../shared/wire.js';
import { type CheckoutBook, NO_CHECKOUT_BOOK } from '../checkouts/checkout-book.js';
import { takeClientToken } from '../limits/relay-limits.js';
import { lineItemsTotal } from '../pricing/priced-cart.js';
import { type HandlerConfig, RELAY_MAX_BODY_BYTES } from './handler-config.js';
import { closedCheckout, priceRequest } from './priced-request.js';

/** `POST` price-url; throws for every refusal. `book` opens the checkouts a `{ checkout }` names. */
export function priceCartHandler(config: HandlerConfig, book: CheckoutBook = NO_CHECKOUT_BOOK) {
  return async function price(request: Request, connection?: ConnectionInfo): Promise<Response> {
    await takeClientToken(config, 'price', request, connection);
    const parsed = priceRequestSchema.safeParse(await readJsonObject(request, RELAY_MAX_BODY_BYTES));
    if (!parsed.success) {
      const param = parsed.error.issues[0]?.path[0] === 'checkout' ? 'checkout' : 'cart';
      throw new HttpError('invalidRequest', 'Send { "cart": … } or { "checkout": "<client secret>" }.', {
        param,
      });
    }
    const priced = await priceRequest(config, book, parsed.data, request, connection);
    if (!priced.ok) throw priced.refusal;
    // A checkout that takes no new payment says so before the shopper types a number.
    const status = priced.opened?.checkout.status;
    if (status === 'paid' || status === 'expired') throw closedCheckout(status);
    const { lineItems, reference } = priced.cart;
    // Built field by field: nothing the merchant did not return as a line item reaches the browser.
    const answer: PriceAnswer = {
      amount: lineItemsTotal(lineItems),
      line_items: lineItems.map(({ product }) => ({
        name: product.name,
        quantity: product.quantity,
        unit_price: { currency: product.price.currency, value: product.price.value },
      })),
      reference,
    };
    return jsonResponse(answer);
  };
}
