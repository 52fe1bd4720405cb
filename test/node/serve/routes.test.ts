/**
 * serve's routes over real HTTP, in this process, with the embedded sandbox:
 * the relay under /checkout/ priced from the catalogue, the embed with its
 * integrity and open CORS, /healthz and /readyz, the sandbox's control
 * surface for this machine only, /v1 mounted, and 404 for anything else.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { freePort } from '../../fixtures/free-port.js';
import {
  payThroughServe,
  postJson,
  startTestServe,
  TEST_API_KEY,
  TEST_CATALOGUE,
  TEST_EMBED,
  type TestServe,
} from '../../fixtures/serve.js';

const SHOP = 'https://shop.example';

describe('pay-checkout serve: its routes', () => {
  let running: TestServe;
  let url: string;

  before(async () => {
    running = await startTestServe({ catalogue: TEST_CATALOGUE, origins: [SHOP] });
    url = running.serve.url;
  });
  after(() => running.close());

  it('prices a cart from the catalogue, whatever the page says a product costs', async () => {
    const cart = {
      items: [
        { sku: 'kente-tote', quantity: 2, price: 1 },
        { sku: 'adinkra-scarf', quantity: 1 },
      ],
    };
    const priced = await postJson(`${url}/checkout/price`, { cart });
    assert.equal(priced.status, 200, JSON.stringify(priced.body));
    assert.deepEqual(priced.body?.amount, { currency: 'ghs', value: 2 * 12_500 + 4_000 });
    assert.equal(priced.body?.reference, null);
  });

  it('refuses a sku the catalogue lacks, at the item that names it', async () => {
    const cart = {
      items: [
        { sku: 'kente-tote', quantity: 1 },
        { sku: 'gold-watch', quantity: 1 },
      ],
    };
    const refused = await postJson(`${url}/checkout/price`, { cart });
    assert.equal(refused.status, 400);
    assert.equal((refused.body?.error as { param?: string } | undefined)?.param, 'cart.items[1].sku');
  });

  it('takes a paid order from cart to lookup, approved by the sandbox', async () => {
    const paid = await payThroughServe(url, '0241110001');
    assert.equal(paid.lookup.status, 200, JSON.stringify(paid.lookup.body));
    assert.equal(
      (paid.lookup.body?.order as { payment?: { status: string } } | undefined)?.payment?.status,
      'paid',
    );
    const order = await running.serve.relay.orders.get(paid.orderId);
    assert.deepEqual(order?.amount, { currency: 'ghs', value: 12_500 });
  });

  it('answers CORS for the configured origins only', async () => {
    const preflight = (origin: string) =>
      fetch(`${url}/checkout/orders`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, idempotency-key',
        },
      });
    const allowed = await preflight(SHOP);
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-origin'), SHOP);
    const other = await preflight('https://other.example');
    assert.equal(other.status, 403);
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });

  it('serves the embed with its Subresource Integrity hash, to any origin', async () => {
    const answer = await fetch(`${url}/pay-checkout.embed.js`, { headers: { origin: SHOP } });
    const code = await answer.text();
    assert.equal(answer.status, 200);
    assert.equal(code, TEST_EMBED);
    const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
    assert.equal(answer.headers.get('integrity'), integrity);
    assert.equal(running.serve.integrity, integrity);
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    assert.match(answer.headers.get('content-type') ?? '', /^text\/javascript/);
    const again = await fetch(`${url}/pay-checkout.embed.js`, {
      headers: { 'if-none-match': answer.headers.get('etag') ?? '' },
    });
    assert.equal(again.status, 304);
    const started = running.logLines().find((line) => line.event === 'serve_started');
    assert.deepEqual(started?.embed, { path: '/pay-checkout.embed.js', integrity });
  });

  it('answers /healthz, and /readyz once the journal and the service answer', async () => {
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });
  });

  it('serves the sandbox service under /sandbox/ with its published key', async () => {
    const created = await postJson(
      `${url}/sandbox/orders/new`,
      {
        execute_payment: true,
        ...customerPayingFrom('0241110002'),
        line_items: [
          { type: 'product', product: { name: 'Tote', price: { currency: 'ghs', value: 100 }, quantity: 1 } },
        ],
      },
      { authorization: `Bearer ${SANDBOX_KEYS.secret}` },
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
  });

  it('keeps the sandbox control surface to this machine: a forwarded or foreign-named request gets 404', async () => {
    const { orderId } = await payThroughServe(url, '0241110003');
    const control = `${url}/sandbox/_sandbox/payments/decline`;
    const forwarded = await postJson(control, { order_id: orderId }, { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(forwarded.status, 404);
    // Targets a URL parser turns into the control path are judged as that path.
    for (const target of [
      '/sandbox/./_sandbox/payments/decline',
      '/sandbox/x/../_sandbox/payments/decline',
    ]) {
      const { port } = new URL(url);
      const status = await rawPost(Number(port), target, '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' });
      assert.equal(status, 404, target);
    }
    const { port } = new URL(url);
    const rebound = await rawPost(Number(port), '/sandbox/_sandbox/payments/decline', 'shop.example');
    assert.equal(rebound, 404);
  });

  it('mounts the merchant API under /v1: a wrong key is 401, the right one creates a checkout the page pays', async () => {
    const body = {
      line_items: [{ name: 'Kente tote', quantity: 1, unit_price: { currency: 'ghs', value: 12_500 } }],
      reference: 'order-1001',
    };
    const refused = await postJson(`${url}/v1/checkouts`, body, { authorization: 'Bearer wrong' });
    assert.equal(refused.status, 401);
    const created = await postJson(`${url}/v1/checkouts`, body, { authorization: `Bearer ${TEST_API_KEY}` });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const clientSecret = created.body?.client_secret as string;
    const shown = await fetch(`${url}/checkout/checkouts/${clientSecret}`);
    assert.equal(shown.status, 200);
    assert.deepEqual(((await shown.json()) as { amount: unknown }).amount, {
      currency: 'ghs',
      value: 12_500,
    });
    const paid = await payThroughServe(url, '0241110004', undefined, undefined, { checkout: clientSecret });
    assert.equal(paid.lookup.status, 200, JSON.stringify(paid.lookup.body));
    const verified = await fetch(`${url}/v1/orders?reference=order-1001`, {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    const orders = ((await verified.json()) as { data: { id: string; outcome: string }[] }).data;
    assert.deepEqual(
      orders.map((order) => order.id),
      [paid.orderId],
    );
  });

  it('answers 404 for any other path', async () => {
    for (const path of ['/', '/v2/checkouts', '/checkout', '/sandboxes', '/pay-checkout.embed.js.map']) {
      const answer = await fetch(`${url}${path}`);
      assert.equal(answer.status, 404, path);
      await answer.body?.cancel();
    }
  });
});

describe('pay-checkout serve without a catalogue', () => {
  it('refuses carts: its checkouts are created by the shop backend', async () => {
    const running = await startTestServe();
    try {
      const refused = await postJson(`${running.serve.url}/checkout/price`, {
        cart: { items: [{ sku: 'kente-tote', quantity: 1 }] },
      });
      assert.equal(refused.status, 400);
      assert.equal((refused.body?.error as { param?: string } | undefined)?.param, 'cart');
    } finally {
      await running.close();
    }
  });
});

describe('pay-checkout serve whose service does not answer', () => {
  it('says on /readyz which part is not ready', async () => {
    const closedPort = await freePort();
    const running = await startTestServe(
      { service: { baseUrl: `http://127.0.0.1:${closedPort}` }, sandbox: undefined },
      { env: { PAY_SECRET_KEY: 'sk_test_unreachable' } },
    );
    try {
      const ready = await fetch(`${running.serve.url}/readyz`);
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { failing: string[] };
      assert.deepEqual(body.failing, ['service']);
    } finally {
      await running.close();
    }
  });
});

/** A POST of `{}` to `path` exactly as written, with the given `Host`: fetch would neither keep the path nor let the Host differ. */
async function rawPost(
  port: number,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...headers, host, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    sent.on('error', reject);
    sent.end('{}');
  });
}
