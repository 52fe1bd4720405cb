/**
 * Two relays on one journal (an SQLite file; a PostgreSQL database) send
 * each event once: their dispatchers claim deliveries under a lease, so one
 * attempt per event and endpoint is in flight across both. Each relay has
 * its own connections, as two processes would; the sandbox and the clock are
 * shared, the receiver is real HTTP on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openJournal } from '../../../src/server/index.js';
import { createCheckoutRelay } from '../../../src/server/node.js';
import { postgresSkipReason, startPostgres } from '../../fixtures/postgres.js';
import { CLIENT, createRequest, createTestRelay, intent } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';
import { sandboxFetch, sandboxWithClock } from '../../fixtures/sandbox.js';
import { startReceiver, TEST_WEBHOOK_SECRET } from '../../fixtures/webhook-receiver.js';

const ORDERS = 12;

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-webhook-fleet-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Two relays on the journal at `url`; orders made through both, each event received once. */
async function twoRelaysDeliverOnce(url: string): Promise<void> {
  const { clock, url: baseUrl } = sandboxWithClock();
  const receiver = await startReceiver();
  const relays = await Promise.all(
    [0, 1].map(async () => {
      const journal = await openJournal(url, { clock: { now: () => clock.now } });
      const relay = createTestRelay(
        {
          baseUrl,
          fetch: sandboxFetch,
          rateLimit: false,
          journal,
          webhooks: [{ url: receiver.url, secret: TEST_WEBHOOK_SECRET }],
          allowPrivateWebhookTargets: true,
          clock: clockReading(() => clock.now),
          watch: { ticks: false },
        },
        createCheckoutRelay,
      );
      after(() => relay.close());
      return relay;
    }),
  );
  for (let index = 0; index < ORDERS; index += 1) {
    const relay = relays[index % 2];
    const response = await relay?.create(createRequest(intent()), CLIENT);
    assert.equal(response?.status, 200);
  }
  for (const stepMs of [6_000, 6_000, 60_000]) {
    clock.now += stepMs;
    await Promise.all(relays.map((relay) => relay.fulfilment?.tick()));
  }
  const ids = receiver.received.map((webhook) => String(webhook.headers['webhook-id']));
  assert.equal(new Set(ids).size, ORDERS, 'every paid order told');
  assert.equal(ids.length, ORDERS, 'each once');
  const events = await relays[0]?.webhooks.list();
  assert.deepEqual(
    events?.map((event) => event.deliveries.map((delivery) => delivery.attempts.length)),
    Array.from({ length: ORDERS }, () => [1]),
  );
}

describe('two relays on one journal', () => {
  it('send each event once from an SQLite file', async () => {
    await twoRelaysDeliverOnce(`sqlite:${join(scratch, 'fleet.db')}`);
  });

  it('send each event once from a PostgreSQL database', { skip: postgresSkipReason() }, async () => {
    const cluster = await startPostgres();
    after(() => cluster.stop());
    await twoRelaysDeliverOnce(await cluster.createDatabase());
  });
});
