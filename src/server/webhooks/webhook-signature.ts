/**
 * Webhook signatures as Standard Webhooks 1.0 writes them, so every
 * language's verifier accepts ours: `v1,` + the base64 HMAC-SHA-256 of
 * `{id}.{timestamp}.{body}` under the bytes of a `whsec_` secret (the base64
 * after the prefix). During a rotation each secret signs, and the header
 * carries every signature, space separated: a receiver holding either secret
 * verifies. Web-standard (WebCrypto, or `node:crypto` when the runtime hands
 * it out), so it runs wherever the relay runs.
 */
import { createHmacSha256, type HmacSha256 } from '../tokens/hmac.js';
import { base64Decode, base64Encode } from './base64.js';

/** The prefix of every webhook secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Fewest bytes a webhook secret decodes to (the specification's lower bound). */
export const MIN_WEBHOOK_SECRET_BYTES = 24;

/** Most bytes a webhook secret decodes to (the specification's upper bound). */
export const MAX_WEBHOOK_SECRET_BYTES = 64;

/** The signature scheme's version tag in `webhook-signature`. */
export const WEBHOOK_SIGNATURE_VERSION = 'v1';

/** The three headers that carry a signed webhook, by their lower-case names. */
// A type, not an interface, so it passes where any record of headers is taken.
export type WebhookSignatureHeaders = {
  /** The event's id: the receiver's de-duplication key, the same on every retry. */
  'webhook-id': string;
  /** Unix seconds of this attempt. */
  'webhook-timestamp': string;
  /** `v1,<base64>` for each secret, space separated. */
  'webhook-signature': string;
};

/** Signs one attempt of an event: the value of its `webhook-signature` header. */
export type WebhookSigner = (
  id: string,
  timestamp: number,
  body: string | Uint8Array<ArrayBuffer>,
) => Promise<string>;

const encoder = new TextEncoder();

/**
 * The bytes of a `whsec_` secret. Throws a TypeError naming `owner` (never
 * quoting the secret) when it is not `whsec_` + base64 of 24 to 64 bytes.
 */
export function parseWebhookSecret(secret: unknown, owner = 'webhook secret'): Uint8Array<ArrayBuffer> {
  if (typeof secret !== 'string' || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new TypeError(`${owner} must be a string that starts with ${WEBHOOK_SECRET_PREFIX}.`);
  }
  const bytes = base64Decode(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  if (!bytes) throw new TypeError(`${owner} must be ${WEBHOOK_SECRET_PREFIX} followed by standard base64.`);
  if (bytes.byteLength < MIN_WEBHOOK_SECRET_BYTES || bytes.byteLength > MAX_WEBHOOK_SECRET_BYTES) {
    throw new TypeError(
      `${owner} must decode to ${MIN_WEBHOOK_SECRET_BYTES} to ${MAX_WEBHOOK_SECRET_BYTES} bytes; it decodes to ${bytes.byteLength}.`,
    );
  }
  return bytes;
}

/** True when `value` is a usable `whsec_` secret. */
export function isWebhookSecret(value: unknown): value is string {
  try {
    parseWebhookSecret(value);
    return true;
  } catch {
    return false;
  }
}

/** A new random secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + base64Encode(crypto.getRandomValues(new Uint8Array(32)));
}

/** The bytes that are signed: `{id}.{timestamp}.` followed by the body exactly as sent. */
export function signedContent(
  id: string,
  timestamp: number | string,
  body: string | Uint8Array,
): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const payload = typeof body === 'string' ? encoder.encode(body) : body;
  const content = new Uint8Array(prefix.byteLength + payload.byteLength);
  content.set(prefix, 0);
  content.set(payload, prefix.byteLength);
  return content;
}

/** Each secret of `secrets` (one, or several during a rotation), checked, as an HMAC key. Throws a TypeError. */
export function webhookKeys(secrets: string | readonly string[], owner = 'webhook secret'): HmacSha256[] {
  const list = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (list.length === 0) throw new TypeError(`${owner}: give at least one ${WEBHOOK_SECRET_PREFIX} secret.`);
  return list.map((secret, index) =>
    createHmacSha256(parseWebhookSecret(secret, list.length > 1 ? `${owner} ${index + 1}` : owner)),
  );
}

/**
 * A signer under `secrets`, checked and imported once. Its answer holds one
 * `v1,` signature per secret, in the order given. Throws a TypeError for a
 * secret that is not `whsec_…`.
 */
export function createWebhookSigner(secrets: string | readonly string[], owner?: string): WebhookSigner {
  const keys = webhookKeys(secrets, owner);
  return async (id, timestamp, body) => {
    const content = signedContent(id, timestamp, body);
    const signatures = await Promise.all(keys.map((sign) => sign(content)));
    return signatures.map((signature) => `${WEBHOOK_SIGNATURE_VERSION},${base64Encode(signature)}`).join(' ');
  };
}

/** Signs one attempt under `secrets`: the value of `webhook-signature`. */
export function signWebhook(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string | Uint8Array<ArrayBuffer>,
): Promise<string> {
  return createWebhookSigner(secrets)(id, timestamp, body);
}

/** The three Standard Webhooks headers of one attempt, signed by `signer`. */
export async function webhookSignatureHeaders(
  signer: WebhookSigner,
  id: string,
  timestamp: number,
  body: string | Uint8Array<ArrayBuffer>,
): Promise<WebhookSignatureHeaders> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await signer(id, timestamp, body),
  };
}
