/**
 * Every callback gets the customer to ship to: the name and
 * number the service's order holds, read at delivery, never kept by the
 * journal. Against the real sandbox with hand-moved clocks; the journal's
 * SQLite file and its write-ahead log are read as they lie on disk after
 * delivery. A service that cannot be read at delivery puts the delivery off,
 * then, after its tries, delivers with `customer: null`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SANDBOX_TEST_NUMBERS } from '../../src/sandbox/index.js';
import { CUSTOMER_READ_TRIES } from '../../src/server/fulfilment/delivery-customer.js';
import { DEFAULT_MAX_WATCH_MS } from '../../src/server/index.js';
import { CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER } from '../fixtures/checkout-data.js';
import { fulfilmentStack, intentFrom } from '../fixtures/fulfilment.js';
import { assertNoCustomerData } from '../fixtures/relay.js';
import { sandboxFetch } from '../fixtures/sandbox.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-delivery-customer-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const AMA = { name: CUSTOMER_NAME, phoneNumber: INTERNATIONAL_NUMBER };

/** A fetch to the sandboxes that fails like an unreachable network while `down.now` is set. */
function switchableFetch() {
  const down = { now: false };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (down.now) throw new TypeError('fetch failed');
    return sandboxFetch(input, init);
  };
  return { down, fetch };
}

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`the customer in every delivered order, on a ${store} journal`, () => {
    it('onPaid, onFailed and onExpired get the name and number the service holds; relay.orders does not', async () => {
      const stack = await fulfilmentStack(store);
      const paid = await stack.checkout();
      const declined = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.declines));
      const silent = await stack.checkout(intentFrom(SANDBOX_TEST_NUMBERS.neverAnswers));
      await stack.advance(6_000);
      assert.deepEqual(
        stack.delivered.paid.map((order) => [order.id, order.customer]),
        [[paid.orderId, AMA]],
      );
      assert.deepEqual(
        stack.delivered.failed.map((order) => [order.id, order.customer]),
        [
          [
            declined.orderId,
            { name: CUSTOMER_NAME, phoneNumber: `+233${SANDBOX_TEST_NUMBERS.declines.slice(1)}` },
          ],
        ],
      );
      await stack.advance(DEFAULT_MAX_WATCH_MS);
      assert.deepEqual(
        stack.delivered.expired.map((order) => [order.id, order.customer?.name]),
        [[silent.orderId, CUSTOMER_NAME]],
      );
      assert.ok(Object.isFrozen(stack.delivered.paid[0]?.customer), 'frozen like the rest');
      const read = await stack.relay.orders.get(paid.orderId);
      assert.equal(read !== null && 'customer' in read, false, 'the journal has no customer to give');
      assertNoCustomerData(JSON.stringify(read));
    });

    it('puts a delivery off while the service cannot be read for its customer, then delivers it with one', async () => {
      const service = switchableFetch();
      let calls = 0;
      const stack = await fulfilmentStack(store, {
        fetch: service.fetch,
        onPaid: (order) => {
          calls += 1;
          // The first call fails, so the retry comes after the customer has left this process's hand.
          if (calls === 1) throw new RangeError('warehouse offline');
          stack.delivered.paid.push(order);
        },
      });
      const { orderId } = await stack.checkout();
      await stack.advance(6_000);
      assert.equal(calls, 1);
      service.down.now = true;
      await stack.advance(120_000);
      await stack.advance(120_000);
      assert.equal(calls, 1, 'not called without its customer while tries are left');
      const putOff = stack.events.filter(
        (event) => event.type === 'delivery_failed' && event.orderId === orderId,
      );
      assert.equal(putOff.length, 3, 'the callback once, then the customer twice');
      service.down.now = false;
      await stack.advance(120_000);
      assert.deepEqual(
        stack.delivered.paid.map((order) => [order.id, order.customer, order.attempt]),
        [[orderId, AMA, 4]],
      );
    });

    it(`delivers with customer null once the service stayed unreadable for ${CUSTOMER_READ_TRIES} tries`, async () => {
      const service = switchableFetch();
      let calls = 0;
      const stack = await fulfilmentStack(store, {
        fetch: service.fetch,
        onPaid: (order) => {
          calls += 1;
          if (calls === 1) throw new RangeError('warehouse offline');
          stack.delivered.paid.push(order);
        },
      });
      const { orderId } = await stack.checkout();
      await stack.advance(6_000);
      service.down.now = true;
      for (let i = 0; i < CUSTOMER_READ_TRIES + 2; i++) await stack.advance(120_000);
      assert.deepEqual(
        stack.delivered.paid.map((order) => [order.id, order.customer]),
        [[orderId, null]],
      );
      assert.equal(calls, 2);
    });
  });
}

describe('the SQLite journal after a delivery with its customer', () => {
  it('holds no name or number in its file or its write-ahead log', async () => {
    const path = join(scratch, 'journal.db');
    const stack = await fulfilmentStack(`sqlite:${path}`);
    const orders = [await stack.checkout(), await stack.checkout(), await stack.checkout()];
    await stack.advance(6_000);
    assert.deepEqual(
      stack.delivered.paid.map((order) => order.customer),
      orders.map(() => AMA),
      'onPaid got the customer',
    );
    // Read while the relay is still open: nothing has been folded in on the way out.
    const files = [path, `${path}-wal`].filter((file) => existsSync(file));
    assert.ok(files.length >= 1);
    const bytes = files.map((file) => [file, readFileSync(file).toString('latin1')] as const);
    assert.ok(
      bytes.some(([, content]) => content.includes(orders[2]?.orderId ?? '-')),
      'the files are the ones written',
    );
    for (const [file, content] of bytes) {
      for (const personal of [CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER]) {
        assert.equal(content.includes(personal), false, `${file} holds ${personal}`);
      }
    }
  });
});
