/**
 * The sandbox and the relay mounted in a merchant's server (issue #14).
 * Express and connect (Vite's dev server) cut the prefix off `req.url`, and a
 * sandbox with `basePath: '/sandbox'` used to answer 404, which the browser
 * saw as the relay's 502 with nothing on the console. Now the Node listener
 * reads the request line's target, and a sandbox whose `basePath` does not
 * match where it is mounted says how to fix it, in its 404 and once on the
 * console. A body parser mounted in front is said on the console too.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it, mock } from 'node:test';
import express from 'express';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { customer, priceAnyCart } from '../../fixtures/checkout-data.js';
import { createTestRelay } from '../../fixtures/relay.js';
import { call, orderInput } from '../../fixtures/sandbox.js';

const closers: (() => Promise<unknown>)[] = [];

after(async () => {
  for (const close of closers.reverse()) await close();
});

/** Serves a `node:http` listener (an Express app, connect's middleware stack) on loopback. */
async function serve(listener: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An Express app with `sandbox` at `/sandbox`, as a merchant mounts it. */
function expressWith(sandbox: Sandbox): express.Express {
  const app = express();
  app.use('/sandbox', sandbox.node);
  return app;
}

/** Records `console.warn` for the test (the sandbox's hint goes there), and restores it after. */
function recordWarnings(t: { after(fn: () => void): void }): string[] {
  const warnings: string[] = [];
  const warn = mock.method(console, 'warn', (message: unknown) => warnings.push(String(message)));
  t.after(() => warn.mock.restore());
  return warnings;
}

describe('the sandbox mounted under a prefix', () => {
  it('answers under Express’s app.use("/sandbox", sandbox.node) with basePath "/sandbox"', async (t) => {
    const warnings = recordWarnings(t);
    const origin = await serve(expressWith(createSandbox({ basePath: '/sandbox', approveAfterMs: 60_000 })));
    const created = await call(`${origin}/sandbox`, '/orders/new', orderInput());
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const approved = await call(
      `${origin}/sandbox`,
      '/_sandbox/payments/approve',
      { order_id: created.body.order.id },
      { key: null },
    );
    assert.equal(approved.status, 200);
    assert.equal(approved.body.order.payment.status, 'paid');
    assert.deepEqual(warnings, []);
  });

  it('answers under Vite’s dev server (connect), middlewares.use("/sandbox", sandbox.node)', async () => {
    const sandbox = createSandbox({ basePath: '/sandbox' });
    const vite: ViteDevServer = await createViteServer({
      configFile: false,
      logLevel: 'silent',
      server: { middlewareMode: true, hmr: false, watch: null },
      // As a vite.config.ts plugin mounts it: before Vite's own middlewares.
      plugins: [
        {
          name: 'sandbox',
          configureServer: (server) => void server.middlewares.use('/sandbox', sandbox.node),
        },
      ],
    });
    closers.push(() => vite.close());
    const origin = await serve(vite.middlewares);
    const created = await call(`${origin}/sandbox`, '/orders/new', orderInput());
    assert.equal(created.status, 200, JSON.stringify(created.body));
  });

  it('serves the relay and its sandbox in one Express app: a create goes through both prefixes', async () => {
    const app = express();
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const relay = createTestRelay({ baseUrl: `${origin}/sandbox`, priceCart: priceAnyCart });
    app.use('/api/checkout', relay.node);
    app.use('/sandbox', createSandbox({ basePath: '/sandbox' }).node);
    const created = await fetch(`${origin}/api/checkout/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ ...customer, cart: { items: ['tote'] } }),
    });
    assert.equal(created.status, 200, await created.clone().text());
    assert.equal(typeof ((await created.json()) as { lookup_token: unknown }).lookup_token, 'string');
  });

  it('with no basePath under a prefix: a 404 that names the basePath to set, and one warning', async (t) => {
    const warnings = recordWarnings(t);
    const origin = await serve(expressWith(createSandbox()));
    for (const path of ['/orders/new', '/_sandbox/payments/approve']) {
      const missed = await call(`${origin}/sandbox`, path, orderInput());
      assert.equal(missed.status, 404);
      assert.equal(missed.body.error.code, 'resource_not_found');
      assert.match(missed.body.error.message, /createSandbox\(\{ basePath: "\/sandbox" \}\)/);
      assert.match(missed.body.error.message, new RegExp(`this request for ${path} came under "/sandbox"`));
    }
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /^pay-checkout sandbox: .*basePath: "\/sandbox"/);
  });

  it('behind something that cut the prefix off: a 404 that says so', async (t) => {
    const warnings = recordWarnings(t);
    const sandbox = createSandbox({ basePath: '/sandbox' });
    // A proxy's rewrite (Vite's `rewrite`, nginx's `proxy_pass …/;`) hands on the path without its prefix.
    const origin = await serve(sandbox.node);
    const missed = await call(origin, '/orders/new', orderInput());
    assert.equal(missed.status, 404);
    assert.match(
      missed.body.error.message,
      /came without it: something in front of the sandbox cut the prefix/,
    );
    assert.equal(warnings.length, 1);
  });

  it('a path that names no endpoint is a plain 404, with no warning', async (t) => {
    const warnings = recordWarnings(t);
    const origin = await serve(expressWith(createSandbox({ basePath: '/sandbox' })));
    for (const path of ['/orders/refund', '/sandbox/orders', '/_sandbox/payments/refund']) {
      const missed = await call(origin, `/sandbox${path}`, {});
      assert.equal(missed.status, 404);
      assert.equal(missed.body.error.message, 'There is no endpoint at this path.');
    }
    // A prefix no basePath could be is not named back.
    const odd = await call(origin, '/sandbox/a%20b/orders/new', orderInput());
    assert.equal(odd.body.error.message, 'There is no endpoint at this path.');
    assert.deepEqual(warnings, []);
  });
});

describe('the relay behind a body parser', () => {
  it('says once on the console that the body was read before it, and how to mount it', async (t) => {
    const warnings = recordWarnings(t);
    const relay = createTestRelay({ baseUrl: 'http://127.0.0.1:9/sandbox', priceCart: priceAnyCart });
    const app = express();
    app.use(express.json()); // the mistake: it reads the body the relay needs
    app.use('/api/checkout', relay.node);
    const origin = await serve(app);
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await fetch(`${origin}/api/checkout/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ ...customer, cart: { items: ['tote'] } }),
      });
      assert.equal(refused.status, 400);
      await refused.arrayBuffer();
    }
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0] as string, /already read .*express\.json\(\).*Mount it before any body parser/);
  });

  it('says nothing when nothing read the body first', async (t) => {
    const warnings = recordWarnings(t);
    const app = express();
    app.use('/sandbox', createSandbox({ basePath: '/sandbox' }).node);
    app.use(express.json());
    const origin = await serve(app);
    assert.equal((await call(`${origin}/sandbox`, '/orders/new', orderInput())).status, 200);
    assert.deepEqual(warnings, []);
  });
});
