/**
 * What every journal promises the shared lookups, on each real
 * store: memory, an SQLite file, and PostgreSQL where installed. A fresh
 * status answers; a stale one is claimed by one lookup, which moves the
 * watcher's next check; the watcher's lease counts as a lookup in flight; a
 * final status answers for good; and only statuses and the amount charged
 * are kept. Each store keeps time by a clock the test moves by hand.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'libsql';
import pg from 'pg';
import { type Journal, type JournalClock, openJournal } from '../../../src/server/index.js';
import type { MemoryJournal } from '../../../src/server/journal/memory-journal.js';
import { CUSTOMER_NAME, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { keyOf, recordWatchedOrder, T0 } from '../../fixtures/journal-contract.js';
import { postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-journal-lookups-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** One store: two journals on it (two relay processes), and its raw rows. */
interface Store {
  journals: [Journal, Journal];
  rawRows(): Promise<Record<string, unknown>[]>;
}

let cluster: Awaited<ReturnType<typeof startPostgres>> | undefined;
const stores: [string, (clock: JournalClock) => Promise<Store>, string | undefined][] = [
  [
    'memory:',
    async (clock) => {
      const journal = await openJournal('memory:', { clock });
      return {
        journals: [journal, journal],
        rawRows: async () => [...(journal as MemoryJournal).rawRows()] as Record<string, unknown>[],
      };
    },
    undefined,
  ],
  [
    'sqlite:',
    async (clock) => {
      const path = join(scratch, `${crypto.randomUUID()}.db`);
      const journals: [Journal, Journal] = [
        await openJournal(`sqlite:${path}`, { clock }),
        await openJournal(`sqlite:${path}`, { clock }),
      ];
      const rawRows = async () => {
        const connection = new Database(path, { readonly: true });
        try {
          return connection.prepare('SELECT * FROM pay_checkout_journal').all() as Record<string, unknown>[];
        } finally {
          connection.close();
        }
      };
      return { journals, rawRows };
    },
    undefined,
  ],
  [
    'postgres:',
    async (clock) => {
      cluster ??= await startPostgres();
      const url = await cluster.createDatabase();
      const journals: [Journal, Journal] = [
        await openJournal(url, { clock }),
        await openJournal(url, { clock }),
      ];
      const rawRows = async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return (await client.query('SELECT * FROM pay_checkout_journal')).rows;
        } finally {
          await client.end();
        }
      };
      return { journals, rawRows };
    },
    postgresSkipReason(),
  ],
];
after(() => cluster?.stop());

const SHARING = { freshMs: 2_000, watchAgainInMs: 3_000 };
const PENDING = {
  orderStatus: 'requires_payment',
  paymentStatus: 'requires_action',
  failureCode: null,
  completedAt: null,
  amount: { currency: 'ghs', value: 5_000 },
};

/** What the create's answer left on a watched order: its statuses, before any lookup (no total journalled here). */
const AS_CREATED = { ...PENDING, amount: null };

