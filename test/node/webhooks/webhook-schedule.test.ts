/**
 * The webhook schedule and events on their own: ten attempts over at least
 * three days, each wait spread by ±10 %, `Retry-After` in place of a step,
 * what each answer leads to, and event ids that are the same for the same
 * order and outcome, and differ for a late payment.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextAfter } from '../../../src/server/fulfilment/webhooks/webhook-attempt.js';
import { bodyToSend, webhookEventIdOf } from '../../../src/server/fulfilment/webhooks/webhook-event.js';
import {
  nextWebhookWaitMs,
  WEBHOOK_SCHEDULE_MS,
} from '../../../src/server/fulfilment/webhooks/webhook-schedule.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const answer = (status: number | null, retryAfterMs: number | null = null) => ({
  status,
  durationMs: 1,
  retryAfterMs,
  error: null,
});

describe('the webhook schedule', () => {
  it('makes ten attempts over more than three days', () => {
    assert.equal(WEBHOOK_SCHEDULE_MS.length, 10);
    const total = WEBHOOK_SCHEDULE_MS.reduce((sum, wait) => sum + wait, 0);
    assert.ok(total >= 3 * DAY_MS, `${total} ms`);
  });

  it('spreads each wait by 10 % either way, and takes Retry-After in its place', () => {
    assert.equal(
      nextWebhookWaitMs(1, null, () => 0),
      4_500,
    );
    assert.equal(
      nextWebhookWaitMs(1, null, () => 1),
      5_500,
    );
    assert.equal(
      nextWebhookWaitMs(2, null, () => 0.5),
      300_000,
    );
    assert.equal(
      nextWebhookWaitMs(2, 120_000, () => 0),
      120_000,
    );
    assert.equal(nextWebhookWaitMs(WEBHOOK_SCHEDULE_MS.length, null), undefined, 'spent');
  });

  it('delivers on a 2xx, disables on 410, fails after the last step, and retries anything else', () => {
    assert.deepEqual(nextAfter(answer(204), 1), { state: 'delivered' });
    assert.deepEqual(nextAfter(answer(410), 1), { state: 'disabled' });
    assert.deepEqual(nextAfter(answer(500), WEBHOOK_SCHEDULE_MS.length), { state: 'failed' });
    assert.deepEqual(nextAfter(answer(429, 60_000), 3), { state: 'pending', retryInMs: 60_000 });
    for (const status of [301, 302, 400, 404, 500, null]) {
      assert.equal(nextAfter(answer(status), 1).state, 'pending', `${status}`);
    }
  });
});

describe('webhook events', () => {
  it('have one id per order, outcome and previous outcome', async () => {
    const paid = { id: 'or_1', outcome: 'paid', previousOutcome: null } as const;
    const id = await webhookEventIdOf(paid);
    assert.match(id, /^msg_[A-Za-z0-9_-]{24}$/);
    assert.equal(await webhookEventIdOf({ ...paid }), id);
    assert.notEqual(await webhookEventIdOf({ ...paid, previousOutcome: 'expired' }), id, 'a late payment');
    assert.notEqual(await webhookEventIdOf({ ...paid, outcome: 'expired' }), id);
    assert.notEqual(await webhookEventIdOf({ ...paid, id: 'or_2' }), id);
  });

  it('put the customer back into the stored body at the same place, byte for byte on every send', () => {
    const stored = JSON.stringify({ type: 'order.paid', data: { id: 'or_1', customer: null, z: 1 } });
    const customer = JSON.stringify({ name: 'Ama', phone_number: '+233241234567' });
    const sent = bodyToSend(stored, customer);
    assert.equal(
      sent,
      '{"type":"order.paid","data":{"id":"or_1","customer":{"name":"Ama","phone_number":"+233241234567"},"z":1}}',
    );
    assert.equal(bodyToSend(stored, customer), sent);
    assert.equal(bodyToSend(stored, null), stored);
  });
});
