/**
 * The `cart-json` attribute: server-rendered HTML carries the cart as JSON
 * text, which the element reads as the value it holds.
 */

/**
 * What `cart` holds after a `cart-json` attribute that is not JSON: the element
 * refuses to work (`pay-error` `invalid_cart`). No description: the embed's bytes are counted.
 */
export const CART_NOT_JSON = Symbol();

/** The `cart-json` attribute's text as the value it holds; a removed attribute (`null`) parses as `null`, no cart. */
export function cartFromAttribute(text: string | null): unknown {
  try {
    return JSON.parse(text as string);
  } catch {
    return CART_NOT_JSON;
  }
}
