/**
 * What a merchant's `priceCart` returns: the line items, or
 * the line items with the merchant's own `reference` for the checkout and
 * `metadata` for their own use. Both are checked here before anything is
 * recorded or charged: a bad one is the merchant's bug, so the create is
 * refused with a bare `500` and `onEvent` names the field.
 */
import { CURRENCIES } from '../../shared/service-contract.js';
import { REFERENCE_PATTERN } from '../../shared/wire.js';
import { checkPricedLineItems, type PricedLineItem } from './priced-line-items.js';

/** Most metadata keys; their longest name; the longest value. */
export const METADATA_LIMITS = { maxKeys: 20, maxKeyLength: 40, maxValueLength: 500 } as const;

/** What `priceCart` may return: the line items alone, or with a reference and metadata. */
export type PricedCartResult =
  | PricedLineItem[]
  | {
      lineItems: PricedLineItem[];
      /** The merchant's id for this checkout (a cart or order number): 1–64 of `[A-Za-z0-9_.:-]`. */
      reference?: string | null;
      /** The merchant's own notes, never personal data: at most 20 keys of 40 characters, string values of 500. */
      metadata?: Readonly<Record<string, string>>;
    };

/** Prices the cart on the server: whatever the browser said about prices is ignored. */
export type PriceCart = (cart: unknown, request: Request) => PricedCartResult | Promise<PricedCartResult>;

/** A priced cart, checked: what the journal records and the service charges. */
export interface PricedCart {
  lineItems: PricedLineItem[];
  reference: string | null;
  metadata: Record<string, string>;
}

/** The field of `priceCart`'s answer that was wrong. */
export type PricedCartField = 'lineItems' | 'reference' | 'metadata';

/** `priceCart`'s answer checked, or which field is wrong and why. */
export function checkPricedCart(
  value: unknown,
): { ok: true; cart: PricedCart } | { ok: false; field: PricedCartField; reason: string } {
  const parts = Array.isArray(value) ? { lineItems: value } : value;
  if (typeof parts !== 'object' || parts === null) {
    return {
      ok: false,
      field: 'lineItems',
      reason: 'priceCart returned neither line items nor { lineItems }.',
    };
  }
  const { lineItems, reference = null, metadata = {} } = parts as Record<string, unknown>;
  if (!Array.isArray(lineItems)) {
    return {
      ok: false,
      field: 'lineItems',
      reason: 'priceCart returned { lineItems } without an array of line items.',
    };
  }
  const items = checkPricedLineItems(lineItems);
  if (!items.ok) return { ok: false, field: 'lineItems', reason: items.reason };
  if (reference !== null && (typeof reference !== 'string' || !REFERENCE_PATTERN.test(reference))) {
    return {
      ok: false,
      field: 'reference',
      reason: 'priceCart returned a reference that is not 1 to 64 characters of A-Z, a-z, 0-9, _ . : and -.',
    };
  }
  const checkedMetadata = checkMetadata(metadata);
  if (typeof checkedMetadata === 'string') return { ok: false, field: 'metadata', reason: checkedMetadata };
  return { ok: true, cart: { lineItems: items.lineItems, reference, metadata: checkedMetadata } };
}

/** A copy of plain-object metadata within the limits, or why it is refused. */
function checkMetadata(metadata: unknown): Record<string, string> | string {
  const prototype = typeof metadata === 'object' && metadata !== null && Object.getPrototypeOf(metadata);
  if (prototype !== Object.prototype && prototype !== null) {
    return 'priceCart returned metadata that is not a plain object of strings.';
  }
  const entries = Object.entries(metadata as object);
  const { maxKeys, maxKeyLength, maxValueLength } = METADATA_LIMITS;
  if (entries.length > maxKeys) return `priceCart returned metadata with more than ${maxKeys} keys.`;
  for (const [key, entry] of entries) {
    if (key.length === 0 || key.length > maxKeyLength) {
      return `priceCart returned a metadata key of ${key.length} characters: use 1 to ${maxKeyLength}.`;
    }
    if (typeof entry !== 'string' || entry.length > maxValueLength) {
      return `priceCart returned metadata.${key} that is not a string of at most ${maxValueLength} characters.`;
    }
  }
  // A fresh object: later changes to the merchant's own cannot reach what was recorded.
  return Object.fromEntries(entries) as Record<string, string>;
}

/** What the priced line items cost together: the amount charged where the service says none. */
export function lineItemsTotal(lineItems: readonly PricedLineItem[]): { currency: string; value: number } {
  const currency = lineItems[0]?.product.price.currency ?? CURRENCIES[0];
  const value = lineItems.reduce((sum, item) => sum + item.product.price.value * item.product.quantity, 0);
  return { currency, value };
}
