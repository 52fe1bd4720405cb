/**
 * A journal watching an order the service does not know: the relay's
 * in-process sandbox is stopped and a fresh one started in its place (as a
 * restarted development server forgets its orders), so the service answers
 * `404` for the order the journal watches. `onEvent` hears of it at the next
 * lookup, and once the create grace (60 s) has passed the order settles
 * failed with `failureCode: 'unknown_order'` and `onFailed` is called, once.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  createSandbox,
  SANDBOX_CONTROL_PATH,
  SANDBOX_TEST_NUMBERS,
  type Sandbox,
} from '../../src/sandbox/index.js';
import {
  DEFAULT_SWEEP_INTERVAL_MS,
  DEFAULT_WATCH_INTERVAL_MS,
} from '../../src/server/fulfilment/watch-settings.js';
import { DEFAULT_CREATE_GRACE_MS } from '../../src/server/index.js';
import { listen } from '../../src/server/node.js';
import { systemClock } from '../../src/shared/clock.js';
import { fulfilmentStack, intentFrom, type JournalStore } from '../fixtures/fulfilment.js';
import { APPROVE_AFTER_MS, call } from '../fixtures/sandbox.js';

/** A real HTTP server answering every request as a load balancer does during a deploy: an HTML 404. */
const htmlNotFound = await listen((_request, response) => {
  response.writeHead(404, { 'content-type': 'text/html' });
  response.end('<html><body><h1>Not Found</h1></body></html>');
});
after(() => htmlNotFound.close());

/** Which service the relay's calls reach: the stack's sandbox, a fresh one, or the HTML 404 server. */
interface Service {
  sandbox?: Sandbox;
  html?: boolean;
}

/** A stack whose service calls go where `service` says, and an order held pending on it, past the create grace. */
async function orderPastGrace(store: JournalStore) {
  const service: Service = {};
  const stack = await fulfilmentStack(store, {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (!service.html) return (service.sandbox as Sandbox).handle(request);
      const { pathname, search } = new URL(request.url);
      return fetch(`${htmlNotFound.url}${pathname}${search}`, {
        method: request.method,
        body: await request.text(),
      });
    },
  });
  service.sandbox = stack.sandbox;
  const createdAt = stack.clock.now;
  const { orderId, lookupToken } = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.neverAnswers));
  await stack.advance(3_000);
  stack.clock.now = createdAt + DEFAULT_CREATE_GRACE_MS + 10_000;
  await stack.advance(0);
  const unknown = () =>
    stack.events.filter((event) => event.type === 'order_unknown_to_service' && event.orderId === orderId);
  assert.equal(unknown().length, 0, 'the service knows it');
  return { stack, service, orderId, lookupToken, unknown };
}

/** A fresh sandbox on the stack's clock: it holds no order. */
function freshSandbox(stack: { clock: { now: number } }): Sandbox {
  return createSandbox({
    approveAfterMs: APPROVE_AFTER_MS,
    clock: { ...systemClock, now: () => stack.clock.now },
  });
}

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

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`a 404 that is not the service's word, on a ${store} journal`, () => {
    it("a proxy's HTML 404 settles nothing: the watcher waits it out and the payment reaches onPaid", async () => {
      const { stack, service, orderId, unknown } = await orderPastGrace(store);
      service.html = true;
      for (let i = 0; i < 5; i++) await stack.advance(DEFAULT_WATCH_INTERVAL_MS);
      assert.equal(unknown().length, 0, 'not reported unknown');
      assert.equal(stack.delivered.failed.length, 0, 'not settled failed');
      assert.ok(
        stack.events.some((event) => event.type === 'watcher_paused'),
        'waited out as an outage',
      );

      service.html = false;
      const approved = await call(stack.url, `${SANDBOX_CONTROL_PATH}/approve`, { order_id: orderId });
      assert.equal(approved.status, 200);
      for (let i = 0; i < 10 && stack.delivered.paid.length === 0; i++) await stack.advance(60_000);
      assert.deepEqual(
        stack.delivered.paid.map((paid) => [paid.id, paid.outcome]),
        [[orderId, 'paid']],
      );
      assert.equal(stack.delivered.failed.length, 0);
    });

    it('a fresh sandbox settles the order only at a second 404, one watch interval after the first', async () => {
      const { stack, service, orderId, unknown } = await orderPastGrace(store);
      service.sandbox = freshSandbox(stack);
      for (let i = 0; i < 60 && unknown().length === 0; i++) await stack.advance(1_000);
      assert.equal(unknown().length, 1, 'reported at the first 404');
      assert.equal(stack.delivered.failed.length, 0, 'not settled on one 404');
      await stack.advance(DEFAULT_WATCH_INTERVAL_MS - 1);
      assert.equal(stack.delivered.failed.length, 0, 'not within one interval');
      await stack.advance(1);
      assert.deepEqual(
        stack.delivered.failed.map((order) => [order.id, order.failureCode]),
        [[orderId, 'unknown_order']],
      );
      assert.equal(unknown().length, 1, 'reported once');
    });

    it('an order settled unknown_order whose payment later shows paid reaches onPaid once', async () => {
      const { stack, service, orderId } = await orderPastGrace(store);
      const first = service.sandbox as Sandbox;
      service.sandbox = freshSandbox(stack);
      for (let i = 0; i < 60 && stack.delivered.failed.length === 0; i++) await stack.advance(1_000);
      assert.equal(stack.delivered.failed.length, 1, 'settled failed, unknown_order');

      // The service that holds the order answers again, and the payer approves.
      service.sandbox = first;
      const approved = await call(stack.url, `${SANDBOX_CONTROL_PATH}/approve`, { order_id: orderId });
      assert.equal(approved.status, 200);
      await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.deepEqual(
        stack.delivered.paid.map((paid) => [paid.id, paid.outcome, paid.previousOutcome, paid.failureCode]),
        [[orderId, 'paid', null, null]],
      );
      for (let i = 0; i < 5; i++) await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.equal(stack.delivered.paid.length, 1, 'onPaid once');
      assert.equal(stack.delivered.failed.length, 1, 'onFailed once');
      const recorded = await stack.relay.orders.get(orderId);
      assert.equal(recorded?.outcome, 'paid');
      assert.equal(recorded?.previousOutcome, null);
    });

    it("a browser's lookup that reads paid for an order settled unknown_order calls onPaid once", async () => {
      const { stack, service, orderId, lookupToken } = await orderPastGrace(store);
      const first = service.sandbox as Sandbox;
      service.sandbox = freshSandbox(stack);
      for (let i = 0; i < 60 && stack.delivered.failed.length === 0; i++) await stack.advance(1_000);
      assert.equal(stack.delivered.failed.length, 1, 'settled failed, unknown_order');
      service.sandbox = first;
      first.approve(orderId);
      assert.equal((await stack.browserLookup(orderId, lookupToken)).order.payment.status, 'paid');
      await stack.fulfilment.deliverNow();
      assert.deepEqual(
        stack.delivered.paid.map((paid) => [paid.id, paid.previousOutcome]),
        [[orderId, null]],
      );
      assert.ok(
        stack.events.some(
          (event) =>
            event.type === 'order_paid_late' && event.source === 'browser' && event.orderId === orderId,
        ),
      );
      await stack.browserLookup(orderId, lookupToken);
      for (let i = 0; i < 3; i++) await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.equal(stack.delivered.paid.length, 1, 'onPaid once');
    });
  });
}
