/**
 * One service lookup per order, whoever asks, counted where it
 * matters: at a real sandbox served over loopback HTTP, which the relays call
 * with their default transport. Tabs and watcher passes run on a clock the
 * test moves, so half a minute of polling takes no waiting: concurrent
 * lookups share one call; tabs and the watcher share a read within 2 s; two
 * relays on one journal (an SQLite file, and PostgreSQL where installed)
 * share through it; and a payment approved while tabs poll reaches every tab
 * within a poll interval and 1 s.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  type CheckoutRelayEvent,
  type Journal,
  type JournalClock,
  openJournal,
} from '../../src/server/index.js';
import { JOURNAL_ANSWER_LIMIT_MS } from '../../src/server/lookups/journal-sharing.js';
import { BROWSER_READ_AGE_MS } from '../../src/server/lookups/order-lookups.js';
import { checkoutThrough, countedService, pollFor } from '../fixtures/counted-service.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { eventually, gate } from '../fixtures/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-lookup-sharing-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

/** A new SQLite journal file, and a second connection to it as another relay process opens it. */
async function sqliteJournals(clock: JournalClock): Promise<[Journal, Journal]> {
  files += 1;
  const url = `sqlite:${join(scratch, `journal-${files}.db`)}`;
  return [await openJournal(url, { clock }), await openJournal(url, { clock })];
}

/** Five tabs polling every 2 s, spread evenly over the interval. */
const FIVE_OFFSETS = [0, 400, 800, 1_200, 1_600];
const POLL_MS = 2_000;
const HALF_A_MINUTE = 30_000;

