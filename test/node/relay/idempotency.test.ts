/**
 * The merchant relay scopes the shopper's idempotency key and creates one order per key,
 * whatever the retries, concurrency and lost answers. Its handlers are called with real `Request`s in
 * front of an in-process sandbox (test/fixtures/relay.ts); a real proxy
 * where the wire must break, the Node listener over real HTTP where the
 * socket is the point.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { type CheckoutRelayEvent, listen } from '../../../src/server/index.js';
import type { Clock } from '../../../src/shared/clock.js';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { type FaultPlan, startFaultProxy } from '../../fixtures/fault-proxy.js';
import {
  CLIENT,
  createRequest,
  errorOf,
  inProcessSandbox,
  intent,
  relayStack,
  SECRET,
} from '../../fixtures/relay.js';
import { sandboxFetch } from '../../fixtures/sandbox.js';
import { gate, within } from '../../fixtures/wait.js';

/** JSON with object keys sorted at every depth. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  const fields = Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${sortedJson(record[key])}`);
  return `{${fields.join(',')}}`;
}

describe('createCheckoutRelay', () => {
  const { sandbox, events, relayWith } = relayStack();

  describe('idempotency', () => {
    it('a lost create answer retried with the same key gives the same order, once', async () => {
      const relay = relayWith();
      const count = sandbox.createdOrderCount;
      const key = crypto.randomUUID();
      // The first answer never reaches the browser.
      await relay.create(createRequest(intent(), { key }), CLIENT);
      const retried = await relay.create(createRequest(intent(), { key }), CLIENT);
      assert.equal(retried.status, 200);
      const again = await relay.create(createRequest(intent(), { key }), CLIENT);
      const [a, b] = [await retried.json(), await again.json()];
      assert.equal(a.order.id, b.order.id);
      assert.equal(a.lookup_token, b.lookup_token);
      assert.equal(sandbox.createdOrderCount, count + 1);
    });

    it('order_created says replayed: false for the new order and true for each retry that replays it', async () => {
      events.length = 0;
      const relay = relayWith();
      const key = crypto.randomUUID();
      await relay.create(createRequest(intent(), { key }), CLIENT);
      await relay.create(createRequest(intent(), { key }), CLIENT);
      await relay.create(createRequest(intent(), { key }), CLIENT);
      const created = events.flatMap((event) => (event.type === 'order_created' ? [event] : []));
      assert.deepEqual(
        created.map((event) => event.replayed),
        [false, true, true],
      );
      assert.equal(new Set(created.map((event) => event.orderId)).size, 1, 'one order, reported three times');
    });

    it('a cart refused by priceCart leaves no trace under its key: the same key with the fixed cart creates the order', async () => {
      events.length = 0;
      const relay = relayWith();
      const count = sandbox.createdOrderCount;
      const key = crypto.randomUUID();
      const refused = await relay.create(
        createRequest(intent({ cart: { items: [{ sku: 'sold-out', quantity: 1 }] } }), { key }),
        CLIENT,
      );
      assert.equal(refused.status, 400);
      assert.equal((await errorOf(refused)).param, 'cart.items[0].sku');
      assert.equal(sandbox.createdOrderCount, count, 'the service never heard of it');
      // priceCart runs before the key is scoped, the prompt limit counted, the journal written or the service called.
      const fixed = await relay.create(createRequest(intent(), { key }), CLIENT);
      assert.equal(fixed.status, 200, 'no 422: nothing was recorded under the key');
      assert.equal(sandbox.createdOrderCount, count + 1);
      const created = events.find((event) => event.type === 'order_created');
      assert.equal(created?.type === 'order_created' && created.replayed, false);
    });

    it('a create answer cut on the wire after the relay answered: the retry gets the one order', async () => {
      const relay = relayWith();
      const server = await listen(relay.node);
      const proxy = await startFaultProxy(
        server.url,
        (index): FaultPlan => (index === 0 ? { kind: 'cut-after-upstream' } : { kind: 'forward' }),
      );
      try {
        const count = sandbox.createdOrderCount;
        const key = crypto.randomUUID();
        const send = () =>
          fetch(`${proxy.url}/api/checkout/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(intent()),
          });
        await assert.rejects(send(), TypeError, 'the first answer is lost');
        assert.equal(proxy.requests[0]?.upstreamStatus, 200, 'the relay had created the order');
        const retried = await send();
        assert.equal(retried.status, 200);
        createAnswerSchema.parse(await retried.json());
        assert.equal(sandbox.createdOrderCount, count + 1);
      } finally {
        await proxy.close();
        await server.close();
      }
    });

    it('a shopper who leaves mid-create: the order is still made once, reported, and the retry gets it', async () => {
      // The service's create is held at a gate, so the shopper leaves while it is in flight.
      const createArrived = gate();
      const releaseCreate = gate();
      const gatedFetch: typeof fetch = async (input, init) => {
        if (String(input).endsWith('/orders/new') && !releaseCreate.isOpen) {
          createArrived.open();
          await releaseCreate.promise;
        }
        return sandboxFetch(input, init);
      };
      const slow = inProcessSandbox();
      const reported = gate<CheckoutRelayEvent>();
      const relay = relayWith({
        baseUrl: slow.url,
        fetch: gatedFetch,
        onEvent: (event) => {
          if (event.type === 'request_aborted') reported.open(event);
        },
      });
      const responseClosed = gate();
      const server = await listen((incoming, outgoing) => {
        relay.node(incoming, outgoing);
        // Registered once the relay's create is at the service, so after the relay's own close listener.
        void createArrived.promise.then(() => outgoing.once('close', () => responseClosed.open()));
      });
      try {
        const key = crypto.randomUUID();
        const send = (signal?: AbortSignal) =>
          fetch(`${server.url}/api/checkout/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(intent()),
            ...(signal ? { signal } : {}),
          });
        const shopper = new AbortController();
        const left = send(shopper.signal);
        await within('the create to reach the service', createArrived.promise);
        shopper.abort();
        await assert.rejects(left);
        await within('the relay to see the shopper leave', responseClosed.promise);
        releaseCreate.open();
        const aborted = await within('request_aborted', reported.promise);
        assert.ok(aborted.type === 'request_aborted', 'the merchant hears the shopper left');
        const retried = await send();
        assert.equal(retried.status, 200);
        assert.equal((await retried.json()).order.id, aborted.orderId);
        assert.equal(slow.sandbox.createdOrderCount, 1);
      } finally {
        releaseCreate.open();
        await server.close();
      }
    });

    it('never reads request.signal, whose mere reading makes Deno warn on every request', async () => {
      /** A Request that counts the reads of its `signal`, as Deno's getter notices them. */
      class WatchedRequest extends Request {
        signalReads = 0;
        override get signal(): AbortSignal {
          this.signalReads++;
          return super.signal;
        }
      }
      const relay = relayWith();
      const watched = (path: string, body: unknown, key?: string) =>
        new WatchedRequest(`https://shop.example/api/checkout/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
          body: JSON.stringify(body),
        });
      const create = watched('orders', intent(), crypto.randomUUID());
      const created = await relay.handle(create, CLIENT);
      assert.equal(created.status, 200);
      const { order, lookup_token } = createAnswerSchema.parse(await created.json());
      const lookup = watched('lookup', { order_id: order.id, lookup_token });
      assert.equal((await relay.handle(lookup, CLIENT)).status, 200);
      const preflight = new WatchedRequest('https://shop.example/api/checkout/orders', { method: 'OPTIONS' });
      await relay.handle(preflight, CLIENT);
      assert.deepEqual([create.signalReads, lookup.signalReads, preflight.signalReads], [0, 0, 0]);
    });

    it('the same key with another intent is 422', async () => {
      const relay = relayWith();
      const key = crypto.randomUUID();
      assert.equal((await relay.create(createRequest(intent(), { key }), CLIENT)).status, 200);
      const other = await relay.create(
        createRequest(intent({ cart: { items: [{ sku: 'scarf', quantity: 1 }] } }), { key }),
        CLIENT,
      );
      assert.equal(other.status, 422);
      assert.equal((await errorOf(other)).code, 'idempotency_key_reused');
    });

    it('another process without a journal: another intent under the same key is its own service order, charged its own cart', async () => {
      // The service's key is bound to the attempt's digest: two bodies can never share one service order.
      const key = crypto.randomUUID();
      const first = createAnswerSchema.parse(
        await (await relayWith().create(createRequest(intent(), { key }), CLIENT)).json(),
      );
      const scarf = intent({ cart: { items: [{ sku: 'scarf', quantity: 1 }] } });
      const other = await relayWith().create(createRequest(scarf, { key }), CLIENT);
      assert.equal(other.status, 200);
      const second = createAnswerSchema.parse(await other.json());
      assert.notEqual(second.order.id, first.order.id);
      assert.deepEqual([first.order.amount?.value, second.order.amount?.value], [25_000, 4_000]);
    });

    it('concurrent creates with one key make one order', async () => {
      // The sandbox's processing waits on its clock's timer, which the test fires: the first create
      // stays in flight until the sandbox has turned the others away.
      const processing: (() => void)[] = [];
      const clock: Clock = {
        now: () => Date.now(),
        setTimeout: (callback) => processing.push(callback),
        clearTimeout: () => undefined,
      };
      const slow = inProcessSandbox({ processingDelayMs: 1, clock });
      const turnedAway = gate();
      let inFlightAnswers = 0;
      const countingFetch: typeof fetch = async (input, init) => {
        const response = await sandboxFetch(input, init);
        if (response.status === 409 && ++inFlightAnswers === 2) turnedAway.open();
        return response;
      };
      const relay = relayWith({ baseUrl: slow.url, fetch: countingFetch });
      const key = crypto.randomUUID();
      const sent = Promise.all([1, 2, 3].map(() => relay.create(createRequest(intent(), { key }), CLIENT)));
      await within('the sandbox to answer 409 while the first create is in flight', turnedAway.promise);
      for (const fire of processing.splice(0)) fire();
      const answers = await sent;
      const ids = new Set<string>();
      for (const answer of answers) {
        // Each either got the order or was told the attempt is still in flight: never a second order.
        assert.ok(answer.status === 200 || answer.status === 409, `status ${answer.status}`);
        if (answer.status === 200) ids.add((await answer.json()).order.id);
      }
      assert.equal(ids.size, 1);
      assert.equal(slow.sandbox.createdOrderCount, 1);
    });

    it('scopes the key: the service never sees the shopper key, and the scope is stable across restarts', async () => {
      const seenKeys: string[] = [];
      const spyingFetch: typeof fetch = (input, init) => {
        seenKeys.push(new Headers(init?.headers).get('idempotency-key') ?? '');
        return sandboxFetch(input, init);
      };
      const shopperKey = crypto.randomUUID();
      const first = relayWith({ fetch: spyingFetch, lookupSecret: undefined });
      const a = await (await first.create(createRequest(intent(), { key: shopperKey }), CLIENT)).json();
      // A "restarted" relay: new process state, a new random lookup secret, the same secret key.
      const restarted = relayWith({ fetch: spyingFetch, lookupSecret: undefined });
      const b = await (await restarted.create(createRequest(intent(), { key: shopperKey }), CLIENT)).json();
      assert.equal(b.order.id, a.order.id, 'a retry after a restart replays the first order');
      assert.equal(seenKeys.length, 2);
      assert.equal(seenKeys[0], seenKeys[1]);
      assert.ok(!seenKeys[0]?.includes(shopperKey));
      // The scoped key bound to the keyed digest of the attempt (cart, name, number, network; key order ignored).
      const scope = createHmac('sha256', SECRET).update('pay-checkout relay idempotency scope v1').digest();
      const digestKey = createHmac('sha256', SECRET).update('pay-checkout relay attempt digest v1').digest();
      const { cart, customer_data, payment_method_data } = intent();
      const digest = createHmac('sha256', digestKey)
        .update(sortedJson({ cart, customer_data, payment_method_data }))
        .digest('base64url');
      const expected = createHmac('sha256', scope)
        .update(`idempotency:${shopperKey}:attempt:${digest}`)
        .digest('base64url');
      assert.equal(seenKeys[0], expected);
    });

    it('another merchant (another secret key) with the same shopper key gets its own order', async () => {
      sandbox.keys.add({ key: 'sk_test_other_merchant' });
      const shopperKey = crypto.randomUUID();
      const ours = await (
        await relayWith().create(createRequest(intent(), { key: shopperKey }), CLIENT)
      ).json();
      const theirs = await (
        await relayWith({ secretKey: 'sk_test_other_merchant' }).create(
          createRequest(intent({ cart: { items: [{ sku: 'scarf', quantity: 1 }] } }), { key: shopperKey }),
          CLIENT,
        )
      ).json();
      assert.match(theirs.order.id, /^or_/);
      assert.notEqual(theirs.order.id, ours.order.id);
    });

    it('requires a well-formed Idempotency-Key', async () => {
      const relay = relayWith();
      for (const key of [null, 'short', 'has spaces in it, sixteen+', 'x'.repeat(256)]) {
        const response = await relay.create(createRequest(intent(), { key }), CLIENT);
        assert.equal(response.status, 400, `key ${key}`);
        const error = await errorOf(response);
        assert.equal(error.param, 'Idempotency-Key');
        assert.equal(error.code, 'invalid_request');
      }
    });
  });
});
