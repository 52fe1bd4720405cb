/**
 * Webhooks from a relay to a receiver over real HTTP on 127.0.0.1, against
 * the sandbox, on a clock the test moves by hand (`watch.ticks: false`: each
 * `tick()` is a watcher pass, the deliveries it leads to, and the webhook
 * sends then due, awaited): one signed `order.paid` per paid order, retries
 * on the schedule or at `Retry-After`, a `410` that disables the endpoint
 * until a replay, a redirect that is not followed, and a hung endpoint that
 * holds up no other.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  type CheckoutRelayOptions,
  openJournal,
  verifyWebhook,
  type WebhookEventRecord,
} from '../../../src/server/index.js';
import { MemoryJournal } from '../../../src/server/journal/memory-journal.js';
import { createCheckoutRelay } from '../../../src/server/node.js';
import { CUSTOMER_NAME } from '../../fixtures/checkout-data.js';
import { fulfilmentStack, type JournalStore } from '../../fixtures/fulfilment.js';
import { eventually } from '../../fixtures/wait.js';
import {
  expectedSignature,
  type ReceiverAnswer,
  startReceiver,
  TEST_WEBHOOK_SECRET,
} from '../../fixtures/webhook-receiver.js';

/** The time a checkout takes to be paid in the sandbox, and then some. */
const PAID_AFTER_MS = 6_000;

/** A relay whose webhooks go to `urls` (with the test secret), and no callbacks unless `options` give some. */
async function webhookStack(
  urls: readonly string[],
  options: Partial<CheckoutRelayOptions> = {},
  store: JournalStore = 'memory:',
) {
  return fulfilmentStack(
    store,
    {
      onPaid: undefined,
      onFailed: undefined,
      onExpired: undefined,
      webhooks: urls.map((url) => ({ url, secret: TEST_WEBHOOK_SECRET })),
      allowPrivateWebhookTargets: true,
      ...options,
    },
    undefined,
    createCheckoutRelay,
  );
}

/** The one delivery of the newest event, with its attempts' statuses. */
async function onlyDelivery(events: WebhookEventRecord[]) {
  const [event] = events;
  assert.ok(event, 'an event is journalled');
  const [delivery] = event.deliveries;
  assert.ok(delivery);
  return { event, delivery, statuses: delivery.attempts.map((attempt) => attempt.status) };
}

for (const store of ['memory:', 'sqlite:'] as const) describeDelivery(store);

