/**
 * HMAC-SHA-256 for the relay's lookup tokens and idempotency scope, on Node
 * and on edge runtimes alike. Where the runtime hands out `node:crypto`
 * through `process.getBuiltinModule` (Node 20.16 and later, and runtimes that
 * copy it), its synchronous `createHmac` is used: WebCrypto's
 * `crypto.subtle.sign` runs as an async job that costs about five times the
 * CPU on Node 20 (31 µs against 6). Everywhere else, WebCrypto.
 * Nothing here imports a `node:` module, so edge bundles stay clean.
 */
import type * as NodeCrypto from 'node:crypto';
import { base64UrlEncode } from './base64url.js';

/** Signs a message (text as UTF-8, or raw bytes) with one secret: the 32-byte HMAC-SHA-256. */
export type HmacSha256 = (message: string | Uint8Array<ArrayBuffer>) => Promise<Uint8Array<ArrayBuffer>>;

/** Signs a message (UTF-8) with one secret: the HMAC-SHA-256 as unpadded base64url, at once where the runtime can. */
export type HmacSha256Text = (message: string) => string | Promise<string>;

const encoder = new TextEncoder();
const HMAC_SHA_256 = { name: 'HMAC', hash: 'SHA-256' } as const;

/** `node:crypto` when the runtime hands it out without an import; otherwise undefined. */
function builtinNodeCrypto(): typeof NodeCrypto | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const module = process?.getBuiltinModule?.('node:crypto') as Partial<typeof NodeCrypto> | undefined;
  return typeof module?.createHmac === 'function' && typeof module.createSecretKey === 'function'
    ? (module as typeof NodeCrypto)
    : undefined;
}

/** The HMAC-SHA-256 under `secret` (text as UTF-8, or raw bytes): `node:crypto` where available. */
export function createHmacSha256(secret: string | Uint8Array<ArrayBuffer>): HmacSha256 {
  const nodeCrypto = builtinNodeCrypto();
  if (!nodeCrypto) return createWebCryptoHmacSha256(secret);
  const key = nodeCrypto.createSecretKey(typeof secret === 'string' ? encoder.encode(secret) : secret);
  return async (message) => {
    const hmac = nodeCrypto.createHmac('sha256', key);
    return new Uint8Array(
      (typeof message === 'string' ? hmac.update(message, 'utf8') : hmac.update(message)).digest(),
    );
  };
}

/**
 * The HMAC-SHA-256 under `secret` as unpadded base64url (RFC 4648 §5):
 * straight from `node:crypto`'s digest where available, without a promise.
 */
export function createHmacSha256Base64Url(secret: string): HmacSha256Text {
  const nodeCrypto = builtinNodeCrypto();
  if (!nodeCrypto) {
    const hmac = createWebCryptoHmacSha256(secret);
    return async (message) => base64UrlEncode(await hmac(message));
  }
  const key = nodeCrypto.createSecretKey(encoder.encode(secret));
  return (message) => nodeCrypto.createHmac('sha256', key).update(message, 'utf8').digest('base64url');
}

/** The HMAC-SHA-256 under `secret` through WebCrypto only, as on an edge runtime. The key is imported once. */
export function createWebCryptoHmacSha256(secret: string | Uint8Array<ArrayBuffer>): HmacSha256 {
  let key: Promise<CryptoKey> | undefined;
  return async (message) => {
    key ??= crypto.subtle.importKey(
      'raw',
      typeof secret === 'string' ? encoder.encode(secret) : secret,
      HMAC_SHA_256,
      false,
      ['sign'],
    );
    const bytes = typeof message === 'string' ? encoder.encode(message) : message;
    return new Uint8Array(await crypto.subtle.sign('HMAC', await key, bytes));
  };
}
