/**
 * A relay without a journal shares its lookups in its own process:
 * one service call per order in flight; a read begun within the last
 * second answers without a call, an older one waits for the next read, 2 s
 * after it; from a memory that stays bounded. Counted at a real
 * sandbox served over loopback HTTP, on a clock the test moves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BROWSER_READ_AGE_MS, LOOKUP_SHARING_MS } from '../../../src/server/lookups/order-lookups.js';
import { createRecentReads } from '../../../src/server/lookups/recent-reads.js';
import { checkoutThrough, countedService } from '../../fixtures/counted-service.js';
import { assertNoCustomerData, LOOKUP_SECRET, lookupRequest } from '../../fixtures/relay.js';

describe('lookups shared in one relay process', () => {
  it('20 concurrent lookups of one order make one service call, and each gets the answer', async () => {
    const service = await countedService();
    const order = await checkoutThrough(service.relay());
    const statuses = await Promise.all(Array.from({ length: 20 }, () => order.poll()));
    assert.deepEqual(statuses, Array(20).fill('requires_action'));
    assert.equal(service.lookupsOf(order.orderId), 1);
  });

  it('a read begun within 1 s answers without a call; an older one waits for the next, 2 s after it, and sees what changed', async () => {
    const service = await countedService();
    const order = await checkoutThrough(service.relay());
    const readAt = service.time.now;
    await order.poll();
    service.sandbox.approve(order.orderId);
    service.time.now += BROWSER_READ_AGE_MS - 1;
    assert.equal(await order.poll(), 'requires_action', 'the read of a second ago');
    assert.equal(service.lookupsOf(order.orderId), 1);
    service.time.now += 500;
    const waiting = service.relayClock.nextTimer();
    const answer = order.poll();
    await waiting;
    assert.equal(service.lookupsOf(order.orderId), 1, 'no call within 2 s of the last');
    // 2 s after the first read: the next may begin.
    service.time.now = readAt + LOOKUP_SHARING_MS;
    service.relayClock.runDue();
    assert.equal(await answer, 'paid');
    assert.equal(service.lookupsOf(order.orderId), 2);
  });

  it('a clock set back never freezes a read: the next lookup calls, and sees what changed', async () => {
    const service = await countedService();
    const order = await checkoutThrough(service.relay());
    assert.equal(await order.poll(), 'requires_action');
    service.sandbox.approve(order.orderId);
    // An hour back: the read kept now lies in the future.
    service.time.now -= 3_600_000;
    assert.equal(await order.poll(), 'paid');
    assert.equal(service.lookupsOf(order.orderId), 2);
  });

  it('a final status answers every later lookup without a call', async () => {
    const service = await countedService();
    const order = await checkoutThrough(service.relay());
    service.sandbox.approve(order.orderId);
    assert.equal(await order.poll(), 'paid');
    for (let poll = 0; poll < 5; poll++) {
      service.time.now += 60_000;
      assert.equal(await order.poll(), 'paid');
    }
    assert.equal(service.lookupsOf(order.orderId), 1);
  });

  it('a failed call is shared by the lookups waiting on it, and not remembered', async () => {
    const service = await countedService();
    let down = true;
    let failedAttempts = 0;
    const flaky: typeof fetch = async (input, init) => {
      if (down && String(input).endsWith('/orders/lookup')) {
        failedAttempts += 1;
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const relay = service.relay(undefined, { fetch: flaky });
    const order = await checkoutThrough(relay);
    const answers = await Promise.allSettled(Array.from({ length: 5 }, () => order.poll()));
    assert.deepEqual(
      answers.map((answer) => answer.status === 'rejected' && String(answer.reason)),
      Array(5).fill('Error: lookup answered 502'),
    );
    assert.equal(failedAttempts, 3, 'one call, with the relay’s two retries, for the five lookups');
    down = false;
    assert.equal(await order.poll(), 'requires_action', 'the next lookup calls, within 2 s of the failure');
  });

  it('checks the lookup token before it shares: a read of the order answers nobody without it', async () => {
    const service = await countedService();
    const relay = service.relay();
    const order = await checkoutThrough(relay);
    await order.poll();
    const forged = await relay.lookup(
      lookupRequest({ order_id: order.orderId, lookup_token: LOOKUP_SECRET }),
      {
        clientAddress: '203.0.113.9',
      },
    );
    assert.equal(forged.status, 403);
    const text = await forged.text();
    assert.ok(!text.includes('requires_action'));
    assertNoCustomerData(text);
  });

  it('remembers a bounded number of orders, the ones read longest ago going first', () => {
    const reads = createRecentReads(1_000);
    const read = { status: 'requires_payment', payment: { status: 'requires_action' } };
    for (let order = 0; order < 50_000; order++) reads.remember(`or_${order}`, read, order, order);
    assert.ok(reads.size <= 1_000, `${reads.size} remembered`);
    assert.ok(reads.get('or_49999'));
    assert.equal(reads.get('or_0'), undefined);
    reads.remember('or_49999', { ...read, status: 'older' }, 0, 50_000);
    assert.equal(
      reads.get('or_49999')?.read.status,
      'requires_payment',
      'an older read never replaces a newer',
    );
  });
});
