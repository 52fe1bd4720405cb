/**
 * The embed's `load-french-strings.ts`: the one-file embed has no other file
 * to fetch (contract §1), so French is bundled and needs no download.
 */
import { FR_STRINGS } from './fr-strings.js';
import type { PayCheckoutStrings } from './strings.js';

/** The French texts, already in the bundle. */
export async function loadFrenchStrings(): Promise<PayCheckoutStrings> {
  return FR_STRINGS;
}
