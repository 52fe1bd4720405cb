/**
 * Checks what a merchant's `priceCart` returned before it is charged: product
 * lines in one accepted currency, whole minor units, at least one line. A
 * mistake here is the merchant's bug, so it is reported to them, not the shopper.
 */
import * as z from 'zod/mini';
import { CURRENCIES, type Currency, ORDER_INPUT_LIMITS } from '../../shared/service-contract.js';
import { issueParam } from '../../shared/wire.js';

/** A line item as `priceCart` returns it (the service's product line; `value` in minor units). */
export interface PricedLineItem {
  type: 'product';
  product: { name: string; price: { currency: Currency; value: number }; quantity: number };
}

const pricedLineItemSchema = z.object({
  type: z.literal('product'),
  product: z.object({
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(ORDER_INPUT_LIMITS.productNameMaxLength)),
    price: z.object({
      currency: z.enum(CURRENCIES),
      value: z.int().check(z.gte(ORDER_INPUT_LIMITS.priceValueMin)),
    }),
    quantity: z.int().check(z.positive(), z.lte(ORDER_INPUT_LIMITS.quantityMax)),
  }),
});

const pricedLineItemsSchema = z.array(pricedLineItemSchema).check(
  z.minLength(1, 'priceCart returned no line items.'),
  z.maxLength(
    ORDER_INPUT_LIMITS.lineItemsMax,
    `priceCart returned more than ${ORDER_INPUT_LIMITS.lineItemsMax} line items.`,
  ),
  z.refine(
    (items) => new Set(items.map((item) => item.product.price.currency)).size <= 1,
    'priceCart returned line items in more than one currency.',
  ),
);

/** The line items `priceCart` returned, or why they cannot be charged. */
export function checkPricedLineItems(
  value: unknown,
): { ok: true; lineItems: PricedLineItem[] } | { ok: false; reason: string } {
  const parsed = pricedLineItemsSchema.safeParse(value);
  if (parsed.success) return { ok: true, lineItems: parsed.data };
  const issue = parsed.error.issues[0];
  const where =
    issue && issue.path.length > 0 ? ` at line_items${issueParam(issue).replace(/^(?!\[)/, '.')}` : '';
  return { ok: false, reason: `${issue?.message ?? 'Invalid line items.'}${where}` };
}
