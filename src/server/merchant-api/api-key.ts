/**
 * The merchant API's key check. The shop's backend sends
 * `Authorization: Bearer <key>`; the key it sends and the server's own are
 * each signed with an HMAC under a random key of this process, and the two
 * 32-byte digests are compared with `timingSafeEqual`. Comparing digests of
 * one length, never the texts, means the time taken tells nothing of how
 * long the key is nor how much of it a guess got right.
 */
import { HttpError } from '../../http/http-error.js';
import { createHmacSha256 } from '../tokens/hmac.js';
import { type DigestCompare, timingSafeCompare } from '../tokens/timing-safe-compare.js';

/** Fewest characters of an API key: 32 random characters are beyond any guessing. */
export const MIN_API_KEY_LENGTH = 32;

/** True when the presented key is the server's; never rejects. */
export type ApiKeyCheck = (presented: string) => Promise<boolean>;

/**
 * The check of keys against `apiKey`: both are signed under a key made here
 * and dropped with the process, and `compare` gets the two digests, always
 * 32 bytes each whatever was presented.
 */
export function createApiKeyCheck(apiKey: string, compare: DigestCompare = timingSafeCompare()): ApiKeyCheck {
  const sign = createHmacSha256(crypto.getRandomValues(new Uint8Array(32)));
  const expected = sign(apiKey);
  return async (presented) => compare(await expected, await sign(presented));
}

/** Throws a TypeError unless `apiKey` is undefined or a key of at least {@link MIN_API_KEY_LENGTH} printable characters. */
export function assertApiKey(apiKey: unknown): asserts apiKey is string | undefined {
  if (apiKey === undefined) return;
  if (typeof apiKey !== 'string' || apiKey.length < MIN_API_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new TypeError(
      `createMerchantApi: apiKey must be at least ${MIN_API_KEY_LENGTH} printable characters without spaces (for example 32 random bytes as base64url).`,
    );
  }
}

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/** The key an `Authorization: Bearer <key>` header carries, or `undefined`. */
export function bearerKeyOf(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  return header === null ? undefined : BEARER.exec(header)?.[1];
}

/** The `401` of a missing or wrong key, with `WWW-Authenticate: Bearer`. */
export function invalidApiKey(message: string): HttpError {
  return new HttpError('invalidApiKey', message, { headers: { 'www-authenticate': 'Bearer' } });
}

/** The messages of the `401`s: what the caller can do about each. */
export const API_KEY_MESSAGES = {
  missing: 'Send the API key as Authorization: Bearer <PAY_CHECKOUT_API_KEY>.',
  wrong: 'The API key is not this server’s. Send Authorization: Bearer <PAY_CHECKOUT_API_KEY>.',
  unset:
    'This server has no API key set, so the merchant API is off: set PAY_CHECKOUT_API_KEY (at least 32 random characters) and restart it.',
} as const;
