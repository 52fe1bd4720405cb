/**
 * Lookup tokens (contract §3): the relay gives the browser, with a new order,
 * `base64url(HMAC-SHA-256(lookupSecret, order_id))`, and answers a lookup only
 * when the token matches the order id. Without the token an order id alone,
 * guessed or leaked, reads nothing.
 */
import { base64UrlDecode, base64UrlEncode } from './base64url.js';
import { createHmacSha256, type HmacSha256 } from './hmac.js';

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

/** Bytes of an HMAC-SHA-256. */
const SIGNATURE_BYTES = 32;

/**
 * Lookup tokens under `secret`. The key is made once; and since an element
 * polls the same order every few seconds, the HMAC of a recent order id is
 * remembered (bounded), so a poll costs a constant-time compare instead of an
 * HMAC.
 */
export function createLookupTokens(secret: string, options: LookupTokensOptions = {}): LookupTokens {
  const maxRemembered = options.maxRememberedOrders ?? 10_000;
  const remembered = new Map<string, Uint8Array>();
  let hmac: HmacSha256 | undefined;

  async function macOf(orderId: string): Promise<Uint8Array> {
    let mac = remembered.get(orderId);
    if (mac) {
      // Re-inserting keeps the Map in least-recently-used order.
      remembered.delete(orderId);
    } else {
      hmac ??= createHmacSha256(secret);
      mac = await hmac(orderId);
      if (remembered.size >= maxRemembered) dropOldest(remembered, Math.ceil(maxRemembered / 100));
    }
    remembered.set(orderId, mac);
    return mac;
  }

  return {
    async sign(orderId) {
      return base64UrlEncode(await macOf(orderId));
    },
    async verify(orderId, token) {
      const signature = base64UrlDecode(token);
      if (signature?.byteLength !== SIGNATURE_BYTES) return false;
      return constantTimeEqual(await macOf(orderId), signature);
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

/** A random 256-bit secret, base64url, for a relay given no `lookupSecret`. */
export function randomLookupSecret(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(32)));
}
