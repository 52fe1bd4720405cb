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
import { openJournal } from '../../../src/server/index.js';
import {
  type OlderJournal,
  olderPostgresJournal,
  olderSqliteJournal,
  writeSchemaUpTo,
} from '../../fixtures/older-journal.js';
import { type PostgresCluster, postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';
import { errorOf } from '../../fixtures/relay.js';
import { payingFor, startCheckoutShop, toteCheckout } from '../../fixtures/server-checkouts.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-upgrade-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The schema up to version 6, with one order of reference `order-3001` paid and delivered. */
async function writeVersionSix(store: OlderJournal): Promise<void> {
  await writeSchemaUpTo(store, 6);
  const now = Date.now();
  await store.insert('pay_checkout_journal', {
    ...{
      idempotency_key: 'upgrade-paid-0000000001',
      phase: 'settled',
      order_id: 'or_paidbeforeupgrade0000001',
    },
    ...{ payment_status: 'paid', outcome: 'paid', created_at: now - 60_000, settled_at: now - 50_000 },
    ...{ delivered_at: now - 40_000, delivery_attempts: 0, reference: 'order-3001', metadata: '{}' },
    ...{ line_items: '[]', amount_currency: 'ghs', amount_value: 25000 },
  });
}

/** Upgrades `store` by opening it, and checks the checkout of the old paid reference reads paid. */
async function upgradeAndRead(store: OlderJournal): Promise<void> {
  await writeVersionSix(store);
  const journal = await openJournal(store.url);
  assert.deepEqual(await store.versions(), [1, 2, 3, 4, 5, 6, 7, 8], 'migrated in place');
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
    await upgradeAndRead(olderSqliteJournal(join(scratch, 'v6.db')));
  });

  describe('on PostgreSQL', { skip: postgresSkipReason() }, () => {
    let cluster: PostgresCluster | undefined;
    before(async () => {
      cluster = await startPostgres();
    });
    after(() => cluster?.stop());

    it('takes the checkouts table in place', async () => {
      const url = await (cluster as PostgresCluster).createDatabase();
      await upgradeAndRead(await olderPostgresJournal(url));
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
