/**
 * A retry whose cart `priceCart` now refuses (the product sold out between
 * tries). The element resends the very request of an attempt whose earlier
 * tries went unanswered; one of them may have created an order, whose prompt
 * is live on the payer's phone. With a journal the relay answers that retry
 * with the earlier try's order (or sends the recorded create again) instead
 * of the cart error; a new attempt, or a relay without a journal, still gets
 * the CartError. Real relay, real sandbox (in process, or over loopback
 * behind a real fault proxy), real `memory:` and SQLite file journals.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createOrder } from '../../../src/element/checkout-api.js';
import {
  CartError,
  type CheckoutRelayOptions,
  type Journal,
  listen,
  type PricedLineItem,
} from '../../../src/server/index.js';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { type FaultPlan, startFaultProxy } from '../../fixtures/fault-proxy.js';
import { freshJournal } from '../../fixtures/fulfilment.js';
import {
  CLIENT,
  createRequest,
  errorOf,
  intent,
  lookupRequest,
  priceCart,
  relayStack,
  SECRET,
} from '../../fixtures/relay.js';

const SOLD_OUT = 'The Kente tote has just sold out.';

const { sandbox, events, relayWith, served } = relayStack();

/** The shop's catalogue, whose totes can sell out while a shopper's tries are on the wire. */
function shop() {
  const stock = { soldOut: false };
  const price = (cart: unknown): PricedLineItem[] => {
    if (stock.soldOut) throw new CartError(SOLD_OUT, { param: 'cart.items[0].sku' });
    return priceCart(cart);
  };
  return { stock, priceCart: price };
}

/** A relay with `journal` (none when `undefined`), its watcher left to the test (it never resends here). */
function relayOn(journal: Journal | undefined, options: Partial<CheckoutRelayOptions> = {}) {
  const relay = relayWith({
    rateLimit: false,
    ...(journal ? { journal, onPaid: () => undefined, watch: { ticks: false } } : {}),
    ...options,
  });
  after(() => relay.close());
  return relay;
}

/** The key the journal files an attempt under: the shopper's key scoped to the secret key (README). */
function scopedKey(shopperKey: string): string {
  const scope = createHmac('sha256', SECRET).update('pay-checkout relay idempotency scope v1').digest();
  return createHmac('sha256', scope).update(`idempotency:${shopperKey}`).digest('base64url');
}

function lastOrderCreated() {
  const created = events.filter((event) => event.type === 'order_created');
  const last = created[created.length - 1];
  return last?.type === 'order_created' ? last : undefined;
}

/** A proxy in front of the sandbox served over loopback: the relay's service, whose wire the test breaks. */
async function serviceBehindProxy(plan?: (index: number) => FaultPlan) {
  const proxy = await startFaultProxy(await served(), plan && ((index) => plan(index)));
  after(() => proxy.close());
  return proxy;
}

/** The answer the service gives the same key with another body: the relay gives it for a refused cart too. */
async function assertKeyReused(response: Response): Promise<void> {
  assert.equal(response.status, 422);
  const error = await errorOf(response);
  assert.equal(error.code, 'idempotency_key_reused');
}

