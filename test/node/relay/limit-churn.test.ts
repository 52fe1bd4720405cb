/**
 * Limits that cannot be churned away: no traffic, from any
 * number of addresses, empties a number's prompt window or a client's bucket
 * before its time. The flood is the one an attacker can afford: lookups with
 * a body of `{}` (each a `400`, no service call) from 10,000 /64s of one
 * IPv6 /48, through the real relay's `handle`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRateLimitStore } from '../../../src/server/limits/memory-rate-limit-store.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { CLIENT, createRequest, errorOf, intent, relayStack } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';

const { sandbox, events, relayWith } = relayStack();

/** An empty lookup through `handle`, from a /64 of its own in 2001:db8:1::/48. */
function emptyLookup(relay: ReturnType<typeof relayWith>, index: number): Promise<Response> {
  const request = new Request('https://shop.example/api/checkout/lookup', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return Promise.resolve(relay.handle(request, { clientAddress: `2001:db8:1:${index.toString(16)}::1` }));
}

/** 10,000 empty lookups from 10,000 /64s: every one a 400, none reaching the service. */
async function churn(relay: ReturnType<typeof relayWith>): Promise<void> {
  const statuses = new Set<number>();
  for (let index = 0; index < 10_000; index++) {
    const answer = await emptyLookup(relay, index);
    statuses.add(answer.status);
    await answer.arrayBuffer();
  }
  assert.deepEqual([...statuses], [400], 'each lookup is refused as a bad request');
}

describe('limits that no flood can churn away', () => {
  it('a number’s prompt window outlives 10,000 lookups from 10,000 /64s', { timeout: 60_000 }, async () => {
    const now = 1_700_000_000_000;
    const relay = relayWith({ clock: clockReading(() => now) });
    const victim = intent(customerPayingFrom('0201112233'));
    const before = sandbox.createdOrderCount;
    for (let index = 0; index < 3; index++) {
      assert.equal((await relay.create(createRequest(victim), CLIENT)).status, 200);
    }
    const fourth = await relay.create(createRequest(victim), CLIENT);
    assert.equal(fourth.status, 429);
    assert.equal((await errorOf(fourth)).code, 'too_many_payment_requests');
    await churn(relay);
    // Within the same 10 minutes, from new addresses: still refused.
    for (let index = 0; index < 3; index++) {
      const again = await relay.create(createRequest(victim), { clientAddress: `192.0.2.${index + 1}` });
      assert.equal(again.status, 429, `create ${index + 1} after the flood`);
      assert.equal((await errorOf(again)).code, 'too_many_payment_requests');
    }
    assert.equal(sandbox.createdOrderCount - before, 3, 'three prompts in all');
  });

  it('a client’s create bucket outlives the same flood', { timeout: 60_000 }, async () => {
    const now = 1_700_000_000_000;
    const relay = relayWith({ clock: clockReading(() => now) });
    const refused = () => relay.create(createRequest(intent({ customer_data: {} })), CLIENT);
    for (let index = 0; index < 10; index++) assert.equal((await refused()).status, 400);
    assert.equal((await refused()).status, 429);
    await churn(relay);
    assert.equal((await refused()).status, 429, 'the bucket is as empty as before the flood');
  });
});

describe('the in-memory store: bounded by what the limits admit', () => {
  const bucket = { capacity: 2, refillPerMinute: 60 };
  const window = { limit: 3, windowMinutes: 10 };

  it('never drops a live bucket: a new client is refused at the bound until one is full again', () => {
    const store = createMemoryRateLimitStore({ maxKeys: 3 });
    for (const client of ['a', 'b', 'c'])
      assert.equal(store.take(`lookup:${client}`, bucket, 0).allowed, true);
    const refused = store.take('lookup:d', bucket, 0);
    assert.equal(refused.allowed, false);
    assert.equal(refused.storeFull, true);
    assert.ok(refused.retryAfterMs >= 1000, 'a Retry-After of at least a second');
    // The live buckets are as they were: one token left each.
    assert.equal(store.take('lookup:a', bucket, 0).allowed, true);
    assert.equal(store.take('lookup:a', bucket, 0).allowed, false);
    // Two seconds on, b and c are full again: the same as no entry, so they make room.
    assert.equal(store.take('lookup:d', bucket, 2_000).allowed, true);
    assert.equal(store.take('lookup:e', bucket, 2_000).allowed, true);
    assert.ok(store.size <= 3);
  });

  it('keeps each kind of limit apart: lookups fill their own room, not the creates’ or the prompts’', () => {
    const store = createMemoryRateLimitStore({ maxKeys: 2 });
    assert.equal(store.take('create:a', bucket, 0).allowed, true);
    assert.equal(store.takeSlot('prompt:n', 'attempt-1', window, 0).allowed, true);
    for (const client of ['x', 'y', 'z']) store.take(`lookup:${client}`, bucket, 0);
    assert.equal(store.take('create:a', bucket, 0).allowed, true);
    assert.equal(store.take('create:a', bucket, 0).allowed, false, 'the create bucket kept its count');
    assert.equal(store.takeSlot('prompt:n', 'attempt-2', window, 0).remaining, 1);
  });

  it('keeps a prompt window until its newest prompt is out of the window, then forgets it', () => {
    const store = createMemoryRateLimitStore({ maxKeys: 1 });
    assert.equal(store.takeSlot('prompt:n', 'attempt-1', window, 0).allowed, true);
    const other = store.takeSlot('prompt:m', 'attempt-2', window, 60_000);
    assert.deepEqual([other.allowed, other.storeFull], [false, true]);
    assert.equal(other.retryAfterMs, 540_000, 'until the window of n is over');
    assert.equal(store.takeSlot('prompt:m', 'attempt-2', window, 600_000).allowed, true);
    assert.equal(store.size, 1);
  });

  it('says when a slot is new, and gives back only what it is asked to', () => {
    const store = createMemoryRateLimitStore();
    assert.equal(store.takeSlot('prompt:n', 'attempt-1', window, 0).newSlot, true);
    assert.equal(store.takeSlot('prompt:n', 'attempt-1', window, 1).newSlot, false);
    assert.equal(store.takeSlot('prompt:n', 'attempt-2', window, 2).remaining, 1);
    store.releaseSlot?.('prompt:n', 'attempt-2');
    assert.equal(store.takeSlot('prompt:n', 'attempt-3', window, 3).remaining, 1);
    store.releaseSlot?.('prompt:n', 'attempt-1');
    store.releaseSlot?.('prompt:n', 'attempt-3');
    assert.equal(store.size, 0, 'an empty window is no entry');
  });

  it('the relay answers 429 at the bound and warns the merchant once', async () => {
    events.length = 0;
    const store = createMemoryRateLimitStore({ maxKeys: 2 });
    const relay = relayWith({ rateLimit: { store } });
    const from = (address: string) =>
      relay.create(createRequest(intent({ customer_data: {} })), { clientAddress: address });
    assert.equal((await from('192.0.2.1')).status, 400);
    assert.equal((await from('192.0.2.2')).status, 400);
    const refused = await from('192.0.2.3');
    assert.equal(refused.status, 429);
    assert.equal((await errorOf(refused)).code, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    await from('192.0.2.4');
    const warnings = events.filter(
      (event) => event.type === 'warning' && event.code === 'rate_limit_store_full',
    );
    assert.equal(warnings.length, 1);
  });
});