function describeDelivery(store: JournalStore): void {
  describe(`webhook delivery (${store})`, () => {
    it('sends one signed order.paid per paid order, with the order in snake_case and its customer', async () => {
      const receiver = await startReceiver();
      const stack = await webhookStack([receiver.url], {}, store);
      const { orderId } = await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      await stack.advance(60_000);
      assert.equal(receiver.received.length, 1);
      const [webhook] = receiver.received;
      assert.ok(webhook);
      assert.match(String(webhook.headers['webhook-id']), /^msg_[A-Za-z0-9_-]{24}$/);
      assert.equal(webhook.headers['webhook-signature'], expectedSignature(TEST_WEBHOOK_SECRET, webhook));
      const verified = await verifyWebhook(TEST_WEBHOOK_SECRET, webhook.headers, webhook.body, {
        now: stack.clock.now,
      });
      assert.equal(verified.type, 'order.paid');
      assert.equal(webhook.headers['content-type'], 'application/json');
      assert.match(String(webhook.headers['user-agent']), /^pay-checkout\/\d+\.\d+\.\d+/);
      assert.equal(
        Number(webhook.headers['webhook-timestamp']),
        Math.floor(stack.clock.now / 1000) - 60,
        'the timestamp of the attempt, on the relay clock',
      );
      const body = JSON.parse(webhook.body);
      assert.equal(body.type, 'order.paid');
      assert.equal(body.data.id, orderId);
      assert.equal(body.data.outcome, 'paid');
      assert.equal(body.data.payment_status, 'paid');
      assert.equal(body.data.previous_outcome, null);
      assert.ok(Array.isArray(body.data.line_items));
      assert.deepEqual(Object.keys(body.data.customer).sort(), ['name', 'phone_number']);
      assert.equal(typeof body.timestamp, 'string');
      const { event, delivery, statuses } = await onlyDelivery(await stack.relay.webhooks.list());
      assert.equal(event.id, webhook.headers['webhook-id']);
      assert.equal(event.orderId, orderId);
      assert.deepEqual(statuses, [200]);
      assert.equal(delivery.state, 'delivered');
      // Every endpoint is done: the journal keeps no customer.
      if (store === 'memory:') {
        const journal = stack.journal as MemoryJournal;
        assert.deepEqual(
          journal.rawWebhookEvents().map((row) => row.customer),
          [null],
        );
      }
    });

    it('calls onPaid too when both are given, and the order is delivered once both are done', async () => {
      const receiver = await startReceiver();
      const paid: string[] = [];
      const stack = await webhookStack(
        [receiver.url],
        { onPaid: (order) => void paid.push(order.id) },
        store,
      );
      const { orderId } = await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      assert.deepEqual(paid, [orderId]);
      assert.equal(receiver.received.length, 1);
      assert.notEqual((await stack.relay.orders.get(orderId))?.deliveredAt, null);
    });

    it('journals an order handed over twice (onPaid threw the first time) as one event, sent once', async () => {
      const receiver = await startReceiver();
      let calls = 0;
      const onPaid = () => {
        calls += 1;
        if (calls === 1) throw new Error('the shop was busy');
      };
      const stack = await webhookStack([receiver.url], { onPaid }, store);
      await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      await stack.advance(60_000);
      assert.equal(calls, 2, 'onPaid called again after it threw');
      assert.equal(receiver.received.length, 1);
      assert.equal((await stack.relay.webhooks.list()).length, 1);
    });

    it('tries again on a 500 at each step of the schedule, on the relay clock', async () => {
      const receiver = await startReceiver((n) => ({ status: n <= 3 ? 500 : 200 }));
      const stack = await webhookStack([receiver.url], {}, store);
      await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      assert.equal(receiver.received.length, 1);
      // 5 s, spread by 10 % either way.
      await stack.advance(4_400);
      assert.equal(receiver.received.length, 1, 'not before 4.5 s');
      await stack.advance(1_200);
      assert.equal(receiver.received.length, 2, 'by 5.5 s');
      // 5 minutes, spread by 10 %.
      await stack.advance(269_000);
      assert.equal(receiver.received.length, 2, 'not before 4.5 minutes');
      await stack.advance(62_000);
      assert.equal(receiver.received.length, 3, 'by 5.5 minutes');
      // 30 minutes, spread by 10 %.
      await stack.advance(26 * 60_000);
      assert.equal(receiver.received.length, 3, 'not before 27 minutes');
      await stack.advance(8 * 60_000);
      assert.equal(receiver.received.length, 4, 'by 33 minutes');
      const ids = new Set(receiver.received.map((webhook) => webhook.headers['webhook-id']));
      assert.equal(ids.size, 1, 'every retry carries the same webhook-id');
      const { delivery, statuses } = await onlyDelivery(await stack.relay.webhooks.list());
      assert.deepEqual(statuses, [500, 500, 500, 200]);
      assert.equal(delivery.state, 'delivered');
      assert.deepEqual(
        stack.events
          .filter((event) => event.type.startsWith('webhook_'))
          .map((event) => [event.type, 'attempt' in event ? event.attempt : 0]),
        [
          ['webhook_attempt_failed', 1],
          ['webhook_attempt_failed', 2],
          ['webhook_attempt_failed', 3],
          ['webhook_delivered', 4],
        ],
      );
    });

    it('waits for Retry-After instead of the schedule', async () => {
      const answers: ReceiverAnswer[] = [{ status: 503, headers: { 'retry-after': '120' } }, { status: 200 }];
      const receiver = await startReceiver((n) => answers[n - 1] ?? { status: 200 });
      const stack = await webhookStack([receiver.url], {}, store);
      await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      await stack.advance(119_000);
      assert.equal(receiver.received.length, 1, 'not before the 120 s it asked for');
      await stack.advance(2_000);
      assert.equal(receiver.received.length, 2);
    });

    it('disables an endpoint that answers 410, until a replay to it enables it again', async () => {
      let gone = true;
      const receiver = await startReceiver(() => ({ status: gone ? 410 : 200 }));
      const stack = await webhookStack([receiver.url], {}, store);
      await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      const first = await onlyDelivery(await stack.relay.webhooks.list());
      assert.equal(first.delivery.state, 'failed');
      assert.notEqual(first.delivery.endpointDisabledAt, null);
      assert.deepEqual((await stack.relay.webhooks.list({ failed: true })).length, 1);
      // The next order's event is journalled, and not sent while the endpoint is disabled.
      await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      await stack.advance(60_000);
      assert.equal(receiver.received.length, 1);
      gone = false;
      assert.equal(await stack.relay.webhooks.replay(first.event.id), 1);
      await stack.advance(0);
      assert.equal(receiver.received.length, 3, 'the replayed event and the one held back');
      const events = await stack.relay.webhooks.list();
      assert.deepEqual(
        events.map((event) => event.deliveries[0]?.state),
        ['delivered', 'delivered'],
      );
    });

    it('does not follow a redirect: a 3xx is a failed attempt', async () => {
      const elsewhere = await startReceiver();
      const receiver = await startReceiver(() => ({ status: 302, headers: { location: elsewhere.url } }));
      const stack = await webhookStack([receiver.url], {}, store);
      await stack.checkout();
      await stack.advance(PAID_AFTER_MS);
      assert.equal(receiver.received.length, 1);
      assert.equal(elsewhere.received.length, 0);
      const { delivery, statuses } = await onlyDelivery(await stack.relay.webhooks.list());
      assert.deepEqual(statuses, [302]);
      assert.equal(delivery.state, 'pending');
    });

    it('delivers to one endpoint while another hangs', async () => {
      const hung = await startReceiver(() => 'hang');
      const live = await startReceiver();
      const stack = await webhookStack([hung.url, live.url], {}, store);
      await stack.checkout();
      const ticking = stack.advance(PAID_AFTER_MS);
      await Promise.all([hung.whenReceived(1), live.whenReceived(1)]);
      const stateOf = async (url: string) => {
        const { event } = await onlyDelivery(await stack.relay.webhooks.list());
        return event.deliveries.find((delivery) => delivery.endpoint === url)?.state;
      };
      await eventually('the live endpoint delivered', async () => (await stateOf(live.url)) === 'delivered');
      assert.equal(await stateOf(hung.url), 'pending', 'the hung one still in flight');
      // The hung receiver goes away: its attempt ends without an answer.
      await hung.close();
      await ticking;
      const after = await onlyDelivery(await stack.relay.webhooks.list());
      const hungDelivery = after.event.deliveries.find((delivery) => delivery.endpoint === hung.url);
      assert.deepEqual(
        hungDelivery?.attempts.map((attempt) => attempt.status),
        [null],
      );
    });
  });
}

