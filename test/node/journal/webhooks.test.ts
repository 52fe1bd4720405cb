/**
 * The journal's webhook rows on every store (memory, an SQLite file, a
 * PostgreSQL database), on a clock the test moves: an event journalled twice
 * is one event, a delivery is leased to one process at a time and written
 * only by its holder, a retry is due when its wait has passed, a disabled
 * endpoint is claimed from no more until a replay, the customer is erased
 * once every endpoint's delivery has ended, and the events go with their order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Journal } from '../../../src/server/index.js';
import type { WebhookEventInput } from '../../../src/server/journal/webhook-journal.js';
import { freshJournal, type JournalStore } from '../../fixtures/fulfilment.js';
import { type PostgresCluster, postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';

const A = 'https://a.example/hooks';
const B = 'https://b.example/hooks';
const GONE = 'https://gone.example/hooks';
const LEASE_MS = 30_000;
const CUSTOMER = JSON.stringify({ name: 'Ama Mensah', phone_number: '+233241234567' });

/** An event of order `orderId` to `endpoints`. */
function eventOf(id: string, orderId: string, endpoints: string[] = [A, B]): WebhookEventInput {
  return {
    id,
    orderId,
    type: 'order.paid',
    body: JSON.stringify({ type: 'order.paid', data: { id: orderId, customer: null } }),
    customer: CUSTOMER,
    endpoints,
  };
}

/** A settled, delivered order in the journal, so that its events are kept when pruning. */
async function settledOrder(journal: Journal, orderId: string): Promise<void> {
  await journal.recordIntent({ idempotencyKey: `key-${orderId}`, createBody: {}, resendInMs: 60_000 });
  await journal.recordCreated(`key-${orderId}`, { orderId, paymentStatus: 'paid', nextCheckInMs: 0 });
}

