/**
 * Constant-time comparison of digests: `node:crypto`'s `timingSafeEqual`
 * where the runtime hands it out without an import, else a loop of the same
 * kind, so it runs on edge runtimes too.
 */
import type * as NodeCrypto from 'node:crypto';
import { constantTimeEqual } from './lookup-token.js';

/** Compares two byte arrays of one length in constant time (`timingSafeEqual`). */
export type DigestCompare = (a: Uint8Array, b: Uint8Array) => boolean;

/** `node:crypto`'s `timingSafeEqual` where the runtime hands it out without an import, else a loop of the same kind. */
export function timingSafeCompare(): DigestCompare {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const nodeCrypto = process?.getBuiltinModule?.('node:crypto') as Partial<typeof NodeCrypto> | undefined;
  const timingSafeEqual = nodeCrypto?.timingSafeEqual;
  return typeof timingSafeEqual === 'function' ? (a, b) => timingSafeEqual(a, b) : constantTimeEqual;
}
