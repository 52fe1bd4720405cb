/**
 * The merchant's `priceCart`, called the one way both the create and the
 * price route call it, so the price a shopper is shown is the price the
 * create charges: the line items, the reference and the metadata checked, a
 * CartError as the `400` it means, anything else the merchant's bug.
 */
import { HttpError } from '../../http/http-error.js';
import { internalRefusal } from '../events/relay-refusal.js';
import { cartErrorMessage, cartErrorParam, isCartError } from '../pricing/cart-error.js';
import { checkPricedCart, type PricedCart } from '../pricing/priced-cart.js';
import type { HandlerConfig } from './handler-config.js';

/**
 * The merchant's price for `cart`, with their reference and metadata, or
 * the `400` of its CartError (answered by the caller, which may find an
 * earlier try's order instead); a `500` refusal (`price_cart_failed`, naming
 * the field that was wrong) is thrown for anything else.
 */
export async function priceCart(
  config: HandlerConfig,
  cart: unknown,
  request: Request,
): Promise<{ ok: true; cart: PricedCart } | { ok: false; refusal: HttpError }> {
  let result: unknown;
  try {
    result = await config.priceCart(cart ?? null, request);
  } catch (error) {
    if (isCartError(error)) {
      const refusal = new HttpError('invalidRequest', cartErrorMessage(error), {
        param: cartErrorParam(error),
      });
      return { ok: false, refusal };
    }
    throw internalRefusal({ type: 'price_cart_failed', reason: 'priceCart threw.', error });
  }
  const checked = checkPricedCart(result);
  if (checked.ok) return checked;
  throw internalRefusal({ type: 'price_cart_failed', reason: checked.reason, field: checked.field });
}
