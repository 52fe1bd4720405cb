/**
 * PostgreSQL frozen while webhook answers come in: a partition that sends no
 * reset, where every query waits out its bound instead of failing at once.
 * Two relay processes share one PostgreSQL journal; the receiver holds every
 * request. With every event's request held, the postmaster and its backends
 * are stopped (SIGSTOP), the receiver answers them all with 200, and the
 * server is let go once both processes have reported the journal failing.
 * A record cut off by its time-out is rolled back whole, and asked again
 * while the lease holds: every event is recorded delivered after one
 * attempt and was received once. More orders made after the thaw are
 * delivered once too.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { linesOf, servedSandbox, waitUntil } from '../fixtures/delivery-faults.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import {
  countsOf,
  deliveryStates,
  journalledEvents,
  startHeldReceiver,
  startWebhookChild,
} from '../fixtures/webhook-faults.js';

const ORDERS_EACH = 5;

describe('PostgreSQL frozen while webhook answers come in', { skip: postgresSkipReason() }, () => {
  it('records every answered attempt once the server thaws: each event received once, none lost', {
    timeout: 120_000,
  }, async (t) => {
    const cluster = await startPostgres();
    let frozen = false;
    after(() => {
      if (frozen) cluster.thaw();
      cluster.stop();
    });
    const journalUrl = await cluster.createDatabase();
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const receiver = await startHeldReceiver();
    receiver.hold();
    const base = { journalUrl, baseUrl: url, receiverUrls: [receiver.url], orders: ORDERS_EACH };
    const fleet = [startWebhookChild(base), startWebhookChild(base)];
    const allHeld = await waitUntil(() => receiver.heldCount() === 2 * ORDERS_EACH, 60_000);
    assert.ok(allHeld, `${receiver.heldCount()} of ${2 * ORDERS_EACH} requests held`);

    cluster.freeze();
    frozen = true;
    receiver.release(200);
    // Held until the partition is felt by both: each has had a query time out.
    const felt = await waitUntil(
      () => fleet.every((relay) => relay.lines.some((line) => line.startsWith('error '))),
      60_000,
    );
    cluster.thaw();
    frozen = false;
    assert.ok(felt, 'both relays reported the journal failing while it was frozen');
    for (const relay of fleet) relay.process.stdin?.write('create 2\n');
    const total = 2 * ORDERS_EACH + 4;
    const delivered = () => new Set(linesOf(fleet, 'delivered ').map((line) => line.split(' ')[0]));
    const allDelivered = await waitUntil(() => delivered().size === total, 60_000);
    for (const relay of fleet) relay.process.stdin?.write('close\n');
    await Promise.all(fleet.map((relay) => relay.waitFor('closed', 30_000)));

    const states = deliveryStates(await journalledEvents(journalUrl));
    const received = countsOf(receiver.ids);
    t.diagnostic(
      `${receiver.ids.length} requests for ${received.size} events; ${delivered().size} of ${total} recorded delivered; ` +
        `journal errors reported ${linesOf(fleet, 'error ').length}`,
    );
    assert.ok(allDelivered, `${delivered().size} of ${total} events recorded delivered`);
    assert.equal(states.size, total, 'every event journalled');
    for (const [id, state] of states) {
      assert.equal(state, 'delivered 200', `${id}: one attempt recorded, the one answered`);
      assert.equal(received.get(id), 1, `${id} received once`);
    }
  });
});
