/**
 * The merchant's server hears of every payment: against the
 * sandbox, with the watcher's clock and the sandbox's moved by hand, on a
 * journal in memory and on a real SQLite file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SANDBOX_TEST_NUMBERS } from '../../src/sandbox/index.js';
import { createCheckoutRelay, DEFAULT_MAX_WATCH_MS, type Journal } from '../../src/server/index.js';
import { fulfilmentStack, intentFrom } from '../fixtures/fulfilment.js';
import {
  assertNoCustomerData,
  createRequest,
  createTestRelay,
  intent,
  testRelayOptions,
} from '../fixtures/relay.js';
import { sandboxFetch, sandboxWithClock } from '../fixtures/sandbox.js';

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`fulfilment on a ${store} journal`, () => {
    it('delivers an order whose browser never polls to onPaid, once', async () => {
      const stack = await fulfilmentStack(store);
      const { orderId } = await stack.checkout();
      await stack.advance(3_000);
      assert.equal(stack.delivered.paid.length, 0, 'not paid before the payer approves');
      await stack.advance(3_000);
      assert.deepEqual(
        stack.delivered.paid.map((order) => [order.id, order.outcome, order.paymentStatus, order.attempt]),
        [[orderId, 'paid', 'paid', 1]],
      );
      for (let i = 0; i < 5; i++) await stack.advance(3_000);
      assert.equal(stack.delivered.paid.length, 1, 'onPaid is never called again');
      // The customer to ship to, and nowhere else in the order.
      assertNoCustomerData(JSON.stringify(stack.delivered.paid.map(({ customer: _, ...rest }) => rest)));
      assert.ok(stack.events.some((event) => event.type === 'order_delivered' && event.orderId === orderId));
    });

    it('sends declined and insufficient-funds orders to onFailed', async () => {
      const stack = await fulfilmentStack(store);
      const declined = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.declines));
      const broke = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.insufficientFunds));
      for (let i = 0; i < 3; i++) await stack.advance(3_000);
      const failed = new Map(stack.delivered.failed.map((order) => [order.id, order]));
      assert.equal(stack.delivered.failed.length, 2);
      assert.equal(failed.get(declined.orderId)?.outcome, 'failed');
      assert.equal(failed.get(declined.orderId)?.paymentStatus, 'failed');
      assert.equal(failed.get(broke.orderId)?.outcome, 'failed');
      assert.equal(stack.delivered.paid.length, 0);
    });

    it('sends a never-answered order to onExpired at the bound, not before', async () => {
      const stack = await fulfilmentStack(store);
      const createdAt = stack.clock.now;
      const { orderId } = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.neverAnswers));
      let lookups = 0;
      // Every 3 s through the approval window, then in 10-minute steps up to a minute before the bound.
      while (stack.clock.now < createdAt + DEFAULT_MAX_WATCH_MS - 60_000) {
        const step = stack.clock.now < createdAt + 6 * 60_000 ? 3_000 : 600_000;
        const tick = await stack.advance(
          Math.min(step, createdAt + DEFAULT_MAX_WATCH_MS - 60_000 - stack.clock.now),
        );
        lookups += tick?.calls ?? 0;
      }
      assert.equal(stack.delivered.expired.length, 0, 'not expired before 24 hours');
      await stack.advance(60_000);
      assert.deepEqual(
        stack.delivered.expired.map((order) => [order.id, order.outcome, order.paymentStatus]),
        [[orderId, 'expired', 'requires_action']],
      );
      // 119 in the approval window, then half the order's age apart, at most an hour: about 30 more.
      assert.ok(lookups <= 150, `${lookups} lookups over 24 hours: the watcher backs off`);
      for (let i = 0; i < 3; i++) await stack.advance(600_000);
      assert.equal(stack.delivered.expired.length, 1);
    });

    it('calls onPaid at once when a browser lookup sees paid, without a lookup of its own', async () => {
      const stack = await fulfilmentStack(store);
      const { orderId, lookupToken } = await stack.checkout();
      stack.clock.now += 6_000;
      const seen = await stack.browserLookup(orderId, lookupToken);
      assert.equal(seen.order.payment.status, 'paid');
      await stack.fulfilment.deliverNow();
      assert.deepEqual(
        stack.delivered.paid.map((order) => order.id),
        [orderId],
      );
      const tick = await stack.advance(3_000);
      assert.equal(tick?.calls, 0, 'the settled order is not looked up again');
      assert.equal(stack.delivered.paid.length, 1);
    });

    it('retries a callback that throws, with backoff, and tells onEvent', async () => {
      let calls = 0;
      const stack = await fulfilmentStack(store, {
        onPaid: () => {
          calls += 1;
          if (calls < 3) throw new RangeError('warehouse offline');
        },
      });
      const { orderId } = await stack.checkout();
      await stack.advance(6_000);
      assert.equal(calls, 1);
      await stack.advance(1_000);
      assert.equal(calls, 1, 'not again before its backoff');
      await stack.advance(1_500);
      await stack.advance(4_500);
      assert.equal(calls, 3);
      for (let i = 0; i < 5; i++) await stack.advance(60_000);
      assert.equal(calls, 3, 'never again once it returned');
      const failures = stack.events.filter((event) => event.type === 'delivery_failed');
      assert.deepEqual(
        failures.map((event) => event.type === 'delivery_failed' && [event.orderId, event.attempt]),
        [
          [orderId, 1],
          [orderId, 2],
        ],
      );
    });
  });
}

describe('fulfilment setup', () => {
  it('keeps no customer name or number once the order is known', async () => {
    const stack = await fulfilmentStack('memory:');
    await stack.checkout();
    const rows = (stack.journal as Journal & { rawRows(): unknown[] }).rawRows();
    assertNoCustomerData(JSON.stringify(rows));
  });

  it('refuses a create without calling the service when the journal cannot record it', async () => {
    const stack = await fulfilmentStack('memory:');
    const before = stack.sandbox.createdOrderCount;
    stack.journal.recordIntent = async () => {
      throw new Error('disk full');
    };
    const response = await stack.relay.create(createRequest(intent()), { clientAddress: '198.51.100.7' });
    assert.equal(response.status, 500);
    assert.equal(stack.sandbox.createdOrderCount, before, 'the service was not called');
    assert.ok(stack.events.some((event) => event.type === 'journal_unavailable'));
  });

  it('reports a create that never got an answer at the bound, without calling onExpired', async () => {
    const unreachable: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const stack = await fulfilmentStack('memory:', { fetch: unreachable });
    const response = await stack.relay.create(createRequest(intent()), { clientAddress: '198.51.100.7' });
    assert.equal(response.status >= 500, true, 'the shopper hears the service is unreachable');
    let calls = 0;
    for (let minutes = 0; minutes <= 24 * 60; minutes++) calls += (await stack.advance(60_000))?.calls ?? 0;
    assert.deepEqual(stack.delivered.expired, [], 'no order id to give onExpired');
    const expired = stack.events.filter((event) => event.type === 'order_expired');
    assert.deepEqual(expired, [{ type: 'order_expired', orderId: null }]);
    // Resent while the service stayed down: paused, about one probe a minute, not one per interval.
    assert.ok(calls <= 24 * 60 + 10, `${calls} resends over 24 hours`);
  });

  it('close() stops watching and closes the journal', async () => {
    const stack = await fulfilmentStack('memory:');
    await stack.checkout();
    await stack.relay.close();
    await assert.rejects(stack.journal.listRecent(1), /closed/);
    assert.deepEqual(await stack.relay.fulfilment?.tick(), { calls: 0, paused: false, delivered: 0 });
  });

  it('without a journal the relay watches nothing and close() does nothing', async () => {
    const { url } = sandboxWithClock();
    const relay = createTestRelay({ baseUrl: url, fetch: sandboxFetch });
    assert.equal(relay.fulfilment, undefined);
    await relay.close();
  });

  it('asks for a journal when onPaid is given without one, and for onPaid with one', async () => {
    // The option checking is the point: createCheckoutRelay itself, given the test relay's options.
    const base = { baseUrl: 'http://sandbox.test' };
    assert.throws(
      () => createCheckoutRelay(testRelayOptions({ ...base, onPaid: () => undefined })),
      /need a journal/,
    );
    const stack = await fulfilmentStack('memory:');
    assert.throws(
      () => createCheckoutRelay(testRelayOptions({ ...base, journal: stack.journal })),
      /give onPaid/,
    );
  });
});
