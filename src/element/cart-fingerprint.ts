/**
 * A saved checkout belongs to the cart it was made for: it
 * keeps a short fingerprint of that cart, not the cart itself, which may be
 * large and is the page's business. Two carts that are equal as JSON values,
 * whatever the order of their keys, have the same fingerprint.
 */

/**
 * The cart as JSON with the keys of every object in one sorted order (a
 * property list, which `JSON.stringify` follows at every depth), hashed to
 * 32 bits. A collision needs two different carts with one hash; its price
 * is a receipt kept for a cart it was not made for, never a payment.
 */
export function cartFingerprint(cart: unknown): number {
  const keys: string[] = [];
  JSON.stringify(cart, (key, value: unknown) => {
    keys.push(key);
    return value;
  });
  let hash = 0;
  for (const char of JSON.stringify(cart, keys.sort()) ?? '')
    hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}
