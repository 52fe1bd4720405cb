/**
 * `pay-checkout/vite` inside real Vite servers started through Vite's own
 * API: the relay and the sandbox answer on the full paths the element uses,
 * the sandbox only to this machine, other paths stay Vite's, the start lines
 * say where things are, and closing the server closes the relay.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createLogger,
  createServer,
  type Logger,
  type PreviewServer,
  preview,
  type ViteDevServer,
} from 'vite';
import { startSandbox } from '../../../src/sandbox/index.js';
import { type Journal, listen, openJournal } from '../../../src/server/index.js';
import { payCheckout } from '../../../src/vite/index.js';
import { resolveViteOptions } from '../../../src/vite/vite-options.js';
import { checkoutIntent, LOCAL_NUMBER, priceAnyCart } from '../../fixtures/checkout-data.js';
import { freePort } from '../../fixtures/free-port.js';
import { clockAhead } from '../../fixtures/relay-clock.js';

/** A Vite logger that keeps every line it is given. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger('info', { allowClearScreen: false });
  logger.info = (message) => lines.push(message);
  logger.warn = (message) => lines.push(message);
  logger.warnOnce = (message) => lines.push(message);
  logger.error = (message) => lines.push(message);
  return { logger, lines };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

let attempt = 0;
async function createOrder(origin: string): Promise<{ order: { id: string }; lookup_token: string }> {
  const created = await post(`${origin}/api/checkout/orders`, checkoutIntent(), {
    'idempotency-key': `vite-plugin-attempt-${++attempt}-${Date.now()}`,
  });
  assert.equal(created.status, 200, await created.clone().text());
  return (await created.json()) as { order: { id: string }; lookup_token: string };
}

async function paymentStatus(origin: string, order: { order: { id: string }; lookup_token: string }) {
  const lookup = await post(`${origin}/api/checkout/lookup`, {
    order_id: order.order.id,
    lookup_token: order.lookup_token,
  });
  assert.equal(lookup.status, 200);
  return ((await lookup.json()) as { order: { payment: { status: string } } }).order.payment.status;
}

describe('pay-checkout/vite', () => {
  let root: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pay-checkout-vite-plugin-'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>shop</title><p>the shop</p>\n');
    await mkdir(join(root, 'dist'));
    await writeFile(join(root, 'dist', 'index.html'), '<!doctype html><title>shop</title><p>built</p>\n');
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('in vite dev, with the embedded sandbox', () => {
    let server: ViteDevServer;
    let origin: string;
    let journal: Journal;
    const { logger, lines } = recordingLogger();
    const relayTime = clockAhead();

    before(async () => {
      journal = await openJournal('memory:', { clock: relayTime.clock });
      const port = await freePort();
      server = await createServer({
        configFile: false,
        root,
        customLogger: logger,
        // allowedHosts: true turns Vite's own Host check off, so the plugin's is the one tested.
        server: { host: '127.0.0.1', port, strictPort: true, ws: false, allowedHosts: true },
        // The payer never answers by themself: the test approves through the control surface.
        plugins: [
          payCheckout({
            priceCart: priceAnyCart,
            sandbox: { approveAfterMs: 3_600_000 },
            // A journal asks for onPaid; here it is there to show that closing Vite closes it. The
            // tests create more orders for one number than a shopper may: limits are not their subject.
            relay: { journal, onPaid: () => undefined, rateLimit: false, clock: relayTime.clock },
          }),
        ],
      });
      await server.listen();
      server.printUrls();
      origin = `http://127.0.0.1:${port}`;
    });

    after(async () => {
      await server?.close();
    });

    it('says on start where the relay and the sandbox are, and how to approve a payment', () => {
      const printed = lines.join('\n');
      assert.match(
        printed,
        new RegExp(`relay: +${origin}/api/checkout/orders, ${origin}/api/checkout/lookup`),
      );
      assert.match(
        printed,
        new RegExp(
          `sandbox: ${origin}/sandbox \\(test mode, offline; the payer approves after 3600000 ms\\)`,
        ),
      );
      assert.match(printed, new RegExp(`POST ${origin}/sandbox/_sandbox/payments/approve`));
    });

    it('creates an order on the full path, approves it through the sandbox control surface, and looks it up paid', async () => {
      const order = await createOrder(origin);
      assert.equal(await paymentStatus(origin, order), 'requires_action');
      const approved = await post(`${origin}/sandbox/_sandbox/payments/approve`, {
        order_id: order.order.id,
      });
      assert.equal(approved.status, 200, await approved.clone().text());
      // A poll later: a lookup within the sharing window is answered the read before the approval.
      relayTime.pastSharedReads();
      assert.equal(await paymentStatus(origin, order), 'paid');
      const printed = lines.join('\n');
      assert.match(printed, new RegExp(`pay-checkout: order ${order.order.id}: payment paid`));
      assert.ok(!printed.includes(LOCAL_NUMBER.slice(1)), 'the terminal shows no phone number');
    });

    it('tells the terminal when a create was a replay of the same attempt', async () => {
      const headers = { 'idempotency-key': `vite-plugin-replay-${Date.now()}` };
      const first = await post(`${origin}/api/checkout/orders`, checkoutIntent(), headers);
      const again = await post(`${origin}/api/checkout/orders`, checkoutIntent(), headers);
      assert.deepEqual([first.status, again.status], [200, 200]);
      const { order } = (await again.json()) as { order: { id: string } };
      assert.ok(
        lines.some((line) => line.includes(`order ${order.id} replayed (same idempotency key)`)),
        lines.join('\n'),
      );
    });

    it("answers the relay's own 404 under its path, and leaves every other path to Vite", async () => {
      const unknown = await post(`${origin}/api/checkout/refunds`, {});
      assert.equal(unknown.status, 404);
      assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'resource_not_found');
      const page = await fetch(`${origin}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /the shop/);
    });

    it('answers the sandbox only to this machine: not through a proxy, not under another host name', async () => {
      const order = await createOrder(origin);
      const approve = `${origin}/sandbox/_sandbox/payments/approve`;
      const proxied: Record<string, string>[] = [
        { 'x-forwarded-for': '203.0.113.9' },
        { forwarded: 'for=203.0.113.9' },
      ];
      for (const headers of proxied) {
        const refused = await post(approve, { order_id: order.order.id }, headers);
        assert.equal(refused.status, 404);
      }
      const rebound = await rawPostWithHost(approve, 'shop-rebinding.example', { order_id: order.order.id });
      assert.equal(rebound, 404);
      assert.equal(await paymentStatus(origin, order), 'requires_action');
    });

    it('closes the relay, and with it the journal, when the Vite server closes', async () => {
      await server.close();
      await assert.rejects(journal.listRecent(1), /closed/);
    });
  });

  describe('in vite dev, with a service of your own', () => {
    it('sends the relay to apiBaseUrl and mounts no sandbox', async () => {
      const service = await startSandbox({ approveAfterMs: 3_600_000 });
      const heard: string[] = [];
      const port = await freePort();
      const { logger, lines } = recordingLogger();
      const server = await createServer({
        configFile: false,
        root,
        customLogger: logger,
        server: { host: '127.0.0.1', port, strictPort: true, ws: false },
        plugins: [
          payCheckout({
            priceCart: priceAnyCart,
            apiBaseUrl: service.url,
            secretKey: 'sk_test_sandbox',
            relay: { onEvent: (event) => void heard.push(event.type) },
          }),
        ],
      });
      try {
        await server.listen();
        server.printUrls();
        const origin = `http://127.0.0.1:${port}`;
        const order = await createOrder(origin);
        assert.equal(service.sandbox.createdOrderCount, 1);
        assert.deepEqual(heard, ['order_created'], "the merchant's onEvent hears the relay too");
        service.sandbox.approve(order.order.id);
        assert.equal(await paymentStatus(origin, order), 'paid');
        const noSandbox = await post(`${origin}/sandbox/_sandbox/payments/approve`, {
          order_id: order.order.id,
        });
        assert.notEqual(noSandbox.status, 200);
        const printed = lines.join('\n');
        assert.match(printed, new RegExp(`payments through: +${service.url} \\(your test key\\)`));
        assert.ok(!printed.includes('sk_test_sandbox'), 'the key is never printed');
      } finally {
        await server.close();
        await service.close();
      }
    });
  });

  describe('across a restart of the same config', () => {
    const relayOptions = (journal: Journal) => ({
      priceCart: priceAnyCart,
      sandbox: { approveAfterMs: 3_600_000 },
      relay: { journal, onPaid: () => undefined, rateLimit: false as const },
    });

    it('keeps creating orders with the journal it was given, and closes it with the server', async () => {
      const journal = await openJournal('memory:');
      const port = await freePort();
      const server = await createServer({
        configFile: false,
        root,
        logLevel: 'silent',
        server: { host: '127.0.0.1', port, strictPort: true, ws: false },
        plugins: [payCheckout(relayOptions(journal))],
      });
      try {
        await server.listen();
        const origin = `http://127.0.0.1:${port}`;
        const before = await createOrder(origin);
        await server.restart();
        await createOrder(origin);
        assert.equal(await paymentStatus(origin, before), 'requires_action', 'tokens outlive the restart');
      } finally {
        await server.close();
      }
      await assert.rejects(journal.listRecent(1), /closed/);
    });

    it('does the same in middleware mode, where the server has no HTTP server of its own', async () => {
      const journal = await openJournal('memory:');
      const server = await createServer({
        configFile: false,
        root,
        logLevel: 'silent',
        server: { middlewareMode: true, ws: false },
        plugins: [payCheckout(relayOptions(journal))],
      });
      // The app's own server, as Express would be, in front of Vite's middlewares.
      const app = await listen((request, response) => server.middlewares(request, response));
      try {
        await server.restart();
        await createOrder(app.url);
      } finally {
        await server.close();
        await app.close();
      }
      await assert.rejects(journal.listRecent(1), /closed/);
    });
  });

  describe('in vite preview', () => {
    it('mounts the relay and the sandbox on the preview server too', async () => {
      const port = await freePort();
      const { logger } = recordingLogger();
      const server: PreviewServer = await preview({
        configFile: false,
        root,
        customLogger: logger,
        preview: { host: '127.0.0.1', port, strictPort: true },
        plugins: [payCheckout({ priceCart: priceAnyCart, sandbox: { approveAfterMs: 3_600_000 } })],
      });
      try {
        const origin = `http://127.0.0.1:${port}`;
        const order = await createOrder(origin);
        const approved = await post(`${origin}/sandbox/_sandbox/payments/approve`, {
          order_id: order.order.id,
        });
        assert.equal(approved.status, 200);
        assert.equal(await paymentStatus(origin, order), 'paid');
        assert.match(await (await fetch(`${origin}/`)).text(), /built/);
      } finally {
        await server.close();
      }
    });
  });

  describe('its options', () => {
    const cases: [string, unknown, RegExp][] = [
      ['no priceCart', {}, /priceCart is required/],
      ['a secret key without a service', { secretKey: 'sk_test_abc' }, /give its apiBaseUrl too/],
      ['a service without a key', { apiBaseUrl: 'https://api.example' }, /test secret key/],
      [
        'a live key',
        { apiBaseUrl: 'https://api.example', secretKey: 'sk_live_abc' },
        /Live keys are refused/,
      ],
      [
        'sandbox options with a service',
        { apiBaseUrl: 'https://api.example', secretKey: 'sk_test_abc', sandbox: {} },
        /one or the other/,
      ],
      ['a relative relay path', { relayPath: 'api/checkout' }, /relayPath must be a path/],
      ['overlapping paths', { relayPath: '/api', sandbox: { path: '/api/sandbox' } }, /overlap/],
    ];
    for (const [what, options, message] of cases) {
      it(`refuses ${what} when vite.config.ts is read`, () => {
        const given = { priceCart: priceAnyCart, ...(options as object) };
        if (what === 'no priceCart') delete (given as { priceCart?: unknown }).priceCart;
        assert.throws(() => payCheckout(given as Parameters<typeof payCheckout>[0]), {
          name: 'TypeError',
          message,
        });
      });
    }

    it('uses the sandbox while both apiBaseUrl and secretKey are unset, as unset environment variables give them', () => {
      const resolved = resolveViteOptions({
        priceCart: priceAnyCart,
        apiBaseUrl: undefined,
        secretKey: undefined,
      });
      assert.equal(resolved.service, undefined);
      assert.deepEqual(resolved.sandbox, { path: '/sandbox', approveAfterMs: 6000 });
    });

    it('takes the documented defaults', () => {
      const resolved = resolveViteOptions({ priceCart: priceAnyCart });
      assert.deepEqual(
        { relayPath: resolved.relayPath, sandbox: resolved.sandbox, service: resolved.service },
        {
          relayPath: '/api/checkout',
          sandbox: { path: '/sandbox', approveAfterMs: 6000 },
          service: undefined,
        },
      );
    });
  });
});

/** POSTs with a `Host` of our choosing (fetch will not send one), as a rebinding page's browser would. */
async function rawPostWithHost(url: string, host: string, body: unknown): Promise<number> {
  const { request } = await import('node:http');
  const target = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    sent.once('error', reject);
    sent.end(payload);
  });
}
