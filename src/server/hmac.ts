/**
 * HMAC-SHA-256 through WebCrypto (`crypto.subtle`), so the relay signs and
 * checks on Node and on edge runtimes alike.
 */

const encoder = new TextEncoder();
const HMAC_SHA_256 = { name: 'HMAC', hash: 'SHA-256' } as const;

/** Imports `secret` (text or raw bytes) as a non-extractable HMAC-SHA-256 key. */
export function importHmacKey(secret: string | Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const raw = typeof secret === 'string' ? encoder.encode(secret) : secret;
  return crypto.subtle.importKey('raw', raw, HMAC_SHA_256, false, ['sign', 'verify']);
}

/** The 32-byte HMAC-SHA-256 of `message` (UTF-8) under `key`. */
export async function hmacSha256(key: CryptoKey, message: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
}
