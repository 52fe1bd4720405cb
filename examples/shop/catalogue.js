import { CartError } from 'pay-checkout/server';
import { cartOf } from './carts.js';
import { isPaid } from './shipments.js';

// The shop's prices, in pesewas: the page names what is bought, the server decides what it costs.
const PRODUCTS = new Map([
  ['kente-tote', { name: 'Kente tote', pesewas: 12_500 }],
  ['adinkra-scarf', { name: 'Adinkra scarf', pesewas: 4_000 }],
]);

/** Line items for `[{ product_id, quantity }]`, priced here; a CartError for anything not sold. */
export function priceItems(items) {
  if (!Array.isArray(items) || items.length === 0) throw new CartError('Your cart is empty.');
  return items.map(({ product_id, quantity }, index) => {
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
}

/** The relay's priceCart: the cart this browser's session holds on the server, whatever the page sent. */
export function priceCart(_cart, request) {
  const cart = cartOf(request.headers.get('cookie'));
  if (!cart) throw new CartError('This cart has expired: reload the page.');
  if (isPaid(cart.reference)) throw new CartError('This cart is paid: reload the page for a new one.');
  // The cart's reference links every attempt to pay it, and onPaid ships it.
  return { lineItems: priceItems(cart.items), reference: cart.reference };
}
