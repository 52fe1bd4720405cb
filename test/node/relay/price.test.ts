/**
 * The price before the prompt: the relay's price route prices `{ cart }` with
 * the same `priceCart` as the create, answers the amount, each line item's
 * name, quantity and unit price, and the reference, never the metadata, with
 * no service call and a limit per client like lookups. A create carrying
 * `expected_amount` the relay now prices otherwise is refused with `409`
 * `amount_changed` and the new `amount`, before the service is called and
 * without spending the number's prompt slot. Real relay handlers with real
 * `Request`s in front of an in-process sandbox.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PricedLineItem } from '../../../src/server/index.js';
import { amountChangedSchema, createAnswerSchema, priceAnswerSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import {
  CLIENT,
  createRequest,
  errorOf,
  intent,
  priceCart,
  priceRequest,
  relayStack,
} from '../../fixtures/relay.js';
import { sandboxFetch } from '../../fixtures/sandbox.js';

const { sandbox, relayWith } = relayStack();

/** The sandbox's fetch, counting every call the relay makes to the service. */
function countingFetch() {
  const calls: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    calls.push(new Request(input, init).url);
    return sandboxFetch(input, init);
  };
  return { calls, fetch };
}

/** The shop's price with its reference and private metadata, its totes at `tote` pesewas each. */
function shopAt(prices: { tote: number }) {
  return (
    cart: unknown,
  ): { lineItems: PricedLineItem[]; reference: string; metadata: Record<string, string> } => {
    const lineItems = priceCart(cart).map((item) =>
      item.product.name === 'Kente tote'
        ? { ...item, product: { ...item.product, price: { currency: 'ghs' as const, value: prices.tote } } }
        : item,
    );
    return { lineItems, reference: 'cart-8812', metadata: { margin: 'secret' } };
  };
}

describe('the price route', () => {
  it('answers the amount, the line items and the reference as the create would price them; no metadata, no service call', async () => {
    const service = countingFetch();
    const relay = relayWith({ fetch: service.fetch, priceCart: shopAt({ tote: 12_500 }) });
    const cart = {
      items: [
        { sku: 'tote', quantity: 2 },
        { sku: 'scarf', quantity: 1 },
      ],
    };
    const answer = await relay.handle(priceRequest({ cart }), CLIENT);
    assert.equal(answer.status, 200);
    const text = await answer.clone().text();
    assert.ok(!text.includes('margin') && !text.includes('secret'), 'never the metadata');
    const priced = priceAnswerSchema.parse(await answer.json());
    assert.deepEqual(priced, {
      amount: { currency: 'ghs', value: 29_000 },
      line_items: [
        { name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 } },
        { name: 'Adinkra scarf', quantity: 1, unit_price: { currency: 'ghs', value: 4_000 } },
      ],
      reference: 'cart-8812',
    });
    assert.deepEqual(service.calls, [], 'the service never heard of it');
    // The create charges the same amount.
    const created = createAnswerSchema.parse(
      await (
        await relay.create(createRequest(intent({ cart, expected_amount: priced.amount })), CLIENT)
      ).json(),
    );
    assert.deepEqual(created.order.amount, priced.amount);
  });

  it('a cart the merchant refuses is its 400; a body without an object is refused too', async () => {
    const relay = relayWith();
    const refused = await relay.price(
      priceRequest({ cart: { items: [{ sku: 'nope', quantity: 1 }] } }),
      CLIENT,
    );
    assert.equal(refused.status, 400);
    assert.equal((await errorOf(refused)).param, 'cart.items[0].sku');
    assert.equal((await relay.price(priceRequest([1, 2]), CLIENT)).status, 400);
  });

  it('is limited per client like lookups: 429 with Retry-After past its bucket', async () => {
    const relay = relayWith({ rateLimit: { price: { capacity: 2, refillPerMinute: 1 } } });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let index = 0; index < 3; index++) {
      last = await relay.price(priceRequest({ cart: intent().cart }), CLIENT);
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    assert.ok(Number(last?.headers.get('retry-after')) > 0);
    // Another client still prices.
    assert.equal(
      (await relay.price(priceRequest({ cart: intent().cart }), { clientAddress: '203.0.113.9' })).status,
      200,
    );
  });
});

describe('expected_amount on the create', () => {
  it('another priced total: 409 amount_changed with the new amount, no service call, no prompt slot spent', async () => {
    const service = countingFetch();
    const prices = { tote: 12_500 };
    const relay = relayWith({
      fetch: service.fetch,
      priceCart: shopAt(prices),
      rateLimit: { promptsPerNumber: { limit: 1, windowMinutes: 10 } },
    });
    const body = intent({
      ...customerPayingFrom('0241140001'),
      expected_amount: { currency: 'ghs', value: 25_000 },
    });
    prices.tote = 15_000;
    const before = sandbox.createdOrderCount;
    const changed = await relay.create(createRequest(body), CLIENT);
    assert.equal(changed.status, 409);
    const refusal = amountChangedSchema.parse(await changed.json());
    assert.equal(refusal.error.code, 'amount_changed');
    assert.equal(refusal.error.param, 'expected_amount');
    assert.deepEqual(refusal.amount, { currency: 'ghs', value: 30_000 });
    assert.deepEqual(service.calls, []);
    assert.equal(sandbox.createdOrderCount, before);
    // The number's one prompt is still there: the create at the new amount goes through.
    const again = await relay.create(createRequest({ ...body, expected_amount: refusal.amount }), CLIENT);
    assert.equal(again.status, 200);
    assert.deepEqual(createAnswerSchema.parse(await again.json()).order.amount, refusal.amount);
  });

  it('a malformed expected_amount is a 400 naming it; none at all is accepted as before', async () => {
    const relay = relayWith();
    const bad = await relay.create(
      createRequest(intent({ expected_amount: { currency: 'ghs', value: 1.5 } })),
      CLIENT,
    );
    assert.equal(bad.status, 400);
    assert.match((await errorOf(bad)).param ?? '', /^expected_amount/);
    assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 200);
  });
});
