/**
 * What was paid for, and for whom, as the merchant's server
 * hears it: every callback gets the frozen `FulfilledOrder` (reference,
 * metadata, line items, amount, failure code, other paid orders of the
 * reference), `relay.orders` reads the same by id and by reference, and an
 * order whose create answer the relay never recorded (its process died on
 * the way) is still announced and delivered with what it was for. Against the
 * sandbox, on a journal in memory and on a real SQLite file, clocks moved by hand.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SANDBOX_TEST_NUMBERS } from '../../src/sandbox/index.js';
import {
  type CheckoutRelayEvent,
  DEFAULT_CREATE_GRACE_MS,
  DEFAULT_MAX_WATCH_MS,
  type FulfilledOrder,
  openJournal,
  type PriceCart,
} from '../../src/server/index.js';
import { CUSTOMER_NAME } from '../fixtures/checkout-data.js';
import { fulfilmentStack, intentFrom } from '../fixtures/fulfilment.js';
import { assertNoCustomerData, createRequest, createTestRelay, priceCart } from '../fixtures/relay.js';
import { clockReading } from '../fixtures/relay-clock.js';
import { APPROVE_AFTER_MS, sandboxFetch, sandboxWithClock } from '../fixtures/sandbox.js';

/** The shop's `priceCart` with the cart's own id as the reference, and a note of the shop's. */
const priceWithReference: PriceCart = (cart) => ({
  lineItems: priceCart(cart),
  reference: (cart as { id: string }).id,
  metadata: { channel: 'web', warehouse: 'accra-2' },
});

/** A checkout of cart `cartId` (`items` of it) paid from `number`. */
function cartIntent(cartId: string, number = '0241110001', items = [{ sku: 'tote', quantity: 2 }]) {
  return { ...intentFrom(number), cart: { id: cartId, items } };
}

/** The customer the service holds for an order paid from `number`: what the callbacks get to ship to. */
function customerPaying(number: string) {
  return { name: CUSTOMER_NAME, phoneNumber: `+233${number.slice(1)}` };
}

const TWO_TOTES = [
  {
    type: 'product',
    product: { name: 'Kente tote', price: { currency: 'ghs', value: 12_500 }, quantity: 2 },
  },
];

