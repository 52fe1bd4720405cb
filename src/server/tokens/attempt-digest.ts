/**
 * Keyed digests of what a checkout attempt is: the browser's cart (key order
 * ignored) or a server-created checkout's client secret, the customer's name and number and the mobile-money network. The
 * journal keeps the digest with the intent and after the order is known, so
 * a create under the same key with anything else is told apart without
 * keeping a name or a number: an HMAC under a key derived from the relay's
 * secret, which no one without that secret can test a guess against.
 *
 * The prompt key is the same kind of digest of a merchant's reference and a
 * mobile-money number: the journal finds an open order of one checkout to
 * one phone by it (one prompt per number per checkout).
 */
import type { CheckoutIntent } from '../../shared/wire.js';
import { base64UrlEncode } from './base64url.js';
import { canonicalJson } from './canonical-json.js';
import { createHmacSha256, type HmacSha256 } from './hmac.js';

/** Labels of the derivations: a new version gives new digests, on purpose. */
const DIGEST_LABEL = 'pay-checkout relay attempt digest v1';
const PROMPT_LABEL = 'pay-checkout relay prompt key v1';

/** The digests of the relay holding one secret key. */
export interface AttemptDigests {
  /** The digest of what identifies an attempt: cart (or checkout), name, number, network. */
  attemptDigestOf(intent: CheckoutIntent): Promise<string>;
  /** The key of one checkout's prompts to one number: its reference and the number. */
  promptKeyOf(reference: string, internationalNumber: string): Promise<string>;
}

/** The digests of the relay holding `secretKey`; each key is derived once, on first use. */
export function createAttemptDigests(secretKey: string): AttemptDigests {
  const derived = new Map<string, Promise<HmacSha256>>();
  const sign = async (label: string, message: string) => {
    let hmac = derived.get(label);
    if (!hmac) {
      hmac = createHmacSha256(secretKey)(label).then(createHmacSha256);
      derived.set(label, hmac);
    }
    return base64UrlEncode(await (await hmac)(message));
  };
  return {
    attemptDigestOf: (intent) =>
      sign(
        DIGEST_LABEL,
        canonicalJson({
          cart: intent.cart ?? null,
          customer_data: intent.customer_data,
          payment_method_data: intent.payment_method_data,
          // A server-created checkout's client secret, only when given: a cart's digest stays as it was.
          ...(typeof intent.checkout === 'string' ? { checkout: intent.checkout } : {}),
        }),
      ),
    promptKeyOf: (reference, internationalNumber) =>
      sign(PROMPT_LABEL, `${reference}\n${internationalNumber}`),
  };
}
