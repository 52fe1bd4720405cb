/**
 * Clocks that jump on a fleet of two relays with webhooks (leases are on the
 * journal's clock, never a process's; a clock jump never loses an event nor
 * repeats one the receiver answered). Two relay processes share one
 * PostgreSQL journal; one starts 45 s ahead (more than a webhook lease). The
 * receiver holds every request, so each process's attempts are in flight
 * while the other runs its polls; then one jumps 45 s forward and the other
 * back to 45 s behind, both make more orders, and the receiver answers.
 *
 * Every event is delivered with one answered attempt. A request is sent again
 * only after an attempt that got no answer (a held request past its time
 * limit on a slow machine), and the journal records that attempt: a repeat
 * with no such record would be a lease taken by a clock.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { servedSandbox, waitUntil } from '../fixtures/delivery-faults.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import {
  closeOnceDelivered,
  countsOf,
  journalledEvents,
  startHeldReceiver,
  startWebhookChild,
} from '../fixtures/webhook-faults.js';

const ORDERS_EACH = 3;
const JUMP_MS = 45_000;

describe('a fleet of two relays whose clocks jump', { skip: postgresSkipReason() }, () => {
  it('forward and back while attempts are in flight: each event answered once', {
    timeout: 120_000,
  }, async (t) => {
    const cluster = await startPostgres();
    after(() => cluster.stop());
    const journalUrl = await cluster.createDatabase();
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const receiver = await startHeldReceiver();
    receiver.hold();
    const base = { journalUrl, baseUrl: url, receiverUrls: [receiver.url], orders: ORDERS_EACH };
    const steady = startWebhookChild(base);
    const fast = startWebhookChild({ ...base, aheadMs: JUMP_MS });
    const fleet = [steady, fast];
    const inFlight = await waitUntil(() => receiver.heldCount() >= 2 * ORDERS_EACH, 60_000);

    steady.process.stdin?.write(`ahead ${JUMP_MS}\n`);
    fast.process.stdin?.write(`ahead ${-JUMP_MS}\n`);
    for (const relay of fleet) relay.process.stdin?.write('create 1\n');
    const afterJump = await waitUntil(() => receiver.heldCount() >= 2 * ORDERS_EACH + 2, 60_000);
    receiver.release(200);
    for (const relay of fleet) relay.process.stdin?.write('create 2\n');
    const total = 2 * ORDERS_EACH + 6;
    const { delivered, allDelivered } = await closeOnceDelivered(fleet, total);

    const events = await journalledEvents(journalUrl);
    const received = countsOf(receiver.ids);
    const unanswered = (id: string) =>
      events.find((event) => event.id === id)?.deliveries[0]?.attempts.filter((one) => one.status === null)
        .length ?? 0;
    t.diagnostic(
      `${receiver.ids.length} requests for ${received.size} events; unanswered attempts recorded ` +
        `${events.reduce((sum, event) => sum + unanswered(event.id), 0)}; ${delivered.size} of ${total} delivered`,
    );
    assert.ok(inFlight, 'both processes had attempts in flight');
    assert.ok(afterJump, 'both sent after their jumps');
    assert.ok(allDelivered, `${delivered.size} of ${total} events delivered`);
    assert.equal(events.length, total);
    for (const event of events) {
      const statuses = event.deliveries[0]?.attempts.map((one) => one.status) ?? [];
      assert.equal(event.deliveries[0]?.state, 'delivered', `${event.id} delivered`);
      assert.deepEqual(
        statuses.filter((status) => status !== null),
        [200],
        `${event.id}: one answer`,
      );
      assert.equal(
        received.get(event.id),
        1 + unanswered(event.id),
        `${event.id}: sent again only after an attempt with no answer`,
      );
    }
  });
});
