/**
 * The element's network module against the real relay and the real sandbox
 * over loopback; the wire breaks in a real proxy between them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CheckoutRequestError, createOrder, lookupOrder } from '../../../src/element/checkout-api.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { listen } from '../../../src/server/index.js';
import { CUSTOMER_NAME, priceAnyCart } from '../../fixtures/checkout-data.js';
import { type FaultPlan, type FaultProxy, startFaultProxy } from '../../fixtures/fault-proxy.js';
import { createTestRelay } from '../../fixtures/relay.js';
import { clockAhead } from '../../fixtures/relay-clock.js';
import { gate, within } from '../../fixtures/wait.js';

let phoneSuffix = 1000;
/** A body for a fresh number, so orders can be counted per test. */
function body(): { body: string; local: string } {
  const local = `02412${String(phoneSuffix++).padStart(5, '0')}`;
  return {
    local,
    body: JSON.stringify({
      customer_data: { name: CUSTOMER_NAME, phone_number: `+233${local.slice(1)}` },
      payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: local } },
      cart: null,
    }),
  };
}

describe('checkout-api against the real relay and sandbox', () => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  let relayServer: Awaited<ReturnType<typeof listen>>;
  let proxy: FaultProxy;
  let plan: (index: number) => FaultPlan = () => ({ kind: 'forward' });
  let createUrl: string;
  let lookupUrl: string;

  const relayTime = clockAhead();

  before(async () => {
    sandbox = await startSandbox({ approveAfterMs: 60_000 });
    const relay = createTestRelay({
      baseUrl: sandbox.url,
      priceCart: priceAnyCart,
      rateLimit: false,
      clock: relayTime.clock,
    });
    relayServer = await listen(relay.node, { port: 0 });
    proxy = await startFaultProxy(relayServer.url, (index) => plan(index));
    createUrl = `${proxy.url}/api/checkout/orders`;
    lookupUrl = `${proxy.url}/api/checkout/lookup`;
  });

  after(async () => {
    await proxy.close();
    await relayServer.close();
    await sandbox.close();
  });

  it('creates an order and reads it back with its lookup token', async () => {
    plan = () => ({ kind: 'forward' });
    const created = await createOrder(createUrl, body().body, crypto.randomUUID());
    assert.match(created.order.id, /^or_/);
    assert.equal(created.order.payment.status, 'requires_action');
    const looked = await lookupOrder(lookupUrl, {
      order_id: created.order.id,
      lookup_token: created.lookup_token,
    });
    assert.equal(looked.order.id, created.order.id);
    sandbox.sandbox.approve(created.order.id);
    // A poll later: a lookup within the sharing window is answered the read before the approval.
    relayTime.pastSharedReads();
    const paid = await lookupOrder(lookupUrl, {
      order_id: created.order.id,
      lookup_token: created.lookup_token,
    });
    assert.equal(paid.order.payment.status, 'paid');
  });

  it('retries a lost answer with the same key and body, and the service creates one order', async () => {
    const start = proxy.requests.length;
    const ordersBefore = sandbox.sandbox.createdOrderCount;
    // The relay acts, then the browser's connection drops: the answer is lost.
    plan = (index) => (index === start ? { kind: 'cut-after-upstream' } : { kind: 'forward' });
    const { body: sent } = body();
    const key = crypto.randomUUID();
    const created = await createOrder(createUrl, sent, key);
    const tries = proxy.requests.slice(start);
    assert.equal(tries.length, 2);
    for (const request of tries) {
      assert.equal(request.headers['idempotency-key'], key);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.body, sent);
    }
    assert.equal(sandbox.sandbox.createdOrderCount - ordersBefore, 1);
    assert.match(created.order.id, /^or_/);
  });

  it('retries 5xx, 409 and 429 (after Retry-After), then gives up with a retryable error', async () => {
    const start = proxy.requests.length;
    const answers: FaultPlan[] = [
      {
        kind: 'answer',
        status: 503,
        body: { error: { code: 'service_unavailable', message: 'x', type: 'api_error' } },
      },
      {
        kind: 'answer',
        status: 409,
        body: { error: { code: 'idempotency_request_in_progress', message: 'x', type: 'idempotency_error' } },
      },
      {
        kind: 'answer',
        status: 429,
        headers: { 'Retry-After': '1' },
        body: { error: { code: 'rate_limited', message: 'x', type: 'rate_limit_error' } },
      },
    ];
    plan = (index) => answers[index - start] ?? { kind: 'forward' };
    const began = Date.now();
    const created = await createOrder(createUrl, body().body, crypto.randomUUID());
    assert.match(created.order.id, /^or_/);
    assert.equal(proxy.requests.length - start, 4);
    // The wait after the 429 honoured its Retry-After.
    assert.ok(Date.now() - began >= 1000);

    const failing = proxy.requests.length;
    plan = () => ({
      kind: 'answer',
      status: 502,
      body: { error: { code: 'service_unavailable', message: 'down', type: 'api_error' } },
    });
    await assert.rejects(
      createOrder(createUrl, body().body, crypto.randomUUID(), { retries: 2 }),
      (error) => {
        assert.ok(error instanceof CheckoutRequestError);
        assert.equal(error.status, 502);
        assert.equal(error.code, 'service_unavailable');
        assert.equal(error.retryable, true);
        return true;
      },
    );
    assert.equal(proxy.requests.length - failing, 3);
  });

  it('does not retry a refusal: 400 names the field', async () => {
    plan = () => ({ kind: 'forward' });
    const start = proxy.requests.length;
    const refused = JSON.parse(body().body);
    refused.customer_data.name = '   ';
    await assert.rejects(createOrder(createUrl, JSON.stringify(refused), crypto.randomUUID()), (error) => {
      assert.ok(error instanceof CheckoutRequestError);
      assert.equal(error.status, 400);
      assert.equal(error.param, 'customer_data.name');
      assert.equal(error.retryable, false);
      assert.equal(error.retried, undefined, 'a first try: nothing was sent under the key before');
      return true;
    });
    assert.equal(proxy.requests.length - start, 1);
  });

  it('marks a refusal that came after failed tries as retried: one of them may have reached the service', async () => {
    const start = proxy.requests.length;
    plan = (index) =>
      index === start
        ? {
            kind: 'answer',
            status: 503,
            body: { error: { code: 'service_unavailable', message: 'x', type: 'api_error' } },
          }
        : { kind: 'forward' };
    const refused = JSON.parse(body().body);
    refused.customer_data.name = '   ';
    await assert.rejects(createOrder(createUrl, JSON.stringify(refused), crypto.randomUUID()), (error) => {
      assert.ok(error instanceof CheckoutRequestError);
      assert.equal(error.status, 400);
      assert.equal(error.retried, true);
      return true;
    });
    assert.equal(proxy.requests.length - start, 2);
  });

  it('gets a 403 for a wrong lookup token, and a readable error for an answer that is not the relay’s', async () => {
    plan = () => ({ kind: 'forward' });
    const created = await createOrder(createUrl, body().body, crypto.randomUUID());
    await assert.rejects(
      lookupOrder(lookupUrl, { order_id: created.order.id, lookup_token: 'forged' }),
      (error) => {
        assert.ok(error instanceof CheckoutRequestError);
        assert.equal(error.status, 403);
        assert.equal(error.retryable, false);
        return true;
      },
    );
    plan = () => ({ kind: 'answer', status: 200, body: '<html>captive portal</html>' });
    await assert.rejects(
      lookupOrder(lookupUrl, { order_id: created.order.id, lookup_token: created.lookup_token }),
      (error) => error instanceof CheckoutRequestError && error.code === 'invalid_answer' && error.retryable,
    );
  });

  it('treats no answer as retryable, and stops at once when aborted', async () => {
    await assert.rejects(
      createOrder('http://127.0.0.1:9/orders', body().body, crypto.randomUUID(), { retries: 0 }),
      (error) => error instanceof CheckoutRequestError && error.code === 'network_error' && error.retryable,
    );
    const controller = new AbortController();
    const answered = gate();
    const before = proxy.requests.length;
    plan = () => {
      answered.open();
      return { kind: 'answer', status: 503, body: {} };
    };
    const pending = createOrder(createUrl, body().body, crypto.randomUUID(), { signal: controller.signal });
    // Aborted once the first try is answered 503: on its way back, or in the wait before the retry.
    await within('the first try to be answered', answered.promise);
    controller.abort(new Error('left the page'));
    await assert.rejects(pending, /left the page/);
    assert.equal(proxy.requests.length, before + 1, 'no retry after the abort');
  });
});