describe('webhook delivery when the journal blips', () => {
  it('asks the journal again to record an answered attempt, and sends it once', async () => {
    const receiver = await startReceiver();
    let clockOf = () => Date.now();
    const inner = new MemoryJournal({ now: () => clockOf() });
    let failures = 2;
    // The real journal, whose first two records of an attempt fail as a dropped connection would.
    const journal = new Proxy(inner, {
      get(target, name) {
        if (name === 'recordWebhookAttempt' && failures > 0) {
          return async () => {
            failures -= 1;
            throw new Error('connection terminated');
          };
        }
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const stack = await webhookStack([receiver.url], { journal });
    clockOf = () => stack.clock.now;
    await stack.checkout();
    await stack.advance(PAID_AFTER_MS);
    await stack.advance(60_000);
    assert.equal(failures, 0);
    assert.equal(receiver.received.length, 1, 'sent once');
    const { delivery, statuses } = await onlyDelivery(await stack.relay.webhooks.list());
    assert.deepEqual(statuses, [200]);
    assert.equal(delivery.state, 'delivered');
    assert.deepEqual(
      stack.events.filter((event) => event.type === 'watcher_error'),
      [],
    );
  });
});

describe('the customer in a webhook event on SQLite', () => {
  it('leaves no file once every endpoint is done', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-webhook-erase-'));
    after(() => rmSync(folder, { recursive: true, force: true }));
    const path = join(folder, 'journal.db');
    const filesHold = (text: string) =>
      [path, `${path}-wal`, `${path}-shm`].some(
        (file) => existsSync(file) && readFileSync(file).toString('latin1').includes(text),
      );
    // One endpoint fails once, then answers 410: its delivery stays pending until then.
    const flaky = await startReceiver((n) => ({ status: n === 1 ? 500 : 410 }));
    const receiver = await startReceiver();
    const stack = await webhookStack([flaky.url, receiver.url], {}, `sqlite:${path}`);
    await stack.checkout();
    await stack.advance(PAID_AFTER_MS);
    assert.equal(JSON.parse(String(receiver.received[0]?.body)).data.customer.name, CUSTOMER_NAME);
    assert.ok(filesHold(CUSTOMER_NAME), 'kept while a delivery is pending');
    await stack.advance(6_000);
    assert.equal(flaky.received.length, 2);
    // The next claim empties the log first.
    await stack.advance(1_000);
    assert.ok(!filesHold(CUSTOMER_NAME), 'no file holds the name once every endpoint is done');
  });
});

describe('closing a relay with a webhook send in flight', () => {
  it('waits for the send to end and records its attempt before the journal closes', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'pay-checkout-webhook-close-'));
    after(() => rmSync(folder, { recursive: true, force: true }));
    const path = join(folder, 'journal.db');
    const hung = await startReceiver(() => 'hang');
    const stack = await webhookStack([hung.url], {}, `sqlite:${path}`);
    await stack.checkout();
    const ticking = stack.advance(PAID_AFTER_MS);
    await hung.whenReceived(1);
    const closing = stack.relay.close();
    // The receiver goes away without answering: the send ends, and close() records it.
    await hung.close();
    await closing;
    await ticking;
    const journal = await openJournal(`sqlite:${path}`);
    after(() => journal.close());
    const { delivery, statuses } = await onlyDelivery(await journal.listWebhookEvents({ limit: 1 }));
    assert.deepEqual(statuses, [null]);
    assert.equal(delivery.state, 'pending', 'due again later');
  });
});
