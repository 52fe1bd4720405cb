/**
 * A journal a shop ran on schema version 6 takes the checkouts table in
 * place, on SQLite and on PostgreSQL: its orders stay, and a checkout created
 * afterwards for the reference of an order paid before the upgrade reads
 * paid (its status comes from the orders of its reference). Then a checkout
 * is paid once on PostgreSQL as on SQLite. Real files, a real cluster, the
 * real sandbox and relay over loopback.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
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
import { type PostgresCluster, postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';
import { errorOf } from '../../fixtures/relay.js';
import { payingFor, startCheckoutShop, toteCheckout } from '../../fixtures/server-checkouts.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-upgrade-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs SQL on a store as an older pay-checkout did, and reads which versions it applied. */
interface RawStore {
  dialect: SqlDialect;
  url: string;
  run(sql: string, params?: (string | number | null)[]): Promise<void>;
  versions(): Promise<number[]>;
  close(): Promise<void>;
}

/** The schema up to version 6, with one order of reference `order-3001` paid and delivered. */
async function writeVersionSix(store: RawStore): Promise<void> {
  await store.run(CREATE_MIGRATIONS_TABLE);
  for (const migration of JOURNAL_MIGRATIONS.filter((step) => step.version <= 6)) {
    for (const statement of migrationStatements(migration, store.dialect)) await store.run(statement);
    await store.run(
      `INSERT INTO ${MIGRATIONS_TABLE} (version, description, applied_at) VALUES (${
        store.dialect === 'sqlite' ? '?1, ?2, ?3' : '$1, $2, $3'
      })`,
      [migration.version, migration.description, 0],
    );
  }
  const now = Date.now();
  await store.run(`INSERT INTO pay_checkout_journal (idempotency_key, phase, order_id, payment_status, outcome,
    created_at, settled_at, delivered_at, delivery_attempts, reference, metadata, line_items,
    amount_currency, amount_value) VALUES ('upgrade-paid-0000000001', 'settled', 'or_paidbeforeupgrade0000001',
    'paid', 'paid', ${now - 60_000}, ${now - 50_000}, ${now - 40_000}, 0, 'order-3001', '{}', '[]', 'ghs', 25000)`);
}

/** Upgrades `store` by opening it, and checks the checkout of the old paid reference reads paid. */
async function upgradeAndRead(store: RawStore): Promise<void> {
  await writeVersionSix(store);
  const journal = await openJournal(store.url);
  assert.deepEqual(await store.versions(), [1, 2, 3, 4, 5, 6, 7], 'migrated in place');
  const old = await journal.readOrder({ orderId: 'or_paidbeforeupgrade0000001' });
  assert.equal(old?.outcome, 'paid', 'the orders stay');
  const shop = await startCheckoutShop({ journal });
  const checkout = await shop.relay.checkouts.create(toteCheckout({ reference: 'order-3001' }));
  assert.equal(checkout.status, 'paid');
  assert.deepEqual(checkout.orderIds, ['or_paidbeforeupgrade0000001']);
  const refused = await shop.create(payingFor(checkout.clientSecret));
  assert.equal((await errorOf(refused)).code, 'checkout_paid');
  await store.close();
}

describe('a version-6 journal', () => {
  it('on SQLite takes the checkouts table in place', async () => {
    const path = join(scratch, 'v6.db');
    const database = new Database(path);
    await upgradeAndRead({
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

  describe('on PostgreSQL', { skip: postgresSkipReason() }, () => {
    let cluster: PostgresCluster | undefined;
    before(async () => {
      cluster = await startPostgres();
    });
    after(() => cluster?.stop());

    it('takes the checkouts table in place', async () => {
      const url = await (cluster as PostgresCluster).createDatabase();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await upgradeAndRead({
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
    });

    it('holds a checkout paid once, as on SQLite', async () => {
      const journal = await openJournal(await (cluster as PostgresCluster).createDatabase());
      const shop = await startCheckoutShop({ journal });
      const checkout = await shop.relay.checkouts.create(toteCheckout());
      const key = crypto.randomUUID();
      const created = await shop.created(await shop.create(payingFor(checkout.clientSecret), { key }));
      shop.sandbox.approve(created.order.id);
      shop.advance(5_000);
      await shop.lookup(created);
      const paid = await shop.relay.checkouts.get(checkout.id);
      assert.equal(paid?.status, 'paid');
      assert.equal(paid?.paidOrderId, created.order.id);
      assert.equal(
        (await errorOf(await shop.create(payingFor(checkout.clientSecret, '0241130004')))).code,
        'checkout_paid',
      );
      const resent = await shop.created(await shop.create(payingFor(checkout.clientSecret), { key }));
      assert.equal(resent.order.id, created.order.id);
    });
  });
});
