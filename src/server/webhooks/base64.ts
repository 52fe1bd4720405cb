/**
 * Standard base64 (RFC 4648 section 4, padded), as Standard Webhooks writes
 * secrets and signatures, on `btoa`/`atob` so it runs on edge runtimes that
 * have no `Buffer`.
 */

/** Encodes bytes as padded standard base64. */
export function base64Encode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of a standard base64 text, or undefined when it is not one. */
export function base64Decode(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}
