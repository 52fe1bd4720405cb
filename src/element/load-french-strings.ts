/**
 * Fetches the French texts as a chunk of their own. The one-file embed swaps
 * this module for `load-french-strings.embed.ts` (vite.embed.config.ts).
 */
import type { PayCheckoutStrings } from './strings.js';

/** The French texts, downloaded on first use. */
export async function loadFrenchStrings(): Promise<PayCheckoutStrings> {
  return (await import('./fr-strings.js')).FR_STRINGS;
}
