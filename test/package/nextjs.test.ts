/**
 * The Next.js 16 app of `examples/nextjs/` (app router, React 19), built from
 * the packed tarball as a merchant would install it, and run with
 * `next start` against a sandbox this test starts. In Chromium a shopper pays
 * on both of its pages, the bare element and `pay-checkout/react`, loaded
 * from the server (hydration) and reached by a client-side link, and the
 * app's own `pay-paid` handler writes its thank-you. Over plain HTTP its
 * route handlers create, replay, look up and refuse a forged token. The
 * Next.js section of docs/frameworks.md is these files, word for word.
 *
 * Needs `npm run build` first (the `test` script runs it). One `next build`
 * for the whole file; the install reaches the npm registry only for what the
 * local cache lacks, and nothing else leaves the machine.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { CUSTOMER_NAME, customerPayingFrom } from '../fixtures/checkout-data.js';
import { blockAfter, readPage } from '../fixtures/doc-blocks.js';
import { freePort } from '../fixtures/free-port.js';
import { LOOKUP_SECRET, SECRET } from '../fixtures/relay.js';
import { installWithPackage, packRepository } from './packed-package.js';
import { npmChildEnvironment, runCommand } from './run-command.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const example = join(repositoryRoot, 'examples', 'nextjs');
/** The example's files docs/frameworks.md shows, each under `<!-- example: examples/nextjs/PATH -->`. */
const SHOWN_FILES = [
  'app/element/element-checkout.tsx',
  'app/react/react-checkout.tsx',
  'app/api/checkout/[action]/route.ts',
];
/** The sandbox's payer waits this long before answering alone: the test answers first. */
const PAYER_WAITS_MS = 600_000;

let shoppers = 0;
/** A number of its own for each payment: the relay allows 3 prompts to one number in 10 minutes. */
function shopperNumber(): string {
  shoppers += 1;
  return `02412345${String(shoppers).padStart(2, '0')}`;
}

/** Resolves once `url` answers at all; `next start` listens a moment after it is spawned. */
async function answering(url: string, server: ChildProcess, output: () => string): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (server.exitCode !== null) throw new Error(`next start exited:\n${output()}`);
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`next start never answered:\n${output()}`);
}

