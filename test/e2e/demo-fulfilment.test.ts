/**
 * The demo's merchant server hears of payments: an order
 * whose page never polls is delivered to the demo's `onPaid` and shown by
 * `GET /api/demo/fulfilments` (ids and statuses, and the cart's reference,
 * items and amount as `onPaid` got them, and whether the checkout was paid
 * twice; nothing personal), and sent as a signed webhook to the demo
 * server's own receiver, whose event and attempts the panel lists. The reference comes from the browser's HttpOnly
 * cart session, never from the cart it sends, so a stranger who reads it in
 * the public feed cannot pay under it; `npm start`'s
 * command keeps its journal in the SQLite file `PAY_JOURNAL_URL` names and
 * closes it on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import type { DemoFulfilments } from '../../demo/demo-config.js';
import { startDemoServer } from '../../demo/server/start-demo-server.js';
import { type FulfilledOrder, openJournal } from '../../src/server/index.js';
import { CUSTOMER_NAME, SHOPPER } from '../fixtures/checkout-data.js';
import { eventually } from '../fixtures/wait.js';
import { launchChromium, newDemoContext } from './helpers/browser.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { DemoPage, STATE_TIMEOUT_MS } from './helpers/demo-page.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-demo-fulfilment-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A browser's cart session at the demo: the cookie its page got, and the cart's reference. */
interface CartSession {
  cookie: string;
  reference: string;
}

/** A new browser's cart, as the demo page asks for it (`GET /api/demo/cart`). */
async function newCartSession(url: string): Promise<CartSession> {
  const response = await fetch(`${url}/api/demo/cart`);
  assert.equal(response.status, 200);
  const cookie = /^pay_demo_cart=[\w-]+/.exec(response.headers.get('set-cookie') ?? '')?.[0];
  assert.ok(cookie, 'the cart session is a cookie');
  assert.match(response.headers.get('set-cookie') ?? '', /HttpOnly/);
  const { reference } = (await response.json()) as { reference: string };
  assert.match(reference, /^cart-[0-9a-f]{32}$/);
  return { cookie, reference };
}

