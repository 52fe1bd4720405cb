/**
 * base64url without padding (RFC 4648 §5), on `btoa`/`atob` so it runs on
 * edge runtimes that have no `Buffer`.
 */

/** Encodes bytes as unpadded base64url. */
export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Decodes unpadded base64url; undefined for anything else, including a last
 * character whose unused low bits are set: each byte string has exactly one
 * spelling, so a token cannot be replayed under three other names.
 */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return base64UrlEncode(bytes) === text ? bytes : undefined;
}
