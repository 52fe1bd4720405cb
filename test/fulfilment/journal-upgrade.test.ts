/**
 * Upgrading in place: a journal written by the previous schema
 * (version 1, made here with that migration's own SQL and rows as that
 * version's relay wrote them) holding an unanswered create, a pending order,
 * two settled orders whose callbacks are still owed and one delivered, is
 * opened by this version, migrated on SQLite and on PostgreSQL, and every
 * order owed a callback is delivered with the amount the service charged; the
 * unanswered create keeps its line items, the delivered one is not delivered again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createServiceClient,
  DEFAULT_CREATE_GRACE_MS,
  type FulfilledOrder,
  openJournal,
} from '../../src/server/index.js';
import { creationInputFor, lineItems } from '../fixtures/checkout-data.js';
import {
  type OlderJournal,
  type OlderRow,
  olderPostgresJournal,
  olderSqliteJournal,
  writeSchemaUpTo,
} from '../fixtures/older-journal.js';
import { type PostgresCluster, postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { createTestRelay, SECRET } from '../fixtures/relay.js';
import { clockReading } from '../fixtures/relay-clock.js';
import { APPROVE_AFTER_MS, sandboxFetch, sandboxWithClock } from '../fixtures/sandbox.js';

/** Writes the version-1 schema, as that version's relay migrated it, and `rows` into it. */
async function writeVersionOne(store: OlderJournal, rows: OlderRow[]): Promise<void> {
  await writeSchemaUpTo(store, 1);
  for (const row of rows) await store.insert('pay_checkout_journal', row);
}

/** The journal of a shop on version 1, at the sandbox's `now`, with real orders at the sandbox behind it. */
async function shopOnVersionOne() {
  const { clock, sandbox, url } = sandboxWithClock();
  const client = createServiceClient({ baseUrl: url, secretKey: SECRET, fetch: sandboxFetch });
  const create = async (number: string, key: string) =>
    (await client.orders.create(creationInputFor(number), { idempotencyKey: key })).order.id;
  const now = clock.now;
  const watching = await create('0241110001', 'upgrade-watching-0000001');
  const paid = await create('0241110002', 'upgrade-paid-00000000001');
  const failed = await create('0241110003', 'upgrade-failed-000000001');
  const delivered = await create('0241110004', 'upgrade-delivered-000001');
  for (const id of [paid, delivered]) sandbox.approve(id);
  sandbox.decline(failed, 'insufficient_funds');
  const base = { created_at: now - 60_000, delivery_attempts: 0 };
  const settled = (key: string, orderId: string, status: string, outcome: string) => ({
    ...base,
    idempotency_key: key,
    phase: 'settled',
    order_id: orderId,
    payment_status: status,
    outcome,
    settled_at: now - 30_000,
    due_at: now - 30_000,
  });
  const rows: OlderRow[] = [
    {
      ...base,
      idempotency_key: 'upgrade-creating-0000001',
      phase: 'creating',
      create_body: JSON.stringify(creationInputFor('0241110005')),
      due_at: now - 60_000 + DEFAULT_CREATE_GRACE_MS,
    },
    {
      ...base,
      idempotency_key: 'upgrade-watching-0000001',
      phase: 'watching',
      order_id: watching,
      payment_status: 'requires_action',
      due_at: now,
    },
    settled('upgrade-paid-00000000001', paid, 'paid', 'paid'),
    settled('upgrade-failed-000000001', failed, 'failed', 'failed'),
    {
      ...settled('upgrade-delivered-000001', delivered, 'paid', 'paid'),
      delivered_at: now - 20_000,
      due_at: null,
    },
  ];
  return { clock, sandbox, url, rows, ids: { watching, paid, failed, delivered } };
}

/** Opens `store`'s journal with this version, runs the relay on it, and checks what it delivers. */
async function upgradeAndDeliver(store: OlderJournal, shop: Awaited<ReturnType<typeof shopOnVersionOne>>) {
  const journal = await openJournal(store.url, { clock: { now: () => shop.clock.now } });
  assert.deepEqual(await store.versions(), [1, 2, 3, 4, 5, 6, 7, 8], 'migrated in place');
  const unanswered = await journal.readOrder({ idempotencyKey: 'upgrade-creating-0000001' });
  assert.deepEqual(unanswered?.lineItems, lineItems, 'the unanswered create keeps its line items');
  assert.deepEqual(unanswered?.amount, { currency: 'ghs', value: 5_000 });
  assert.equal(unanswered?.issuer, null, 'journalled before networks were kept: none');
  const delivered: FulfilledOrder[] = [];
  const relay = createTestRelay({
    baseUrl: shop.url,
    fetch: sandboxFetch,
    rateLimit: false,
    journal,
    onPaid: (order) => {
      delivered.push(order);
    },
    onFailed: (order) => {
      delivered.push(order);
    },
    clock: clockReading(() => shop.clock.now),
    watch: { ticks: false },
  });
  try {
    await relay.fulfilment?.tick();
    const byId = () => new Map(delivered.map((order) => [order.id, order]));
    const total = { currency: 'ghs', value: 5_000 };
    assert.deepEqual(
      [byId().get(shop.ids.paid)?.outcome, byId().get(shop.ids.paid)?.amount],
      ['paid', total],
      "an owed onPaid, with the service's total",
    );
    assert.deepEqual(byId().get(shop.ids.paid)?.lineItems, [], 'version 1 kept no line items for it');
    assert.equal(byId().get(shop.ids.paid)?.reference, null);
    assert.deepEqual(
      [byId().get(shop.ids.failed)?.outcome, byId().get(shop.ids.failed)?.amount],
      ['failed', total],
    );
    shop.clock.now += APPROVE_AFTER_MS;
    await relay.fulfilment?.tick();
    assert.deepEqual(
      byId().get(shop.ids.watching)?.amount,
      total,
      'the pending order, paid after the upgrade',
    );
    shop.clock.now += 3_000;
    await relay.fulfilment?.tick();
    const resent = delivered.find((order) => !Object.values(shop.ids).includes(order.id));
    assert.ok(resent, 'the unanswered create, resent and paid');
    assert.deepEqual([resent.lineItems, resent.amount], [lineItems, total]);
    assert.equal(byId().has(shop.ids.delivered), false, 'the delivered order is not delivered again');
    assert.equal(delivered.length, 4);
    assert.equal((await relay.orders.get(shop.ids.paid))?.amount?.value, 5_000, 'the total is kept');
  } finally {
    await relay.close();
  }
}

/** A shop's version-1 journal written to `store`, then upgraded and delivered from; `store` is closed after. */
async function upgradeFromVersionOne(store: OlderJournal): Promise<void> {
  const shop = await shopOnVersionOne();
  await writeVersionOne(store, shop.rows);
  try {
    await upgradeAndDeliver(store, shop);
  } finally {
    await store.close();
  }
}

describe('a version-1 journal, upgraded in place', () => {
  it('on SQLite: migrates, and delivers its pending and settled orders', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-upgrade-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    await upgradeFromVersionOne(olderSqliteJournal(join(scratch, 'journal.db')));
  });

  describe('on PostgreSQL', { skip: postgresSkipReason() }, () => {
    let cluster: PostgresCluster | undefined;
    before(async () => {
      cluster = await startPostgres();
    });
    after(() => cluster?.stop());

    it('migrates, and delivers its pending and settled orders', async () => {
      const url = await (cluster as PostgresCluster).createDatabase();
      await upgradeFromVersionOne(await olderPostgresJournal(url));
    });
  });
});
