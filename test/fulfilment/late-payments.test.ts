/**
 * Late payments: `onExpired` is the relay's own bound, and a payer may still
 * approve after it. Against the real sandbox, its clock and the relay's moved
 * by hand: an order held pending by the never-answering test number is
 * watched past the total bound (onExpired), then approved at the sandbox's
 * control surface; `onPaid` is called once, with `previousOutcome: 'expired'`,
 * found by a browser's lookup through the relay or by the sweep of the
 * service's orders alone. On a journal in memory, in SQLite and in PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { SANDBOX_CONTROL_PATH, SANDBOX_TEST_NUMBERS } from '../../src/sandbox/index.js';
import { DEFAULT_SWEEP_INTERVAL_MS } from '../../src/server/fulfilment/watch-settings.js';
import { DEFAULT_MAX_WATCH_MS, openJournal } from '../../src/server/index.js';
import { fulfilmentStack, intentFrom, type JournalStore } from '../fixtures/fulfilment.js';
import { type PostgresCluster, postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { createTestRelay } from '../fixtures/relay.js';
import { clockReading } from '../fixtures/relay-clock.js';
import { call, sandboxFetch } from '../fixtures/sandbox.js';
import { eventually } from '../fixtures/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-late-payments-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const stores: { name: string; skip?: string | undefined; store: () => Promise<JournalStore> }[] = [
  { name: 'memory:', store: async () => 'memory:' },
  { name: 'sqlite:', store: async () => 'sqlite:' },
];
let cluster: PostgresCluster | undefined;
const pgSkip = postgresSkipReason();
stores.push({
  name: 'postgres://',
  skip: pgSkip,
  store: async () => {
    cluster ??= await startPostgres();
    return (await cluster.createDatabase()) as JournalStore;
  },
});
after(() => cluster?.stop());

/** A stack with an order held pending past the bound and delivered to onExpired, then approved at the sandbox. */
async function expiredThenApproved(store: JournalStore) {
  const stack = await fulfilmentStack(store);
  const order = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.neverAnswers));
  await stack.advance(3_000);
  assert.equal(stack.delivered.expired.length, 0);
  // The clock jumps past the total bound: the watcher gives up on the order.
  await stack.advance(DEFAULT_MAX_WATCH_MS);
  // The pass settles the order expired and delivers it; a delivery that did not start in that pass
  // (its lease judged too short after a slow first query of a new database) is due to the next one.
  await eventually('onExpired for the order past the bound', async () => {
    if (stack.delivered.expired.length === 0) await stack.fulfilment.deliverNow();
    return stack.delivered.expired.length > 0;
  });
  assert.deepEqual(
    stack.delivered.expired.map((expired) => [expired.id, expired.previousOutcome]),
    [[order.orderId, null]],
  );
  const approved = await call(stack.url, `${SANDBOX_CONTROL_PATH}/approve`, { order_id: order.orderId });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  assert.equal(approved.body.order.payment.status, 'paid');
  return { stack, ...order };
}

for (const { name, skip, store } of stores) {
  describe(`late payments on a ${name} journal`, { skip }, () => {
    let journalStore: JournalStore;
    beforeEach(async () => {
      journalStore = await store();
    });

    it('a browser lookup that sees an expired order paid calls onPaid once, with previousOutcome expired', async () => {
      const { stack, orderId, lookupToken } = await expiredThenApproved(journalStore);
      const seen = await stack.browserLookup(orderId, lookupToken);
      assert.equal(seen.order.payment.status, 'paid');
      await stack.fulfilment.deliverNow();
      // The lookup's journal write may outlast its answer (the lookup waits on the journal only so
      // long), and its delivery starts in the background: the write and the delivery are awaited.
      await eventually('onPaid for the late payment the browser saw', () => stack.delivered.paid.length > 0, {
        timeoutMs: 30_000,
      });
      assert.deepEqual(
        stack.delivered.paid.map((paid) => [paid.id, paid.outcome, paid.previousOutcome, paid.attempt]),
        [[orderId, 'paid', 'expired', 1]],
      );
      assert.ok(
        stack.events.some(
          (event) =>
            event.type === 'order_paid_late' && event.source === 'browser' && event.orderId === orderId,
        ),
      );
      // Looked up again, swept, and ticked for an hour: never a second call, of either callback.
      stack.clock.now += 3_000;
      await stack.browserLookup(orderId, lookupToken);
      for (let i = 0; i < 5; i++) await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.equal(stack.delivered.paid.length, 1);
      assert.equal(stack.delivered.expired.length, 1);
      const recorded = await stack.relay.orders.get(orderId);
      assert.equal(recorded?.outcome, 'paid');
      assert.equal(recorded?.previousOutcome, 'expired');
      assert.notEqual(recorded?.deliveredAt, null);
    });

    it('the sweep of the service orders alone finds the late payment and calls onPaid once', async () => {
      const { stack, orderId } = await expiredThenApproved(journalStore);
      // No browser looks: only the sweep, within its interval.
      await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.deepEqual(
        stack.delivered.paid.map((paid) => [paid.id, paid.previousOutcome, paid.paymentStatus]),
        [[orderId, 'expired', 'paid']],
      );
      assert.ok(
        stack.events.some(
          (event) =>
            event.type === 'order_paid_late' && event.source === 'sweep' && event.orderId === orderId,
        ),
      );
      for (let i = 0; i < 5; i++) await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.equal(stack.delivered.paid.length, 1, 'onPaid once');
      assert.equal(stack.delivered.expired.length, 1, 'onExpired once');
      assert.equal((await stack.relay.orders.get(orderId))?.previousOutcome, 'expired');
    });

    it('an order paid in time carries no previous outcome', async () => {
      const stack = await fulfilmentStack(journalStore);
      const { orderId } = await stack.checkout();
      await stack.advance(6_000);
      assert.deepEqual(
        stack.delivered.paid.map((paid) => [paid.id, paid.previousOutcome]),
        [[orderId, null]],
      );
      assert.equal((await stack.relay.orders.get(orderId))?.previousOutcome, null);
    });
  });
}

