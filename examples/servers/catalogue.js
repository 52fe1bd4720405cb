import { CartError } from 'pay-checkout/server';

// The shop's own prices: the browser names products, the server decides what they cost.
const catalogue = new Map([
  ['kente-tote', { name: 'Kente tote', pesewas: 12_500 }],
  ['adinkra-scarf', { name: 'Adinkra scarf', pesewas: 4_000 }],
]);

/** The relay's `priceCart`: the page's `{ items: [{ product_id, quantity }] }`, priced from the catalogue. */
export function priceCart(cart) {
  const items = Array.isArray(cart?.items) ? cart.items : [];
  if (items.length === 0) throw new CartError('The cart is empty.');
  return items.map(({ product_id, quantity }) => {
    const product = catalogue.get(product_id);
    if (!product) throw new CartError('This product is not sold here.');
    const price = { currency: 'ghs', value: product.pesewas };
    return { type: 'product', product: { name: product.name, price, quantity } };
  });
}
