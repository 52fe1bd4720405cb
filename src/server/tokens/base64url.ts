/**
 * base64url without padding (RFC 4648 §5), on `btoa` so it runs on edge
 * runtimes that have no `Buffer`.
 */

/** Encodes bytes as unpadded base64url. */
export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