/** Fails unless `order`, and everything inside it, is frozen. */
function assertFrozen(order: FulfilledOrder): void {
  for (const part of [order, order.metadata, order.amount, order.lineItems, order.otherPaidOrderIds]) {
    assert.ok(Object.isFrozen(part), 'frozen');
  }
  for (const item of order.lineItems) assert.ok(Object.isFrozen(item.product.price));
}

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`what was paid for, on a ${store} journal`, () => {
    it('hands onPaid, onFailed and onExpired the whole fulfilled order, frozen', async () => {
      const stack = await fulfilmentStack(store, { priceCart: priceWithReference });
      const paid = await stack.checkout(cartIntent('cart-1'));
      const declined = await stack.checkout(cartIntent('cart-2', SANDBOX_TEST_NUMBERS.declines));
      const broke = await stack.checkout(cartIntent('cart-3', SANDBOX_TEST_NUMBERS.insufficientFunds));
      const silent = await stack.checkout(cartIntent('cart-4', SANDBOX_TEST_NUMBERS.neverAnswers));
      const createdAt = stack.clock.now;
      await stack.advance(APPROVE_AFTER_MS);
      const settledAt = stack.clock.now;
      const common = {
        metadata: { channel: 'web', warehouse: 'accra-2' },
        lineItems: TWO_TOTES,
        amount: { currency: 'ghs', value: 25_000 },
        otherPaidOrderIds: [],
        previousOutcome: null,
        settledAt,
        attempt: 1,
      };
      assert.deepEqual(stack.delivered.paid, [
        {
          ...common,
          id: paid.orderId,
          outcome: 'paid',
          reference: 'cart-1',
          paymentStatus: 'paid',
          failureCode: null,
          customer: customerPaying('0241110001'),
        },
      ]);
      const failed = new Map(stack.delivered.failed.map((order) => [order.id, order]));
      assert.deepEqual(failed.get(declined.orderId), {
        ...common,
        id: declined.orderId,
        outcome: 'failed',
        reference: 'cart-2',
        paymentStatus: 'failed',
        failureCode: 'declined',
        customer: customerPaying(SANDBOX_TEST_NUMBERS.declines),
      });
      assert.equal(failed.get(broke.orderId)?.failureCode, 'insufficient_funds');
      stack.clock.now = createdAt + DEFAULT_MAX_WATCH_MS - 1;
      await stack.advance(1);
      assert.deepEqual(stack.delivered.expired, [
        {
          ...common,
          id: silent.orderId,
          outcome: 'expired',
          reference: 'cart-4',
          paymentStatus: 'requires_action',
          failureCode: null,
          customer: customerPaying(SANDBOX_TEST_NUMBERS.neverAnswers),
          settledAt: createdAt + DEFAULT_MAX_WATCH_MS,
        },
      ]);
      const everyOrder = [...stack.delivered.paid, ...stack.delivered.failed, ...stack.delivered.expired];
      for (const order of everyOrder) assertFrozen(order);
      // The customer to ship to, and nowhere else in the order.
      assertNoCustomerData(JSON.stringify(everyOrder.map(({ customer: _, ...rest }) => rest)));
    });

    it('tells the second payment of one reference which order paid it first', async () => {
      const stack = await fulfilmentStack(store, { priceCart: priceWithReference });
      const first = await stack.checkout(cartIntent('cart-twice', '0241110001'));
      await stack.advance(APPROVE_AFTER_MS);
      // "Use another number": a new attempt at the same cart, while nothing stops the first payer.
      const second = await stack.checkout(cartIntent('cart-twice', '0241110002'));
      await stack.advance(APPROVE_AFTER_MS);
      assert.deepEqual(
        stack.delivered.paid.map((order) => [order.id, order.reference, order.otherPaidOrderIds]),
        [
          [first.orderId, 'cart-twice', []],
          [second.orderId, 'cart-twice', [first.orderId]],
        ],
      );
      const other = await stack.checkout(cartIntent('cart-other', '0241110003'));
      await stack.advance(APPROVE_AFTER_MS);
      assert.deepEqual(
        stack.delivered.paid.at(-1)?.otherPaidOrderIds,
        [],
        'another cart is another checkout',
      );
      assert.equal(stack.delivered.paid.at(-1)?.id, other.orderId);
    });

    it('reads orders by id and by reference: pending, settled, delivered, and newest first', async () => {
      const stack = await fulfilmentStack(store, { priceCart: priceWithReference });
      const first = await stack.checkout(cartIntent('cart-9', '0241110001'));
      const createdAt = stack.clock.now;
      const pending = await stack.relay.orders.get(first.orderId);
      assert.deepEqual(pending, {
        id: first.orderId,
        outcome: 'pending',
        reference: 'cart-9',
        metadata: { channel: 'web', warehouse: 'accra-2' },
        lineItems: TWO_TOTES,
        amount: { currency: 'ghs', value: 25_000 },
        paymentStatus: 'requires_action',
        failureCode: null,
        otherPaidOrderIds: [],
        previousOutcome: null,
        createdAt,
        settledAt: null,
        deliveredAt: null,
      });
      stack.clock.now += 1_000;
      const second = await stack.checkout(
        cartIntent('cart-9', SANDBOX_TEST_NUMBERS.declines, [{ sku: 'scarf', quantity: 1 }]),
      );
      // The first payer approves; the second declines a second later.
      await stack.advance(APPROVE_AFTER_MS - 1_000);
      const paid = await stack.relay.orders.get(first.orderId);
      assert.equal(paid?.outcome, 'paid');
      assert.equal(paid?.settledAt, stack.clock.now);
      assert.equal(paid?.deliveredAt, stack.clock.now, 'delivered in the same pass');
      await stack.advance(3_000);
      const byReference = await stack.relay.orders.byReference('cart-9');
      assert.deepEqual(
        byReference.map((order) => [order.id, order.outcome, order.failureCode, order.amount?.value]),
        [
          [second.orderId, 'failed', 'declined', 4_000],
          [first.orderId, 'paid', null, 25_000],
        ],
      );
      assert.deepEqual(byReference[0]?.otherPaidOrderIds, [first.orderId], 'the checkout is paid');
      assert.equal(await stack.relay.orders.get('or_unknown'), null);
      assert.deepEqual(await stack.relay.orders.byReference('cart-none'), []);
      assertNoCustomerData(JSON.stringify(byReference));
    });
  });
}

