/**
 * A journal watching an order the service does not know: the relay's
 * in-process sandbox is stopped and a fresh one started in its place (as a
 * restarted development server forgets its orders), so the service answers
 * `404` for the order the journal watches. `onEvent` hears of it at the next
 * lookup, and once the create grace (60 s) has passed the order settles
 * failed with `failureCode: 'unknown_order'` and `onFailed` is called, once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSandbox, SANDBOX_TEST_NUMBERS, type Sandbox } from '../../src/sandbox/index.js';
import { DEFAULT_CREATE_GRACE_MS } from '../../src/server/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { fulfilmentStack, intentFrom } from '../fixtures/fulfilment.js';
import { APPROVE_AFTER_MS } from '../fixtures/sandbox.js';

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`an order the service does not know, on a ${store} journal`, () => {
    it('is reported at once and settled failed, unknown_order, after the create grace', async () => {
      // The service the relay calls: the stack's sandbox, until it is replaced by a fresh one.
      const service: { sandbox?: Sandbox } = {};
      const stack = await fulfilmentStack(store, {
        fetch: async (input, init) => (service.sandbox as Sandbox).handle(new Request(input, init)),
      });
      service.sandbox = stack.sandbox;
      const createdAt = stack.clock.now;
      const { orderId } = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.neverAnswers));
      await stack.advance(3_000);
      const unknown = () =>
        stack.events.filter(
          (event) => event.type === 'order_unknown_to_service' && event.orderId === orderId,
        );
      assert.equal(unknown().length, 0, 'the service knows it');

      // Stopped and started fresh: the new sandbox holds no order.
      service.sandbox = createSandbox({
        approveAfterMs: APPROVE_AFTER_MS,
        clock: { ...systemClock, now: () => stack.clock.now },
      });
      await stack.advance(3_000);
      assert.equal(unknown().length, 1, 'reported at the first lookup that finds it unknown');
      assert.deepEqual(unknown()[0], { type: 'order_unknown_to_service', orderId });
      assert.equal(stack.delivered.failed.length, 0, 'not before the create grace has passed');

      stack.clock.now = createdAt + DEFAULT_CREATE_GRACE_MS - 1;
      await stack.advance(0);
      assert.equal(stack.delivered.failed.length, 0);
      await stack.advance(1);
      assert.deepEqual(
        stack.delivered.failed.map((order) => [order.id, order.outcome, order.failureCode, order.customer]),
        [[orderId, 'failed', 'unknown_order', null]],
      );
      for (let i = 0; i < 5; i++) await stack.advance(60_000);
      assert.equal(stack.delivered.failed.length, 1, 'onFailed once');
      assert.equal(stack.delivered.expired.length, 0);
      assert.equal((await stack.relay.orders.get(orderId))?.failureCode, 'unknown_order');
    });
  });
}