function webhookContract(name: string, store: () => JournalStore): void {
  describe(`webhooks in the ${name} journal`, () => {
    const clock = { now: Date.parse('2026-03-01T10:00:00Z') };
    let journal: Journal;
    before(async () => {
      journal = await freshJournal(store(), clock);
    });
    after(() => journal.close());

    it('journals an event once, with one delivery per endpoint, however often it is recorded', async () => {
      await journal.recordWebhookEvents([eventOf('msg_once', 'or_once')]);
      await journal.recordWebhookEvents([eventOf('msg_once', 'or_once')]);
      const [event] = (await journal.listWebhookEvents({ limit: 10 })).filter((one) => one.id === 'msg_once');
      assert.equal(event?.orderId, 'or_once');
      assert.deepEqual(
        event?.deliveries.map((delivery) => [delivery.endpoint, delivery.state]),
        [
          [A, 'pending'],
          [B, 'pending'],
        ],
      );
    });

    it('leases a delivery to one owner until its lease runs out, and lets only the holder record', async () => {
      await journal.recordWebhookEvents([eventOf('msg_lease', 'or_lease', [A])]);
      const options = { endpoint: A, limit: 10, leaseMs: LEASE_MS };
      const [first, second] = await Promise.all([
        journal.claimWebhookDeliveries('one', options),
        journal.claimWebhookDeliveries('two', options),
      ]);
      const claimed = [...(first ?? []), ...(second ?? [])].filter((d) => d.eventId === 'msg_lease');
      assert.equal(claimed.length, 1, 'one owner has it');
      const [delivery] = claimed;
      assert.ok(delivery);
      assert.equal(delivery.customer, CUSTOMER);
      const holder = (first ?? []).includes(delivery) ? 'one' : 'two';
      const other = holder === 'one' ? 'two' : 'one';
      const result = { status: 500, durationMs: 12, error: null };
      const next = { state: 'pending', retryInMs: 5_000 } as const;
      assert.equal(await journal.recordWebhookAttempt(delivery, other, { ...result, next }), false);
      clock.now += LEASE_MS + 1;
      const [again] = (await journal.claimWebhookDeliveries(other, options)).filter(
        (d) => d.eventId === 'msg_lease',
      );
      assert.ok(again, 'claimed again once the lease ran out');
      assert.equal(await journal.recordWebhookAttempt(delivery, holder, { ...result, next }), false);
      assert.equal(await journal.recordWebhookAttempt(again, other, { ...result, next }), true);
      assert.equal(
        await journal.recordWebhookAttempt(delivery, holder, { ...result, next }),
        false,
        'the attempt recorded is the new holder’s, not the old one’s',
      );
      assert.deepEqual(await journal.claimWebhookDeliveries('one', options), [], 'not due for 5 s');
      clock.now += 5_000;
      const [retry] = await journal.claimWebhookDeliveries('one', options);
      assert.equal(retry?.eventId, 'msg_lease');
      assert.equal(retry?.attempts, 1);
      assert.equal(retry?.step, 1);
      assert.equal(
        await journal.recordWebhookAttempt(retry, 'one', {
          status: 200,
          durationMs: 3,
          error: null,
          next: { state: 'delivered' },
        }),
        true,
      );
      const [event] = (await journal.listWebhookEvents({ limit: 10 })).filter(
        (one) => one.id === 'msg_lease',
      );
      assert.deepEqual(
        event?.deliveries[0]?.attempts.map(({ attempt, status, durationMs }) => [
          attempt,
          status,
          durationMs,
        ]),
        [
          [1, 500, 12],
          [2, 200, 3],
        ],
      );
      assert.equal(event?.deliveries[0]?.state, 'delivered');
    });

    it('erases the customer once every endpoint is done, and replays without it', async () => {
      await journal.recordWebhookEvents([eventOf('msg_erase', 'or_erase')]);
      const done = { status: 200, durationMs: 1, error: null, next: { state: 'delivered' } } as const;
      const claimOne = async (endpoint: string) =>
        (await journal.claimWebhookDeliveries('one', { endpoint, limit: 10, leaseMs: LEASE_MS })).find(
          (d) => d.eventId === 'msg_erase',
        );
      const toA = await claimOne(A);
      assert.ok(toA);
      await journal.recordWebhookAttempt(toA, 'one', done);
      const toB = await claimOne(B);
      assert.equal(toB?.customer, CUSTOMER, 'kept while B is pending');
      assert.ok(toB);
      await journal.recordWebhookAttempt(toB, 'one', { ...done, status: 500, next: { state: 'failed' } });
      assert.equal(await journal.replayWebhooks({ eventId: 'msg_erase' }), 2);
      const replayed = await claimOne(A);
      assert.equal(replayed?.customer, null);
      assert.equal(replayed?.step, 0, 'from the start of the schedule');
      assert.equal(replayed?.attempts, 1, 'attempts keep counting');
      const failed = await journal.listWebhookEvents({ limit: 10, failed: true });
      assert.ok(!failed.some((event) => event.id === 'msg_erase'), 'no longer failed once replayed');
    });

    it('takes an attempt recorded again after its answer was lost as recorded, and writes it once', async () => {
      await journal.recordWebhookEvents([eventOf('msg_twice', 'or_twice', [A])]);
      const options = { endpoint: A, limit: 10, leaseMs: LEASE_MS };
      const claimOne = async () =>
        (await journal.claimWebhookDeliveries('one', options)).find((d) => d.eventId === 'msg_twice');
      const first = await claimOne();
      assert.ok(first);
      const retried = {
        status: 500,
        durationMs: 4,
        error: null,
        next: { state: 'pending', retryInMs: 0 },
      } as const;
      assert.equal(await journal.recordWebhookAttempt(first, 'one', retried), true);
      assert.equal(await journal.recordWebhookAttempt(first, 'one', retried), true, 'the same attempt again');
      const second = await claimOne();
      assert.equal(second?.attempts, 1, 'counted once');
      assert.ok(second);
      const done = { status: 200, durationMs: 2, error: null, next: { state: 'delivered' } } as const;
      assert.equal(await journal.recordWebhookAttempt(second, 'one', done), true);
      assert.equal(await journal.recordWebhookAttempt(second, 'one', done), true, 'the same attempt again');
      assert.equal(
        await journal.recordWebhookAttempt(first, 'one', retried),
        false,
        'an attempt two behind is not the one recorded',
      );
      const [event] = (await journal.listWebhookEvents({ limit: 10 })).filter(
        (one) => one.id === 'msg_twice',
      );
      const delivery = event?.deliveries[0];
      assert.deepEqual(
        delivery?.attempts.map(({ attempt, status }) => [attempt, status]),
        [
          [1, 500],
          [2, 200],
        ],
      );
      assert.equal(delivery?.state, 'delivered');
      const attempts = delivery?.attempts ?? [];
      assert.ok(
        attempts.every((one) => one.at <= (delivery?.deliveredAt ?? 0)),
        'each attempt is dated when it was sent, not after the delivery it led to',
      );
    });

    it('claims nothing for a disabled endpoint until a replay to it', async () => {
      await journal.recordWebhookEvents([
        eventOf('msg_gone', 'or_gone', [GONE]),
        eventOf('msg_held', 'or_held', [GONE]),
      ]);
      const options = { endpoint: GONE, limit: 1, leaseMs: LEASE_MS };
      const [first] = await journal.claimWebhookDeliveries('one', options);
      assert.ok(first);
      await journal.recordWebhookAttempt(first, 'one', {
        ...{ status: 410, durationMs: 1, error: null },
        next: { state: 'disabled' },
      });
      assert.deepEqual(await journal.claimWebhookDeliveries('one', { ...options, limit: 10 }), []);
      await journal.recordWebhookEvents([eventOf('msg_later', 'or_later', [GONE])]);
      const notThrough = (await journal.listWebhookEvents({ limit: 100, failed: true })).map(
        (event) => event.id,
      );
      for (const id of ['msg_gone', 'msg_held', 'msg_later'])
        assert.ok(notThrough.includes(id), `${id}: failed, or held for the disabled endpoint`);
      const since = clock.now - 1;
      assert.equal(await journal.replayWebhooks({ since, endpoint: GONE }), 3);
      const claimed = await journal.claimWebhookDeliveries('one', { ...options, limit: 10 });
      assert.deepEqual(claimed.map((delivery) => delivery.eventId).sort(), [
        'msg_gone',
        'msg_held',
        'msg_later',
      ]);
      assert.deepEqual(
        claimed.map((delivery) => delivery.customer),
        [null, null, null],
        'an event left waiting only for a disabled endpoint keeps no customer',
      );
    });

    it('prunes the events of orders the journal no longer holds', async () => {
      await settledOrder(journal, 'or_kept');
      await journal.recordWebhookEvents([eventOf('msg_kept', 'or_kept'), eventOf('msg_orphan', 'or_pruned')]);
      await journal.prune({ retentionMs: 24 * 60 * 60 * 1000 });
      const ids = (await journal.listWebhookEvents({ limit: 100 })).map((event) => event.id);
      assert.ok(ids.includes('msg_kept'));
      assert.ok(!ids.includes('msg_orphan'));
    });
  });
}

webhookContract('memory', () => 'memory:');
webhookContract('SQLite', () => 'sqlite:');

describe('on PostgreSQL', { skip: postgresSkipReason() }, () => {
  let cluster: PostgresCluster | undefined;
  let url = '';
  before(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
  });
  after(() => cluster?.stop());
  webhookContract('PostgreSQL', () => url as JournalStore);
});