/** Creates an order as the page of `session` does, sending `cart`, paid from `number`; answers the order id and reference. */
async function createOrder(
  url: string,
  session: CartSession | undefined,
  number = '0241234567',
  cart: unknown = { items: [{ product_id: 'kente-tote', quantity: 2 }] },
): Promise<{ orderId: string; reference: string | null }> {
  const response = await fetch(`${url}/api/checkout/orders`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
      ...(session ? { cookie: session.cookie } : {}),
    },
    body: JSON.stringify({
      customer_data: { name: CUSTOMER_NAME, phone_number: `+233${number.slice(1)}` },
      payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
      cart,
    }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { order: { id: string }; reference: string | null };
  return { orderId: body.order.id, reference: body.reference };
}

async function fulfilments(url: string): Promise<{ response: Response; body: DemoFulfilments }> {
  const response = await fetch(`${url}/api/demo/fulfilments`);
  return { response, body: (await response.clone().json()) as DemoFulfilments };
}

/** The order's fulfilment once the demo lists it delivered (the watcher runs on real timers). */
function delivered(url: string, orderId: string) {
  return eventually(
    `order ${orderId} to be delivered`,
    async () => {
      const found = (await fulfilments(url)).body.fulfilments.find((f) => f.order_id === orderId);
      return found?.delivered_at ? found : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250 },
  );
}

describe('the demo merchant server', () => {
  it('delivers an order whose page never polls to onPaid and lists it with its cart, nothing personal', async () => {
    const heard: FulfilledOrder[] = [];
    const server = await startDemoServer({
      pageRoot: E2E_PAGE_ROOT,
      sandboxApproveAfterMs: 300,
      onFulfilled: (order) => {
        heard.push(order);
      },
    });
    after(() => server.close());
    const session = await newCartSession(server.url);
    const { orderId } = await createOrder(server.url, session);
    const pending = await fulfilments(server.url);
    assert.equal(pending.response.headers.get('cache-control'), 'no-store');
    const forCart = {
      reference: session.reference,
      items: [{ name: 'Kente-pattern tote bag', quantity: 2 }],
      amount: { currency: 'ghs', value: 10_000 },
    };
    assert.deepEqual(pending.body.fulfilments, [
      {
        order_id: orderId,
        status: 'pending',
        delivered_at: null,
        ...forCart,
        paid_twice: false,
        other_paid_order_ids: [],
        webhooks: [],
      },
    ]);
    const fulfilment = await delivered(server.url, orderId);
    assert.equal(fulfilment.status, 'paid');
    assert.match(fulfilment.delivered_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      heard.map((order) => [order.id, order.outcome]),
      [[orderId, 'paid']],
    );
    // The panel shows the order as onPaid received it.
    const [paid] = heard;
    assert.deepEqual(
      { reference: fulfilment.reference, items: fulfilment.items, amount: fulfilment.amount },
      {
        reference: paid?.reference,
        items: paid?.lineItems.map(({ product }) => ({ name: product.name, quantity: product.quantity })),
        amount: paid?.amount,
      },
    );
    assert.deepEqual(
      { reference: fulfilment.reference, items: fulfilment.items, amount: fulfilment.amount },
      forCart,
    );
    const text = await (await fetch(`${server.url}/api/demo/fulfilments`)).text();
    assert.ok(!text.includes(CUSTOMER_NAME) && !text.includes('241234567'), 'no customer data');
    const post = await fetch(`${server.url}/api/demo/fulfilments`, { method: 'POST' });
    assert.equal(post.status, 405);
  });

  it('sends each paid order as a signed webhook to its own receiver and lists the event and its attempts', async () => {
    const server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, sandboxApproveAfterMs: 300 });
    after(() => server.close());
    const { orderId } = await createOrder(server.url, await newCartSession(server.url));
    const [webhook] = await eventually(
      `order ${orderId}'s webhook to be delivered`,
      async () => {
        const found = (await fulfilments(server.url)).body.fulfilments.find((f) => f.order_id === orderId);
        return found?.webhooks[0]?.state === 'delivered' ? found.webhooks : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    assert.ok(webhook);
    assert.match(webhook.event_id, /^msg_[A-Za-z0-9_-]{24}$/);
    assert.equal(webhook.type, 'order.paid');
    // The receiver verified the signature: the relay's one attempt was answered 204.
    assert.deepEqual(
      webhook.attempts.map(({ attempt, status }) => ({ attempt, status })),
      [{ attempt: 1, status: 204 }],
    );
    assert.match(webhook.attempts[0]?.at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const text = await (await fetch(`${server.url}/api/demo/fulfilments`)).text();
    assert.ok(!text.includes(CUSTOMER_NAME) && !text.includes('241234567'), 'no customer data');
    assert.ok(!text.includes('whsec_'), 'no secret');
    // A request its relay did not sign is refused; so is one forwarded by a proxy.
    const unsigned = await fetch(`${server.url}/api/demo/webhooks`, {
      method: 'POST',
      headers: { 'webhook-id': webhook.event_id, 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' },
      body: '{}',
    });
    assert.equal(unsigned.status, 400);
    const forwarded = await fetch(`${server.url}/api/demo/webhooks`, {
      method: 'POST',
      headers: { 'x-forwarded-for': '203.0.113.9' },
      body: '{}',
    });
    assert.equal(forwarded.status, 404);
  });

  it("takes the reference from the browser's cart session: a stranger who read it cannot pay under it", async () => {
    const server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, sandboxApproveAfterMs: 3_600_000 });
    after(() => server.close());
    const victim = await newCartSession(server.url);
    const paid = await createOrder(server.url, victim, '0241234567');
    assert.equal(paid.reference, victim.reference);
    // The feed is public: anyone reads the victim's reference there.
    const listed = (await fulfilments(server.url)).body.fulfilments.map((f) => f.reference);
    assert.deepEqual(listed, [victim.reference]);
    // A stranger sends it as the cart's id and reference, with a session of their own and with none.
    const forged = {
      id: victim.reference,
      reference: victim.reference,
      items: [{ product_id: 'kente-tote', quantity: 1 }],
    };
    const stranger = await newCartSession(server.url);
    const withSession = await createOrder(server.url, stranger, '0245550301', forged);
    const withoutSession = await createOrder(server.url, undefined, '0245550302', forged);
    assert.equal(withSession.reference, stranger.reference, 'the stranger’s own cart');
    assert.equal(withoutSession.reference, null, 'no session, no reference');
    // A forged cookie that is not one the server made names no cart either.
    const madeUp = await createOrder(
      server.url,
      { cookie: `pay_demo_cart=${victim.reference}`, reference: '' },
      '0245550303',
      forged,
    );
    assert.equal(madeUp.reference, null);
    const byReference = (await fulfilments(server.url)).body.fulfilments.filter(
      (f) => f.reference === victim.reference,
    );
    assert.deepEqual(
      byReference.map((f) => f.order_id),
      [paid.orderId],
      'only the victim’s order is under their reference',
    );
  });

  it('flags in Your server a checkout paid twice, with order ids and nothing personal', async () => {
    const server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, sandboxApproveAfterMs: 3_600_000 });
    after(() => server.close());
    const session = await newCartSession(server.url);
    const first = await createOrder(server.url, session, '0245550401');
    const second = await createOrder(server.url, session, '0245550402');
    const alone = await createOrder(server.url, await newCartSession(server.url), '0245550403');
    for (const { orderId } of [first, second, alone]) {
      const approved = await fetch(`${server.url}/sandbox/_sandbox/payments/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: orderId }),
      });
      assert.equal(approved.status, 200);
    }
    const [a, b, c] = await Promise.all(
      [first, second, alone].map(({ orderId }) => delivered(server.url, orderId)),
    );
    assert.deepEqual(
      [a, b, c].map((f) => [f?.paid_twice, f?.other_paid_order_ids]),
      [
        [true, [second.orderId]],
        [true, [first.orderId]],
        [false, []],
      ],
    );
    const text = await (await fetch(`${server.url}/api/demo/fulfilments`)).text();
    assert.ok(!text.includes(CUSTOMER_NAME) && !text.includes('55504'), 'no name, no number');
  });

  it('marks in the panel, in the page’s language, a checkout paid twice', async (t) => {
    const browser: Browser = await launchChromium();
    const server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, sandboxApproveAfterMs: 3_600_000 });
    const context = await newDemoContext(browser);
    t.after(async () => {
      await context.close();
      await server.close();
      await browser.close();
    });
    const demo = await new DemoPage(await context.newPage()).watch();
    await demo.open(server.url, '?locale=fr&poll-interval=2000');
    // Two prompts for this browser's cart (its session cookie goes with them), both approved.
    const orderIds: string[] = [];
    for (const number of ['0245550501', '0245550502']) {
      const response = await demo.page.request.post(`${server.url}/api/checkout/orders`, {
        headers: { 'idempotency-key': randomUUID() },
        data: {
          customer_data: { name: CUSTOMER_NAME, phone_number: `+233${number.slice(1)}` },
          payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
          cart: { items: [{ product_id: 'kente-tote', quantity: 1 }] },
        },
      });
      assert.equal(response.status(), 200);
      orderIds.push(((await response.json()) as { order: { id: string } }).order.id);
    }
    for (const orderId of orderIds) {
      await fetch(`${server.url}/sandbox/_sandbox/payments/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: orderId }),
      });
    }
    const flagged = demo.page.locator('.fulfilment[data-paid-twice]');
    await flagged.nth(1).waitFor({ timeout: STATE_TIMEOUT_MS });
    const [first, second] = orderIds as [string, string];
    const item = (orderId: string) =>
      flagged.filter({ has: demo.page.locator('.fulfilment__id', { hasText: orderId }) });
    assert.equal(
      await item(first).locator('.fulfilment__twice').textContent(),
      `Payée deux fois : ce panier a aussi été payé par ${second}. Remboursez-en une.`,
    );
    assert.equal(await item(second).count(), 1);
    // Each paid order also went out as a signed webhook: its event and attempt, in French.
    const attempt = item(first).locator('.fulfilment__attempt');
    await attempt.waitFor({ timeout: STATE_TIMEOUT_MS });
    assert.match((await attempt.textContent()) ?? '', /^tentative 1 : HTTP 204 à \d\d:\d\d:\d\d UTC$/);
    assert.equal(await item(first).locator('.fulfilment__event-type').textContent(), 'order.paid');
    assert.match((await item(first).locator('.fulfilment__event-id').textContent()) ?? '', /^msg_/);
    assert.equal(
      await item(first).locator('.fulfilment__webhooks').getAttribute('aria-label'),
      'Webhooks signés envoyés à votre serveur',
    );
  });

  it("shows each cart's reference, items and amount in Your server, a new cart after a new payment", async (t) => {
    const browser: Browser = await launchChromium();
    const server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, sandboxApproveAfterMs: 3_600_000 });
    const context = await newDemoContext(browser);
    t.after(async () => {
      await context.close();
      await server.close();
      await browser.close();
    });
    const demo = await new DemoPage(await context.newPage()).watch();
    await demo.open(server.url, '?poll-interval=2000');
    const cartIds: string[] = [];
    for (const quantity of ['2', '1']) {
      await demo.page.locator('#quantity').selectOption(quantity);
      await demo.pay(SHOPPER);
      await demo.waitForState('requires_action');
      const orderId = await demo.orderId();
      const approved = await fetch(`${server.url}/sandbox/_sandbox/payments/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: orderId }),
      });
      assert.equal(approved.status, 200);
      await demo.waitForState('paid');
      // The reference the server gave this browser's cart: the page holds a copy, never the cookie.
      const cartId = await demo.checkout.evaluate(
        (element) => (element as unknown as { cart: { reference?: string } }).cart.reference ?? '',
      );
      assert.match(cartId, /^cart-[0-9a-f]{32}$/);
      assert.equal(await demo.page.evaluate(() => document.cookie), '', 'the session cookie is HttpOnly');
      cartIds.push(cartId);
      const shown = demo.page.locator('.fulfilment', { hasText: orderId });
      await shown
        .locator('.fulfilment__state', { hasText: 'delivered to onPaid' })
        .waitFor({ timeout: STATE_TIMEOUT_MS });
      const amount = quantity === '2' ? 'GH₵\u00a0100.00' : 'GH₵\u00a050.00';
      assert.equal(
        await shown.locator('.fulfilment__order').textContent(),
        `${cartId} · ${quantity} × Kente-pattern tote bag · ${amount}`,
      );
      await demo.page.locator('#start-over').click();
      await demo.waitForState('idle');
      // The next order's id is then the log's first.
      await demo.page.locator('#clear-log').click();
    }
    assert.notEqual(cartIds[0], cartIds[1], 'a new payment is a new cart, with a reference of its own');
    assert.deepEqual(demo.problems.pageErrors, []);
  });

  it('npm start keeps its journal in PAY_JOURNAL_URL and closes it on SIGTERM', async () => {
    const path = join(scratch, 'journal.db');
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        PAY_DEMO_PAGE_ROOT: E2E_PAGE_ROOT,
        PAY_SANDBOX_APPROVE_MS: '300',
        PAY_JOURNAL_URL: `sqlite:${path}`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    after(() => child.kill('SIGKILL'));
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const url = await eventually(
      () => `the demo to print its URL; it printed:\n${output}`,
      () => /pay-checkout demo\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1],
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    assert.match(output, /order journal\s+sqlite:/);
    const session = await newCartSession(url);
    const { orderId } = await createOrder(url, session);
    await delivered(url, orderId);
    assert.match(output, new RegExp(`onPaid\\(${orderId}\\).*${session.reference}`));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    assert.equal((await exited)[0], 0);
    const journal = await openJournal(`sqlite:${path}`);
    try {
      const [summary] = await journal.listRecent(1);
      assert.equal(summary?.orderId, orderId);
      assert.equal(summary?.status, 'paid');
      assert.notEqual(summary?.deliveredAt, null);
    } finally {
      await journal.close();
    }
  });
});
