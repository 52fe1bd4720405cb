/**
 * The sandbox's idempotency and its memory
 * bounds, each call handed to `sandbox.handle` in process (test/fixtures/sandbox.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import type { Clock } from '../../../src/shared/clock.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_RETENTION_MS,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../../../src/shared/service-contract.js';
import { type Answer, START, sandboxFetch, sandboxWithClock, scarfOrderFor } from '../../fixtures/sandbox.js';

async function create(
  url: string,
  body: unknown,
  { key, apiKey = SANDBOX_KEYS.secret, rawBody }: { key?: string; apiKey?: string; rawBody?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${apiKey}`,
    'content-type': 'application/json',
  };
  if (key !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = key;
  const response = await sandboxFetch(`${url}/orders/new`, {
    method: 'POST',
    headers,
    body: rawBody ?? JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/**
 * A clock at START whose timers wait for the test: `started` resolves when
 * the sandbox's simulated work begins, and `finish()` ends it.
 */
function heldWork() {
  const waiting: (() => void)[] = [];
  let begun: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const clock: Clock = {
    now: () => START,
    setTimeout: (callback) => {
      waiting.push(callback);
      begun();
    },
    clearTimeout: () => undefined,
  };
  const finish = () => {
    for (const callback of waiting.splice(0)) callback();
  };
  return { clock, started, finish };
}