async function assertCartRefused(response: Response): Promise<void> {
  assert.equal(response.status, 400);
  const error = await errorOf(response);
  assert.equal(error.code, 'invalid_request');
  assert.equal(error.message, SOLD_OUT);
  assert.equal(error.param, 'cart.items[0].sku');
}

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`a retry whose cart is now refused, with a ${store} journal`, () => {
    it('an order an earlier try created: answered as its create was, with a lookup token that works', async () => {
      const journal = await freshJournal(store);
      const { stock, priceCart } = shop();
      const relay = relayOn(journal, { priceCart });
      const key = crypto.randomUUID();
      const body = intent();
      const before = sandbox.createdOrderCount;
      // The first try creates the order; its answer never reaches the browser.
      const first = createAnswerSchema.parse(
        await (await relay.create(createRequest(body, { key }), CLIENT)).json(),
      );
      stock.soldOut = true;
      events.length = 0;
      const retried = await relay.create(createRequest(body, { key }), CLIENT);
      assert.equal(retried.status, 200, 'the order is found, not the cart refused');
      const answer = createAnswerSchema.parse(await retried.json());
      assert.equal(answer.order.id, first.order.id);
      assert.equal(answer.order.payment.status, 'requires_action');
      assert.deepEqual(Object.keys(answer), ['order', 'lookup_token', 'reference']);
      assert.deepEqual(answer.order.amount, first.order.amount, 'the amount its create answered');
      const looked = await relay.lookup(
        lookupRequest({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        CLIENT,
      );
      assert.equal(looked.status, 200);
      assert.equal((await looked.json()).order.id, first.order.id);
      assert.equal(sandbox.createdOrderCount - before, 1, 'one order, and no second prompt');
      const created = lastOrderCreated();
      assert.equal(created?.orderId, first.order.id);
      assert.equal(created?.replayed, true, 'reported as a replay of the earlier create');
      // A payer who approves meanwhile: the retry says paid.
      sandbox.approve(first.order.id);
      const paid = createAnswerSchema.parse(
        await (await relay.create(createRequest(body, { key }), CLIENT)).json(),
      );
      assert.equal(paid.order.payment.status, 'paid');
    });

    it('an earlier try recorded but the service never reached: the recorded create is sent again, one order', async () => {
      const journal = await freshJournal(store);
      const { stock, priceCart } = shop();
      const proxy = await serviceBehindProxy();
      const relay = relayOn(journal, { priceCart, baseUrl: proxy.url });
      const key = crypto.randomUUID();
      const body = intent(customerPayingFrom('0241110001'));
      const before = sandbox.createdOrderCount;
      proxy.setOffline(true);
      const lost = await relay.create(createRequest(body, { key }), CLIENT);
      assert.equal(lost.status, 502, 'the service could not be reached');
      assert.equal(sandbox.createdOrderCount, before);
      // The journal keeps the whole create, name and number included, while no order is known.
      const recorded = await journal.get(scopedKey(key));
      assert.equal(recorded?.phase, 'creating');
      assert.deepEqual(
        recorded?.phase === 'creating' && recorded.createBody.customer_data,
        customerPayingFrom('0241110001').customer_data,
      );
      proxy.setOffline(false);
      stock.soldOut = true;
      const retried = await relay.create(createRequest(body, { key }), CLIENT);
      assert.equal(retried.status, 200);
      const answer = createAnswerSchema.parse(await retried.json());
      assert.equal(sandbox.createdOrderCount - before, 1, 'created now, once');
      assert.equal(lastOrderCreated()?.replayed, false, 'the service had never seen it');
      const known = await journal.get(scopedKey(key));
      assert.equal(known?.phase, 'watching');
      assert.equal(known?.phase === 'watching' && known.orderId, answer.order.id);
      assert.ok(!('createBody' in (known ?? {})), 'the name and number are dropped once the order is known');
      // Another retry now finds the order the journal knows.
      const again = createAnswerSchema.parse(
        await (await relay.create(createRequest(body, { key }), CLIENT)).json(),
      );
      assert.equal(again.order.id, answer.order.id);
      assert.equal(sandbox.createdOrderCount - before, 1);
    });

    it('an earlier try the service created but whose answers were all lost: the resent create replays it', async () => {
      const journal = await freshJournal(store);
      const { stock, priceCart } = shop();
      // The relay's three tries of the first create reach the service; every answer is cut.
      const proxy = await serviceBehindProxy((index) =>
        index < 3 ? { kind: 'cut-after-upstream' } : { kind: 'forward' },
      );
      const relay = relayOn(journal, { priceCart, baseUrl: proxy.url });
      const key = crypto.randomUUID();
      const body = intent(customerPayingFrom('0241110002'));
      const before = sandbox.createdOrderCount;
      assert.equal((await relay.create(createRequest(body, { key }), CLIENT)).status, 502);
      assert.equal(sandbox.createdOrderCount - before, 1, 'the order exists; the relay never heard');
      assert.equal((await journal.get(scopedKey(key)))?.phase, 'creating');
      stock.soldOut = true;
      const retried = await relay.create(createRequest(body, { key }), CLIENT);
      assert.equal(retried.status, 200);
      createAnswerSchema.parse(await retried.json());
      assert.equal(sandbox.createdOrderCount - before, 1, 'the same order, not a second');
      assert.equal(lastOrderCreated()?.replayed, true);
      assert.equal(proxy.requests.filter((request) => request.path === '/orders/new').length, 4);
    });

    it('a new attempt whose cart is refused gets the CartError, and leaves nothing in the journal', async () => {
      const journal = await freshJournal(store);
      const { stock, priceCart } = shop();
      const relay = relayOn(journal, { priceCart });
      stock.soldOut = true;
      const key = crypto.randomUUID();
      const before = sandbox.createdOrderCount;
      await assertCartRefused(await relay.create(createRequest(intent(), { key }), CLIENT));
      assert.equal(sandbox.createdOrderCount, before);
      assert.equal(await journal.get(scopedKey(key)), undefined);
    });
  });
}

describe('a retry whose cart is now refused, without a journal', () => {
  it('gets the CartError, as before: the relay has no memory of the earlier try', async () => {
    const { stock, priceCart } = shop();
    const relay = relayOn(undefined, { priceCart });
    const key = crypto.randomUUID();
    assert.equal((await relay.create(createRequest(intent(), { key }), CLIENT)).status, 200);
    stock.soldOut = true;
    await assertCartRefused(await relay.create(createRequest(intent(), { key }), CLIENT));
  });
});

