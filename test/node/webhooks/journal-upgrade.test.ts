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
import { openJournal } from '../../../src/server/index.js';
import {
  type OlderJournal,
  olderPostgresJournal,
  olderSqliteJournal,
  writeSchemaUpTo,
} from '../../fixtures/older-journal.js';
import { postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-webhook-upgrade-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const ORDER_ID = 'or_paidbeforewebhooks00001';

/** The schema up to version 7, with one order paid and delivered and one checkout. */
async function writeVersionSeven(store: OlderJournal): Promise<void> {
  await writeSchemaUpTo(store, 7);
  const now = Date.now();
  await store.insert('pay_checkout_journal', {
    ...{ idempotency_key: 'upgrade-paid-0000000001', phase: 'settled', order_id: ORDER_ID },
    ...{ payment_status: 'paid', outcome: 'paid', created_at: now - 60_000, settled_at: now - 50_000 },
    ...{ delivered_at: now - 40_000, delivery_attempts: 0, reference: 'order-7001', metadata: '{}' },
    ...{ line_items: '[]', amount_currency: 'ghs', amount_value: 25000 },
  });
  await store.insert('pay_checkout_checkouts', {
    ...{ id: 'cs_beforewebhooks0000000001', secret_digest: 'digest', reference: 'order-7001' },
    ...{ line_items: '[]', metadata: '{}', amount_currency: 'ghs', amount_value: 25000, origin: null },
    ...{ created_at: now - 60_000, expires_at: now + 60_000 },
  });
}

/** Upgrades `store` by opening it, and uses the webhook tables on the old order. */
async function upgradeAndDeliver(store: OlderJournal): Promise<void> {
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
    await upgradeAndDeliver(olderSqliteJournal(join(scratch, 'v7.db')));
  });

  it('on PostgreSQL takes the webhook tables in place', { skip: postgresSkipReason() }, async () => {
    const cluster = await startPostgres();
    try {
      await upgradeAndDeliver(await olderPostgresJournal(await cluster.createDatabase()));
    } finally {
      await cluster.stop();
    }
  });
});
