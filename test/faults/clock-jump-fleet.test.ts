/**
 * A fleet member whose clock is wrong (leases are compared on
 * the journal's clock, never the calling process's). Relay processes share
 * one PostgreSQL journal; one process's clock runs ahead through the
 * watcher's clock option.
 *
 * - 45 s ahead, more than a lease: while the first process's callbacks run
 *   (held at a gate), the second runs its passes; it takes none of the first
 *   one's leases, and every order is delivered once.
 * - 25 h ahead, past the 24-hour bound: it watches pending orders and sends
 *   none to `onExpired`, for their age is measured on the journal's clock.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import {
  doubled,
  linesOf,
  readCalls,
  scratchFiles,
  servedSandbox,
  startDeliveryChild,
  waitUntil,
} from '../fixtures/delivery-faults.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';

const ORDERS = 40;
const HOUR = 3_600_000;

describe('a fleet member whose clock jumps', { skip: postgresSkipReason() }, () => {
  it("45 s ahead: takes none of another process's leases while its callbacks run; each order delivered once", {
    timeout: 240_000,
  }, async (t) => {
    const cluster = await startPostgres();
    after(() => cluster.stop());
    const journalUrl = await cluster.createDatabase();
    const { sandbox, url } = await servedSandbox({ approveAfterMs: 300 });
    const { callsFile } = scratchFiles();
    const base = { journalUrl, baseUrl: url, callsFile, watch: { intervalMs: 2_000 } };
    const steady = startDeliveryChild({
      ...base,
      name: 'steady',
      orders: { from: 0, to: ORDERS - 1 },
      gate: true,
    });
    assert.ok(await steady.waitFor('created-all', 60_000), 'the orders were created');
    await waitUntil(() => linesOf([steady], 'held ').length === ORDERS, 30_000);
    const running = linesOf([steady], 'held ').length;
    assert.ok(running > 0, 'callbacks running');

    // Orders leased to the steady process, their callbacks running; now the fast one watches and delivers.
    const fast = startDeliveryChild({ ...base, name: 'fast', clockAheadMs: 45_000, ticks: 'loop' });
    const passes = await fast.waitFor('ticked 5', 60_000);
    steady.process.stdin?.write('release\n');
    const delivered = await waitUntil(
      () => new Set(linesOf([steady, fast], 'delivered ')).size === ORDERS,
      60_000,
    );
    for (const relay of [steady, fast]) relay.process.stdin?.write('close\n');
    const closed = await Promise.all([steady, fast].map((relay) => relay.waitFor('closed ', 20_000)));
    const calls = readCalls(callsFile);
    t.diagnostic(
      `${ORDERS} orders, ${running} callbacks running in the steady process; the fast process ran ${linesOf([fast], 'ticked ').length} passes while the steady one's ` +
        `callbacks ran; callback calls ${calls.length} (by the fast process ${calls.filter((c) => c.name === 'fast').length}), ` +
        `doubles ${doubled(calls).length}, leases lost ${linesOf([steady, fast], 'lease-lost ').length}`,
    );
    assert.deepEqual(doubled(calls), [], 'no order delivered twice');
    assert.ok(passes, 'the fast process ran its passes');
    assert.ok(delivered, 'every order was delivered');
    assert.deepEqual(
      calls.filter((call) => call.name === 'fast'),
      [],
      'the fast process called no callback',
    );
    assert.deepEqual(linesOf([steady, fast], 'lease-lost '), []);
    assert.equal(sandbox.createdOrderCount, ORDERS);
    assert.ok(closed.every(Boolean), 'both processes closed');
  });

  it('25 h ahead: watches pending orders and sends none to onExpired', { timeout: 240_000 }, async (t) => {
    const cluster = await startPostgres();
    after(() => cluster.stop());
    const journalUrl = await cluster.createDatabase();
    // Payers who answer in two days: every order stays pending.
    const { url, counted } = await servedSandbox({ approveAfterMs: 48 * HOUR });
    const { callsFile } = scratchFiles();
    const base = { journalUrl, baseUrl: url, callsFile, watch: { intervalMs: 2_000 } };
    const shop = startDeliveryChild({ ...base, name: 'shop', orders: { from: 0, to: 19 } });
    assert.ok(await shop.waitFor('created-all', 60_000), 'the orders were created');
    // The shop stops watching: from here only the process whose clock is a day and an hour ahead does.
    shop.process.stdin?.write('close\n');
    assert.ok(await shop.waitFor('closed ', 20_000));
    const lookupsBefore = counted.lookups;
    const ahead = startDeliveryChild({ ...base, name: 'ahead', clockAheadMs: 25 * HOUR, ticks: 'loop' });
    // Each order due within an interval of its create: two lookups of each, then a pass more.
    const watched = await waitUntil(() => counted.lookups - lookupsBefore >= 40, 60_000);
    const tickedAfter = linesOf([ahead], 'ticked ').length;
    const onePassMore = await ahead.waitFor(`ticked ${tickedAfter + 1}`, 30_000);
    ahead.process.stdin?.write('close\n');
    await ahead.waitFor('closed ', 20_000);

    const client = new pg.Client({ connectionString: journalUrl });
    await client.connect();
    const phases = await client.query(
      'SELECT phase, count(*)::int AS n FROM pay_checkout_journal GROUP BY phase',
    );
    await client.end();
    const calls = readCalls(callsFile);
    t.diagnostic(
      `lookups by the process 25 h ahead: ${counted.lookups - lookupsBefore}; callback calls ${calls.length}; ` +
        `journal ${JSON.stringify(phases.rows)}`,
    );
    assert.deepEqual(calls, [], 'onExpired was not called');
    assert.deepEqual(linesOf([ahead], 'entered '), []);
    assert.ok(watched, 'the process ahead looked every order up');
    assert.ok(onePassMore);
    assert.deepEqual(phases.rows, [{ phase: 'watching', n: 20 }]);
  });
});
