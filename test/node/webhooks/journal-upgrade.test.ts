/**
 * A journal a shop ran on schema version 7 takes the webhook tables in
 * place, on SQLite and on PostgreSQL: its orders and checkouts stay, and an
 * event of an order paid before the upgrade is journalled, claimed and
 * recorded like any other. Real files and a real cluster.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'libsql';
import pg from 'pg';
import { openJournal } from '../../../src/server/index.js';
import type { SqlDialect } from '../../../src/server/journal/dialects/journal-dialects.js';
import {
  CREATE_MIGRATIONS_TABLE,
  JOURNAL_MIGRATIONS,
  MIGRATIONS_TABLE,
  migrationStatements,
} from '../../../src/server/journal/migrations.js';
import { postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-webhook-upgrade-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const ORDER_ID = 'or_paidbeforewebhooks00001';

/** Runs SQL on a store as an older pay-checkout did, and reads which versions it applied. */
interface RawStore {
  dialect: SqlDialect;
  url: string;
  run(sql: string, params?: (string | number | null)[]): Promise<void>;
  versions(): Promise<number[]>;
  close(): Promise<void>;
}

/** The schema up to version 7, with one order paid and delivered and one checkout. */
async function writeVersionSeven(store: RawStore): Promise<void> {
  await store.run(CREATE_MIGRATIONS_TABLE);
  const placeholders = store.dialect === 'sqlite' ? '?1, ?2, ?3' : '$1, $2, $3';
  for (const migration of JOURNAL_MIGRATIONS.filter((step) => step.version <= 7)) {
    for (const statement of migrationStatements(migration, store.dialect)) await store.run(statement);
    await store.run(
      `INSERT INTO ${MIGRATIONS_TABLE} (version, description, applied_at) VALUES (${placeholders})`,
      [migration.version, migration.description, 0],
    );
  }
  const now = Date.now();
  await store.run(`INSERT INTO pay_checkout_journal (idempotency_key, phase, order_id, payment_status, outcome,
    created_at, settled_at, delivered_at, delivery_attempts, reference, metadata, line_items,
    amount_currency, amount_value) VALUES ('upgrade-paid-0000000001', 'settled', '${ORDER_ID}',
    'paid', 'paid', ${now - 60_000}, ${now - 50_000}, ${now - 40_000}, 0, 'order-7001', '{}', '[]', 'ghs', 25000)`);
  await store.run(`INSERT INTO pay_checkout_checkouts (id, secret_digest, reference, line_items, metadata,
    amount_currency, amount_value, origin, created_at, expires_at) VALUES ('cs_beforewebhooks0000000001',
    'digest', 'order-7001', '[]', '{}', 'ghs', 25000, NULL, ${now - 60_000}, ${now + 60_000})`);
}

/** Upgrades `store` by opening it, and uses the webhook tables on the old order. */
async function upgradeAndDeliver(store: RawStore): Promise<void> {
  await writeVersionSeven(store);
  const journal = await openJournal(store.url);
  try {
    assert.deepEqual(await store.versions(), [1, 2, 3, 4, 5, 6, 7, 8], 'migrated in place');
    assert.equal((await journal.readOrder({ orderId: ORDER_ID }))?.outcome, 'paid', 'the orders stay');
    assert.equal((await journal.readCheckout('cs_beforewebhooks0000000001'))?.reference, 'order-7001');
    const endpoint = 'https://shop.example/hooks';
    const event = { id: 'msg_upgraded', orderId: ORDER_ID, type: 'order.paid', body: '{}', customer: null };
    await journal.recordWebhookEvents([{ ...event, endpoints: [endpoint] }]);
    const [claimed] = await journal.claimWebhookDeliveries('one', { endpoint, limit: 1, leaseMs: 30_000 });
    assert.ok(claimed);
    const done = { status: 204, durationMs: 5, error: null, next: { state: 'delivered' } } as const;
    assert.equal(await journal.recordWebhookAttempt(claimed, 'one', done), true);
    const [listed] = await journal.listWebhookEvents({ limit: 1 });
    assert.equal(listed?.deliveries[0]?.state, 'delivered');
    await journal.prune({ retentionMs: 24 * 60 * 60 * 1000 });
    assert.equal((await journal.listWebhookEvents({ limit: 1 })).length, 1, 'kept while its order is');
  } finally {
    await journal.close();
    await store.close();
  }
}

describe('a version-7 journal', () => {
  it('on SQLite takes the webhook tables in place', async () => {
    const path = join(scratch, 'v7.db');
    const database = new Database(path);
    await upgradeAndDeliver({
      dialect: 'sqlite',
      url: `sqlite:${path}`,
      run: async (sql, params = []) => {
        if (params.length === 0) database.exec(sql);
        else database.prepare(sql).run(...params);
      },
      versions: async () =>
        (
          database.prepare(`SELECT version FROM ${MIGRATIONS_TABLE} ORDER BY version`).all() as {
            version: number;
          }[]
        ).map((row) => row.version),
      close: async () => {
        database.close();
      },
    });
  });

  it('on PostgreSQL takes the webhook tables in place', { skip: postgresSkipReason() }, async () => {
    const cluster = await startPostgres();
    try {
      const url = await cluster.createDatabase();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await upgradeAndDeliver({
        dialect: 'postgres',
        url,
        run: async (sql, params = []) => {
          await client.query(sql, params);
        },
        versions: async () =>
          (await client.query(`SELECT version FROM ${MIGRATIONS_TABLE} ORDER BY version`)).rows.map((row) =>
            Number(row.version),
          ),
        close: () => client.end(),
      });
    } finally {
      await cluster.stop();
    }
  });
});
