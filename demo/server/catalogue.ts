/**
 * The demo shop's catalogue and its cart pricing: the page sends product ids
 * and quantities only, and the price charged comes from here, on the server.
 * The reference comes from the server too (the cart session, demo-cart.ts),
 * never from what the page sends.
 */
import * as z from 'zod/mini';
import type { PricedLineItem } from '../../src/server/index.js';
import type { DemoProduct } from '../demo-config.js';

/** Most units of one product a single cart may hold. */
export const MAX_QUANTITY = 5;

/** The shop's shelf. The page lists these and reads their prices from `/api/demo/config`. */
export const DEMO_CATALOGUE: readonly DemoProduct[] = [
  {
    id: 'kente-tote',
    text: {
      en: {
        name: 'Kente-pattern tote bag',
        description:
          'Woven cotton in gold, green and red, lined, with long handles and room for a market run.',
      },
      fr: {
        name: 'Sac cabas motif kente',
        description: 'Coton tissé or, vert et rouge, doublé, à longues anses, assez grand pour le marché.',
      },
    },
    price: { currency: 'ghs', value: 5000 },
    maxQuantity: MAX_QUANTITY,
  },
];

// Anything else the page sends (its copy of the reference, a price) is dropped, never read.
const cartSchema = z.object({
  items: z
    .array(
      z.object({
        product_id: z.string('Give each item a product_id.'),
        quantity: z
          .number('Give each item a quantity.')
          .check(
            z.int('Give a whole quantity.'),
            z.minimum(1, 'Order at least one.'),
            z.maximum(MAX_QUANTITY, `Order at most ${MAX_QUANTITY} of one product.`),
          ),
      }),
      'Send the cart as { items: [{ product_id, quantity }] }.',
    )
    .check(
      z.minLength(1, 'The cart is empty.'),
      z.maxLength(DEMO_CATALOGUE.length, 'List each product once.'),
    ),
});

/** Why a cart could not be priced, with the dotted `param` the error shape carries. */
export interface CartProblem {
  message: string;
  param: string;
}

/**
 * Prices a cart from the catalogue. Returns the line items to charge with
 * `reference`, the cart session's (null without one), or the first problem
 * found: not a cart, an unknown product, a bad quantity, a product listed twice.
 */
export function priceDemoCart(
  cart: unknown,
  reference: string | null,
): { lineItems: PricedLineItem[]; reference: string | null } | { problem: CartProblem } {
  const parsed = cartSchema.safeParse(cart);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? [])
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('');
    return { problem: { message: issue?.message ?? 'The cart is not valid.', param: `cart${path}` } };
  }
  const seen = new Set<string>();
  const lineItems: PricedLineItem[] = [];
  for (const [index, item] of parsed.data.items.entries()) {
    const param = `cart.items[${index}].product_id`;
    const product = DEMO_CATALOGUE.find((candidate) => candidate.id === item.product_id);
    if (!product) {
      return { problem: { message: 'There is no such product in this shop.', param } };
    }
    if (seen.has(product.id)) return { problem: { message: 'List each product once.', param } };
    seen.add(product.id);
    lineItems.push({
      type: 'product',
      product: { name: product.text.en.name, price: { ...product.price }, quantity: item.quantity },
    });
  }
  return { lineItems, reference };
}
