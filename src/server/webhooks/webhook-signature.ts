/**
 * Standard Webhooks signatures: `v1,` and the base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}` under the secret's bytes (`whsec_` and base64).
 * During a rotation every secret signs, the signatures space-separated.
 */
import { createHmacSha256 } from '../tokens/hmac.js';

/** What a webhook secret starts with. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The fewest random bytes a secret holds. */
export const WEBHOOK_SECRET_MIN_BYTES = 24;

/** The bytes of a `whsec_…` secret; throws a TypeError for anything else. */
export function parseWebhookSecret(secret: string): Uint8Array<ArrayBuffer> {
  if (typeof secret === 'string' && secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    const base64 = secret.slice(WEBHOOK_SECRET_PREFIX.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
      const binary = atob(base64);
      const bytes = new Uint8Array(binary.length);
      for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
      if (bytes.length >= WEBHOOK_SECRET_MIN_BYTES) return bytes;
    }
  }
  throw new TypeError(
    `A webhook secret is ${WEBHOOK_SECRET_PREFIX} and the base64 of at least ${WEBHOOK_SECRET_MIN_BYTES} random bytes.`,
  );
}

/** Bytes as standard base64. */
function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The `webhook-signature` header of one message: one `v1,…` per secret, space-separated. */
export async function signWebhook(
  secrets: string | readonly string[],
  message: { id: string; timestamp: number; body: string },
): Promise<string> {
  const signed = `${message.id}.${message.timestamp}.${message.body}`;
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  const signatures = await Promise.all(
    all.map(async (secret) => `v1,${base64Of(await createHmacSha256(parseWebhookSecret(secret))(signed))}`),
  );
  return signatures.join(' ');
}
