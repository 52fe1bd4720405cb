/**
 * A callback that hangs or throws holds up no other order. A
 * relay process on an SQLite journal creates 30 orders against the sandbox
 * (served by this process); one order's `onPaid` never returns and another's
 * always throws. Every other order is delivered, once; the throwing one is
 * tried again and again with its backoff; `close()` with the hung call still
 * running resolves within its bound. With a short `callbackTimeoutMs`, the
 * hung call counts as failed and is made again later.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLOSE_GRACE_MS, JOURNAL_CLOSE_TIMEOUT_MS } from '../../src/server/fulfilment/fulfilment-runner.js';
import {
  createdOrders,
  doubled,
  linesOf,
  readCalls,
  scratchFiles,
  servedSandbox,
  startDeliveryChild,
  waitUntil,
} from '../fixtures/delivery-faults.js';

const ORDERS = 30;
const HUNG = 4;
const THROWING = 11;
/** What `close()` may take at most: the grace for work in flight, then the journal's close. */
const CLOSE_BOUND_MS = CLOSE_GRACE_MS + JOURNAL_CLOSE_TIMEOUT_MS;

describe('a hung and a throwing callback', () => {
  it('among 30 orders: every other order is delivered once, retries go on, close() keeps its bound', {
    timeout: 180_000,
  }, async (t) => {
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder, callsFile } = scratchFiles();
    const started = performance.now();
    const shop = startDeliveryChild({
      name: 'shop',
      journalUrl: `sqlite:${join(folder, 'journal.db')}`,
      baseUrl: url,
      callsFile,
      orders: { from: 0, to: ORDERS - 1 },
      watch: { intervalMs: 2_000 },
      hang: [HUNG],
      throws: [THROWING],
    });
    assert.ok(await shop.waitFor('created-all', 60_000), 'the orders were created');
    const ids = createdOrders(shop);
    const hungId = ids.get(HUNG) as string;
    const throwingId = ids.get(THROWING) as string;
    const others = [...ids.values()].filter((id) => id !== hungId && id !== throwingId);

    const delivered = () => new Set(linesOf([shop], 'delivered '));
    const throwingFailures = () => linesOf([shop], `failed ${throwingId} `);
    const allOthers = await waitUntil(() => others.every((id) => delivered().has(id)), 60_000);
    const deliveredAfterMs = performance.now() - started;
    const retried = await waitUntil(() => throwingFailures().length >= 3, 60_000);
    assert.ok(linesOf([shop], 'entered ').includes(`${hungId} 1`), 'the hung callback was entered');
    assert.equal(delivered().has(hungId), false, 'the hung callback has not returned');

    shop.process.stdin?.write('close\n');
    const closed = await shop.waitFor('closed ', CLOSE_BOUND_MS + 10_000);
    const closeMs = Number(closed?.split(' ')[1]);
    const calls = readCalls(callsFile);
    t.diagnostic(
      `${delivered().size} of ${others.length} other orders delivered in ${Math.round(deliveredAfterMs)} ms; ` +
        `throwing callback failed ${throwingFailures().length} times (${throwingFailures().join(', ')}); ` +
        `doubles ${doubled(calls).length}; close() took ${closeMs} ms with the hung call running`,
    );
    assert.ok(allOthers, `${delivered().size} of ${others.length} other orders delivered`);
    assert.deepEqual(doubled(calls), [], 'no order delivered twice');
    assert.deepEqual(new Set(calls.map((call) => call.orderId)), new Set(others));
    assert.ok(retried, `the throwing callback was tried ${throwingFailures().length} times`);
    assert.deepEqual(
      throwingFailures()
        .slice(0, 3)
        .map((line) => line.split(' ').slice(0, 2)),
      [
        ['1', 'RangeError'],
        ['2', 'RangeError'],
        ['3', 'RangeError'],
      ],
    );
    assert.ok(closed, 'close() resolved');
    assert.ok(closeMs <= CLOSE_BOUND_MS, `close() took ${closeMs} ms`);
    assert.ok(closeMs >= CLOSE_GRACE_MS - 100, 'close() gave the running callback its grace');
  });

  it('counts a call past callbackTimeoutMs as failed, calls it again later, and delivers the rest', {
    timeout: 120_000,
  }, async (t) => {
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder, callsFile } = scratchFiles();
    const shop = startDeliveryChild({
      name: 'shop',
      journalUrl: `sqlite:${join(folder, 'journal.db')}`,
      baseUrl: url,
      callsFile,
      orders: { from: 0, to: 4 },
      watch: { intervalMs: 2_000, callbackTimeoutMs: 1_000 },
      hang: [2],
    });
    assert.ok(await shop.waitFor('created-all', 60_000), 'the orders were created');
    const ids = createdOrders(shop);
    const hungId = ids.get(2) as string;
    const timedOut = await shop.waitFor(`failed ${hungId} 1 TimeoutError`, 30_000);
    const calledAgain = await shop.waitFor(`entered ${hungId} 2`, 30_000);
    const others = [...ids.values()].filter((id) => id !== hungId);
    const delivered = await waitUntil(
      () => others.every((id) => linesOf([shop], 'delivered ').includes(id)),
      30_000,
    );
    shop.process.stdin?.write('close\n');
    const closed = await shop.waitFor('closed ', CLOSE_BOUND_MS + 10_000);
    t.diagnostic(`close() took ${closed?.split(' ')[1]} ms; ${linesOf([shop], 'failed ').join('; ')}`);
    assert.ok(timedOut, 'the hung call counted as failed, with a TimeoutError');
    assert.ok(calledAgain, 'and was made again after its backoff');
    assert.ok(delivered, 'the other orders were delivered');
    assert.deepEqual(doubled(readCalls(callsFile)), []);
    assert.ok(closed && Number(closed.split(' ')[1]) <= CLOSE_BOUND_MS, 'close() kept its bound');
  });
});