async function lookup(url: string, orderId: string): Promise<Answer> {
  const response = await sandboxFetch(`${url}/orders/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: orderId }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function page(url: string, pageNumber: number, pageSize: number): Promise<Answer> {
  const response = await sandboxFetch(`${url}/orders/page`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ page_number: pageNumber, page_size: pageSize }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

let keyCounter = 0;
function newKey(): string {
  keyCounter++;
  return `test-idempotency-key-${String(keyCounter).padStart(4, '0')}`;
}

describe('idempotency on /orders/new', () => {
  it('the same key and body replays the first answer (status and body) with Idempotent-Replayed: true', async () => {
    const { url, sandbox, clock } = await sandboxWithClock({ approveAfterMs: 1000 });
    const key = newKey();
    const first = await create(url, scarfOrderFor(), { key });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get(IDEMPOTENT_REPLAYED_HEADER), null);
    // The order moves on; the replay is still the first answer, as the service gave it.
    clock.now += 5000;
    const again = await create(url, scarfOrderFor(), { key });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get(IDEMPOTENT_REPLAYED_HEADER), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.body.order.payment.status, 'requires_action');
    assert.equal(sandbox.createdOrderCount, 1);
    assert.equal((await lookup(url, first.body.order.id)).body.order.payment.status, 'paid');
  });

  it('compares bodies in canonical form: key order and spacing do not matter', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const key = newKey();
    const input = scarfOrderFor();
    const first = await create(url, input, { key });
    const reordered = {
      line_items: input.line_items.map((item) => ({
        product: { quantity: 1, price: { value: 12_000, currency: 'ghs' }, name: 'Kente scarf' },
        type: item.type,
      })),
      payment_method_data: { mobile_money: { number: '0241234567', issuer: 'mtn' }, type: 'mobile_money' },
      customer_data: { phone_number: '+233241234567', name: 'Ama Mensah' },
      execute_payment: true,
    };
    const again = await create(url, undefined, { key, rawBody: JSON.stringify(reordered, null, 4) });
    assert.equal(again.headers.get(IDEMPOTENT_REPLAYED_HEADER), 'true');
    assert.equal(again.body.order.id, first.body.order.id);
    assert.equal(sandbox.createdOrderCount, 1);
  });

  it('the same key with another body is 422 idempotency_key_reused, and creates nothing', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const key = newKey();
    await create(url, scarfOrderFor(), { key });
    const other = await create(url, scarfOrderFor('Kofi Boateng'), { key });
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, 'idempotency_key_reused');
    assert.equal(other.body.error.type, 'idempotency_error');
    assert.equal(sandbox.createdOrderCount, 1);
  });

  it('the same key while the first request is in flight is 409 idempotency_request_in_progress', async () => {
    const work = heldWork();
    const { url, sandbox } = await sandboxWithClock({ processingDelayMs: 300, clock: work.clock });
    const key = newKey();
    const firstRequest = create(url, scarfOrderFor(), { key });
    // The first request has claimed the key once its simulated work waits on the clock.
    await work.started;
    const during = await create(url, scarfOrderFor(), { key });
    assert.equal(during.status, 409);
    assert.equal(during.body.error.code, 'idempotency_request_in_progress');
    assert.equal(during.body.error.type, 'idempotency_error');
    const otherBodyDuring = await create(url, scarfOrderFor('Kofi Boateng'), { key });
    assert.equal(otherBodyDuring.status, 422, 'another body is a reuse even in flight');
    work.finish();
    const first = await firstRequest;
    assert.equal(first.status, 200);
    const afterwards = await create(url, scarfOrderFor(), { key });
    assert.equal(afterwards.headers.get(IDEMPOTENT_REPLAYED_HEADER), 'true');
    assert.equal(afterwards.body.order.id, first.body.order.id);
    assert.equal(sandbox.createdOrderCount, 1);
  });

  it('creates exactly one order for 200 concurrent requests with one key', async () => {
    for (const processingDelayMs of [0, 20]) {
      const { url, sandbox } = await sandboxWithClock({ processingDelayMs });
      const key = newKey();
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => create(url, scarfOrderFor(), { key })),
      );
      assert.equal(sandbox.createdOrderCount, 1, `processingDelayMs ${processingDelayMs}`);
      assert.equal(sandbox.orderCount, 1);
      const ids = new Set(
        answers.filter((answer) => answer.status === 200).map((answer) => answer.body.order.id),
      );
      assert.equal(ids.size, 1);
      for (const answer of answers) assert.ok([200, 409].includes(answer.status), String(answer.status));
      assert.equal(
        answers.filter((answer) => answer.status === 200 && !answer.headers.has(IDEMPOTENT_REPLAYED_HEADER))
          .length,
        1,
      );
    }
  });

  it('keys are scoped per API key: the same key under another API key is another request', async () => {
    const { url, sandbox } = await sandboxWithClock();
    sandbox.keys.add({ key: 'sk_test_second_key' });
    const key = newKey();
    const first = await create(url, scarfOrderFor(), { key });
    const second = await create(url, scarfOrderFor(), { key, apiKey: 'sk_test_second_key' });
    assert.equal(second.status, 200);
    assert.equal(second.headers.get(IDEMPOTENT_REPLAYED_HEADER), null);
    assert.notEqual(second.body.order.id, first.body.order.id);
    assert.equal(sandbox.createdOrderCount, 2);
  });

  it('keys are kept 24 h by the clock: a replay just before, a new order from then on', async () => {
    const { url, sandbox, clock } = await sandboxWithClock();
    const key = newKey();
    const first = await create(url, scarfOrderFor(), { key });
    clock.now = START + IDEMPOTENCY_KEY_RETENTION_MS - 1;
    assert.equal((await create(url, scarfOrderFor(), { key })).body.order.id, first.body.order.id);
    clock.now = START + IDEMPOTENCY_KEY_RETENTION_MS;
    const later = await create(url, scarfOrderFor('Kofi Boateng'), { key });
    assert.equal(later.status, 200, 'an expired key is free, even for another body');
    assert.notEqual(later.body.order.id, first.body.order.id);
    assert.equal(sandbox.createdOrderCount, 2);
  });

  it('a 400 is not kept: the same key works with a corrected body', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const key = newKey();
    const invalid = await create(url, { ...scarfOrderFor(), line_items: [] }, { key });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error.param, 'line_items');
    const corrected = await create(url, scarfOrderFor(), { key });
    assert.equal(corrected.status, 200);
    assert.equal(corrected.headers.get(IDEMPOTENT_REPLAYED_HEADER), null);
    assert.equal(sandbox.createdOrderCount, 1);
  });

  it('without a key, every create is a new order', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const first = await create(url, scarfOrderFor());
    const second = await create(url, scarfOrderFor());
    assert.notEqual(first.body.order.id, second.body.order.id);
    assert.equal(sandbox.createdOrderCount, 2);
  });

  it('an Idempotency-Key that is too long or holds spaces is 400 with param Idempotency-Key', async () => {
    const { url, sandbox } = await sandboxWithClock();
    for (const key of ['x'.repeat(256), 'key with spaces']) {
      const answer = await create(url, scarfOrderFor(), { key });
      assert.equal(answer.status, 400, key);
      assert.equal(answer.body.error.code, 'invalid_request');
      assert.equal(answer.body.error.param, IDEMPOTENCY_KEY_HEADER);
    }
    assert.equal((await create(url, scarfOrderFor(), { key: 'x'.repeat(255) })).status, 200);
    assert.equal(sandbox.createdOrderCount, 1);
  });

  it('idempotency records are capped: past the cap the oldest key is forgotten', async () => {
    const { url, sandbox } = await sandboxWithClock({ maxIdempotencyRecords: 3 });
    const keys = [newKey(), newKey(), newKey(), newKey(), newKey()];
    const firstAnswers = [];
    for (const key of keys) firstAnswers.push(await create(url, scarfOrderFor(), { key }));
    assert.equal(sandbox.idempotencyRecordCount, 3);
    const newest = await create(url, scarfOrderFor(), { key: keys[4] });
    assert.equal(newest.body.order.id, firstAnswers[4]?.body.order.id, 'a recent key still replays');
    const oldest = await create(url, scarfOrderFor(), { key: keys[0] });
    assert.notEqual(oldest.body.order.id, firstAnswers[0]?.body.order.id, 'the oldest key was forgotten');
    assert.equal(sandbox.createdOrderCount, 6);
  });
});

describe('bounded memory', () => {
  it('past maxOrders the oldest orders go first, with their OTPs; page and lookup stay right', async () => {
    const { url, sandbox } = await sandboxWithClock({ maxOrders: 5 });
    const created = [];
    for (let index = 0; index < 8; index++) created.push((await create(url, scarfOrderFor())).body.order);
    assert.equal(sandbox.orderCount, 5);
    assert.equal(sandbox.createdOrderCount, 8);
    for (const order of created.slice(0, 3)) {
      assert.equal((await lookup(url, order.id)).status, 404);
      const otp = await sandboxFetch(`${url}/otp/lookup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ otp_id: order.payment.otp_id }),
      });
      assert.equal(otp.status, 404);
    }
    for (const order of created.slice(3)) assert.equal((await lookup(url, order.id)).status, 200);
    const ids = (await page(url, 1, 10)).body.page.orders.map((order: { id: string }) => order.id);
    assert.deepEqual(
      ids,
      created
        .slice(3)
        .map((order) => order.id)
        .reverse(),
    );
  });

  it('a full store of 100,000 orders still answers lookups and pages correctly, and evicts oldest first', async () => {
    const { url, sandbox } = await sandboxWithClock({ maxOrders: 100_000 });
    const seeded = sandbox.seedOrders(100_001, scarfOrderFor());
    assert.equal(sandbox.orderCount, 100_000);
    assert.equal(sandbox.createdOrderCount, 100_001);
    assert.equal((await lookup(url, seeded[0] as string)).status, 404, 'the first order was pushed out');
    const ids = seeded.slice(1);
    const oldest = ids[0] as string;
    const newest = ids[99_999] as string;
    assert.equal((await lookup(url, oldest)).body.order.id, oldest);
    assert.equal((await lookup(url, newest)).body.order.id, newest);
    const first = (await page(url, 1, 256)).body.page.orders.map((order: { id: string }) => order.id);
    assert.deepEqual(first, ids.slice(-256).reverse());
    const middle = (await page(url, 200, 256)).body.page.orders.map((order: { id: string }) => order.id);
    assert.deepEqual(middle, ids.slice(100_000 - 200 * 256, 100_000 - 199 * 256).reverse());
    // 100,000 = 390 × 256 + 160: page 391 is the short last one, page 392 is empty.
    const last = (await page(url, 391, 256)).body.page.orders.map((order: { id: string }) => order.id);
    assert.deepEqual(last, ids.slice(0, 160).reverse());
    assert.deepEqual((await page(url, 392, 256)).body.page.orders, []);
    // One more order comes first and pushes the oldest out.
    const extra = (await create(url, scarfOrderFor())).body.order.id;
    assert.equal((await page(url, 1, 1)).body.page.orders[0].id, extra);
    assert.equal((await lookup(url, oldest)).status, 404);
    assert.equal(sandbox.orderCount, 100_000);
  });
});
