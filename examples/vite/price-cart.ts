/**
 * The shop's prices, on the server: the relay charges what this answers,
 * never what the page says. Runs in the Vite process, not in the browser.
 */
import { CartError, type PricedLineItem } from 'pay-checkout/server';

const CATALOGUE = new Map([['kente-tote', { name: 'Kente tote', price: 5000 }]]);

export function priceCart(cart: unknown): PricedLineItem[] {
  const items = (cart as { items?: { product_id?: unknown; quantity?: unknown }[] } | null)?.items;
  if (!Array.isArray(items) || items.length === 0) throw new CartError('Your cart is empty.');
  return items.map(({ product_id, quantity }) => {
    const product = CATALOGUE.get(String(product_id));
    if (!product || !Number.isInteger(quantity) || (quantity as number) < 1) {
      throw new CartError('This item is no longer available.', { param: 'cart' });
    }
    return {
      type: 'product',
      product: {
        name: product.name,
        price: { currency: 'ghs', value: product.price },
        quantity: quantity as number,
      },
    };
  });
}
