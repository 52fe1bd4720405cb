/**
 * The demo on a public host, over real HTTP: the embedded
 * sandbox (published keys, a keyless control surface) answers only loopback
 * clients that come through no proxy; the phone mock-up acts on the visitor's
 * own order only; beyond loopback the relay's key is not the published one;
 * hostile `Host` values get `400` with the security headers; one number gets
 * three payment prompts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CONTENT_SECURITY_POLICY } from '../../demo/server/security-headers.js';
import {
  DemoConfigurationError,
  type RunningDemoServer,
  startDemoServer,
} from '../../demo/server/start-demo-server.js';
import { customerPayingFrom } from '../fixtures/checkout-data.js';
import { RUNS } from '../fixtures/property.js';
import { HOSTILE_HOSTS, openRaw, parseAnswer, type RawAnswer, sendRaw } from '../fixtures/raw-http.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';

const CART = { items: [{ product_id: 'kente-tote', quantity: 1 }] };
const PUBLISHED_KEY = 'sk_test_sandbox';

/** This machine's first non-loopback IPv4 address: a client the demo must treat as the internet. */
const OUTSIDE_ADDRESS = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;

/** A create as the element sends it; the answer and the phone's cookie, if set. */
async function create(url: string, number: string, name = 'Ama Mensah') {
  const response = await fetch(`${url}/api/checkout/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ ...customerPayingFrom(number, name), cart: CART }),
  });
  const body = (await response.json()) as { order?: { id: string }; lookup_token?: string };
  const cookie = response.headers.getSetCookie()[0]?.split(';')[0];
  return {
    status: response.status,
    orderId: body.order?.id ?? '',
    cookie,
    setCookie: response.headers.getSetCookie(),
  };
}

/** The phone mock-up's call, with the cookie a browser would send. */
async function phone(url: string, action: string, orderId: string, cookie?: string): Promise<Response> {
  return fetch(`${url}/api/demo/phone/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ order_id: orderId }),
  });
}

function assertSecurityHeaders(headers: Headers | Map<string, string>, what: string): void {
  assert.equal(headers.get('content-security-policy'), CONTENT_SECURITY_POLICY, what);
  assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(headers.get('x-frame-options'), 'DENY', what);
}

/** A service-API call to the embedded sandbox with the published key, as an attacker would make it. */
function listOrders(
  port: number,
  headers: Record<string, string> = {},
  address = '127.0.0.1',
): Promise<RawAnswer> {
  return sendRaw({
    port,
    address,
    target: '/sandbox/orders/page',
    host: `${address}:${port}`,
    headers: { authorization: `Bearer ${PUBLISHED_KEY}`, 'content-type': 'application/json', ...headers },
    body: '{"page_number":1,"page_size":10}',
  });
}

