/**
 * A slow or unreachable PostgreSQL journal never hangs a shopper, and the
 * watcher never takes the connections a shopper's request needs.
 *
 * Frozen: every PostgreSQL process is stopped with SIGSTOP (connections stay
 * open, nothing answers) while a browser-like client looks its orders up over
 * HTTP, paid ones included: each lookup is answered, from the service, well
 * within the shopper's patience (the relay waits for the journal 1.5 s in all).
 *
 * Starved: ten deliveries' writes wait on rows another client holds locked,
 * more than the watcher's connections; a shopper's lookup of another order
 * still reads and writes the journal at once, and `relay.orders.get` answers.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createSandbox, SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { type CheckoutRelayEvent, createCheckoutRelay, listen, openJournal } from '../../src/server/node.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { CLIENT, createRequest, intent, LOOKUP_SECRET, lookupRequest, priceCart } from '../fixtures/relay.js';
import { startSlowTcpProxy } from '../fixtures/slow-tcp-proxy.js';
import { eventually, gate } from '../fixtures/wait.js';

/** A generous bound on one lookup's answer: the relay's 1.5 s for the journal, the service's call, a busy machine. */
const ANSWER_DEADLINE_MS = 3_000;

/** A relay on a fresh PostgreSQL journal, calling an in-process sandbox whose payer approves only when told. */
async function relayOnPostgres(options: {
  ticks: boolean;
  onPaid?: () => Promise<void> | void;
  /** Reaches the database through a slow link. */
  slow?: boolean;
}) {
  const cluster = await startPostgres();
  after(() => {
    cluster.thaw();
    cluster.stop();
  });
  const databaseUrl = new URL(await cluster.createDatabase());
  const link = options.slow ? await startSlowTcpProxy(Number(databaseUrl.port)) : undefined;
  if (link) {
    after(() => link.close());
    databaseUrl.port = String(link.port);
  }
  const journal = await openJournal(databaseUrl.href);
  const sandbox = createSandbox({ approveAfterMs: 3_600_000 });
  const events: CheckoutRelayEvent[] = [];
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: 'http://sandbox.invalid',
    fetch: (input, init) => sandbox.handle(new Request(input, init)),
    lookupSecret: LOOKUP_SECRET,
    priceCart,
    rateLimit: false,
    onEvent: (event) => {
      events.push(event);
    },
    journal,
    onPaid: options.onPaid ?? (() => undefined),
    watch: { ticks: options.ticks, intervalMs: 2_000 },
  });
  after(() => relay.close());
  const checkout = async () => {
    const created = await relay.create(createRequest(intent()), CLIENT);
    assert.equal(created.status, 200);
    const body = (await created.json()) as { order: { id: string }; lookup_token: string };
    return { orderId: body.order.id, lookupToken: body.lookup_token };
  };
  return { cluster, sandbox, relay, events, checkout, link };
}

