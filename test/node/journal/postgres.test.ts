/**
 * The journal contract on a real PostgreSQL cluster started for this file,
 * then what only a fleet needs: processes that open (and migrate) at once,
 * many claimers that never take the same order, a connection cut under the
 * journal. Every test gets a database of its own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type Journal, openJournal } from '../../../src/server/index.js';
import { LATEST_JOURNAL_VERSION } from '../../../src/server/journal/migrations.js';
import {
  journalClockContract,
  journalContract,
  keyOf,
  recordWatchedOrder,
} from '../../fixtures/journal-contract.js';
import { type PostgresCluster, postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';

const skip = postgresSkipReason();
let cluster: PostgresCluster | undefined;

/** Every row of `table`, read with a connection of its own. */
async function readRows(url: string, table = 'pay_checkout_journal'): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(`SELECT * FROM ${table} ORDER BY 1`)).rows;
  } finally {
    await client.end();
  }
}

function requireCluster(): PostgresCluster {
  if (!cluster) throw new Error('The PostgreSQL cluster did not start.');
  return cluster;
}

describe('postgres:// journal', { skip }, () => {
  before(async () => {
    cluster = await startPostgres();
  });
  after(() => cluster?.stop());

  journalContract('postgres://', {
    async fresh(clock) {
      const url = await requireCluster().createDatabase();
      const opened: Journal[] = [];
      const open = async () => {
        // A second journal is a second pool: its own connections, as another process has.
        const journal = await openJournal(url, { clock });
        opened.push(journal);
        return journal;
      };
      return {
        journal: await open(),
        openAnother: open,
        rawRows: () => readRows(url),
        dispose: async () => {
          for (const journal of opened) await journal.close();
        },
      };
    },
  });

  journalClockContract('postgres://', async () => {
    const url = await requireCluster().createDatabase();
    const opened: Journal[] = [];
    const open = async () => {
      const journal = await openJournal(url);
      opened.push(journal);
      return journal;
    };
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    return {
      journal: await open(),
      openAnother: open,
      storeNow: async () =>
        Number((await admin.query('SELECT (EXTRACT(EPOCH FROM now()) * 1000)::bigint AS now')).rows[0].now),
      dispose: async () => {
        await admin.end();
        for (const journal of opened) await journal.close();
      },
    };
  });

  const childScript = fileURLToPath(new URL('../../fixtures/journal-child.ts', import.meta.url));

  /** Runs the child relay with `args` and resolves with its output once it exits cleanly. */
  async function runChild(...args: string[]): Promise<string> {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, `the child relay exited with ${code}`);
    return output;
  }

  describe('in a fleet', () => {
    it('migrates once when several processes open a new journal at the same moment', async () => {
      const url = await requireCluster().createDatabase();
      const outputs = await Promise.all(Array.from({ length: 4 }, () => runChild('open', url)));
      assert.deepEqual(outputs, Array(4).fill('opened\n'));
      const versions = (await readRows(url, 'pay_checkout_journal_migrations')).map((row) => row.version);
      assert.deepEqual(versions, [1, 2, 3, 4, 5, 6, 7]);
      await (await openJournal(url)).close();
      assert.equal(
        (await readRows(url, 'pay_checkout_journal_migrations')).length,
        versions.length,
        'no version applied twice',
      );
    });

    it('never gives one order to two of many claimers, and leaves none out', async () => {
      const url = await requireCluster().createDatabase();
      const journals = await Promise.all(Array.from({ length: 4 }, () => openJournal(url)));
      const [first] = journals;
      assert.ok(first);
      for (let n = 0; n < 100; n += 1) await recordWatchedOrder(first, n, { nextCheckInMs: 0 });
      const claimedBy = new Map<string, string>();
      await Promise.all(
        journals.map(async (journal, index) => {
          const owner = `relay-${index}`;
          for (;;) {
            const claimed = await journal.claimDue(owner, { limit: 7, leaseMs: 30_000 });
            if (claimed.length === 0) return;
            for (const entry of claimed) {
              assert.equal(
                claimedBy.get(entry.idempotencyKey),
                undefined,
                `${entry.idempotencyKey} claimed twice`,
              );
              claimedBy.set(entry.idempotencyKey, owner);
            }
          }
        }),
      );
      assert.equal(claimedBy.size, 100);
      for (const journal of journals) await journal.close();
    });

    it('keeps what a process committed before it was killed with SIGKILL', async () => {
      const url = await requireCluster().createDatabase();
      const child = spawn(process.execPath, ['--import', 'tsx', childScript, 'record-and-hang', url, '9'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.stdout.setEncoding('utf8');
      for await (const chunk of child.stdout) if (String(chunk).includes('committed')) break;
      child.kill('SIGKILL');
      await once(child, 'exit');
      const journal = await openJournal(url);
      const entry = await journal.get(keyOf(9));
      assert.equal(entry?.phase === 'watching' && entry.orderId, 'or_9');
      await journal.close();
    });

    it('carries on after the database cuts its connections', async () => {
      const url = await requireCluster().createDatabase();
      const journal = await openJournal(url);
      await recordWatchedOrder(journal, 1);
      const admin = new pg.Client({ connectionString: requireCluster().url('postgres') });
      await admin.connect();
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pay-checkout journal'",
      );
      await admin.end();
      // The pool replaces a dropped connection; at worst one call fails and the watcher retries it.
      let entry = await journal.get(keyOf(1)).catch(() => undefined);
      entry ??= await journal.get(keyOf(1));
      assert.equal(entry?.phase, 'watching');
      await journal.close();
    });

    it('refuses a journal migrated by a newer pay-checkout', async () => {
      const url = await requireCluster().createDatabase();
      await (await openJournal(url)).close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query("INSERT INTO pay_checkout_journal_migrations VALUES (99, 'from the future', 0)");
      await client.end();
      await assert.rejects(openJournal(url), /version 99, newer than this pay-checkout knows/);
    });

    it('opened without migrating, reads a journal at its version and refuses any other, creating nothing', async () => {
      const url = await requireCluster().createDatabase();
      await assert.rejects(openJournal(url, { migrate: false }), /no pay-checkout journal there/);
      await assert.rejects(readRows(url, 'pay_checkout_journal_migrations'), /does not exist/);
      await (await openJournal(url)).close();
      const journal = await openJournal(url, { migrate: false });
      assert.deepEqual(await journal.ordersWithin({ withinMs: 60_000, limit: 10 }), []);
      await journal.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(
        'DELETE FROM pay_checkout_journal_migrations WHERE version = (SELECT MAX(version) FROM pay_checkout_journal_migrations)',
      );
      await client.end();
      await assert.rejects(openJournal(url, { migrate: false }), /this pay-checkout reads version/);
      const versions = await readRows(url, 'pay_checkout_journal_migrations');
      assert.equal(versions.length, LATEST_JOURNAL_VERSION - 1, 'not migrated');
    });
  });
});
