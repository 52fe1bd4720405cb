/**
 * A restart storm with webhooks as the place of delivery (a crash never loses
 * an event and repeats one only where the receiver's answer was lost). A
 * relay process on an SQLite journal creates a batch of orders and is killed
 * with SIGKILL at a random moment; another is started in its place (its
 * clocks past the dead one's leases, as a restart that came that much later),
 * creates more and is killed in turn, several times; the last one runs until
 * every event is delivered. The kill moments come from a seed, printed; set
 * `WEBHOOK_STORM_SEED` to replay one.
 *
 * Every journalled event reaches the receiver and is recorded delivered after
 * one recorded attempt. A repeat is explained only by a kill that found the
 * event received by nobody's record: after each kill (the dead process
 * writes nothing more, the next one has not started) the journal is read,
 * and an event may reach the receiver at most once more than the number of
 * kills that found it not yet delivered.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_LEASE_MS } from '../../src/server/fulfilment/watch-settings.js';
import { WEBHOOK_LEASE_MS } from '../../src/server/fulfilment/webhooks/webhook-attempt.js';
import { linesOf, scratchFiles, servedSandbox } from '../fixtures/delivery-faults.js';
import { eventually } from '../fixtures/wait.js';
import {
  countsOf,
  journalledEvents,
  startHeldReceiver,
  startWebhookChild,
} from '../fixtures/webhook-faults.js';

const KILLS = 6;
const ORDERS_PER_PROCESS = 4;
/** How far each restart's clocks run past the one before: beyond every lease a dead process held. */
const RESTART_STEP_MS = Math.max(WEBHOOK_LEASE_MS, DEFAULT_LEASE_MS) + 5_000;
/** The longest a process lives before its kill, from its first created order. */
const MAX_LIFE_MS = 3_000;

/** A small seeded generator (mulberry32): the same seed, the same kill moments. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('a restart storm during webhook deliveries', () => {
  it('delivers every event; a repeat only where a kill lost the answer, each one explained', {
    timeout: 120_000,
  }, async (t) => {
    const seed = Number(process.env.WEBHOOK_STORM_SEED ?? Math.floor(Math.random() * 2 ** 31));
    t.diagnostic(`seed ${seed} (replay: WEBHOOK_STORM_SEED=${seed})`);
    const random = seeded(seed);
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder } = scratchFiles();
    const journalUrl = `sqlite:${join(folder, 'journal.db')}`;
    const receiver = await startHeldReceiver();
    const base = { journalUrl, baseUrl: url, receiverUrls: [receiver.url], orders: ORDERS_PER_PROCESS };

    const killedWith: Set<string>[] = [];
    const lifetimes: number[] = [];
    const processes = [];
    for (let generation = 0; generation < KILLS; generation += 1) {
      const relay = startWebhookChild({ ...base, aheadMs: generation * RESTART_STEP_MS });
      processes.push(relay);
      assert.ok(await relay.waitFor('created ', 60_000), `process ${generation} created an order`);
      const lifeMs = Math.round(random() * MAX_LIFE_MS);
      lifetimes.push(lifeMs);
      await new Promise((resolve) => setTimeout(resolve, lifeMs));
      await relay.kill();
      const events = await journalledEvents(journalUrl);
      killedWith.push(
        new Set(
          events.filter((event) => event.deliveries[0]?.state !== 'delivered').map((event) => event.id),
        ),
      );
    }
    const last = startWebhookChild({ ...base, orders: 0, aheadMs: KILLS * RESTART_STEP_MS });
    processes.push(last);
    const created = linesOf(processes, 'created ');
    const events = await eventually(
      'every event delivered',
      async () => {
        const listed = await journalledEvents(journalUrl);
        const done = listed.every((event) => event.deliveries[0]?.state === 'delivered');
        return done && listed.length >= created.length && listed;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    last.process.stdin?.write('close\n');
    assert.ok(await last.waitFor('closed', 30_000), 'the last process closed');

    const received = countsOf(receiver.ids);
    const repeats = [...received].filter(([, count]) => count > 1);
    const explained = (id: string) => killedWith.filter((undelivered) => undelivered.has(id)).length;
    t.diagnostic(
      `${KILLS} kills after ${lifetimes.join(', ')} ms; ${created.length} orders created, ${events.length} events, ` +
        `${receiver.ids.length} requests received; repeats: ${
          repeats
            .map(([id, count]) => `${id} x${count} (undelivered at ${explained(id)} kills)`)
            .join('; ') || 'none'
        }`,
    );
    assert.equal(new Set(events.map((event) => event.orderId)).size, events.length, 'one event per order');
    assert.ok(events.length >= created.length, 'an event for every created order');
    for (const event of events) {
      assert.equal(received.get(event.id) !== undefined, true, `${event.id} reached the receiver`);
      assert.deepEqual(
        event.deliveries[0]?.attempts.map((attempt) => attempt.status),
        [200],
        `${event.id}: one recorded attempt, the one that delivered`,
      );
      assert.ok(
        (received.get(event.id) ?? 0) <= 1 + explained(event.id),
        `${event.id} received ${received.get(event.id)} times, undelivered at only ${explained(event.id)} kills`,
      );
    }
    assert.equal(received.size, events.length, 'nothing received that the journal does not hold');
  });
});
