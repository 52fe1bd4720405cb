/**
 * What every journal promises the shared lookups (contract §7), on each real
 * store: memory, an SQLite file, and PostgreSQL where installed. A fresh
 * status answers; a stale one is claimed by one lookup, which moves the
 * watcher's next check; the watcher's lease counts as a lookup in flight; a
 * final status answers for good; and only statuses are kept. Times are the
 * test's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'libsql';
import pg from 'pg';
import { type Journal, openJournal } from '../../src/server/index.js';
import type { MemoryJournal } from '../../src/server/journal/memory-journal.js';
import { CUSTOMER_NAME, LOCAL_NUMBER } from '../fixtures/checkout-data.js';
import { keyOf, recordWatchedOrder, T0 } from '../fixtures/journal-contract.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-journal-lookups-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** One store: two journals on it (two relay processes), and its raw rows. */
interface Store {
  journals: [Journal, Journal];
  rawRows(): Promise<Record<string, unknown>[]>;
}

let cluster: Awaited<ReturnType<typeof startPostgres>> | undefined;
const stores: [string, () => Promise<Store>, string | undefined][] = [
  [
    'memory:',
    async () => {
      const journal = await openJournal('memory:');
      return {
        journals: [journal, journal],
        rawRows: async () => [...(journal as MemoryJournal).rawRows()] as Record<string, unknown>[],
      };
    },
    undefined,
  ],
  [
    'sqlite:',
    async () => {
      const path = join(scratch, `${crypto.randomUUID()}.db`);
      const journals: [Journal, Journal] = [
        await openJournal(`sqlite:${path}`),
        await openJournal(`sqlite:${path}`),
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
    async () => {
      cluster ??= await startPostgres();
      const url = await cluster.createDatabase();
      const journals: [Journal, Journal] = [await openJournal(url), await openJournal(url)];
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

const SHARING = { freshMs: 2_000 };
const PENDING = {
  orderStatus: 'requires_payment',
  paymentStatus: 'requires_action',
  failureCode: null,
  completedAt: null,
};

for (const [name, open, skip] of stores) {
  describe(`${name} journal: shared lookups`, { skip }, () => {
    it('an order it does not hold is unknown', async () => {
      const { journals } = await open();
      const [journal] = journals;
      assert.deepEqual(await journal.shareLookup('or_nobody', { ...SHARING, now: T0, watchAgainAt: T0 }), {
        kind: 'unknown',
      });
      await journal.recordLookup('or_nobody', { statuses: PENDING, readAt: T0 });
    });

    it('one lookup claims a stale order, in any process; the others find it taken until it records', async () => {
      const { journals } = await open();
      const [one, two] = journals;
      await recordWatchedOrder(one, 1);
      const at = T0 + 1_000;
      const ask = (journal: Journal, now: number) =>
        journal.shareLookup('or_1', { ...SHARING, now, watchAgainAt: now + 3_000 });
      assert.deepEqual(await ask(one, at), { kind: 'claimed', stored: undefined });
      assert.deepEqual(await ask(two, at + 500), { kind: 'taken', stored: undefined });
      await one.recordLookup('or_1', { statuses: PENDING, readAt: at });
      assert.deepEqual(await ask(two, at + 1_999), {
        kind: 'fresh',
        stored: { statuses: PENDING, readAt: at },
      });
      assert.deepEqual(await ask(two, at + 2_000), {
        kind: 'claimed',
        stored: { statuses: PENDING, readAt: at },
      });
      assert.deepEqual(await ask(one, at + 2_000), {
        kind: 'taken',
        stored: { statuses: PENDING, readAt: at },
      });
    });

    it('a claimed lookup moves the watcher’s next check; a watcher holding the lease is the lookup', async () => {
      const { journals } = await open();
      const [journal] = journals;
      await recordWatchedOrder(journal, 1);
      await journal.shareLookup('or_1', { ...SHARING, now: T0 + 2_500, watchAgainAt: T0 + 5_500 });
      const claim = (now: number) => journal.claimDue('watcher', { now, limit: 5, leaseMs: 30_000 });
      assert.deepEqual(await claim(T0 + 5_499), [], 'not due before the browser’s lookup has aged');
      assert.equal((await claim(T0 + 5_500)).length, 1);
      assert.deepEqual(
        await journal.shareLookup('or_1', { ...SHARING, now: T0 + 9_000, watchAgainAt: T0 + 12_000 }),
        { kind: 'taken', stored: undefined },
        'the watcher’s lease is a lookup in flight',
      );
      await journal.recordLookup('or_1', { statuses: PENDING, readAt: T0 + 5_500 });
      await journal.recordChecked(keyOf(1), 'watcher', {
        paymentStatus: 'requires_action',
        now: T0 + 5_600,
        nextCheckAt: T0 + 8_500,
      });
      assert.equal(
        (await journal.shareLookup('or_1', { ...SHARING, now: T0 + 9_000, watchAgainAt: T0 + 12_000 })).kind,
        'claimed',
      );
    });

    it('a final status answers for good; an older lookup never replaces a newer one', async () => {
      const { journals, rawRows } = await open();
      const [journal] = journals;
      await recordWatchedOrder(journal, 1);
      const failed = {
        orderStatus: 'requires_payment',
        paymentStatus: 'failed',
        failureCode: 'declined',
        completedAt: null,
      };
      await journal.recordLookup('or_1', { statuses: failed, readAt: T0 + 4_000 });
      await journal.recordLookup('or_1', { statuses: PENDING, readAt: T0 + 3_000 });
      assert.deepEqual(
        await journal.shareLookup('or_1', { ...SHARING, now: T0 + 86_400_000, watchAgainAt: T0 }),
        { kind: 'fresh', stored: { statuses: failed, readAt: T0 + 4_000 } },
      );
      const [row] = await rawRows();
      const kept = JSON.stringify(row);
      for (const personal of [CUSTOMER_NAME, LOCAL_NUMBER.slice(1)]) assert.ok(!kept.includes(personal));
      assert.equal(row?.lookup_failure_code, 'declined');
    });
  });
}