describe('the demo on a public host', () => {
  let local: RunningDemoServer;
  let open: RunningDemoServer;

  before(async () => {
    local = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, sandboxApproveAfterMs: 60_000 });
    open = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, host: '0.0.0.0', sandboxApproveAfterMs: 60_000 });
  });
  after(async () => {
    await local?.close();
    await open?.close();
  });

  describe('the embedded sandbox', () => {
    it('answers this machine, straight from loopback', async () => {
      const answer = await listOrders(local.port);
      assert.equal(answer.status, 200, answer.body);
    });

    it('is a 404 with the security headers to a request that came through a proxy', async () => {
      const forwarding: Record<string, string>[] = [
        { 'x-forwarded-for': '127.0.0.1' },
        { forwarded: 'for=127.0.0.1' },
        { 'x-real-ip': '127.0.0.1' },
      ];
      for (const headers of forwarding) {
        const answer = await listOrders(local.port, headers);
        assert.equal(answer.status, 404, JSON.stringify(headers));
        assert.doesNotMatch(answer.body, /Ama|orders/);
        assertSecurityHeaders(answer.headers, JSON.stringify(headers));
        const control = await sendRaw({
          port: local.port,
          target: '/sandbox/_sandbox/payments/decline',
          host: 'shop.example',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ order_id: 'or_anything' }),
        });
        assert.equal(control.status, 404);
      }
    });

    it('is a 404 to a client on another machine', {
      skip: OUTSIDE_ADDRESS ? false : 'no non-loopback address',
    }, async () => {
      const address = OUTSIDE_ADDRESS as string;
      const answer = await listOrders(open.port, {}, address);
      assert.equal(answer.status, 404, answer.body);
      assertSecurityHeaders(answer.headers, 'outside');
      // The shop itself works from there.
      const page = await sendRaw({
        port: open.port,
        address,
        method: 'GET',
        target: '/',
        host: `${address}:${open.port}`,
      });
      assert.equal(page.status, 200);
    });
  });

  describe('beyond loopback', () => {
    it('the relay pays with a random test key, and the published keys open nothing', async () => {
      assert.notEqual(open.maskedSecretKey, 'sk_test_…ndbox');
      assert.match(open.maskedSecretKey, /^sk_test_…/);
      // Even from this machine, the published key reads no order of the demo's.
      const answer = await listOrders(open.port);
      assert.equal(answer.status, 401, answer.body);
      const created = await create(open.url, '0241112222');
      assert.equal(created.status, 200, 'the shop still sells');
    });

    it('refuses to start with a published key', async () => {
      for (const secretKey of [PUBLISHED_KEY, 'sk_test_readonly']) {
        await assert.rejects(
          startDemoServer({ pageRoot: E2E_PAGE_ROOT, host: '0.0.0.0', secretKey }),
          (error: unknown) => error instanceof DemoConfigurationError && /published/.test(error.message),
        );
      }
    });
  });

  describe('the phone mock-up', () => {
    it('acts on the visitor’s own order, with the token cookie the create set', async () => {
      const mine = await create(local.url, '0241113333');
      assert.equal(mine.status, 200);
      const setCookie = mine.setCookie[0] ?? '';
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Strict/);
      assert.match(setCookie, /Path=\/api\/demo\/phone/);
      const prompt = await phone(local.url, 'prompt', mine.orderId, mine.cookie);
      assert.equal(prompt.status, 200);
      assertSecurityHeaders(prompt.headers, 'prompt');
      assert.equal((await phone(local.url, 'approve', mine.orderId, mine.cookie)).status, 200);
    });

    it('reads and changes nothing of another visitor’s order', async () => {
      const victim = await create(local.url, '0241114444', 'Esi Owusu');
      const attacker = await create(local.url, '0241115555', 'Kojo Mensah');
      const attempts = [
        ['no cookie', undefined],
        ['the attacker’s own cookie', attacker.cookie],
        [
          'the attacker’s token under the victim’s name',
          attacker.cookie?.replace(attacker.orderId, victim.orderId),
        ],
      ] as const;
      for (const [what, cookie] of attempts) {
        for (const action of ['prompt', 'approve', 'decline']) {
          const answer = await phone(local.url, action, victim.orderId, cookie);
          assert.equal(answer.status, 404, `${action} with ${what}`);
          const text = await answer.text();
          assert.doesNotMatch(text, /Esi|0241114444|•/);
        }
      }
      // The victim's payment is untouched: still waiting for the victim.
      const still = await phone(local.url, 'prompt', victim.orderId, victim.cookie);
      assert.equal(((await still.json()) as { prompt: { status: string } }).prompt.status, 'requires_action');
    });
  });

  describe('requests', () => {
    it('answers a Host that is not a plain host name with 400 and the security headers', async () => {
      for (const host of HOSTILE_HOSTS) {
        const answer = await sendRaw({ port: local.port, target: '/api/checkout/lookup', host, body: '{}' });
        assert.equal(answer.status, 400, `${JSON.stringify(host)}: ${answer.body}`);
        assertSecurityHeaders(answer.headers, JSON.stringify(host));
        assert.doesNotMatch(answer.body, /Ama|customer|number/);
      }
    });

    it('answers no Host, or a request Node’s parser refuses, with 400 and the security headers', async () => {
      for (const host of [null, 'a\u0001b', 'shop.example\u007f']) {
        const answer = await sendRaw({ port: local.port, target: '/api/checkout/lookup', host, body: '{}' });
        assert.equal(answer.status, 400, JSON.stringify(host));
        assertSecurityHeaders(answer.headers, JSON.stringify(host));
      }
    });

    it('answers a body over 16 KiB with 413 and the security headers, before any 100 Continue', {
      timeout: 10_000,
    }, async () => {
      const streamed = await fetch(`${local.url}/api/checkout/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: new Blob(['x'.repeat(2 * 1024 * 1024)]).stream(),
        duplex: 'half',
      } as RequestInit);
      assert.equal(streamed.status, 413);
      assertSecurityHeaders(streamed.headers, 'a streamed 2 MiB body');
      for (const expect of ['Expect: 100-continue\r\n', '']) {
        const connection = await openRaw(local.port);
        connection.socket.write(
          `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 52428800\r\n${expect}\r\n`,
        );
        const text = await connection.received;
        assert.ok(!text.includes('100 Continue'), text.slice(0, 40));
        const answer = parseAnswer(text);
        assert.equal(answer.status, 413, expect);
        assertSecurityHeaders(answer.headers, `a declared 50 MB body ${expect}`);
      }
    });

    it('never answers a 5xx, and always the security headers, whatever the Host', async () => {
      const fragment = fc.constantFrom('/', '?', '#', '@', '\\', '[', ']', ':', '%', ' ', '..', 'sandbox');
      const host = fc
        .array(fc.oneof(fragment, fc.string({ unit: fc.constantFrom(...'az09.-:'), maxLength: 6 })), {
          maxLength: 8,
        })
        .map((parts) => parts.join(''));
      const target = fc.constantFrom(
        '/',
        '/api/checkout/lookup',
        '/sandbox/orders/page',
        '/api/demo/phone/prompt',
      );
      await fc.assert(
        fc.asyncProperty(host, target, async (hostValue, path) => {
          const answer = await sendRaw({ port: local.port, target: path, host: hostValue, body: '{}' });
          assert.ok(
            answer.status > 0 && answer.status < 500,
            `${JSON.stringify(hostValue)} ${path}: ${answer.status}`,
          );
          assertSecurityHeaders(answer.headers, JSON.stringify(hostValue));
        }),
        { numRuns: Math.min(RUNS, 150) },
      );
    });

    it('sends one number three payment prompts, then 429 with a message the shopper can act on', async () => {
      const statuses: number[] = [];
      let refusal: Response | undefined;
      for (let index = 0; index < 5; index++) {
        const response = await fetch(`${local.url}/api/checkout/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({ ...customerPayingFrom('0249990000'), cart: CART }),
        });
        statuses.push(response.status);
        if (response.status === 429) refusal = response;
        else await response.arrayBuffer();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.ok(refusal);
      assert.ok(Number(refusal.headers.get('retry-after')) > 0);
      const { error } = (await refusal.json()) as {
        error: { code: string; message: string; param: string };
      };
      assert.equal(error.code, 'too_many_payment_requests');
      assert.equal(error.param, 'payment_method_data.mobile_money.number');
      assert.match(error.message, /approve the one on your phone or wait 10 minutes/);
      // The page's table of test numbers tells visitors about the limit before they meet it.
      const page = await (await fetch(`${local.url}/`)).text();
      assert.match(page, /at most 3 payment requests go to one number in 10 minutes/);
    });
  });
});
