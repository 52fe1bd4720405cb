/**
 * The journal's intent is the only thing the service is charged for, one try
 * after another: a first try whose create never reached the service (502),
 * retried under the same Idempotency-Key with another cart, name and number,
 * is the `422` of a reused key before the service is called; the first try's
 * create is what is sent, and what `relay.orders.get` says is what the
 * service charged. Real relay, real sandbox over loopback behind a real fault
 * proxy, real `memory:` and SQLite file journals.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Journal } from '../../../src/server/index.js';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { startFaultProxy } from '../../fixtures/fault-proxy.js';
import { freshJournal, fulfilmentStack } from '../../fixtures/fulfilment.js';
import { CLIENT, createRequest, errorOf, intent, priceCart, relayStack } from '../../fixtures/relay.js';
import { sandboxFetch } from '../../fixtures/sandbox.js';

const { sandbox, relayWith, served } = relayStack();

/** A relay on `journal` whose service is behind a proxy the test takes offline. */
async function relayBehindProxy(journal: Journal) {
  const proxy = await startFaultProxy(await served());
  after(() => proxy.close());
  const relay = relayWith({
    baseUrl: proxy.url,
    fetch: fetch,
    rateLimit: false,
    journal,
    onPaid: () => undefined,
    watch: { ticks: false },
  });
  after(() => relay.close());
  return { proxy, relay };
}

const FIVE_TOTES = intent({
  ...customerPayingFrom('0241120001'),
  cart: { items: [{ sku: 'tote', quantity: 5 }] },
});
const ONE_SCARF = intent({
  ...customerPayingFrom('0241120002', 'Kofi Boateng'),
  cart: { items: [{ sku: 'scarf', quantity: 1 }] },
});

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`a retry under one key with another cart, name and number (${store})`, () => {
    it('after a 502: 422 before the service is called, and the first try’s cart is the one charged', async () => {
      const { proxy, relay } = await relayBehindProxy(await freshJournal(store));
      const key = crypto.randomUUID();
      const before = sandbox.createdOrderCount;
      proxy.setOffline(true);
      assert.equal((await relay.create(createRequest(FIVE_TOTES, { key }), CLIENT)).status, 502);
      proxy.setOffline(false);
      const calls = proxy.requests.length;
      const other = await relay.create(createRequest(ONE_SCARF, { key }), CLIENT);
      assert.equal(other.status, 422);
      assert.equal((await errorOf(other)).code, 'idempotency_key_reused');
      assert.equal(proxy.requests.length, calls, 'the service never heard of the second cart');
      assert.equal(sandbox.createdOrderCount, before);
      // The first try's own retry creates its order: five totes, charged and recorded alike.
      const retried = await relay.create(createRequest(FIVE_TOTES, { key }), CLIENT);
      assert.equal(retried.status, 200);
      const { order } = createAnswerSchema.parse(await retried.json());
      assert.equal(order.amount?.value, 62_500);
      const known = await relay.orders.get(order.id);
      assert.equal(known?.amount?.value, 62_500);
      assert.equal(known?.lineItems[0]?.product.quantity, 5);
      assert.equal(sandbox.createdOrderCount - before, 1);
    });

    it('once the order is known: another cart, name or number under its key is still 422', async () => {
      const { proxy, relay } = await relayBehindProxy(await freshJournal(store));
      const key = crypto.randomUUID();
      const first = await relay.create(createRequest(FIVE_TOTES, { key }), CLIENT);
      const { order } = createAnswerSchema.parse(await first.json());
      const calls = proxy.requests.length;
      const otherCart = intent({
        ...customerPayingFrom('0241120001'),
        cart: { items: [{ sku: 'tote', quantity: 1 }] },
      });
      for (const body of [ONE_SCARF, otherCart]) {
        const answer = await relay.create(createRequest(body, { key }), CLIENT);
        assert.equal(answer.status, 422);
      }
      assert.equal(proxy.requests.length, calls, 'no call to the service');
      // The same cart with its keys in another order is the same attempt.
      const reordered = { ...FIVE_TOTES, cart: { items: [{ quantity: 5, sku: 'tote' }] } };
      const again = await relay.create(createRequest(reordered, { key }), CLIENT);
      assert.equal(again.status, 200);
      assert.equal(createAnswerSchema.parse(await again.json()).order.id, order.id);
    });
  });
}