describe('lookups shared across tabs, the watcher and a fleet', () => {
  it('20 concurrent lookups of one order make one service call', async (t) => {
    const service = await countedService();
    const [journal] = await sqliteJournals(service.journalClock);
    const relay = service.relay(journal);
    const order = await checkoutThrough(relay);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => order.poll()));
    assert.deepEqual(new Set(statuses), new Set(['requires_action']));
    t.diagnostic(`service lookups: ${service.lookupsOf(order.orderId)}`);
    assert.equal(service.lookupsOf(order.orderId), 1);
  });

  it('5 tabs polling every 2 s and the watcher, for 30 s: at most one service lookup per 2 s', async (t) => {
    const service = await countedService();
    const [journal] = await sqliteJournals(service.journalClock);
    const relay = service.relay(journal);
    const order = await checkoutThrough(relay);
    const seen = await pollFor(service, order.poll, {
      tabs: FIVE_OFFSETS.map((offsetMs) => ({ relay, offsetMs })),
      watchers: [{ relay, offsetMs: 1_000 }],
      durationMs: HALF_A_MINUTE,
      pollMs: POLL_MS,
    });
    assert.equal(seen.flat().length, 76, 'every tab was answered at every poll');
    t.diagnostic(`service lookups: ${service.lookupsOf(order.orderId)}`);
    // 0, 2, 4… 30 s: sixteen windows of 2 s, one lookup each.
    assert.ok(service.lookupsOf(order.orderId) <= 16, `${service.lookupsOf(order.orderId)} lookups`);
  });

  it('a journal that does not answer makes a lookup call the service after 1.5 s, and is reported', async () => {
    const service = await countedService();
    const [journal] = await sqliteJournals(service.journalClock);
    const events: CheckoutRelayEvent[] = [];
    const relay = service.relay(journal, { onEvent: (event) => void events.push(event) });
    const order = await checkoutThrough(relay);
    // The database host froze: the journal answers only once the test lets it, at the end.
    const frozen = gate();
    const shareLookup = journal.shareLookup.bind(journal);
    journal.shareLookup = async (...args) => {
      await frozen.promise;
      return shareLookup(...args);
    };
    const waiting = service.relayClock.nextTimer();
    const answer = order.poll();
    await waiting;
    assert.equal(service.lookupsOf(order.orderId), 0, 'waiting on the journal');
    service.time.now += JOURNAL_ANSWER_LIMIT_MS;
    service.relayClock.runDue();
    assert.equal(await answer, 'requires_action');
    assert.equal(service.lookupsOf(order.orderId), 1);
    const reported = events.filter(
      (event) => event.type === 'watcher_error' && event.stage === 'browser_lookup',
    );
    assert.equal(reported.length, 1);
    frozen.open();
  });

  it('two relays on one journal call the service once for a new order before its first lookup is recorded', async () => {
    // A slow service: the first lookup stays in flight until the test lets it answer.
    const slow = gate();
    const service = await countedService({ held: slow.promise });
    const [first, second] = await sqliteJournals(service.journalClock);
    const one = service.relay(first);
    const two = service.relay(second);
    const order = await checkoutThrough(one);
    const inFlight = order.poll(one);
    await eventually('the first lookup to reach the service', () => service.lookupsOf(order.orderId) === 1);
    // The other member's tab polls while that lookup is in flight and nothing is recorded yet.
    const answered = order.poll(two).then((status) => ({ status }));
    const outcome = await Promise.race([
      answered,
      eventually('a second lookup at the service', () => service.lookupsOf(order.orderId) >= 2).then(
        () => 'called the service',
      ),
    ]);
    assert.deepEqual(outcome, { status: 'requires_action' }, 'answered from the create, without a call');
    assert.equal(service.lookupsOf(order.orderId), 1);
    slow.open();
    assert.equal(await inFlight, 'requires_action');
    assert.equal(service.lookupsOf(order.orderId), 1, 'one service call per order across the fleet');
  });

  const fleets = [
    ['an SQLite file', sqliteJournals],
    [
      'PostgreSQL',
      async (clock: JournalClock): Promise<[Journal, Journal]> => {
        const cluster = await startPostgres();
        after(() => cluster.stop());
        const url = await cluster.createDatabase();
        return [await openJournal(url, { clock }), await openJournal(url, { clock })];
      },
    ],
  ] as const;
  for (const [store, journals] of fleets) {
    it(`two relays on ${store}, 3 tabs each and both watchers, for 30 s: at most one lookup per 2 s`, {
      skip: store === 'PostgreSQL' ? postgresSkipReason() : undefined,
    }, async (t) => {
      const service = await countedService();
      const [first, second] = await journals(service.journalClock);
      const relays = [service.relay(first), service.relay(second)];
      const [one, two] = relays as [(typeof relays)[0], (typeof relays)[0]];
      const order = await checkoutThrough(one);
      const seen = await pollFor(service, order.poll, {
        tabs: [0, 700, 1_400].flatMap((offsetMs) => [
          { relay: one, offsetMs },
          { relay: two, offsetMs: offsetMs + 300 },
        ]),
        watchers: [
          { relay: one, offsetMs: 0 },
          { relay: two, offsetMs: 1_500 },
        ],
        durationMs: HALF_A_MINUTE,
        pollMs: POLL_MS,
      });
      assert.ok(seen.every((answers) => answers.length >= 14));
      t.diagnostic(`service lookups: ${service.lookupsOf(order.orderId)}`);
      assert.ok(service.lookupsOf(order.orderId) <= 16, `${service.lookupsOf(order.orderId)} lookups`);
    });
  }

  it('a payment approved while 5 tabs poll reaches every tab within a poll interval and 1 s', async (t) => {
    // Approved at five moments across one 2 s cycle of shared reads (a read at every 2 s from the create).
    for (const approveAfterMs of [8_050, 8_450, 8_850, 9_250, 9_650]) {
      const service = await countedService({ approveAfterMs });
      const [journal] = await sqliteJournals(service.journalClock);
      const relay = service.relay(journal);
      const approvedAt = service.time.now + approveAfterMs;
      const order = await checkoutThrough(relay);
      const seen = await pollFor(service, order.poll, {
        tabs: FIVE_OFFSETS.map((offsetMs) => ({ relay, offsetMs })),
        watchers: [{ relay, offsetMs: 1_000 }],
        durationMs: 14_000,
        pollMs: POLL_MS,
      });
      const delays = seen.map((answers) => {
        const paid = answers.find((answer) => answer.status === 'paid');
        assert.ok(paid, 'the tab saw paid');
        assert.ok(answers.every((answer) => answer.at >= paid.at === (answer.status === 'paid')));
        return paid.at - approvedAt;
      });
      t.diagnostic(`approved at ${approveAfterMs} ms: each tab saw paid ${delays.join(', ')} ms after`);
      for (const delay of delays) assert.ok(delay <= POLL_MS + BROWSER_READ_AGE_MS, `seen ${delay} ms after`);
      // The tab whose poll made the read saw it with that poll.
      assert.ok(Math.min(...delays) <= POLL_MS, `${delays}`);
    }
  });
});