describe('the sweep in a fleet', () => {
  it('two relays on one SQLite journal sweep once per interval between them', async () => {
    const pages = { count: 0 };
    const counting: typeof fetch = async (input, init) => {
      if (new Request(input, init).url.endsWith('/orders/page')) pages.count += 1;
      return sandboxFetch(input, init);
    };
    const path = join(scratch, 'fleet.db');
    const stack = await fulfilmentStack(`sqlite:${path}`, { fetch: counting });
    const other = createTestRelay({
      baseUrl: stack.url,
      fetch: counting,
      rateLimit: false,
      journal: await openJournal(`sqlite:${path}`, { clock: { now: () => stack.clock.now } }),
      onPaid: () => undefined,
      clock: clockReading(() => stack.clock.now),
      watch: { ticks: false },
    });
    after(() => other.close());
    await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.neverAnswers));
    await stack.advance(3_000);
    await stack.advance(DEFAULT_MAX_WATCH_MS);
    assert.equal(stack.delivered.expired.length, 1);
    const both = () => Promise.all([stack.fulfilment.tick(), other.fulfilment?.tick()]);
    const sweptBefore = pages.count;
    stack.clock.now += DEFAULT_SWEEP_INTERVAL_MS;
    await both();
    assert.equal(pages.count - sweptBefore, 1, 'one sweep of one page, by one of the two');
    for (let minute = 0; minute < 14; minute++) {
      stack.clock.now += 60_000;
      await both();
    }
    assert.equal(pages.count - sweptBefore, 1, 'none again within the interval, by either');
    stack.clock.now += 60_000;
    await both();
    assert.equal(pages.count - sweptBefore, 2);
  });
});

/** A service in front of the stack's sandbox that counts page calls, fails them while `failing`, and answers `404` for the lookups of `hidden`. */
function faultySweepService() {
  const state = { pages: 0, failing: false, hidden: new Set<string>() };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    if (path.endsWith('/orders/page')) {
      state.pages += 1;
      if (state.failing)
        return Response.json(
          { error: { code: 'api_error', type: 'api_error', message: 'down' } },
          { status: 500 },
        );
    }
    if (path.endsWith('/orders/lookup')) {
      const { order_id } = (await request.clone().json()) as { order_id: string };
      if (state.hidden.has(order_id)) {
        const error = {
          code: 'resource_not_found',
          type: 'invalid_request_error',
          message: 'No order has this order_id.',
        };
        return Response.json({ error }, { status: 404 });
      }
    }
    return sandboxFetch(request);
  };
  return { state, fetch };
}

/** An order of `stack` held pending past the bound and settled expired. */
async function expiredOrder(stack: Awaited<ReturnType<typeof fulfilmentStack>>): Promise<string> {
  const { orderId } = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.neverAnswers));
  await stack.advance(3_000);
  await stack.advance(DEFAULT_MAX_WATCH_MS);
  return orderId;
}

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`a sweep that meets trouble, on a ${store} journal`, () => {
    it('a failed sweep is not run again before the interval', async () => {
      const service = faultySweepService();
      const stack = await fulfilmentStack(store, { fetch: service.fetch });
      await expiredOrder(stack);
      service.state.failing = true;
      const before = service.state.pages;
      await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.equal(service.state.pages - before, 1, 'one sweep, failed at its first page');
      assert.ok(stack.events.some((event) => event.type === 'watcher_error' && event.stage === 'sweep'));
      for (let minute = 0; minute < 14; minute++) await stack.advance(60_000);
      assert.equal(service.state.pages - before, 1, 'none again within the interval');
      await stack.advance(60_000);
      assert.equal(service.state.pages - before, 2, 'again once the interval has passed');
    });

    it('an order the service will not show by id does not stop the sweep finding another', async () => {
      const service = faultySweepService();
      const stack = await fulfilmentStack(store, { fetch: service.fetch });
      const paidLate = await expiredOrder(stack);
      const hidden = await expiredOrder(stack);
      for (const orderId of [paidLate, hidden]) {
        const approved = await call(stack.url, `${SANDBOX_CONTROL_PATH}/approve`, { order_id: orderId });
        assert.equal(approved.status, 200);
      }
      // The newer order comes first on the page: its lookup answers 404.
      service.state.hidden.add(hidden);
      await stack.advance(DEFAULT_SWEEP_INTERVAL_MS);
      assert.deepEqual(
        stack.delivered.paid.map((paid) => [paid.id, paid.previousOutcome]),
        [[paidLate, 'expired']],
      );
      assert.equal(
        stack.events.filter((event) => event.type === 'watcher_error' && event.stage === 'sweep').length,
        0,
      );
    });
  });
}