describe('relay.orders without a journal', () => {
  it('rejects, naming the journal option, rather than answer that no order exists', async () => {
    const { url } = sandboxWithClock();
    const relay = createTestRelay({ baseUrl: url });
    await assert.rejects(relay.orders.get('or_1'), /journal: await openJournal/);
    await assert.rejects(
      relay.orders.byReference('cart-1'),
      /relay\.orders\.byReference reads the order journal/,
    );
  });
});

describe('an order whose create answer the journal never recorded', () => {
  it('is announced with order_created by the watcher that resends it, and delivered with what it was for', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-lost-answer-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    const journalUrl = `sqlite:${join(scratch, 'journal.db')}`;
    const { clock, sandbox, url } = sandboxWithClock();
    const relayOptions = {
      baseUrl: url,
      priceCart: priceWithReference,
      rateLimit: false as const,
      clock: clockReading(() => clock.now),
      watch: { ticks: false },
    };
    // Both processes' journals on the test's clock, as the relay's.
    const journalClock = { clock: { now: () => clock.now } };
    // The first process: the service creates the order, and the answer never comes back (the
    // process dies while it is on its way): its create hangs for good.
    let answered = () => {};
    const serviceAnswered = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const dying = createTestRelay({
      ...relayOptions,
      journal: await openJournal(journalUrl, journalClock),
      onPaid: () => assert.fail('the first process never delivers'),
      fetch: async (input, init) => {
        await sandboxFetch(input, init);
        answered();
        return new Promise<never>(() => undefined);
      },
    });
    void dying.create(createRequest(cartIntent('cart-lost')), { clientAddress: '198.51.100.7' });
    await serviceAnswered;
    assert.equal(sandbox.createdOrderCount, 1);

    // The next process on the same journal.
    const events: CheckoutRelayEvent[] = [];
    const delivered: FulfilledOrder[] = [];
    const next = createTestRelay({
      ...relayOptions,
      journal: await openJournal(journalUrl, journalClock),
      fetch: sandboxFetch,
      onEvent: (event) => {
        events.push(event);
      },
      onPaid: (order) => {
        delivered.push(order);
      },
    });
    after(() => next.close());
    clock.now += DEFAULT_CREATE_GRACE_MS;
    await next.fulfilment?.tick();
    const created = events.find((event) => event.type === 'order_created');
    assert.ok(created?.type === 'order_created', 'order_created for the resent create');
    assert.equal(created.source, 'watcher');
    assert.equal(created.replayed, true, 'the service had created it: replayed, not created again');
    assert.equal(created.reference, 'cart-lost');
    assert.deepEqual(created.lineItems, TWO_TOTES);
    assert.deepEqual(created.amount, { currency: 'ghs', value: 25_000 });
    assert.equal(created.customer.name, CUSTOMER_NAME);
    clock.now += 3_000;
    await next.fulfilment?.tick();
    assert.deepEqual(
      delivered.map((order) => [order.id, order.reference, order.lineItems, order.amount]),
      [[created.orderId, 'cart-lost', TWO_TOTES, { currency: 'ghs', value: 25_000 }]],
    );
    assert.equal(sandbox.createdOrderCount, 1, 'one order at the service');
  });
});
