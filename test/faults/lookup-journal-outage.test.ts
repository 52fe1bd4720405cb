/**
 * PostgreSQL dies while a shopper's tab polls (lookups are
 * shared through the journal, and a journal that fails makes them go to the
 * service as without one). A relay with a PostgreSQL journal answers a tab's
 * lookups while the postmaster is killed with SIGKILL: each one from the
 * service, reported through `onEvent`, no 5xx, no crash; the payment approved
 * during the outage reaches the tab; once the database is back, the tab's
 * next poll settles the order in the journal and `onPaid` is called once. The relay's clock runs ahead by
 * hand past each shared read, so no test step waits on the wall clock.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createSandbox, SANDBOX_KEYS } from '../../src/sandbox/index.js';
import {
  type CheckoutRelayEvent,
  createCheckoutRelay,
  type FulfilledOrder,
  openJournal,
} from '../../src/server/node.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { CLIENT, createRequest, intent, LOOKUP_SECRET, lookupRequest, priceCart } from '../fixtures/relay.js';
import { clockAhead } from '../fixtures/relay-clock.js';
import { eventually } from '../fixtures/wait.js';

describe('PostgreSQL killed while a tab polls', { skip: postgresSkipReason() }, () => {
  it('answers every lookup from the service, reports the journal, and delivers once when it returns', {
    timeout: 120_000,
  }, async () => {
    // Durable, as in production: what was committed before the kill is there after it.
    const cluster = await startPostgres({ durable: true });
    after(() => cluster.stop());
    const databaseUrl = await cluster.createDatabase();
    const relayTime = clockAhead();
    // The journal reads the relay's clock, so a shared read ages as the tab's polls move it.
    const journal = await openJournal(databaseUrl, { clock: relayTime.clock });
    const sandbox = createSandbox({ approveAfterMs: 3_600_000 });
    let serviceLookups = 0;
    const events: CheckoutRelayEvent[] = [];
    const paid: FulfilledOrder[] = [];
    const relay = createCheckoutRelay({
      secretKey: SANDBOX_KEYS.secret,
      baseUrl: 'http://sandbox.invalid',
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (request.url.endsWith('/orders/lookup')) serviceLookups += 1;
        return sandbox.handle(request);
      },
      lookupSecret: LOOKUP_SECRET,
      priceCart,
      rateLimit: false,
      onEvent: (event) => {
        events.push(event);
      },
      journal,
      onPaid: (order) => {
        paid.push(order);
      },
      clock: relayTime.clock,
      watch: { ticks: false },
    });
    after(() => relay.close());

    const created = await relay.create(createRequest(intent()), CLIENT);
    assert.equal(created.status, 200);
    const { order, lookup_token } = (await created.json()) as { order: { id: string }; lookup_token: string };
    /** A tab's poll, a poll interval after the last: past the shared read. */
    const poll = async () => {
      relayTime.pastSharedReads();
      const answer = await relay.lookup(lookupRequest({ order_id: order.id, lookup_token }), CLIENT);
      assert.equal(answer.status, 200, await answer.clone().text());
      return ((await answer.json()) as { order: { payment: { status: string } } }).order.payment.status;
    };
    assert.equal(await poll(), 'requires_action');
    assert.equal(serviceLookups, 1);

    cluster.kill();
    await eventually('the database to refuse connections', async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      try {
        await client.connect();
        await client.end();
        return false;
      } catch {
        return true;
      }
    });
    assert.equal(await poll(), 'requires_action', 'answered from the service with the journal gone');
    sandbox.approve(order.id);
    assert.equal(await poll(), 'paid', 'the approval reaches the tab during the outage');
    assert.equal(serviceLookups, 3, 'one service call a poll: nothing shared without the journal');
    const reported = events.filter(
      (event) => event.type === 'watcher_error' && event.stage === 'browser_lookup',
    );
    assert.ok(reported.length >= 2, `${reported.length} journal failures reported`);
    assert.equal(paid.length, 0, 'nothing delivered while the journal is gone');

    await cluster.restart();
    // The tab's next poll settles the order in the journal, which delivers it.
    assert.equal(await poll(), 'paid', 'a final status answers without a call');
    assert.equal(serviceLookups, 3);
    await eventually('onPaid after the outage', () => paid.length === 1);
    await relay.fulfilment?.tick();
    assert.deepEqual(
      paid.map((delivered) => delivered.id),
      [order.id],
      'delivered once',
    );
  });
});
