/**
 * Ids and client secrets of the checkouts a merchant's server creates. The id
 * (`cs_` and 18 random bytes) names the checkout; the client secret
 * (`<id>_secret_` and 32 random bytes) is what a page pays it with. The
 * journal keeps only a keyed digest of the secret (HMAC-SHA-256 under a key
 * derived from the relay's secret key), so a copy of the journal pays
 * nothing; a secret is checked by reading its checkout by id and comparing
 * digests in constant time.
 */
import { base64UrlEncode } from './base64url.js';
import { createHmacSha256, type HmacSha256 } from './hmac.js';
import { constantTimeEqual } from './lookup-token.js';

/** Label of the derivation: a new version gives new digests, on purpose. */
const SECRET_DIGEST_LABEL = 'pay-checkout checkout client secret v1';

/** A checkout id: `cs_` and 24 base64url characters. */
export const CHECKOUT_ID_PATTERN = /^cs_[A-Za-z0-9_-]{24}$/;

/** A client secret, the checkout's id in its first group; fixed lengths, nothing else accepted. */
const CLIENT_SECRET_PATTERN = /^(cs_[A-Za-z0-9_-]{24})_secret_[A-Za-z0-9_-]{43}$/;

/** `count` random bytes as unpadded base64url. */
function randomText(count: number): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(count)));
}

/** A new checkout id and its client secret. */
export function newCheckoutSecret(): { id: string; clientSecret: string } {
  const id = `cs_${randomText(18)}`;
  return { id, clientSecret: `${id}_secret_${randomText(32)}` };
}

/** The checkout id a client secret names, or `undefined` for anything not of a client secret's form. */
export function checkoutIdOf(clientSecret: unknown): string | undefined {
  if (typeof clientSecret !== 'string') return undefined;
  return CLIENT_SECRET_PATTERN.exec(clientSecret)?.[1];
}

/** Digests and checks client secrets under one relay's secret key. */
export interface CheckoutSecrets {
  /** The keyed digest the journal keeps of `clientSecret`. */
  digestOf(clientSecret: string): Promise<string>;
  /** True only when `clientSecret`'s digest is `digest`; compared in constant time. */
  matches(clientSecret: string, digest: string): Promise<boolean>;
}

/** The digests of the relay holding `secretKey`; the key is derived once, on first use. */
export function createCheckoutSecrets(secretKey: string): CheckoutSecrets {
  let hmac: Promise<HmacSha256> | undefined;
  const sign = async (clientSecret: string) => {
    hmac ??= createHmacSha256(secretKey)(SECRET_DIGEST_LABEL).then(createHmacSha256);
    return (await hmac)(clientSecret);
  };
  const encoder = new TextEncoder();
  return {
    digestOf: async (clientSecret) => base64UrlEncode(await sign(clientSecret)),
    async matches(clientSecret, digest) {
      const own = base64UrlEncode(await sign(clientSecret));
      // Both are 43 characters of base64url: comparing their bytes compares the digests.
      return constantTimeEqual(encoder.encode(own), encoder.encode(digest));
    },
  };
}
