/**
 * PostgreSQL dies while callbacks return (once a callback has
 * returned, it is never called again, whatever happens to the journal's
 * connection). Two relay processes share one PostgreSQL journal; every
 * `onPaid` does its work and waits at a gate. With every order's callback
 * waiting, the postmaster is killed with SIGKILL, the gates open (the
 * callbacks return to a journal that is gone), and the server is started
 * again. Each process asks the journal again to mark its deliveries while
 * its leases hold: every order is delivered once, none is lost.
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

const ORDERS = 60;
const LEASE_MS = 15_000;

describe('PostgreSQL killed while callbacks return', { skip: postgresSkipReason() }, () => {
  it('delivers every order once across two processes: marks are retried while the leases hold', {
    timeout: 300_000,
  }, async (t) => {
    // Durable, as in production: a commit acknowledged before the crash is there after it.
    const cluster = await startPostgres({ durable: true });
    after(() => cluster.stop());
    const journalUrl = await cluster.createDatabase();
    const { sandbox, url } = await servedSandbox({ approveAfterMs: 300 });
    const { callsFile } = scratchFiles();
    const base = {
      journalUrl,
      baseUrl: url,
      callsFile,
      gate: true,
      watch: { intervalMs: 2_000, leaseMs: LEASE_MS },
    };
    const fleet = [
      startDeliveryChild({ ...base, name: 'relay-a', orders: { from: 0, to: ORDERS / 2 - 1 } }),
      startDeliveryChild({ ...base, name: 'relay-b', orders: { from: ORDERS / 2, to: ORDERS - 1 } }),
    ];
    for (const relay of fleet)
      assert.ok(await relay.waitFor('created-all', 60_000), 'the orders were created');
    // Every order's callback waiting at the gate (or as many as there are after a bounded wait).
    await waitUntil(() => linesOf(fleet, 'held ').length === ORDERS, 30_000);
    const heldAtKill = linesOf(fleet, 'held ').length;
    assert.ok(heldAtKill > 0, 'callbacks waiting at the gate');

    const killedAt = performance.now();
    cluster.kill();
    for (const relay of fleet) relay.process.stdin?.write('release\n');
    await cluster.restart();
    const downMs = performance.now() - killedAt;
    const delivered = () => new Set(linesOf(fleet, 'delivered '));
    const allDelivered = await waitUntil(() => delivered().size === ORDERS, 120_000);
    const deliveredMs = performance.now() - killedAt;

    const client = new pg.Client({ connectionString: journalUrl });
    await client.connect();
    const undelivered = await client.query(
      'SELECT count(*)::int AS n FROM pay_checkout_journal WHERE delivered_at IS NULL',
    );
    await client.end();
    const calls = readCalls(callsFile);
    t.diagnostic(
      `${heldAtKill} callbacks returned while PostgreSQL was down ${Math.round(downMs)} ms; ${delivered().size} of ${ORDERS} orders marked delivered ` +
        `${Math.round(deliveredMs)} ms after the kill; ${calls.length} callback calls, doubles ${doubled(calls).length}; ` +
        `journal errors reported ${linesOf(fleet, 'error ').length}, leases lost ${linesOf(fleet, 'lease-lost ').length}`,
    );
    assert.deepEqual(doubled(calls), [], 'no order delivered twice');
    assert.ok(allDelivered, `${delivered().size} of ${ORDERS} orders marked delivered`);
    assert.equal(new Set(calls.map((call) => call.orderId)).size, ORDERS, 'none lost');
    assert.equal(undelivered.rows[0].n, 0, 'the journal holds every delivery');
    assert.equal(sandbox.createdOrderCount, ORDERS);
    assert.deepEqual(linesOf(fleet, 'lease-lost '), []);
  });
});
