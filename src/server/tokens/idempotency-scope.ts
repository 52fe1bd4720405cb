/**
 * Scopes a shopper's idempotency key to the merchant before it reaches the
 * service. The journal files an attempt under
 * `base64url(HMAC-SHA-256(scopeKey, 'idempotency:' + key))`, where `scopeKey`
 * is derived from the relay's secret key; the service sees that key bound to
 * the attempt's digest (attempt-digest.ts),
 * `base64url(HMAC-SHA-256(scopeKey, 'idempotency:' + key + ':attempt:' + digest))`.
 *
 * Why this derivation: the raw shopper key never reaches the service; two
 * merchants (two secret keys) can never collide; and the scoped key depends
 * only on the secret key, so it is the same after a restart or on another
 * instance of the same relay, and a retry that lands there replays the first
 * order instead of creating a second one. A random per-process secret would
 * break exactly that. Binding the service's key to the digest means two
 * different carts or shoppers under one shopper key can never share a service
 * order, even on a relay without a journal to compare them.
 */
import { base64UrlEncode } from './base64url.js';
import { createHmacSha256, type HmacSha256 } from './hmac.js';

/** Label of the derivation: a new version gives new scoped keys, on purpose. */
const SCOPE_LABEL = 'pay-checkout relay idempotency scope v1';

/** Maps shopper keys to scoped keys for the relay holding `secretKey`. */
export type IdempotencyScope = (shopperKey: string) => Promise<string>;

/** Maps a shopper key and an attempt's digest to the key the service sees. */
export type ServiceKeyScope = (shopperKey: string, attemptDigest: string) => Promise<string>;

/** The scope's HMAC, derived from `secretKey` once, on first use. */
function lazyScopeHmac(secretKey: string): () => Promise<HmacSha256> {
  let scopedHmac: Promise<HmacSha256> | undefined;
  return () => {
    scopedHmac ??= createHmacSha256(secretKey)(SCOPE_LABEL).then(createHmacSha256);
    return scopedHmac;
  };
}

/** The scope of the relay holding `secretKey`; the scope key is derived once and reused. */
export function createIdempotencyScope(secretKey: string): IdempotencyScope {
  const scopeHmac = lazyScopeHmac(secretKey);
  return async (shopperKey) => base64UrlEncode(await (await scopeHmac())(`idempotency:${shopperKey}`));
}

/** The service's keys of the relay holding `secretKey`: one per shopper key and attempt digest. */
export function createServiceKeyScope(secretKey: string): ServiceKeyScope {
  const scopeHmac = lazyScopeHmac(secretKey);
  return async (shopperKey, attemptDigest) =>
    base64UrlEncode(await (await scopeHmac())(`idempotency:${shopperKey}:attempt:${attemptDigest}`));
}
