/**
 * serve's pricing of a browser cart from its catalogue: the catalogue's
 * names and prices whatever the page sends, and a refusal at the item and
 * field that is wrong.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cataloguePriceCart } from '../../../src/serve/catalogue-pricing.js';
import { CartError } from '../../../src/server/index.js';
import { TEST_CATALOGUE } from '../../fixtures/serve.js';

const request = new Request('http://127.0.0.1/checkout/orders', { method: 'POST' });

/** The `param` of the CartError pricing `cart` throws. */
async function refusedAt(cart: unknown): Promise<string> {
  const priceCart = cataloguePriceCart(TEST_CATALOGUE);
  try {
    await priceCart(cart, request);
  } catch (error) {
    assert.ok(error instanceof CartError);
    return error.param;
  }
  assert.fail('the cart was priced');
}

describe('catalogue pricing', () => {
  it('prices each item from the catalogue, ignoring any name or price the page sends', async () => {
    const priced = await cataloguePriceCart(TEST_CATALOGUE)(
      { items: [{ sku: 'adinkra-scarf', quantity: 3, name: 'Free scarf', price: 1 }] },
      request,
    );
    assert.deepEqual(priced, {
      lineItems: [
        {
          type: 'product',
          product: { name: 'Adinkra scarf', price: { currency: 'ghs', value: 4_000 }, quantity: 3 },
        },
      ],
      reference: null,
    });
  });

  it('refuses a cart at the item and field that is wrong', async () => {
    assert.equal(await refusedAt({ items: [] }), 'cart.items');
    assert.equal(await refusedAt({}), 'cart.items');
    assert.equal(await refusedAt(null), 'cart.items');
    assert.equal(await refusedAt({ items: [{ sku: 'kente-tote', quantity: 0 }] }), 'cart.items[0].quantity');
    assert.equal(
      await refusedAt({ items: [{ sku: 'kente-tote', quantity: 1.5 }] }),
      'cart.items[0].quantity',
    );
    assert.equal(
      await refusedAt({
        items: [
          { sku: 'kente-tote', quantity: 1 },
          { sku: '__proto__', quantity: 1 },
        ],
      }),
      'cart.items[1].sku',
    );
    assert.equal(await refusedAt({ items: ['kente-tote'] }), 'cart.items[0].sku');
  });

  it('refuses every cart without a catalogue', async () => {
    const priceCart = cataloguePriceCart(undefined);
    await assert.rejects(async () => priceCart({ items: [{ sku: 'kente-tote', quantity: 1 }] }, request), {
      name: 'CartError',
      param: 'cart',
    });
  });
});
