/**
 * The relay's transport to the service: from the Node entry, on Node, with no
 * `fetch` option, it is undici's `request` over a keep-alive pool; a given fetch wins; other
 * runtimes keep the global fetch. The sandbox served over loopback behind a real fault proxy,
 * which records what arrives on the wire and breaks it where needed. Also the
 * Node listener's lazy headers, which must answer as `Headers.get`.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { before, describe, it } from 'node:test';
import { SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import { type CheckoutRelayOptions, createLookupTokens, listen } from '../../../src/server/index.js';
import { isNodeRuntime } from '../../../src/server/is-node-runtime.js';
import { createCheckoutRelay } from '../../../src/server/node.js';
import { createAnswerSchema, errorBodySchema, lookupAnswerSchema } from '../../../src/shared/wire.js';
import { checkoutIntent, priceAnyCart } from '../../fixtures/checkout-data.js';
import { type FaultPlan, startFaultProxy } from '../../fixtures/fault-proxy.js';
import {
  assertNoCustomerData,
  CLIENT,
  createRequest,
  LOOKUP_SECRET,
  lookupRequest,
  relayStack,
} from '../../fixtures/relay.js';

const tokens = createLookupTokens(LOOKUP_SECRET);

/** A create of Ama's checkout, priced by the shop whatever the cart. */
function checkoutRequest(key: string = crypto.randomUUID()): Request {
  return createRequest(checkoutIntent(), { key });
}