describe('the watcher resends a create whose answers were all lost', () => {
  for (const store of ['memory:', 'sqlite:'] as const) {
    it(`under the key the relay's create used: the service replays it, one order (${store})`, async () => {
      let cut = 0;
      // The relay's three tries reach the service, and every answer is lost on the way back.
      const losingFetch: typeof fetch = async (input, init) => {
        const response = await sandboxFetch(input, init);
        if (String(input).endsWith('/orders/new') && cut++ < 3) throw new TypeError('fetch failed');
        return response;
      };
      const stack = await fulfilmentStack(store, { fetch: losingFetch });
      const before = stack.sandbox.createdOrderCount;
      const key = crypto.randomUUID();
      const lost = await stack.relay.create(createRequest(FIVE_TOTES, { key }), CLIENT);
      assert.equal(lost.status, 502);
      assert.equal(stack.sandbox.createdOrderCount - before, 1, 'the order exists; the relay never heard');
      stack.events.length = 0;
      await stack.advance(60_001);
      const resent = stack.events.find((event) => event.type === 'order_created');
      assert.equal(resent?.type === 'order_created' && resent.replayed, true, 'the service replayed it');
      assert.equal(stack.sandbox.createdOrderCount - before, 1, 'no second order');
      const known = resent?.type === 'order_created' ? await stack.relay.orders.get(resent.orderId) : null;
      assert.equal(known?.amount?.value, 62_500);
    });
  }
});

describe('a key whose create the watcher gave up on, unanswered', () => {
  for (const store of ['memory:', 'sqlite:'] as const) {
    it(`is spent: another cart or the same one is 422 before the service is called (${store})`, async () => {
      let offline = true;
      let creates = 0;
      // The service is out while the first try's create and the watcher's resends go out.
      const outageFetch: typeof fetch = async (input, init) => {
        const isCreate = String(input).endsWith('/orders/new');
        if (isCreate) creates += 1;
        if (isCreate && offline) return new Response('bad gateway', { status: 502 });
        return sandboxFetch(input, init);
      };
      const stack = await fulfilmentStack(store, { fetch: outageFetch, watch: { maxWatchMs: 60_000 } });
      const key = crypto.randomUUID();
      assert.equal((await stack.relay.create(createRequest(FIVE_TOTES, { key }), CLIENT)).status, 502);
      await stack.advance(60_001);
      assert.ok(
        stack.events.some((event) => event.type === 'order_expired'),
        'the watcher gave up',
      );
      offline = false;
      const before = stack.sandbox.createdOrderCount;
      const callsBefore = creates;
      for (const body of [ONE_SCARF, FIVE_TOTES]) {
        const answer = await stack.relay.create(createRequest(body, { key }), CLIENT);
        assert.equal(answer.status, 422, await answer.clone().text());
        assert.equal((await errorOf(answer)).code, 'idempotency_key_reused');
      }
      assert.equal(creates, callsBefore, 'the service never heard of either create');
      assert.equal(stack.sandbox.createdOrderCount, before);
    });
  }
});

/** `journal` whose watcher's connections (`watcherConnections()`) log each call by name in `calls`. */
function watcherLogged(journal: Journal, calls: string[]): Journal {
  const logged = (target: Journal): Journal =>
    new Proxy(target, {
      get(held, name, receiver) {
        const value = Reflect.get(held, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(name));
          return value.apply(held, args);
        };
      },
    });
  const watcher = logged(journal.watcherConnections?.() ?? journal);
  return new Proxy(journal, {
    get(held, name, receiver) {
      if (name === 'watcherConnections') return () => watcher;
      const value = Reflect.get(held, name, receiver);
      return typeof value === 'function' ? value.bind(held) : value;
    },
  });
}

describe('a shopper’s create and a merchant’s read of its order', () => {
  it('use the requests’ connections only, never the watcher’s', async () => {
    const watcherCalls: string[] = [];
    const relay = relayWith({
      rateLimit: false,
      journal: watcherLogged(await freshJournal('memory:'), watcherCalls),
      // A checkout's reference: the create reads the number's open prompt, the read the checkout's other orders.
      priceCart: (cart) => ({ lineItems: priceCart(cart), reference: 'order-8812' }),
      onPaid: () => undefined,
      watch: { ticks: false },
    });
    after(() => relay.close());
    watcherCalls.length = 0;
    const created = await relay.create(createRequest(FIVE_TOTES), CLIENT);
    assert.equal(created.status, 200);
    const { order } = createAnswerSchema.parse(await created.json());
    assert.equal((await relay.orders.get(order.id))?.amount?.value, 62_500);
    assert.deepEqual(watcherCalls, []);
  });
});
