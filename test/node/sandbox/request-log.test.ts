/**
 * The sandbox's request log, `GET /_sandbox/requests`, over real HTTP on
 * 127.0.0.1: what reached the service endpoints (endpoint, status, order,
 * replayed), for loopback callers only, and never a key, a name or a number.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type RunningSandbox,
  SANDBOX_KEYS,
  SANDBOX_REQUESTS_PATH,
  startSandbox,
} from '../../../src/sandbox/index.js';
import { CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { orderInput } from '../../fixtures/sandbox.js';

let running: RunningSandbox;
before(async () => {
  running = await startSandbox({ approveAfterMs: 600_000 });
});
after(() => running.close());

async function post(path: string, body: unknown, idempotencyKey?: string): Promise<Response> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${SANDBOX_KEYS.secret}`,
    'content-type': 'application/json',
  };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return fetch(`${running.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function readLog(after = 0, headers: Record<string, string> = {}) {
  const response = await fetch(`${running.url}${SANDBOX_REQUESTS_PATH}?after=${after}`, { headers });
  return { status: response.status, text: await response.text() };
}

describe('the sandbox request log', () => {
  it('lists each service call after a seq: the order created, its replay, a lookup of an unknown order', async () => {
    const start = JSON.parse((await readLog()).text).last_seq as number;
    const key = crypto.randomUUID();
    const created = (await (await post('/orders/new', orderInput(), key)).json()) as {
      order: { id: string };
    };
    await (await post('/orders/new', orderInput(), key)).arrayBuffer();
    await (await post('/orders/lookup', { order_id: 'or_NoSuchOrder000000000000' })).arrayBuffer();
    const { status, text } = await readLog(start);
    assert.equal(status, 200);
    const log = JSON.parse(text) as { data: unknown[]; last_seq: number };
    assert.deepEqual(log, {
      data: [
        { seq: start + 1, endpoint: '/orders/new', status: 200, order_id: created.order.id, replayed: false },
        { seq: start + 2, endpoint: '/orders/new', status: 200, order_id: created.order.id, replayed: true },
        {
          seq: start + 3,
          endpoint: '/orders/lookup',
          status: 404,
          order_id: 'or_NoSuchOrder000000000000',
          replayed: false,
        },
      ],
      last_seq: start + 3,
    });
    for (const personal of [CUSTOMER_NAME, LOCAL_NUMBER, INTERNATIONAL_NUMBER, SANDBOX_KEYS.secret, key]) {
      assert.ok(!text.includes(personal), `the log shows ${personal}`);
    }
  });

  it('answers loopback callers only: a forwarded request, or one with no peer known, is 403', async () => {
    const forwarded = await readLog(0, { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(forwarded.status, 403);
    assert.equal(JSON.parse(forwarded.text).error.code, 'permission_denied');
    const inProcess = await running.sandbox.handle(
      new Request(`http://sandbox.test${SANDBOX_REQUESTS_PATH}`),
    );
    assert.equal(inProcess.status, 403);
  });

  it('only reads: POST is 405 with Allow: GET, and a bad after is 400 naming it', async () => {
    const posted = await fetch(`${running.url}${SANDBOX_REQUESTS_PATH}`, { method: 'POST', body: '{}' });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET');
    const bad = await readLog('abc' as unknown as number);
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.text).error.param, 'after');
  });
});
