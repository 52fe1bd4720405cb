/**
 * The error a merchant's `priceCart` throws for a cart it will not price (an
 * unknown product, a sold-out size). Its message reaches the shopper as a
 * `400` with `param` `cart` (or a path inside it); any other throw is a `500`
 * that says nothing.
 */

/** Longest CartError message passed to the browser. */
const MAX_MESSAGE_LENGTH = 200;

/**
 * The brand every CartError carries, so a CartError from another copy of
 * this package (bundlers sometimes load two) is recognised too, where
 * `instanceof` fails; its name alone would be anyone's.
 */
const CART_ERROR_BRAND = 'pay-checkout/CartError';

/** Options of a {@link CartError}. */
export interface CartErrorOptions extends ErrorOptions {
  /** Where in the cart the problem is, dotted from `cart`: `cart.items[0].product_id`. Default `cart`. */
  param?: string;
}

/** Thrown by `priceCart` to turn a cart down with a message the shopper may read. */
export class CartError extends Error {
  /** The `param` the browser gets: `cart` or a path inside it. */
  readonly param: string;
  /** Marks a CartError across copies of the package. */
  readonly brand = CART_ERROR_BRAND;

  constructor(message: string, options: CartErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CartError';
    this.param = options.param ?? 'cart';
  }
}

/** True for a {@link CartError} of this copy of the package or another. */
export function isCartError(error: unknown): error is CartError {
  return (
    error instanceof CartError ||
    (error instanceof Error && (error as { brand?: unknown }).brand === CART_ERROR_BRAND)
  );
}

/** The message of a cart error as the browser gets it: text only, bounded. */
export function cartErrorMessage(error: CartError): string {
  const message = error.message.trim() || 'The cart cannot be priced.';
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message;
}

/** The `param` of a cart error: its own when it points inside `cart`, else `cart`. */
export function cartErrorParam(error: CartError): string {
  const param: unknown = error.param;
  return typeof param === 'string' && /^cart(?:[.[][\w.[\]]*)?$/.test(param) && param.length <= 200
    ? param
    : 'cart';
}
