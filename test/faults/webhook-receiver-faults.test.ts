/**
 * Receivers that fail in the middle of a request (a slow or dead endpoint
 * never delays other endpoints or other orders; an event is repeated only
 * where the receiver's answer was lost).
 *
 * - A receiver that hangs: a relay process sends every event to two
 *   endpoints, one of which never answers. Every event is delivered to the
 *   other while the hung one holds its requests; the hung attempts end at
 *   their time limit, recorded as failed with no status, and are tried again.
 * - A receiver killed with SIGKILL while it holds the relay's requests: the
 *   attempts are recorded as failed with no status, and once the receiver is
 *   back on its port every event is delivered, received once by it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RelayChild, startChild } from '../fixtures/child-process.js';
import { linesOf, scratchFiles, servedSandbox, waitUntil } from '../fixtures/delivery-faults.js';
import {
  countsOf,
  journalledEvents,
  startHeldReceiver,
  startWebhookChild,
} from '../fixtures/webhook-faults.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';
import type { ReceiverChildPlan } from '../fixtures/webhook-receiver-child.js';

const ORDERS = 6;
const receiverScript = fileURLToPath(new URL('../fixtures/webhook-receiver-child.ts', import.meta.url));

function startReceiverChild(plan: ReceiverChildPlan): RelayChild {
  const child = startChild(receiverScript, plan);
  after(() => child.kill());
  return child;
}

describe('a receiver that fails in the middle of a request', () => {
  it('hangs: the other endpoint gets every event meanwhile; the hung attempts time out and are tried again', {
    timeout: 120_000,
  }, async (t) => {
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder } = scratchFiles();
    const journalUrl = `sqlite:${join(folder, 'journal.db')}`;
    const hung = await startReceiver(() => 'hang');
    const answering = await startHeldReceiver();
    const relay = startWebhookChild({
      journalUrl,
      baseUrl: url,
      receiverUrls: [hung.url, answering.url],
      orders: ORDERS,
    });

    const allAnswered = await waitUntil(() => new Set(answering.ids).size === ORDERS, 60_000);
    const hungHolding = hung.received.length;
    const timedOut = await waitUntil(() => linesOf([relay], 'attempt-failed ').length >= 1, 60_000);
    const triedAgain = await waitUntil(() => hung.received.length > hungHolding, 30_000);
    relay.process.stdin?.write('exit\n');
    await relay.exited;
    const events = await journalledEvents(journalUrl);
    const hungAttempts = events.flatMap(
      (event) => event.deliveries.find((delivery) => delivery.endpoint === hung.url)?.attempts ?? [],
    );
    t.diagnostic(
      `${new Set(answering.ids).size} events answered while the hung receiver held ${hungHolding} requests; ` +
        `hung attempts recorded ${JSON.stringify(hungAttempts.map((one) => [one.status, one.error]))}`,
    );
    assert.ok(allAnswered, 'every event reached the answering endpoint');
    assert.ok(hungHolding > 0, 'the hung receiver held requests meanwhile');
    assert.deepEqual([...countsOf(answering.ids).values()], Array(ORDERS).fill(1), 'each once');
    assert.ok(timedOut, 'a hung attempt ended at its limit');
    assert.ok(triedAgain, 'and was tried again');
    assert.ok(hungAttempts.length > 0 && hungAttempts.every((one) => one.status === null && one.error));
    for (const event of events) {
      const answered = event.deliveries.find((delivery) => delivery.endpoint === answering.url);
      assert.equal(answered?.state, 'delivered');
      assert.deepEqual(
        answered?.attempts.map((one) => one.status),
        [200],
      );
      const stuck = event.deliveries.find((delivery) => delivery.endpoint === hung.url);
      assert.equal(stuck?.state, 'pending', 'the hung endpoint is tried again later');
    }
  });

  it('killed with SIGKILL while it holds requests: every event delivered once it is back', {
    timeout: 120_000,
  }, async (t) => {
    const { url } = await servedSandbox({ approveAfterMs: 300 });
    const { folder } = scratchFiles();
    const journalUrl = `sqlite:${join(folder, 'journal.db')}`;
    const first = startReceiverChild({ port: 0, hold: true });
    const port = Number((await first.waitFor('listening ', 30_000))?.split(' ')[1]);
    const receiverUrl = `http://127.0.0.1:${port}/hooks`;
    const relay = startWebhookChild({ journalUrl, baseUrl: url, receiverUrls: [receiverUrl], orders: 2 });
    const held = await waitUntil(() => linesOf([first], 'received ').length === 2, 60_000);
    assert.ok(held, 'the receiver holds both requests');
    await first.kill();
    const failed = await waitUntil(
      () => linesOf([relay], 'attempt-failed ').filter((line) => line.split(' ')[1] === '1').length === 2,
      30_000,
    );
    const second = startReceiverChild({ port, hold: false });
    assert.ok(await second.waitFor('listening ', 30_000), 'the receiver is back on its port');
    const delivered = await waitUntil(() => linesOf([relay], 'delivered ').length === 2, 60_000);
    relay.process.stdin?.write('exit\n');
    await relay.exited;
    const events = await journalledEvents(journalUrl);
    const statuses = events.map((event) => event.deliveries[0]?.attempts.map((one) => one.status));
    t.diagnostic(`attempts per event ${JSON.stringify(statuses)}`);
    assert.ok(failed, 'the killed attempts were recorded as failed');
    assert.ok(delivered, 'both events delivered once the receiver was back');
    assert.deepEqual([...countsOf(linesOf([second], 'received ')).values()], [1, 1], 'received once each');
    for (const attempts of statuses) {
      assert.equal(attempts?.at(0), null, 'the killed attempt: no status');
      assert.equal(attempts?.at(-1), 200);
      assert.equal(attempts?.filter((status) => status === 200).length, 1);
    }
  });
});