/** Stops `next start` and whatever it started: it runs in a process group of its own. */
async function stop(server: ChildProcess | undefined): Promise<void> {
  if (!server?.pid || server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  process.kill(-server.pid, 'SIGTERM');
  await exited;
}

describe('the Next.js example, built from the packed package', { timeout: 600_000 }, () => {
  let workDirectory: string;
  let sandbox: RunningSandbox;
  let server: ChildProcess | undefined;
  let origin: string;
  let browser: Browser;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-nextjs-'));
    const app = join(workDirectory, 'app');
    const { tarball } = await packRepository(workDirectory);

    await cp(example, app, {
      recursive: true,
      // The example's own files only, not what running it in place left behind (see its .gitignore).
      filter: (source) =>
        !/[\\/](node_modules|\.next|next-env\.d\.ts|package-lock\.json|[^\\/]*\.tgz)$/.test(source),
    });
    await installWithPackage(app, tarball, 240_000);

    // No telemetry, and no key in the build: the route handler makes its relay at the first request.
    const environment = { ...npmChildEnvironment(), NEXT_TELEMETRY_DISABLED: '1' };
    const next = join(app, 'node_modules', 'next', 'dist', 'bin', 'next');
    const built = await runCommand(process.execPath, [next, 'build'], {
      cwd: app,
      env: environment,
      timeoutMs: 300_000,
    });
    assert.equal(built.code, 0, built.transcript);

    sandbox = await startSandbox({ approveAfterMs: PAYER_WAITS_MS });
    const port = await freePort();
    let output = '';
    server = spawn(process.execPath, [next, 'start', '--hostname', '127.0.0.1', '--port', String(port)], {
      cwd: app,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...environment,
        NODE_ENV: 'production',
        PAY_API_BASE_URL: sandbox.url,
        PAY_SECRET_KEY: SECRET,
        PAY_LOOKUP_SECRET: LOOKUP_SECRET,
      },
    });
    for (const stream of [server.stdout, server.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
    }
    origin = `http://127.0.0.1:${port}`;
    await answering(origin, server, () => output);
    browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
  });

  after(async () => {
    await browser?.close();
    await stop(server);
    await sandbox?.close();
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  /** A shopper in a fresh browser: opens `path` (or the home page, then follows `link`), pays, the payer approves. */
  async function payAndReadThanks(path: string, link?: string): Promise<{ orderId: string; thanks: string }> {
    const context = await browser.newContext();
    const problems: string[] = [];
    try {
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(error.message));
      // A failed load is reported with its address; Chromium's console line for it has none.
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          problems.push(message.text());
        }
      });
      if (link) {
        await page.goto(`${origin}/`);
        await page.getByRole('link', { name: link }).click();
        await page.waitForURL(`${origin}${path}`);
      } else {
        await page.goto(`${origin}${path}`);
      }
      const orderId = await pay(page);
      await approve(orderId);
      const thanks = page.getByRole('status').filter({ hasText: 'Thank you, order' });
      await thanks.waitFor({ timeout: 20_000 });
      assert.deepEqual(problems, []);
      return { orderId, thanks: (await thanks.textContent()) ?? '' };
    } finally {
      await context.close();
    }
  }

  /** Fills the form by its contract names and submits; resolves with the order the relay created. */
  async function pay(page: Page): Promise<string> {
    await page.locator('pay-checkout [name="customer_name"]').fill(CUSTOMER_NAME);
    await page.locator('pay-checkout [name="number"]').fill(shopperNumber());
    const created = page.waitForResponse((response) => response.url().endsWith('/api/checkout/orders'));
    await page.locator('pay-checkout button[type="submit"]').click();
    const answer = await created;
    const body = (await answer.json()) as { order?: { id: string } };
    assert.equal(answer.status(), 200, JSON.stringify(body));
    await page.locator('pay-checkout[state="requires_action"]').waitFor();
    return String(body.order?.id);
  }

  /** The payer approves on their phone, through the sandbox's control surface. */
  async function approve(orderId: string): Promise<void> {
    const response = await fetch(`${sandbox.url}/_sandbox/payments/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: orderId }),
    });
    assert.equal(response.status, 200, await response.text());
  }

  it('server-renders the bare element with its cart in the HTML', async () => {
    const html = await (await fetch(`${origin}/element`)).text();
    const tag = html.match(/<pay-checkout[^>]*>/)?.[0] ?? '';
    assert.match(tag, / cart-json="\{&quot;items&quot;:\[\{&quot;product_id&quot;:&quot;kente-tote&quot;/);
  });

  for (const [path, what, link] of [
    ['/element', 'the bare element', 'Pay with the element'],
    ['/react', 'pay-checkout/react', 'Pay with the React component'],
  ] as const) {
    it(`pays with ${what} after hydration, and the app's own pay-paid handler says thank you`, async () => {
      const { orderId, thanks } = await payAndReadThanks(path);
      assert.match(orderId, /^or_/);
      assert.equal(thanks, `Thank you, order ${orderId}`);
    });

    it(`pays with ${what} reached by a client-side link`, async () => {
      const { orderId, thanks } = await payAndReadThanks(path, link);
      assert.equal(thanks, `Thank you, order ${orderId}`);
    });
  }

  it('route handlers: a create, its idempotent replay, a lookup, and 403 for a forged token', async () => {
    const post = (action: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${origin}/api/checkout/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-real-ip': '192.0.2.7', ...headers },
        body: JSON.stringify(body),
      });
    const number = shopperNumber();
    const intent = {
      ...customerPayingFrom(number),
      cart: { items: [{ product_id: 'kente-tote', quantity: 1 }] },
    };
    const key = { 'idempotency-key': crypto.randomUUID() };
    const first = await post('orders', intent, key);
    const created = (await first.json()) as { order: { id: string }; lookup_token: string };
    assert.equal(first.status, 200, JSON.stringify(created));
    assert.match(created.order.id, /^or_/);

    const replay = await post('orders', intent, key);
    const replayed = (await replay.json()) as { order: { id: string } };
    assert.equal(replay.status, 200);
    assert.equal(replayed.order.id, created.order.id);

    const lookup = await post('lookup', { order_id: created.order.id, lookup_token: created.lookup_token });
    const looked = (await lookup.json()) as { order: Record<string, unknown> };
    assert.equal(lookup.status, 200);
    assert.equal(looked.order.id, created.order.id);
    assert.ok(!JSON.stringify(looked).includes(number.slice(1)), 'a lookup carries no customer data');

    const forged = await post('lookup', { order_id: created.order.id, lookup_token: 'forged-token' });
    assert.equal(forged.status, 403);
    assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'permission_denied');
  });
});

describe('the Next.js section of docs/frameworks.md', () => {
  it('shows the example’s files word for word', async () => {
    const page = readPage('docs/frameworks.md');
    for (const path of SHOWN_FILES) {
      const block = blockAfter(page, `example: examples/nextjs/${path} -->`);
      assert.ok(block !== undefined, `docs/frameworks.md has no block for examples/nextjs/${path}`);
      assert.equal(
        block,
        await readFile(join(example, path), 'utf8'),
        `docs/frameworks.md differs from ${path}`,
      );
    }
  });
});
