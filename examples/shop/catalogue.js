import { CartError } from 'pay-checkout/server';

// The shop's prices, in pesewas: the page names what is bought, the server decides what it costs.
const PRODUCTS = new Map([
  ['kente-tote', { name: 'Kente tote', pesewas: 12_500 }],
  ['adinkra-scarf', { name: 'Adinkra scarf', pesewas: 4_000 }],
]);

/** The relay's priceCart: the page's `{ id, items: [{ product_id, quantity }] }`, priced here. */
export function priceCart(cart) {
  if (!/^cart-[0-9a-f-]{36}$/.test(cart?.id)) {
    throw new CartError('This cart has expired: reload the page.', { param: 'cart.id' });
  }
  const items = Array.isArray(cart.items) ? cart.items : [];
  if (items.length === 0) throw new CartError('Your cart is empty.');
  const lineItems = items.map(({ product_id, quantity }, index) => {
    const product = PRODUCTS.get(product_id);
    if (!product) {
      throw new CartError('This product is not sold here.', { param: `cart.items[${index}].product_id` });
    }
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 10) {
      throw new CartError('Choose from 1 to 10 of each product.', { param: `cart.items[${index}].quantity` });
    }
    const price = { currency: 'ghs', value: product.pesewas };
    return { type: 'product', product: { name: product.name, price, quantity } };
  });
  // The cart id is the reference: onPaid ships it, and it links every attempt to pay this cart.
  return { lineItems, reference: cart.id };
}
