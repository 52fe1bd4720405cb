/**
 * Scopes a shopper's idempotency key to the merchant before it reaches the
 * service (contract §3): the service sees
 * `base64url(HMAC-SHA-256(scopeKey, 'idempotency:' + key))`, where `scopeKey`
 * is derived from the relay's secret key.
 *
 * Why this derivation: the raw shopper key never reaches the service; two
 * merchants (two secret keys) can never collide; and the scoped key depends
 * only on the secret key, so it is the same after a restart or on another
 * instance of the same relay, and a retry that lands there replays the first
 * order instead of creating a second one. A random per-process secret would
 * break exactly that.
 */
import { base64UrlEncode } from './base64url.js';
import { createHmacSha256, type HmacSha256 } from './hmac.js';

/** Label of the derivation: a new version gives new scoped keys, on purpose. */
const SCOPE_LABEL = 'pay-checkout relay idempotency scope v1';

/** Maps shopper keys to scoped keys for the relay holding `secretKey`. */
export type IdempotencyScope = (shopperKey: string) => Promise<string>;

/** The scope of the relay holding `secretKey`; the scope key is derived once and reused. */
export function createIdempotencyScope(secretKey: string): IdempotencyScope {
  let scopedHmac: Promise<HmacSha256> | undefined;
  return async (shopperKey) => {
    scopedHmac ??= createHmacSha256(secretKey)(SCOPE_LABEL).then(createHmacSha256);
    const sign = await scopedHmac;
    return base64UrlEncode(await sign(`idempotency:${shopperKey}`));
  };
}
