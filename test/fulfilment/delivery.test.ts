/**
 * Delivery that never stalls and never doubles, in one process
 * against the sandbox, with the watcher's clock and the sandbox's moved by
 * hand and the watcher's timers run by hand: a hung callback holds up no
 * tick and no other order, a journal that does not answer after a callback
 * returned is asked again, and `close()` keeps its bound and never rejects.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOSE_GRACE_MS, JOURNAL_CLOSE_TIMEOUT_MS } from '../../src/server/fulfilment/fulfilment-runner.js';
import type { Clock, FulfilledOrder } from '../../src/server/index.js';
import { fulfilmentStack } from '../fixtures/fulfilment.js';
import { gate } from '../fixtures/wait.js';

const INTERVAL_MS = 3_000;

/** Timers run by the test: `fire(ms)` runs those set for `ms`; `whenPending(ms)` waits for one to be set. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  const waiters = new Set<{ ms: number; resolve: () => void }>();
  let ids = 0;
  const timers: Pick<Clock, 'setTimeout' | 'clearTimeout'> = {
    setTimeout(callback, ms) {
      ids += 1;
      pending.set(ids, { callback, ms });
      for (const waiter of waiters) {
        if (waiter.ms !== ms) continue;
        waiters.delete(waiter);
        waiter.resolve();
      }
      return ids;
    },
    clearTimeout(id) {
      pending.delete(id as number);
    },
  };
  return {
    timers,
    fire(ms: number): number {
      const due = [...pending].filter(([, timer]) => timer.ms === ms);
      for (const [id, timer] of due) {
        pending.delete(id);
        timer.callback();
      }
      return due.length;
    },
    whenPending(ms: number): Promise<void> {
      if ([...pending.values()].some((timer) => timer.ms === ms)) return Promise.resolve();
      return new Promise((resolve) => waiters.add({ ms, resolve }));
    },
  };
}

/** A promise and its resolver. */
function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('delivery', () => {
  it('keeps ticking and delivering while a callback hangs, and close() abandons it after its grace', async () => {
    const manual = manualTimers();
    const reached = new Map<string, () => void>();
    const reachedOnPaid = (orderId: string) => {
      const { promise, resolve } = deferred<void>();
      reached.set(orderId, resolve);
      return promise;
    };
    let hungId = '';
    const returned: string[] = [];
    const stack = await fulfilmentStack(
      'sqlite:',
      {
        onPaid: (order: FulfilledOrder) => {
          reached.get(order.id)?.();
          if (order.id !== hungId) returned.push(order.id);
          // The first order's callback never returns.
          return order.id === hungId ? new Promise<void>(() => undefined) : undefined;
        },
        watch: { ticks: true, intervalMs: INTERVAL_MS },
      },
      manual.timers,
    );
    hungId = (await stack.checkout()).orderId;
    const hungCalled = reachedOnPaid(hungId);
    stack.clock.now += 6_000;
    assert.equal(manual.fire(0), 1, 'the first tick');
    await hungCalled;
    // The next tick is scheduled though the callback never returns.
    await manual.whenPending(INTERVAL_MS);

    const { orderId: nextId } = await stack.checkout();
    const nextCalled = reachedOnPaid(nextId);
    stack.clock.now += 6_000;
    assert.equal(manual.fire(INTERVAL_MS), 1, 'the second tick');
    await nextCalled;
    await manual.whenPending(INTERVAL_MS);
    assert.deepEqual(returned, [nextId]);

    const closing = stack.relay.close();
    await manual.whenPending(CLOSE_GRACE_MS);
    assert.equal(manual.fire(CLOSE_GRACE_MS), 1, 'the grace runs out with the callback still running');
    await closing;
    await assert.rejects(stack.journal.listRecent(1), /closed/);
    assert.deepEqual(
      stack.events.filter((event) => event.type === 'watcher_error'),
      [],
    );
    assert.deepEqual(
      stack.events.filter((event) => event.type === 'order_delivered'),
      [{ type: 'order_delivered', orderId: nextId, outcome: 'paid', attempt: 1 }],
    );
  });

  it('asks the journal again to mark a delivery it could not record, and calls the callback once', async () => {
    let calls = 0;
    const stack = await fulfilmentStack('memory:', {
      onPaid: () => {
        calls += 1;
      },
    });
    const markDelivered = stack.journal.markDelivered.bind(stack.journal);
    let failures = 0;
    stack.journal.markDelivered = async (...args) => {
      if (failures < 2) {
        failures += 1;
        throw new Error('Connection terminated unexpectedly');
      }
      return markDelivered(...args);
    };
    const { orderId } = await stack.checkout();
    const tick = await stack.advance(6_000);
    assert.equal(tick?.delivered, 1);
    assert.equal(calls, 1);
    assert.equal(failures, 2);
    for (let i = 0; i < 3; i++) await stack.advance(60_000);
    assert.equal(calls, 1, 'never called again');
    assert.deepEqual(
      stack.events.filter((event) => event.type === 'order_delivered' || event.type === 'watcher_error'),
      [{ type: 'order_delivered', orderId, outcome: 'paid', attempt: 1 }],
    );
  });

  for (const slowStep of ['claimUndelivered', 'readOrder'] as const) {
    it(`calls no callback once the lease ran out while the journal was slow to answer ${slowStep}, and delivers the order once later`, async () => {
      const LEASE_MS = 12_000;
      const manual = manualTimers();
      let calls = 0;
      const stack = await fulfilmentStack(
        'memory:',
        {
          onPaid: () => {
            calls += 1;
          },
          watch: { leaseMs: LEASE_MS },
        },
        manual.timers,
      );
      // The journal answers this step only when the test says: a database queue, a stalled process.
      const asked = gate();
      const answer = gate();
      const original = stack.journal[slowStep].bind(stack.journal) as (
        ...args: unknown[]
      ) => Promise<unknown>;
      let held = false;
      Object.assign(stack.journal, {
        [slowStep]: async (...args: unknown[]) => {
          if (!held) {
            held = true;
            asked.open();
            await answer.promise;
          }
          return original(...args);
        },
      });
      const { orderId } = await stack.checkout();
      const ticking = stack.advance(6_000);
      await asked.promise;
      // The lease's length passes before the journal answers; no renewal was answered either.
      assert.ok(manual.fire(LEASE_MS) >= 1, 'the lease is timed from the claim');
      answer.open();
      assert.equal((await ticking)?.delivered, 0);
      assert.equal(calls, 0, 'not called on a lease another process may hold');
      assert.deepEqual(
        stack.events.filter((event) => event.type === 'delivery_lease_lost'),
        [{ type: 'delivery_lease_lost', orderId }],
      );
      // Due again once the journal's lease has run out: called once.
      const next = await stack.advance(LEASE_MS);
      assert.equal(next?.delivered, 1);
      assert.equal(calls, 1);
    });
  }

  it('calls no callback when the lease ran out by the clock while no timer fired (a paused process), and delivers the order once later', async () => {
    const LEASE_MS = 12_000;
    const manual = manualTimers();
    let calls = 0;
    const stack = await fulfilmentStack(
      'memory:',
      {
        onPaid: () => {
          calls += 1;
        },
        watch: { leaseMs: LEASE_MS },
      },
      manual.timers,
    );
    const asked = gate();
    const answer = gate();
    // The delivery's read, after its claim: the last step before the callback.
    const claimUndelivered = stack.journal.claimUndelivered.bind(stack.journal);
    let claimed = false;
    stack.journal.claimUndelivered = async (...args) => {
      const entries = await claimUndelivered(...args);
      claimed ||= entries.length > 0;
      return entries;
    };
    const readOrder = stack.journal.readOrder.bind(stack.journal);
    let held = false;
    stack.journal.readOrder = async (by) => {
      if (!held && claimed) {
        held = true;
        asked.open();
        await answer.promise;
      }
      return readOrder(by);
    };
    const { orderId } = await stack.checkout();
    const ticking = stack.advance(6_000);
    await asked.promise;
    // Time passes on the relay's clock, but no timer fires: they run late after a pause. Less
    // than the lease, which still holds in the journal, but within the margin a callback needs.
    stack.clock.now += LEASE_MS - 500;
    answer.open();
    assert.equal((await ticking)?.delivered, 0);
    assert.equal(calls, 0, 'not called on a lease that ran out by the time elapsed');
    assert.deepEqual(
      stack.events.filter((event) => event.type === 'delivery_lease_lost'),
      [{ type: 'delivery_lease_lost', orderId }],
    );
    const next = await stack.advance(LEASE_MS);
    assert.equal(next?.delivered, 1);
    assert.equal(calls, 1);
  });

  it('resolves close() and reports through onEvent when the journal fails to close', async () => {
    const stack = await fulfilmentStack('memory:');
    await stack.checkout();
    stack.journal.close = async () => {
      throw new Error('EROFS: read-only file system');
    };
    await stack.relay.close();
    const errors = stack.events.filter((event) => event.type === 'watcher_error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.type === 'watcher_error' && errors[0].stage, 'close');
  });

  it('resolves close() within its bound when the journal never finishes closing', async () => {
    const manual = manualTimers();
    const stack = await fulfilmentStack('memory:', {}, manual.timers);
    stack.journal.close = () => new Promise<void>(() => undefined);
    let closed = false;
    const closing = stack.relay.close().then(() => {
      closed = true;
    });
    // Bounded: the time the journal is given to close runs out (once, or twice counting the grace).
    for (let round = 0; round < 4 && !closed; round++) {
      await Promise.race([manual.whenPending(JOURNAL_CLOSE_TIMEOUT_MS), closing]);
      manual.fire(JOURNAL_CLOSE_TIMEOUT_MS);
    }
    await closing;
    const errors = stack.events.filter((event) => event.type === 'watcher_error');
    assert.match(
      String(errors[0]?.type === 'watcher_error' && errors[0].error),
      /did not close within 5000 ms/,
    );
  });
});
