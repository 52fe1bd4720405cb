/**
 * A relay process killed with SIGKILL in the middle of a webhook attempt
 * (the receiver has the request and has not answered) loses no event: after
 * a restart (its clocks past the dead process's lease) the event is sent
 * again, the same `webhook-id`, and delivered. The repeat is the one place
 * the promise allows: the receiver's answer to the killed attempt was lost.
 * Real processes, a real SQLite file, the sandbox and the receiver over
 * loopback HTTP.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { createSandbox } from '../../../src/sandbox/index.js';
import { WEBHOOK_LEASE_MS } from '../../../src/server/fulfilment/webhooks/webhook-attempt.js';
import { openJournal } from '../../../src/server/index.js';
import { type RelayChild, startChild } from '../../fixtures/child-process.js';
import { serveSandbox } from '../../fixtures/sandbox.js';
import { eventually } from '../../fixtures/wait.js';
import { startReceiver, TEST_WEBHOOK_SECRET } from '../../fixtures/webhook-receiver.js';
import type { WebhookChildPlan } from '../../fixtures/webhook-relay-child.js';

const childScript = fileURLToPath(new URL('../../fixtures/webhook-relay-child.ts', import.meta.url));

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-webhook-crash-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('a relay killed during a webhook attempt', () => {
  it('sends the event again after a restart, and it is delivered', { timeout: 120_000 }, async () => {
    const served = await serveSandbox(createSandbox({ approveAfterMs: 1_000 }));
    after(() => served.close());
    // The first request is held unanswered: the relay is killed while it waits.
    const receiver = await startReceiver((n) => (n === 1 ? 'hang' : { status: 200 }));
    const journalUrl = `sqlite:${join(scratch, 'crash.db')}`;
    const base = { journalUrl, baseUrl: served.url, receiverUrl: receiver.url };
    const children: RelayChild[] = [];
    after(async () => {
      for (const child of children) await child.kill();
    });
    const start = (plan: WebhookChildPlan) => {
      const child = startChild(childScript, plan);
      children.push(child);
      return child;
    };

    const first = start({ ...base, orders: 1, aheadMs: 0 });
    const created = await first.waitFor('created ', 30_000);
    const orderId = created?.split(' ')[1];
    assert.match(String(orderId), /^or_/);
    await receiver.whenReceived(1);
    await first.kill();

    const restarted = start({ ...base, orders: 0, aheadMs: WEBHOOK_LEASE_MS + 5_000 });
    await receiver.whenReceived(2);
    const [killed, again] = receiver.received;
    assert.equal(again?.headers['webhook-id'], killed?.headers['webhook-id'], 'the same event');
    assert.equal(again?.body, killed?.body, 'the same body');
    assert.equal(JSON.parse(String(again?.body)).data.id, orderId);
    // The specification's own verifier accepts both sends.
    for (const webhook of [killed, again]) {
      const headers = webhook?.headers as Record<string, string>;
      new Webhook(TEST_WEBHOOK_SECRET).verify(String(webhook?.body), headers);
    }
    restarted.process.stdin?.write('stop\n');
    assert.ok(await restarted.waitFor('closed', 30_000));

    const journal = await openJournal(journalUrl);
    after(() => journal.close());
    const events = await eventually('the delivery recorded', async () => {
      const listed = await journal.listWebhookEvents({ limit: 10 });
      return listed[0]?.deliveries[0]?.state === 'delivered' && listed;
    });
    assert.equal(events.length, 1, 'one event');
    assert.deepEqual(
      events[0]?.deliveries[0]?.attempts.map((attempt) => attempt.status),
      [200],
      'the killed attempt left no record; the next one delivered',
    );
    assert.equal(receiver.received.length, 2, 'sent twice: once lost with the process, once answered');
  });
});
