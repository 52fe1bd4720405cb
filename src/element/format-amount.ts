/**
 * Amounts for display. An amount's `value` is an integer count of minor units
 * (pesewas for `ghs`, see MONEY_VALUE_UNIT); the server decides what is charged.
 */
import type { OrderAmount } from '../shared/wire.js';

/**
 * `{ currency: 'ghs', value: 5000 }` → "GH₵ 50.00" in English, "50,00 GH₵"
 * in French. Returns '' for no amount, or one that is not a whole,
 * non-negative number, so the element can leave it out rather than show a
 * wrong one.
 */
export function formatAmount({ currency, value }: Partial<OrderAmount> = {}, locale: string): string {
  if (!Number.isSafeInteger(value) || (value as number) < 0) return '';
  const options: Intl.NumberFormatOptions = {
    style: 'currency',
    currency,
    // `narrowSymbol` gives the cedi sign (GH₵) where a locale would say "GHS".
    currencyDisplay: 'narrowSymbol',
  };
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(locale, options);
  } catch {
    // A locale tag Intl rejects falls back to English; a currency it rejects shows nothing.
    try {
      format = new Intl.NumberFormat('en', options);
    } catch {
      return '';
    }
  }
  const parts = format.formatToParts(
    (value as number) / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2),
  );
  // Ghanaian prices read "GH₵ 50.00": a (non-breaking) space after a leading
  // symbol where the locale's pattern glues it to the number.
  return parts
    .map(({ type, value: text }, index) =>
      type === 'currency' && !index && parts[1]?.type !== 'literal' ? `${text}\u00a0` : text,
    )
    .join('');
}
