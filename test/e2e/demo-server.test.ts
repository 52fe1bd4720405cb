/**
 * The demo server `npm start` runs, over real HTTP on loopback: security
 * headers on every answer, content types, no way out of the build folder,
 * the relay pricing from the server's catalogue through the real sandbox,
 * no key in any answer, and the command itself (banner, port in use, Ctrl-C,
 * a real service instead of the sandbox).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONTENT_SECURITY_POLICY } from '../../demo/server/security-headers.js';
import { type RunningDemoServer, startDemoServer } from '../../demo/server/start-demo-server.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { CUSTOMER_NAME } from '../fixtures/checkout-data.js';
import { eventually } from '../fixtures/wait.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A test key only this file uses, so finding it anywhere in an answer is a leak. */
const CANARY_KEY = 'sk_test_e2e_canary_7c1f4b9a';
const SECRET_KEY_PATTERN = /sk_(?:test|live)_[A-Za-z0-9]/;

function intent(number: string, cart: unknown = { items: [{ product_id: 'kente-tote', quantity: 1 }] }) {
  return {
    customer_data: { name: CUSTOMER_NAME, phone_number: `+233${number.slice(1)}` },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
    cart,
  };
}

async function create(server: RunningDemoServer, body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/checkout/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
}

async function promptOf(server: RunningDemoServer, orderId: string) {
  const response = await fetch(`${server.url}/sandbox/_sandbox/payments/prompt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: orderId }),
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { prompt: { amount: { value: number }; merchant_name: string } }).prompt;
}

/** Sends a request line exactly as written (no URL normalising) and returns the status and body. */
async function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

function assertSecurityHeaders(response: Response, what: string): void {
  assert.equal(response.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY, what);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer', what);
  assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin', what);
}

describe('the demo server', () => {
  let server: RunningDemoServer;
  let assetPaths: string[];

  before(async () => {
    server = await startDemoServer({
      pageRoot: E2E_PAGE_ROOT,
      port: 0,
      secretKey: CANARY_KEY,
      sandboxApproveAfterMs: 60_000,
    });
    const html = await (await fetch(`${server.url}/`)).text();
    assetPaths = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
  });

  after(() => server.close());

  it('serves the page with a strict CSP, nosniff, no referrer and an isolated opener', async () => {
    const response = await fetch(`${server.url}/`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assertSecurityHeaders(response, '/');
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /require-trusted-types-for 'script'/);
    const html = await response.text();
    assert.match(html, /<pay-checkout[^>]*create-url="\/api\/checkout\/orders"/);
    assert.match(html, /lookup-url="\/api\/checkout\/lookup"/);
    // No inline script or style for the CSP to block.
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
    assert.doesNotMatch(html, /<style|\sstyle=/);
  });

  it('serves every asset of the page with its content type and the security headers', async () => {
    assert.ok(assetPaths.some((path) => path.endsWith('.js')));
    assert.ok(assetPaths.some((path) => path.endsWith('.css')));
    const expected: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      svg: 'image/svg+xml',
    };
    for (const path of assetPaths) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), expected[path.split('.').pop() ?? ''], path);
      assert.match(response.headers.get('cache-control') ?? '', /immutable/, path);
      assertSecurityHeaders(response, path);
      await response.arrayBuffer();
    }
  });

  it('sets the security headers on API, sandbox and error answers too', async () => {
    const answers: [string, Promise<Response>][] = [
      ['config', fetch(`${server.url}/api/demo/config`)],
      ['relay 400', create(server, intent('0241234567', { items: [{ product_id: 'nope', quantity: 1 }] }))],
      ['relay 405', fetch(`${server.url}/api/checkout/orders`)],
      ['sandbox 401', fetch(`${server.url}/sandbox/orders/page`, { method: 'POST', body: '{}' })],
      ['unknown API 404', fetch(`${server.url}/api/nothing`)],
      ['unknown page 404', fetch(`${server.url}/nothing.html`)],
      ['page 405', fetch(`${server.url}/`, { method: 'POST', body: 'x' })],
    ];
    for (const [what, pending] of answers) {
      const response = await pending;
      assertSecurityHeaders(response, what);
      await response.arrayBuffer();
    }
  });

  it('answers 404 for unknown paths and never serves a file from outside the build', async () => {
    const attempts = [
      '/../package.json',
      '/../../etc/passwd',
      '/assets/../../package.json',
      '/assets/..%2f..%2fpackage.json',
      '/%2e%2e/%2e%2e/package.json',
      '/%2e%2e%2fpackage.json',
      '/..%5c..%5cpackage.json',
      '//etc/passwd',
      '/demo/server.ts',
      '/src/index.ts',
      '/index.html%00.js',
    ];
    for (const path of attempts) {
      const { status, body } = await rawGet(server.url, path);
      assert.ok(status === 404 || status === 400, `${path} answered ${status}`);
      assert.doesNotMatch(body, /"name": "pay-checkout"|root:x:0|createCheckoutRelay/, path);
    }
    assert.equal((await fetch(`${server.url}/nothing`)).status, 404);
    assert.equal((await fetch(`${server.url}/assets/`)).status, 404);
  });

  it('compresses text assets for clients that accept gzip, and answers 304 to a matching ETag', async () => {
    const path = assetPaths.find((candidate) => candidate.endsWith('.js')) as string;
    const zipped = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    const etag = zipped.headers.get('etag') ?? '';
    await zipped.arrayBuffer();
    const again = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
  });

  it('creates an order through the relay, priced from the server’s catalogue, not the page', async () => {
    const response = await create(
      server,
      intent('0241234567', { items: [{ product_id: 'kente-tote', quantity: 2, price: 1, amount: 1 }] }),
    );
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { order: { id: string; payment: { status: string } } };
    assert.equal(answer.order.payment.status, 'requires_action');
    const prompt = await promptOf(server, answer.order.id);
    assert.equal(prompt.amount.value, 10_000, 'two bags at GH₵ 50.00 from the catalogue');
    assert.equal(prompt.merchant_name, 'Kente & Co.');
  });

  it('refuses an unknown product, a bad quantity or a missing cart with a 400 naming the cart', async () => {
    const carts = [
      [{ items: [{ product_id: 'gold-bar', quantity: 1 }] }, 'cart.items[0].product_id'],
      [{ items: [{ product_id: 'kente-tote', quantity: 0 }] }, 'cart.items[0].quantity'],
      [{ items: [{ product_id: 'kente-tote', quantity: 1.5 }] }, 'cart.items[0].quantity'],
      [null, 'cart'],
    ] as const;
    const ordersBefore = server.sandbox?.createdOrderCount;
    for (const [cart, param] of carts) {
      const response = await create(server, intent('0241234567', cart));
      assert.equal(response.status, 400, JSON.stringify(cart));
      const body = (await response.json()) as { error: { code: string; param: string } };
      assert.equal(body.error.code, 'invalid_request');
      assert.equal(body.error.param, param);
    }
    assert.equal(server.sandbox?.createdOrderCount, ordersBefore, 'no order for a refused cart');
  });

  it('tells the page its mode, catalogue and the integrity of the embed it serves', async () => {
    const config = (await (await fetch(`${server.url}/api/demo/config`)).json()) as {
      mode: string;
      products: { id: string; price: { value: number } }[];
      sandbox: { controlUrl: string } | null;
      embed: { integrity: string | null };
    };
    assert.equal(config.mode, 'sandbox');
    assert.deepEqual(
      config.products.map((product) => [product.id, product.price.value]),
      [['kente-tote', 5000]],
    );
    assert.equal(config.sandbox?.controlUrl, '/api/demo/phone');
    const embed = await fetch(`${server.url}/pay-checkout.embed.js`);
    if (config.embed.integrity === null) {
      assert.equal(embed.status, 404, 'no integrity only when the embed is not built');
      return;
    }
    const bundle = Buffer.from(await embed.arrayBuffer());
    assert.equal(config.embed.integrity, `sha384-${createHash('sha384').update(bundle).digest('base64')}`);
  });

  it('never sends the secret key in any answer', async () => {
    const paths = ['/', ...assetPaths, '/api/demo/config', '/pay-checkout.embed.js'];
    const bodies = await Promise.all(
      paths.map(async (path) => [path, await (await fetch(`${server.url}${path}`)).text()] as const),
    );
    const created = await create(server, intent('0241234567'));
    const createdText = await created.text();
    const { order, lookup_token } = JSON.parse(createdText) as {
      order: { id: string };
      lookup_token: string;
    };
    const lookup = await fetch(`${server.url}/api/checkout/lookup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: order.id, lookup_token }),
    });
    const lookupText = await lookup.text();
    assert.equal(lookup.status, 200);
    assert.doesNotMatch(lookupText, new RegExp(`${CUSTOMER_NAME}|\\+233`), 'no customer data on lookup');
    for (const [path, body] of [...bodies, ['create', createdText], ['lookup', lookupText]] as const) {
      assert.ok(!body.includes(CANARY_KEY), `the key is in ${path}`);
      assert.doesNotMatch(body, SECRET_KEY_PATTERN, `a key-shaped string is in ${path}`);
    }
  });
});

