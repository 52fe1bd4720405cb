/**
 * PostgreSQL dies while webhook answers come in (a database blip after the
 * receiver answered does not lead to a second send; no event is lost). Two
 * relay processes share one PostgreSQL journal (durable, as in production);
 * the receiver holds every request. With every event's request held, the
 * postmaster is killed with SIGKILL, the receiver answers them all with 200
 * (to relays whose journal is going), and the server is started again. The
 * killed server's backends live on for a moment, so a record may be written
 * and its answer lost, or be cut off half-way: each record is one
 * transaction, asked again while the lease holds, and one written already is
 * taken as written. Every event is recorded delivered after one attempt and
 * was received once. More orders made after the restart are delivered once
 * too.
 */
import { after, describe, it } from 'node:test';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { assertDeliveredOnceAcross } from '../fixtures/webhook-faults.js';

describe('PostgreSQL killed while webhook answers come in', { skip: postgresSkipReason() }, () => {
  it('records every answered attempt once the server is back: each event received once, none lost', {
    timeout: 120_000,
  }, async (t) => {
    const cluster = await startPostgres({ durable: true });
    after(() => cluster.stop());
    await assertDeliveredOnceAcross(t, await cluster.createDatabase(), {
      breakJournal: () => cluster.kill(),
      mendJournal: () => cluster.restart(),
    });
  });
});