/** One raw HTTP request: repeated header lines and any casing, as a browser or proxy may send them. */
function rawPost(
  url: string,
  headers: Record<string, string | string[]>,
  body: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: 'POST' }, (incoming) => {
      let text = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => {
        text += chunk;
      });
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }),
      );
    });
    for (const [name, value] of Object.entries(headers)) outgoing.setHeader(name, value);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('the relay’s transport to the service', () => {
  // From the Node entry, with no fetch option: the relay's own default transport.
  const stack = relayStack({ createRelay: createCheckoutRelay, inProcess: false });
  const events = stack.events;
  let sandboxUrl: string;
  const relayWith = (options: Partial<CheckoutRelayOptions> = {}) =>
    stack.relayWith({ baseUrl: sandboxUrl, priceCart: priceAnyCart, ...options });

  before(async () => {
    sandboxUrl = await stack.served();
  });

  it('on Node with no fetch option is undici’s request: none of fetch’s own headers reach the service', async () => {
    assert.equal(isNodeRuntime(), true);
    const proxy = await startFaultProxy(sandboxUrl);
    try {
      const relay = relayWith({ baseUrl: proxy.url });
      const created = await relay.create(checkoutRequest(), CLIENT);
      assert.equal(created.status, 200);
      const { order, lookup_token } = createAnswerSchema.parse(await created.json());
      const looked = await relay.lookup(lookupRequest({ order_id: order.id, lookup_token }), CLIENT);
      assert.equal(looked.status, 200);
      assert.equal(lookupAnswerSchema.parse(await looked.json()).order.id, order.id);
      assert.deepEqual(
        proxy.requests.map((request) => request.path),
        ['/orders/new', '/orders/lookup'],
      );
      for (const request of proxy.requests) {
        assert.equal(request.headers['sec-fetch-mode'], undefined, 'fetch sends sec-fetch-mode');
        assert.equal(request.headers['user-agent'], undefined, 'fetch sends user-agent: node');
        assert.equal(request.headers.authorization, `Bearer ${SANDBOX_KEYS.secret}`);
        assert.equal(request.headers.connection, 'keep-alive');
      }
    } finally {
      await proxy.close();
    }
  });

  it('off Node (here, a runtime that says it is workerd) keeps the global fetch', async () => {
    const proxy = await startFaultProxy(sandboxUrl);
    const original = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    try {
      Object.defineProperty(globalThis, 'navigator', {
        value: { userAgent: 'Cloudflare-Workers' },
        configurable: true,
      });
      const relay = relayWith({ baseUrl: proxy.url });
      assert.equal((await relay.create(checkoutRequest(), CLIENT)).status, 200);
      assert.equal(proxy.requests[0]?.headers['sec-fetch-mode'], 'cors', 'undici, the global fetch');
    } finally {
      if (original) Object.defineProperty(globalThis, 'navigator', original);
      else Reflect.deleteProperty(globalThis, 'navigator');
      await proxy.close();
    }
  });

  it('a given fetch wins: globalThis.fetch keeps undici, a wrapper sees every call', async () => {
    const proxy = await startFaultProxy(sandboxUrl);
    try {
      const viaUndici = relayWith({ baseUrl: proxy.url, fetch: globalThis.fetch });
      assert.equal((await viaUndici.create(checkoutRequest(), CLIENT)).status, 200);
      assert.equal(proxy.requests[0]?.headers['sec-fetch-mode'], 'cors');
      const seen: string[] = [];
      const wrapped = relayWith({
        baseUrl: proxy.url,
        fetch: (input, init) => {
          seen.push(String(input));
          return fetch(input, init);
        },
      });
      assert.equal((await wrapped.create(checkoutRequest(), CLIENT)).status, 200);
      assert.deepEqual(seen, [`${proxy.url}/orders/new`]);
    } finally {
      await proxy.close();
    }
  });

  it('on the default transport, a service that resets, cuts or is down is a 502 that leaks nothing', async () => {
    const plans: FaultPlan[] = [{ kind: 'reset' }, { kind: 'cut-after-upstream' }];
    for (const plan of plans) {
      const proxy = await startFaultProxy(sandboxUrl, () => plan);
      try {
        events.length = 0;
        const relay = relayWith({ baseUrl: proxy.url });
        const response = await relay.lookup(
          lookupRequest({ order_id: 'or_missing', lookup_token: await tokens.sign('or_missing') }),
          CLIENT,
        );
        assert.equal(response.status, 502, plan.kind);
        const { error } = errorBodySchema.parse(await response.json());
        assert.equal(error.code, 'service_unavailable');
        // One try and the relay's two retries, each a network failure.
        assert.equal(proxy.requests.length, 3, plan.kind);
        const upstream = events.find((event) => event.type === 'upstream_error');
        assert.equal(upstream?.type === 'upstream_error' && upstream.error.code, 'network_error');
      } finally {
        await proxy.close();
      }
    }
    const down = relayWith({ baseUrl: 'http://127.0.0.1:9' });
    assert.equal((await down.create(checkoutRequest(), CLIENT)).status, 502);
  });

  it('tells Node from runtimes that only answer to process.versions.node', () => {
    const node = { process: { versions: { node: '20.20.2' } } };
    assert.equal(isNodeRuntime(node), true);
    assert.equal(isNodeRuntime({ ...node, navigator: { userAgent: 'Node.js/22' } }), true);
    assert.equal(isNodeRuntime({ process: { versions: { node: '22.6.0', bun: '1.2.0' } } }), false);
    assert.equal(isNodeRuntime({ process: { versions: { node: '22.0.0', deno: '2.1.0' } } }), false);
    assert.equal(isNodeRuntime({ ...node, navigator: { userAgent: 'Cloudflare-Workers' } }), false);
    assert.equal(isNodeRuntime({ navigator: { userAgent: 'Mozilla/5.0' } }), false);
    assert.equal(isNodeRuntime({}), false);
  });

  describe("over undici's transport (the Node entry's default)", () => {
    it('creates, looks up, and answers 502 when the service is down', async () => {
      const relay = relayWith();
      const created = await relay.create(checkoutRequest(), CLIENT);
      assert.equal(created.status, 200);
      const answer = createAnswerSchema.parse(await created.json());
      const looked = await relay.lookup(
        lookupRequest({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        CLIENT,
      );
      assert.equal(looked.status, 200);
      assertNoCustomerData(await looked.text());
      const down = relayWith({ baseUrl: 'http://127.0.0.1:9' });
      assert.equal((await down.create(checkoutRequest(), CLIENT)).status, 502);
    });
  });

  describe('headers read by the Node adapter without a web Headers', () => {
    it('answer as Headers.get does: repeated lines joined, any casing', async () => {
      const relay = relayWith({ allowedOrigins: ['https://shop.example'] });
      const server = await listen(relay.node);
      try {
        const body = JSON.stringify(checkoutIntent());
        // Two Content-Type lines read as "application/json, text/plain": not JSON, on Node as on the web.
        const twoTypes = await rawPost(
          `${server.url}/api/checkout/orders`,
          { 'content-type': ['application/json', 'text/plain'], 'idempotency-key': crypto.randomUUID() },
          body,
        );
        assert.equal(twoTypes.status, 415);
        const webTwoTypes = new Headers([
          ['content-type', 'application/json'],
          ['content-type', 'text/plain'],
          ['idempotency-key', crypto.randomUUID()],
        ]);
        const web = await relay.create(
          new Request('https://shop.example/api/checkout/orders', {
            method: 'POST',
            headers: webTwoTypes,
            body,
          }),
          CLIENT,
        );
        assert.equal(web.status, 415);
        // Two Idempotency-Key lines join into one invalid key.
        const key = crypto.randomUUID();
        const twoKeys = await rawPost(
          `${server.url}/api/checkout/orders`,
          { 'Content-Type': 'application/json', 'IDEMPOTENCY-KEY': [key, key] },
          body,
        );
        assert.equal(twoKeys.status, 400);
        assert.equal(errorBodySchema.parse(JSON.parse(twoKeys.body)).error.param, 'Idempotency-Key');
        // Any casing of a single line works, and the Origin is read for CORS.
        const created = await rawPost(
          `${server.url}/api/checkout/orders`,
          { 'CONTENT-TYPE': 'application/json', 'Idempotency-Key': key, ORIGIN: 'https://shop.example' },
          body,
        );
        assert.equal(created.status, 200);
        assert.equal(created.headers['access-control-allow-origin'], 'https://shop.example');
        const other = await rawPost(
          `${server.url}/api/checkout/orders`,
          { 'content-type': 'application/json', 'idempotency-key': key, origin: 'https://evil.example' },
          body,
        );
        assert.equal(other.status, 200);
        assert.equal(other.headers['access-control-allow-origin'], undefined);
      } finally {
        await server.close();
      }
    });
  });
});