describe('npm start (demo/server.ts)', () => {
  const children = new Set<ChildProcess>();
  const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-demo-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  after(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  /** Runs the command `npm start` ends with, in its own process, with `env`. */
  function startCommand(env: Record<string, string>): { child: ChildProcess; output: () => string } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PAY_DEMO_PAGE_ROOT: E2E_PAGE_ROOT,
        // Each run its own journal, never the repository's .data/.
        PAY_JOURNAL_URL: `sqlite:${join(scratch, `journal-${randomUUID()}.db`)}`,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    return { child, output: () => output };
  }

  function waitForUrl(output: () => string): Promise<string> {
    return eventually(
      () => `the demo server to print its URL; it printed:\n${output()}`,
      () => /pay-checkout demo\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output())?.[1],
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  it('prints its URL and the sandbox it uses, with the key masked, and stops on SIGTERM', async () => {
    const key = 'sk_test_printed_key_0042';
    const { child, output } = startCommand({
      PORT: '0',
      PAY_SECRET_KEY: key,
      PAY_SANDBOX_APPROVE_MS: '1234',
    });
    const url = await waitForUrl(output);
    assert.match(output(), /embedded sandbox at http:\/\/127\.0\.0\.1:\d+\/sandbox/);
    assert.match(output(), /approves after 1234 ms/);
    assert.match(output(), /sk_test_…0042/);
    assert.ok(!output().includes(key), 'the key is printed in full');
    assert.equal((await fetch(`${url}/`)).status, 200);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
  });

  it('says the port is in use and how to pick another, and exits with 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { child, output } = startCommand({ PORT: String(port) });
      const [code] = await once(child, 'exit');
      assert.equal(code, 1);
      assert.match(output(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.match(output(), /PORT=\d+ npm start/);
    } finally {
      blocker.close();
    }
  });

  it('refuses a bad PORT and a service URL without its key, in one clear line', async () => {
    const badPort = startCommand({ PORT: 'eighty' });
    assert.equal((await once(badPort.child, 'exit'))[0], 1);
    assert.match(badPort.output(), /PORT must be a whole number/);
    const noKey = startCommand({ PORT: '0', PAY_API_BASE_URL: 'http://127.0.0.1:9/v1' });
    assert.equal((await once(noKey.child, 'exit'))[0], 1);
    assert.match(noKey.output(), /PAY_API_BASE_URL is set but PAY_SECRET_KEY is not/);
  });

  it('pays through a real service when PAY_API_BASE_URL and PAY_SECRET_KEY are set, with no sandbox mounted', async () => {
    const service = await startSandbox({ approveAfterMs: 60_000 });
    try {
      const { child, output } = startCommand({
        PORT: '0',
        PAY_API_BASE_URL: service.url,
        PAY_SECRET_KEY: 'sk_test_sandbox',
      });
      const url = await waitForUrl(output);
      assert.match(output(), new RegExp(`the payments service at ${service.url.replaceAll('.', '\\.')}`));
      const response = await fetch(`${url}/api/checkout/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(intent('0241234567')),
      });
      assert.equal(response.status, 200);
      assert.equal(service.sandbox.createdOrderCount, 1, 'the order is in the outside service');
      const sandboxPath = await fetch(`${url}/sandbox/orders/page`, { method: 'POST', body: '{}' });
      assert.equal(sandboxPath.status, 404, 'no sandbox mounted in front of a real service');
      const config = (await (await fetch(`${url}/api/demo/config`)).json()) as {
        mode: string;
        sandbox: unknown;
      };
      assert.deepEqual([config.mode, config.sandbox], ['service', null]);
      child.kill('SIGTERM');
      await once(child, 'exit');
    } finally {
      await service.close();
    }
  });
});