describe('a retry whose cart is now refused: limits and guards', () => {
  it('the prompt limit counts the attempt once: its replay is no new prompt, a refused new attempt none', async () => {
    const journal = await freshJournal('memory:');
    const { stock, priceCart } = shop();
    const proxy = await serviceBehindProxy();
    const rateLimit = { promptsPerNumber: { limit: 1, windowMinutes: 10 } };
    const relay = relayOn(journal, { priceCart, baseUrl: proxy.url, rateLimit });
    const body = intent(customerPayingFrom('0241110003'));
    const key = crypto.randomUUID();
    proxy.setOffline(true);
    assert.equal((await relay.create(createRequest(body, { key }), CLIENT)).status, 502);
    proxy.setOffline(false);
    // The number's one prompt is this attempt's: another attempt to it is refused.
    const other = await relay.create(createRequest(body), CLIENT);
    assert.equal(other.status, 429);
    stock.soldOut = true;
    assert.equal((await relay.create(createRequest(body, { key }), CLIENT)).status, 200);
    assert.equal((await relay.create(createRequest(body, { key }), CLIENT)).status, 200);
    await assertCartRefused(await relay.create(createRequest(body), CLIENT));
  });

  it('the same key with another shopper’s details is no retry of that attempt: 422, as with a valid cart', async () => {
    const journal = await freshJournal('memory:');
    const { stock, priceCart } = shop();
    const proxy = await serviceBehindProxy();
    const relay = relayOn(journal, { priceCart, baseUrl: proxy.url });
    const key = crypto.randomUUID();
    proxy.setOffline(true);
    await relay.create(createRequest(intent(customerPayingFrom('0241110004')), { key }), CLIENT);
    proxy.setOffline(false);
    stock.soldOut = true;
    const before = sandbox.createdOrderCount;
    const other = intent(customerPayingFrom('0241110005'));
    await assertKeyReused(await relay.create(createRequest(other, { key }), CLIENT));
    // The same name and number on another network is another shopper's attempt too.
    const network = customerPayingFrom('0241110004');
    network.payment_method_data.mobile_money.issuer = 'telecel';
    await assertKeyReused(await relay.create(createRequest(intent(network), { key }), CLIENT));
    assert.equal(sandbox.createdOrderCount, before);
  });

  for (const store of ['memory:', 'sqlite:'] as const) {
    it(`the same key with another shopper’s name and number, once the order is known (${store}): 422, nothing of that order`, async () => {
      const journal = await freshJournal(store);
      const { stock, priceCart } = shop();
      const relay = relayOn(journal, { priceCart });
      const key = crypto.randomUUID();
      const first = await relay.create(
        createRequest(intent(customerPayingFrom('0241110009')), { key }),
        CLIENT,
      );
      const { order, lookup_token } = createAnswerSchema.parse(await first.json());
      stock.soldOut = true;
      const stranger = intent(customerPayingFrom('0241110010', 'Kofi Boateng'));
      const answer = await relay.create(createRequest(stranger, { key }), { clientAddress: '203.0.113.80' });
      const text = await answer.clone().text();
      await assertKeyReused(answer);
      assert.ok(!text.includes(order.id) && !text.includes(lookup_token), 'neither the order nor its token');
      // Another name for the same number is no more the same shopper.
      const renamed = intent(customerPayingFrom('0241110009', 'Kofi Boateng'));
      await assertKeyReused(await relay.create(createRequest(renamed, { key }), CLIENT));
      // The shopper herself still gets her order.
      const own = await relay.create(
        createRequest(intent(customerPayingFrom('0241110009')), { key }),
        CLIENT,
      );
      assert.equal(createAnswerSchema.parse(await own.json()).order.id, order.id);
    });
  }

  it('a journal that cannot be read: a 500, as for every create while it fails, and the merchant is told', async () => {
    const journal = await freshJournal('memory:');
    const { stock, priceCart } = shop();
    const relay = relayOn(journal, { priceCart });
    await journal.close();
    stock.soldOut = true;
    events.length = 0;
    const answer = await relay.create(createRequest(intent()), CLIENT);
    assert.equal(answer.status, 500);
    assert.ok(events.some((event) => event.type === 'journal_unavailable'));
  });
});

describe('the element’s create, when its first answer is lost and the product sells out before its retry', () => {
  it('gets the order on its own retry: an ordinary create answer', async () => {
    const journal = await freshJournal('sqlite:');
    let priced = 0;
    // The first try is priced; by the retry the product has sold out.
    const soldOutAfterOne = (cart: unknown) => {
      if (priced++ > 0) throw new CartError(SOLD_OUT, { param: 'cart.items[0].sku' });
      return priceCart(cart);
    };
    const relay = relayOn(journal, { priceCart: soldOutAfterOne });
    const server = await listen(relay.node);
    after(() => server.close());
    const proxy = await startFaultProxy(server.url, (index) =>
      index === 0 ? { kind: 'cut-after-upstream' } : { kind: 'forward' },
    );
    after(() => proxy.close());
    const before = sandbox.createdOrderCount;
    const body = JSON.stringify(intent(customerPayingFrom('0241110006')));
    const created = await createOrder(`${proxy.url}/api/checkout/orders`, body, crypto.randomUUID());
    assert.match(created.order.id, /^or_/);
    assert.equal(proxy.requests.length, 2, 'one lost answer, one retry');
    assert.equal(proxy.requests[0]?.upstreamStatus, 200, 'the first try created the order');
    assert.equal(priced, 2, 'the retry was priced, and refused');
    assert.equal(sandbox.createdOrderCount - before, 1);
  });
});