for (const [name, openStore, skip] of stores) {
  describe(`${name} journal: shared lookups`, { skip }, () => {
    /** The store, its journals on a clock at `T0` that `at(…)` moves. */
    const open = async () => {
      const time = { now: T0 };
      const store = await openStore({ now: () => time.now });
      const at = (now: number) => {
        time.now = now;
      };
      return { ...store, at };
    };

    it('an order it does not hold is unknown', async () => {
      const { journals } = await open();
      const [journal] = journals;
      assert.deepEqual(await journal.shareLookup('or_nobody', SHARING), { kind: 'unknown' });
      await journal.recordLookup('or_nobody', { statuses: PENDING, sinceReadMs: 0 });
    });

    it('one lookup claims a stale order, in any process; the others find it taken until it records', async () => {
      const { journals, at } = await open();
      const [one, two] = journals;
      await recordWatchedOrder(one, 1);
      const readAt = T0 + 1_000;
      const ask = (journal: Journal, now: number) => {
        at(now);
        return journal.shareLookup('or_1', SHARING);
      };
      assert.deepEqual(await ask(one, readAt), { kind: 'claimed', stored: undefined });
      // Before any lookup is recorded, the create's answer stands for one: the others call nobody.
      assert.deepEqual(await ask(two, readAt + 500), {
        kind: 'taken',
        stored: { statuses: AS_CREATED, ageMs: 1_500 },
      });
      await one.recordLookup('or_1', { statuses: PENDING, sinceReadMs: 500 });
      assert.deepEqual(await ask(two, readAt + 1_999), {
        kind: 'fresh',
        stored: { statuses: PENDING, ageMs: 1_999 },
      });
      assert.deepEqual(await ask(two, readAt + 2_000), {
        kind: 'claimed',
        stored: { statuses: PENDING, ageMs: 2_000 },
      });
      assert.deepEqual(await ask(one, readAt + 2_000), {
        kind: 'taken',
        stored: { statuses: PENDING, ageMs: 2_000 },
      });
    });

    it('a claimed lookup moves the watcher’s next check; a watcher holding the lease is the lookup', async () => {
      const { journals, at } = await open();
      const [journal] = journals;
      await recordWatchedOrder(journal, 1);
      at(T0 + 2_500);
      await journal.shareLookup('or_1', SHARING);
      const claim = (now: number) => {
        at(now);
        return journal.claimDue('watcher', { limit: 5, leaseMs: 30_000 });
      };
      assert.deepEqual(await claim(T0 + 5_499), [], 'not due before the browser’s lookup has aged');
      assert.equal((await claim(T0 + 5_500)).length, 1);
      at(T0 + 9_000);
      assert.deepEqual(
        await journal.shareLookup('or_1', SHARING),
        { kind: 'taken', stored: { statuses: AS_CREATED, ageMs: 9_000 } },
        'the watcher’s lease is a lookup in flight',
      );
      at(T0 + 5_600);
      await journal.recordLookup('or_1', { statuses: PENDING, sinceReadMs: 100 });
      await journal.recordChecked(keyOf(1), 'watcher', {
        paymentStatus: 'requires_action',
        nextCheckInMs: 2_900,
      });
      at(T0 + 9_000);
      assert.equal((await journal.shareLookup('or_1', SHARING)).kind, 'claimed');
    });

    it('a lookup still in flight holds its claim: no other is claimed while it renews', async () => {
      const { journals, at } = await open();
      const [first, second] = journals;
      await recordWatchedOrder(first, 1);
      at(T0 + 2_500);
      assert.equal((await first.shareLookup('or_1', SHARING)).kind, 'claimed');
      at(T0 + 3_750);
      await first.holdLookupClaim('or_1');
      at(T0 + 5_000);
      assert.equal((await second.shareLookup('or_1', SHARING)).kind, 'taken', 'renewed 1.25 s ago');
      at(T0 + 5_750);
      assert.equal((await second.shareLookup('or_1', SHARING)).kind, 'claimed', 'not renewed for 2 s');
    });

    it('a final status answers for good; an older lookup never replaces a newer one', async () => {
      const { journals, rawRows, at } = await open();
      const [journal] = journals;
      await recordWatchedOrder(journal, 1);
      const failed = {
        orderStatus: 'requires_payment',
        paymentStatus: 'failed',
        failureCode: 'declined',
        completedAt: null,
        amount: null,
      };
      at(T0 + 4_000);
      await journal.recordLookup('or_1', { statuses: failed, sinceReadMs: 0 });
      await journal.recordLookup('or_1', { statuses: PENDING, sinceReadMs: 1_000 });
      at(T0 + 86_400_000);
      assert.deepEqual(await journal.shareLookup('or_1', SHARING), {
        kind: 'fresh',
        stored: { statuses: failed, ageMs: 86_400_000 - 4_000 },
      });
      const [row] = await rawRows();
      const kept = JSON.stringify(row);
      for (const personal of [CUSTOMER_NAME, LOCAL_NUMBER.slice(1)]) assert.ok(!kept.includes(personal));
      assert.equal(row?.lookup_failure_code, 'declined');
    });

    it('keeps the amount charged with the statuses', async () => {
      const { journals, at } = await open();
      const [journal] = journals;
      await recordWatchedOrder(journal, 1);
      at(T0 + 1_000);
      await journal.recordLookup('or_1', { statuses: PENDING, sinceReadMs: 0 });
      at(T0 + 1_500);
      assert.deepEqual(await journal.shareLookup('or_1', SHARING), {
        kind: 'fresh',
        stored: { statuses: PENDING, ageMs: 500 },
      });
    });
  });
}
