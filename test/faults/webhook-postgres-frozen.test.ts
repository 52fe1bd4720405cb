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
import { waitUntil } from '../fixtures/delivery-faults.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { assertDeliveredOnceAcross } from '../fixtures/webhook-faults.js';

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
    await assertDeliveredOnceAcross(t, await cluster.createDatabase(), {
      breakJournal() {
        cluster.freeze();
        frozen = true;
      },
      async mendJournal(fleet) {
        // Held until the partition is felt by both: each has had a query time out.
        const felt = await waitUntil(
          () => fleet.every((relay) => relay.lines.some((line) => line.startsWith('error '))),
          60_000,
        );
        cluster.thaw();
        frozen = false;
        assert.ok(felt, 'both relays reported the journal failing while it was frozen');
      },
    });
  });
});