/** A browser's lookup over HTTP: its status and payment status, and how long its answer took. */
async function lookUpOver(url: string, { orderId, lookupToken }: { orderId: string; lookupToken: string }) {
  const sentAt = performance.now();
  const request = lookupRequest({ order_id: orderId, lookup_token: lookupToken });
  try {
    const answer = await fetch(`${url}/api/checkout/lookup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: await request.text(),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await answer.json()) as { order?: { payment: { status: string } } };
    return {
      orderId,
      status: answer.status,
      payment: body.order?.payment.status,
      ms: performance.now() - sentAt,
    };
  } catch (error) {
    return { orderId, status: 0, payment: String(error), ms: performance.now() - sentAt };
  }
}

describe('a PostgreSQL journal frozen or starved while shoppers look up', {
  skip: postgresSkipReason(),
}, () => {
  it('answers every lookup, paid orders included, within the deadline while PostgreSQL is frozen', {
    timeout: 120_000,
  }, async (t) => {
    const { cluster, sandbox, relay, checkout } = await relayOnPostgres({ ticks: true });
    const served = await listen(relay.node);
    after(() => served.close());
    const orders = [await checkout(), await checkout(), await checkout(), await checkout()];
    const paid = new Set(orders.slice(0, 2).map((order) => order.orderId));
    for (const orderId of paid) sandbox.approve(orderId);

    cluster.freeze();
    // Three polls of every order, the tabs all at once.
    const answers = [];
    for (let poll = 0; poll < 3; poll++)
      answers.push(...(await Promise.all(orders.map((order) => lookUpOver(served.url, order)))));
    cluster.thaw();
    t.diagnostic(
      `lookups with the journal frozen: ${answers.map((answer) => `${answer.status} ${Math.round(answer.ms)} ms`).join(', ')}`,
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200, `${answer.orderId}: ${answer.payment}`);
      assert.equal(answer.payment, paid.has(answer.orderId) ? 'paid' : 'requires_action');
      assert.ok(
        answer.ms < ANSWER_DEADLINE_MS,
        `${answer.orderId} answered after ${Math.round(answer.ms)} ms`,
      );
    }
  });

  it('answers every lookup, paid orders included, within the deadline while PostgreSQL answers 400 ms late each way', {
    timeout: 120_000,
  }, async (t) => {
    const { sandbox, relay, checkout, link } = await relayOnPostgres({ ticks: true, slow: true });
    const served = await listen(relay.node);
    after(() => served.close());
    const orders = [];
    for (let index = 0; index < 8; index++) orders.push(await checkout());
    const paid = new Set(orders.slice(0, 4).map((order) => order.orderId));
    for (const orderId of paid) sandbox.approve(orderId);

    if (link) link.delayMs = 400;
    const answers = [];
    for (let poll = 0; poll < 3; poll++)
      answers.push(...(await Promise.all(orders.map((order) => lookUpOver(served.url, order)))));
    if (link) link.delayMs = 0;
    t.diagnostic(
      `lookups with the journal slow: ${answers.map((answer) => `${answer.status} ${Math.round(answer.ms)} ms`).join(', ')}`,
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200, `${answer.orderId}: ${answer.payment}`);
      assert.equal(answer.payment, paid.has(answer.orderId) ? 'paid' : 'requires_action');
      assert.ok(
        answer.ms < ANSWER_DEADLINE_MS,
        `${answer.orderId} answered after ${Math.round(answer.ms)} ms`,
      );
    }
  });

  it('keeps the requests’ connections free while the watcher’s writes wait on locked rows', {
    timeout: 120_000,
  }, async () => {
    const callbacks = gate();
    let entered = 0;
    const { cluster, sandbox, relay, events, checkout } = await relayOnPostgres({
      ticks: false,
      onPaid: async () => {
        entered += 1;
        await callbacks.promise;
      },
    });
    const delivering: { orderId: string; lookupToken: string }[] = [];
    for (let index = 0; index < 10; index++) delivering.push(await checkout());
    const other = await checkout();
    // Each paid order settled by a tab's lookup, which starts its delivery at once.
    for (const { orderId, lookupToken } of delivering) {
      sandbox.approve(orderId);
      const answer = await relay.lookup(
        lookupRequest({ order_id: orderId, lookup_token: lookupToken }),
        CLIENT,
      );
      assert.equal(answer.status, 200);
    }
    await eventually('every paid order’s callback to start', () => entered === delivering.length, {
      timeoutMs: 30_000,
    });

    // Another client holds the delivered orders' rows: the marks that follow wait on it.
    const locker = new pg.Client({ connectionString: cluster.url('journal_1') });
    await locker.connect();
    after(() => locker.end());
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM pay_checkout_journal WHERE order_id = ANY($1) FOR UPDATE', [
      delivering.map((order) => order.orderId),
    ]);
    callbacks.open();
    await eventually('the watcher’s writes to wait on the locks', async () => {
      const waiting = await locker.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
      );
      return (waiting.rows[0] as { n: number }).n >= 2;
    });

    const lookup = await relay.lookup(
      lookupRequest({ order_id: other.orderId, lookup_token: other.lookupToken }),
      CLIENT,
    );
    const read = await Promise.race([
      relay.orders.get(other.orderId),
      new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ANSWER_DEADLINE_MS)),
    ]);
    await locker.query('ROLLBACK');
    await eventually('every delivery to be marked', () =>
      delivering.every(({ orderId }) =>
        events.some((event) => event.type === 'order_delivered' && event.orderId === orderId),
      ),
    );

    assert.equal(lookup.status, 200);
    assert.deepEqual(
      events.filter((event) => event.type === 'watcher_error' && event.stage === 'browser_lookup'),
      [],
      'the lookup had the journal: no connection was left for it to wait on',
    );
    assert.notEqual(read, 'late', 'relay.orders.get answered while the watcher waited');
    assert.equal(read !== 'late' && read?.outcome, 'pending');
  });
});
