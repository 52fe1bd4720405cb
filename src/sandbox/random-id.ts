/**
 * Random identifiers: a prefix and base62 characters from the platform's CSPRNG
 * (web `crypto`, so the handler stays free of `node:` imports).
 */
import { ID_RANDOM_LENGTH } from '../shared/service-contract.js';

const BASE62_CODES = Array.from(
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  (character) => character.charCodeAt(0),
);
// 62 × 4 = 248: bytes from 248 up are dropped so that every character is equally likely.
const UNBIASED_BYTE_LIMIT = 248;
const POOL_SIZE = 4096;

let pool = new Uint8Array(0);
let poolOffset = 0;

function nextRandomByte(): number {
  if (poolOffset >= pool.length) {
    // One CSPRNG call per few hundred ids: creating 100,000 orders stays fast.
    pool = crypto.getRandomValues(new Uint8Array(POOL_SIZE));
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

/** `prefix` followed by `length` random base62 characters, e.g. `or_4fZq…`. */
export function randomId(prefix: string, length = ID_RANDOM_LENGTH): string {
  const codes = new Array<number>(prefix.length + length);
  for (let index = 0; index < prefix.length; index++) codes[index] = prefix.charCodeAt(index);
  let filled = prefix.length;
  while (filled < codes.length) {
    const byte = nextRandomByte();
    if (byte < UNBIASED_BYTE_LIMIT) codes[filled++] = BASE62_CODES[byte % 62] as number;
  }
  // One flat string: building it by `+=` would keep a rope of pieces per id (kilobytes per order).
  return String.fromCharCode(...codes);
}
