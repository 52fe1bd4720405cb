import { CartError, type PricedLineItem } from 'pay-checkout/server';

/** What the shop's pages send as `cart`: product ids and quantities, never prices. */
export interface Cart {
  items: { product_id: string; quantity: number }[];
}

/** The cart both checkout pages show: one kente tote. */
export const CART: Cart = { items: [{ product_id: 'kente-tote', quantity: 1 }] };

/** The shop's prices, in pesewas: the server decides what is charged, never the page. */
const CATALOGUE: Record<string, { name: string; pesewas: number }> = {
  'kente-tote': { name: 'Kente tote', pesewas: 5000 },
};

/** The relay's `priceCart`: line items from the catalogue, or a `CartError` the shopper reads. */
export function priceCart(cart: unknown): PricedLineItem[] {
  const items = (cart as Partial<Cart> | null)?.items;
  if (!Array.isArray(items) || items.length === 0) throw new CartError('Your cart is empty.');
  return items.map(({ product_id, quantity }) => {
    const product = CATALOGUE[product_id];
    if (!product || !Number.isInteger(quantity) || quantity < 1) {
      throw new CartError('Something in your cart is no longer sold.');
    }
    const price = { currency: 'ghs' as const, value: product.pesewas };
    return { type: 'product' as const, product: { name: product.name, price, quantity } };
  });
}
