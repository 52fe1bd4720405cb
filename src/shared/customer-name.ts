/**
 * What a customer name may be, for the relay's schema and the
 * element's form alike, so both give the same verdict. A name reaches the
 * merchant's orders, e-mails and back office: it must show as typed, so no
 * control characters, no bidirectional overrides that reorder what follows
 * (U+202E turns "Ama" into a spoofed line), no lone surrogates that break
 * encoders, and at least one visible character (not only a zero-width space,
 * nor only letters and symbols that render as blank space).
 */
import { CUSTOMER_NAME_MAX_LENGTH } from './service-contract.js';

/** Why a name is refused. */
export type CustomerNameProblem = 'required' | 'tooLong' | 'invalid';

/**
 * C0 and C1 controls, bidirectional embeddings, overrides, isolates and marks,
 * and lone surrogates (a `u`-flag class matches a surrogate only when unpaired).
 */
const FORBIDDEN = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\p{Cs}]/u;

/**
 * A letter, digit, punctuation mark or symbol a reader sees: not one that
 * renders as nothing. The default-ignorable code points (`\p{DI}`) include
 * the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), letters by category;
 * the Braille blank (U+2800) and the musical null notehead (U+1D159) are
 * blank symbols. Spaces, joiners, tags and variation selectors are no
 * letters or symbols to begin with.
 */
const VISIBLE = /(?![\p{DI}\u2800\u{1D159}])[\p{L}\p{N}\p{P}\p{S}]/u;

/** The name as the relay keeps it: NFC (one spelling per name, so "é" matches "é"), trimmed. */
export function normalizeCustomerName(name: string): string {
  return name.normalize('NFC').trim();
}

/** True when a normalised name has nothing that would hide or reorder text. */
export function hasOnlyShowableCharacters(name: string): boolean {
  return !FORBIDDEN.test(name);
}

/** True when a normalised name has a character a reader sees. */
export function hasVisibleCharacter(name: string): boolean {
  return VISIBLE.test(name);
}

/** What is wrong with a normalised name, or undefined when it is accepted. */
export function customerNameProblem(name: string): CustomerNameProblem | undefined {
  if (name === '') return 'required';
  if (name.length > CUSTOMER_NAME_MAX_LENGTH) return 'tooLong';
  if (FORBIDDEN.test(name) || !VISIBLE.test(name)) return 'invalid';
  return undefined;
}
