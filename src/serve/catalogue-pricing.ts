/**
 * How serve prices a browser's cart: from the catalogue of its configuration,
 * `{ items: [{ sku, quantity }] }`, whatever the page claims about prices.
 * Without a catalogue there is nothing to price a cart from: the shop's
 * backend creates its checkouts through the merchant API instead.
 */
import { CartError } from '../server/pricing/cart-error.js';
import type { PriceCart } from '../server/pricing/priced-cart.js';
import type { PricedLineItem } from '../server/pricing/priced-line-items.js';
import { ORDER_INPUT_LIMITS } from '../shared/service-contract.js';
import type { CatalogueProduct } from './serve-config.js';

/** The shape of a catalogue cart, as the shopper's page sends it. */
const CART_SHAPE = 'Send a cart as { "items": [{ "sku": "…", "quantity": 1 }] }.';

/** A `priceCart` reading `catalogue`; without one, every cart is refused. */
export function cataloguePriceCart(
  catalogue: Readonly<Record<string, CatalogueProduct>> | undefined,
): PriceCart {
  if (catalogue === undefined) {
    return () => {
      throw new CartError('This shop takes checkouts its server creates, not carts from the page.');
    };
  }
  const products = new Map(Object.entries(catalogue));
  return (cart) => {
    const items = (cart as { items?: unknown } | null)?.items;
    if (!Array.isArray(items) || items.length === 0 || items.length > ORDER_INPUT_LIMITS.lineItemsMax) {
      throw new CartError(CART_SHAPE, { param: 'cart.items' });
    }
    return { lineItems: items.map((item, index) => lineItemOf(products, item, index)), reference: null };
  };
}

function lineItemOf(
  products: ReadonlyMap<string, CatalogueProduct>,
  item: unknown,
  index: number,
): PricedLineItem {
  const { sku, quantity } = (typeof item === 'object' && item !== null ? item : {}) as Record<
    string,
    unknown
  >;
  const product = typeof sku === 'string' ? products.get(sku) : undefined;
  if (product === undefined) {
    throw new CartError('This product is not sold here.', { param: `cart.items[${index}].sku` });
  }
  if (
    !Number.isSafeInteger(quantity) ||
    (quantity as number) < 1 ||
    (quantity as number) > ORDER_INPUT_LIMITS.quantityMax
  ) {
    throw new CartError(`Order 1 to ${ORDER_INPUT_LIMITS.quantityMax} of a product.`, {
      param: `cart.items[${index}].quantity`,
    });
  }
  return {
    type: 'product',
    product: { name: product.name, price: { ...product.unitPrice }, quantity: quantity as number },
  };
}
