/**
 * Lookup tokens: the relay gives the browser, with a new order,
 * `base64url(HMAC-SHA-256(lookupSecret, order_id))`, and answers a lookup only
 * when the token matches the order id. Without the token an order id alone,
 * guessed or leaked, reads nothing.
 */
import { base64UrlEncode } from './base64url.js';
import { createHmacSha256Base64Url, type HmacSha256Text } from './hmac.js';

/** Characters of a token: 32 bytes of HMAC-SHA-256 in unpadded base64url. */
const TOKEN_LENGTH = 43;

/** Signs and checks lookup tokens under one secret. */
export interface LookupTokens {
  /** The token for `orderId`. */
  sign(orderId: string): Promise<string>;
  /** True only when `token` is the token of `orderId`; compared in constant time. */
  verify(orderId: string, token: string): Promise<boolean>;
}

/** Options of {@link createLookupTokens}. */
export interface LookupTokensOptions {
  /** Order ids whose HMAC is remembered; past it the least recently used are dropped, a hundredth at a time. Default 10 000. */
  maxRememberedOrders?: number;
}

/**
 * Lookup tokens under `secret`. The key is made once; and since an element
 * polls the same order every few seconds, the token of a recent order id is
 * remembered (bounded), so a poll costs a constant-time compare instead of an
 * HMAC. A token is checked as text against the order's own: base64url
 * without padding spells each byte string one way only, so the texts are
 * equal exactly when the token decodes to the order's HMAC, and nothing is
 * decoded and encoded back on the way.
 */
export function createLookupTokens(secret: string, options: LookupTokensOptions = {}): LookupTokens {
  const maxRemembered = options.maxRememberedOrders ?? 10_000;
  const remembered = new Map<string, string>();
  let tokenText: HmacSha256Text | undefined;

  function tokenOf(orderId: string): string | Promise<string> {
    const token = remembered.get(orderId);
    if (token === undefined) {
      tokenText ??= createHmacSha256Base64Url(secret);
      const made = tokenText(orderId);
      return typeof made === 'string'
        ? remember(orderId, made)
        : made.then((text) => remember(orderId, text));
    }
    // Re-inserting keeps the Map in least-recently-used order.
    remembered.delete(orderId);
    remembered.set(orderId, token);
    return token;
  }

  function remember(orderId: string, token: string): string {
    if (!remembered.has(orderId) && remembered.size >= maxRemembered) {
      dropOldest(remembered, Math.ceil(maxRemembered / 100));
    }
    remembered.delete(orderId);
    remembered.set(orderId, token);
    return token;
  }

  return {
    async sign(orderId) {
      return tokenOf(orderId);
    },
    async verify(orderId, token) {
      if (typeof token !== 'string' || token.length !== TOKEN_LENGTH) return false;
      return constantTimeEqualText(await tokenOf(orderId), token);
    },
  };
}

/**
 * Drops the `count` least recently used entries in one pass. One at a time,
 * each drop would walk past the holes every earlier drop left at the front of
 * the Map (V8 compacts it only as it grows): about 14 µs a drop at 10 000
 * entries, more than the HMAC it saves.
 */
function dropOldest(map: Map<string, unknown>, count: number): void {
  for (const key of map.keys()) {
    if (count-- <= 0) return;
    map.delete(key);
  }
}

/**
 * True when two byte arrays are equal, in time that depends only on their
 * length: every byte is compared whatever the first difference.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let index = 0; index < a.byteLength; index++)
    difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}

/**
 * True when two texts are equal, in time that depends only on their length:
 * every character is compared whatever the first difference.
 */
function constantTimeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

/** A random 256-bit secret, base64url, for a relay given no `lookupSecret`. */
export function randomLookupSecret(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(32)));
}
