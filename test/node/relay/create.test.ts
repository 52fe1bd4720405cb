/**
 * The merchant relay creates and looks up an order on the happy path, and prices the cart on
 * the server whatever the browser says. Its handlers are called with real `Request`s in
 * front of an in-process sandbox (test/fixtures/relay.ts); a real proxy
 * where the wire must break, the Node listener over real HTTP where the
 * socket is the point.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createServiceClient, listen } from '../../../src/server/index.js';
import { LOOKUP_SHARING_MS } from '../../../src/server/lookups/order-lookups.js';
import { createAnswerSchema, lookupAnswerSchema } from '../../../src/shared/wire.js';
import { CUSTOMER_NAME } from '../../fixtures/checkout-data.js';
import {
  assertNoCustomerData,
  CLIENT,
  createRequest,
  errorOf,
  intent,
  lookupRequest,
  relayStack,
  SECRET,
} from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';
import { sandboxFetch } from '../../fixtures/sandbox.js';

describe('createCheckoutRelay', () => {
  const { sandbox, sandboxUrl, events, relayWith } = relayStack();

  describe('the happy path', () => {
    it('creates an order and answers only its status fields, the amount charged, the reference and a lookup token', async () => {
      events.length = 0;
      const relay = relayWith();
      const response = await relay.create(createRequest(intent()), CLIENT);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const text = await response.text();
      assertNoCustomerData(text);
      const answer = JSON.parse(text);
      assert.deepEqual(Object.keys(answer).sort(), ['lookup_token', 'order', 'reference']);
      assert.deepEqual(Object.keys(answer.order).sort(), ['amount', 'id', 'payment', 'status']);
      assert.deepEqual(Object.keys(answer.order.payment), ['status']);
      // Two totes at the catalogue's price, whatever the page said; no reference from this priceCart.
      assert.deepEqual(answer.order.amount, { currency: 'ghs', value: 25_000 });
      assert.equal(answer.reference, null);
      const parsed = createAnswerSchema.parse(answer);
      assert.match(parsed.order.id, /^or_/);
      assert.equal(parsed.order.status, 'requires_payment');
      assert.equal(parsed.order.payment.status, 'requires_action');
      const created = events.find((event) => event.type === 'order_created');
      assert.ok(created && created.type === 'order_created');
      assert.equal(created.orderId, parsed.order.id);
      assert.equal(created.customer.name, CUSTOMER_NAME);
    });

    it('looks the order up with its token, status fields only, through to paid', async () => {
      const time = { now: Date.now() };
      const relay = relayWith({ clock: clockReading(() => time.now) });
      const created = createAnswerSchema.parse(
        await (await relay.create(createRequest(intent()), CLIENT)).json(),
      );
      const ask = () =>
        relay.lookup(
          lookupRequest({ order_id: created.order.id, lookup_token: created.lookup_token }),
          CLIENT,
        );
      const pending = await ask();
      assert.equal(pending.status, 200);
      const pendingText = await pending.text();
      assertNoCustomerData(pendingText);
      assert.deepEqual(JSON.parse(pendingText), {
        order: {
          id: created.order.id,
          status: 'requires_payment',
          amount: { currency: 'ghs', value: 25_000 },
          payment: { status: 'requires_action' },
        },
      });
      sandbox.approve(created.order.id);
      // Past the sharing window: a lookup within it is answered the status just read.
      time.now += LOOKUP_SHARING_MS;
      const paid = await ask();
      const paidText = await paid.text();
      assertNoCustomerData(paidText);
      const answer = lookupAnswerSchema.parse(JSON.parse(paidText));
      assert.equal(answer.order.status, 'completed');
      assert.equal(answer.order.payment.status, 'paid');
      assert.equal(typeof answer.order.completed_at, 'string');
      assert.deepEqual(Object.keys(JSON.parse(paidText).order).sort(), [
        'amount',
        'completed_at',
        'id',
        'payment',
        'status',
      ]);
    });

    it('routes by path with handle, and serves Node over real HTTP', async () => {
      const relay = relayWith();
      const server = await listen(relay.node);
      try {
        const created = await fetch(`${server.url}/api/checkout/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify(intent()),
        });
        assert.equal(created.status, 200);
        const answer = createAnswerSchema.parse(await created.json());
        const looked = await fetch(`${server.url}/api/checkout/lookup/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        });
        assert.equal(looked.status, 200);
        const missing = await fetch(`${server.url}/api/checkout/refund`, { method: 'POST' });
        assert.equal(missing.status, 404);
        assert.equal((await errorOf(missing)).code, 'resource_not_found');
        const wrongMethod = await fetch(`${server.url}/api/checkout/orders`);
        assert.equal(wrongMethod.status, 405);
        assert.equal(wrongMethod.headers.get('allow'), 'POST, OPTIONS');
      } finally {
        await server.close();
      }
    });
  });

  describe('the server decides the price', () => {
    it('ignores prices, amounts and line items sent by the browser', async () => {
      const relay = relayWith();
      const tampered = intent({
        amount: 1,
        total: { currency: 'ghs', value: 1 },
        line_items: [
          {
            type: 'product',
            product: { name: 'Free tote', price: { currency: 'ghs', value: 1 }, quantity: 1 },
          },
        ],
        cart: { items: [{ sku: 'tote', quantity: 2, price: 1, value: 1 }], total: 1, amount: 1 },
      });
      const response = await relay.create(createRequest(tampered), CLIENT);
      assert.equal(response.status, 200);
      const { order } = createAnswerSchema.parse(await response.json());
      const client = createServiceClient({ baseUrl: sandboxUrl, secretKey: SECRET, fetch: sandboxFetch });
      const { order: stored } = await client.orders.lookup(order.id);
      assert.deepEqual(stored.line_item_group.total, { currency: 'ghs', value: 25_000 });
      assert.deepEqual(stored.line_items, [
        {
          type: 'product',
          product: { name: 'Kente tote', price: { currency: 'ghs', value: 12_500 }, quantity: 2 },
        },
      ]);
    });

    it('a CartError is a 400 naming the cart; any other priceCart failure is a bare 500', async () => {
      events.length = 0;
      const relay = relayWith();
      const empty = await relay.create(createRequest(intent({ cart: null })), CLIENT);
      assert.equal(empty.status, 400);
      assert.deepEqual(await errorOf(empty), {
        code: 'invalid_request',
        type: 'invalid_request_error',
        message: 'The cart is empty.',
        param: 'cart',
      });
      const unknown = await relay.create(
        createRequest(intent({ cart: { items: [{ sku: 'x', quantity: 1 }] } })),
        CLIENT,
      );
      assert.equal((await errorOf(unknown)).param, 'cart.items[0].sku');

      const failing = relayWith({
        priceCart: () => {
          throw new Error('connect ECONNREFUSED db.internal:5432 password=hunter2');
        },
      });
      const broken = await failing.create(createRequest(intent()), CLIENT);
      assert.equal(broken.status, 500);
      const text = await broken.text();
      assert.ok(!text.includes('hunter2') && !text.includes('db.internal'));
      assert.ok(events.some((event) => event.type === 'price_cart_failed'));

      const sloppy = relayWith({ priceCart: async () => [{ name: 'tote', price: 12.5 }] as never });
      const sloppyAnswer = await sloppy.create(createRequest(intent()), CLIENT);
      assert.equal(sloppyAnswer.status, 500);
      const reported = events.filter((event) => event.type === 'price_cart_failed').at(-1);
      assert.ok(reported && reported.type === 'price_cart_failed' && /line_items\[0\]/.test(reported.reason));
    });

    it('a free line item from priceCart is refused before the service is called, as the service would', async () => {
      events.length = 0;
      const before = sandbox.createdOrderCount;
      const free = relayWith({
        priceCart: () => [
          {
            type: 'product',
            product: { name: 'Gift wrap', price: { currency: 'ghs', value: 0 }, quantity: 1 },
          },
        ],
      });
      const answer = await free.create(createRequest(intent()), CLIENT);
      assert.equal(answer.status, 500);
      assert.equal(sandbox.createdOrderCount, before);
      const reported = events.filter((event) => event.type === 'price_cart_failed').at(-1);
      assert.ok(reported && reported.type === 'price_cart_failed' && /price\.value/.test(reported.reason));
    });
  });
});
