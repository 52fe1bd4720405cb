/**
 * The example shop of the README's quick start (examples/shop/), as a
 * merchant runs it: installed with the packed tarball, Express 5 and libsql
 * into a project under the system's temp directory, started with
 * `node server.js`, then driven over real HTTP as its page and the payer
 * would. The page and the element load; a cart is priced by the shop's
 * catalogue, not the page, and its id is the order's reference; the payer
 * approves through the sandbox's control surface; the page's lookup sees the
 * order paid, and `onPaid` writes one shipment for the cart, with its items
 * and amount, to the shop's own table, however often it is called. SIGTERM
 * then stops the shop cleanly.
 *
 * Then the crash points: with the service (a sandbox in this process) behind
 * a fault proxy, the shop is killed with SIGKILL while one create is
 * journalled and not yet sent, one was created by the service and its answer
 * is held back from the shop, and one order's `onPaid` has written its
 * shipment and not returned. Restarted, the shop ships each paid order once,
 * with its own items. (test/node/project/docs.test.ts holds the README to the shop's
 * files, word for word.)
 *
 * Needs `npm run build` first (the `test` script runs it).
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSandbox, SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { launchChromium } from '../e2e/helpers/browser.js';
import { customerPayingFrom } from '../fixtures/checkout-data.js';
import { type FaultPlan, startFaultProxy } from '../fixtures/fault-proxy.js';
import { serveSandbox } from '../fixtures/sandbox.js';
import { installWithPackage, packRepository } from './packed-package.js';
import { runCommand } from './run-command.js';
import {
  chooseItems,
  journalRows,
  killShop,
  post,
  type RunningShop,
  runningShops,
  type ShopperBrowser,
  shipmentsIn,
  startShop,
} from './running-shop.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const example = join(repositoryRoot, 'examples', 'shop');
const LOOKUP_SECRET = 'example-shop-lookup-secret';
/** The sandbox's payer who never answers by itself: the test approves for them. */
const NEVER_ANSWERS = '0244000003';
const TOTE = { name: 'Kente tote', pesewas: 12_500 };
const SCARF = { name: 'Adinkra scarf', pesewas: 4_000 };
/**
 * The crash test's create grace and lease: shorter than the defaults (60 s, 30 s) so the
 * restarted shop recovers sooner; the first life's resends are held by the proxy like its creates.
 */
const CRASH_CREATE_GRACE_MS = 15_000;
const CRASH_LEASE_MS = 10_000;

/** Creates an order at `shop` as the page of `browser` does, sending `cart`, paid from `number`. */
function create(shop: RunningShop, browser: ShopperBrowser, cart: unknown, number: string) {
  return post(
    `${shop.url}/api/checkout/orders`,
    { ...customerPayingFrom(number), cart },
    { 'idempotency-key': crypto.randomUUID(), cookie: browser.cookie },
  );
}

/** A new browser at `shop` with `items` in its cart: its cookie and its cart's reference. */
async function browserWith(shop: RunningShop, items: { product_id: string; quantity: number }[]) {
  const browser: ShopperBrowser = { cookie: '' };
  const { status, cart } = await chooseItems(shop, browser, items);
  assert.equal(status, 200, JSON.stringify(cart));
  assert.match(cart.reference, /^cart-[0-9a-f-]{36}$/);
  return { browser, reference: cart.reference };
}

/** Approves `orderId` at the sandbox as its payer would. */
async function approve(shop: RunningShop, orderId: string): Promise<void> {
  const approved = await post(`${shop.url}/sandbox/_sandbox/payments/approve`, { order_id: orderId });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
}

describe('the example shop, installed from the packed tarball', { timeout: 400_000 }, () => {
  let workDirectory: string;
  let shop: string;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-shop-'));
    shop = join(workDirectory, 'shop');
    const { tarball } = await packRepository(workDirectory);
    await cp(example, shop, {
      recursive: true,
      filter: (path) => !/(?:^|\/)(?:node_modules|\.data)(?:\/|$)/.test(path.slice(example.length)),
    });
    await installWithPackage(shop, tarball);
  });

  after(async () => {
    for (const child of runningShops) child.kill('SIGKILL');
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  it('serves its page, prices the server’s cart, ships a paid cart once under its own reference, ships a second purchase, and stops on SIGTERM', {
    timeout: 120_000,
  }, async (t) => {
    // Only what the shop reads: no PAY_API_BASE_URL, so the sandbox it mounts stands in for the service.
    const running = await startShop(shop, { PAY_LOOKUP_SECRET: LOOKUP_SECRET });
    let cartId = '';
    try {
      const page = await fetch(`${running.url}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<pay-checkout create-url="\/api\/checkout\/orders"/);
      const embed = await fetch(`${running.url}/pay-checkout.embed.js`);
      assert.equal(embed.status, 200);
      const installedEmbed = join(shop, 'node_modules', 'pay-checkout', 'dist', 'pay-checkout.embed.js');
      assert.equal(await embed.text(), await readFile(installedEmbed, 'utf8'), 'the package’s own embed');
      assert.equal((await fetch(`${running.url}/checkout.js`)).status, 200);

      const unknown = await chooseItems(running, { cookie: '' }, [{ product_id: 'gold-bar', quantity: 1 }]);
      assert.equal(unknown.status, 400, JSON.stringify(unknown.cart));
      const noSession = await create(
        running,
        { cookie: '' },
        { items: [{ product_id: 'kente-tote', quantity: 1 }] },
        NEVER_ANSWERS,
      );
      assert.equal(noSession.status, 400, 'a browser without a cart on the server is refused');
      assert.equal(noSession.body.error?.param, 'cart');

      // Two kente totes at the catalogue's GH₵ 125.00, whatever the page says.
      const { browser, reference } = await browserWith(running, [{ product_id: 'kente-tote', quantity: 2 }]);
      cartId = reference;
      const pageSays = {
        reference: 'cart-chosen-by-the-page',
        items: [{ product_id: 'adinkra-scarf', quantity: 1, price: 1 }],
      };
      const created = await create(running, browser, pageSays, NEVER_ANSWERS);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.order?.payment.status, 'requires_action');
      assert.deepEqual(created.body.order?.amount, { currency: 'ghs', value: 25_000 }, 'what is charged');
      assert.equal(created.body.reference, cartId, 'the server’s cart, not the page’s word');
      const orderId = created.body.order?.id as string;
      // The service holds what the catalogue charges, not the page's price.
      const held = await post(
        `${running.url}/sandbox/orders/lookup`,
        { order_id: orderId },
        { authorization: 'Bearer sk_test_sandbox' },
      );
      assert.deepEqual(held.body.order?.line_item_group?.total, { currency: 'ghs', value: 25_000 });

      await approve(running, orderId);
      const lookup = await post(`${running.url}/api/checkout/lookup`, {
        order_id: orderId,
        lookup_token: created.body.lookup_token,
      });
      assert.equal(lookup.body.order?.payment.status, 'paid');
      assert.deepEqual(lookup.body.order?.amount, { currency: 'ghs', value: 25_000 });

      // The page's lookup saw it paid: onPaid follows, and says so.
      await running.line((line) => line === `Shipment recorded for order ${orderId}, cart ${cartId}`);

      // A paid cart takes no second payment, even from a create sent straight to the relay.
      const payAgain = await create(running, browser, pageSays, '0241110013');
      assert.equal(payAgain.status, 400, JSON.stringify(payAgain.body));
      assert.equal(payAgain.body.error?.param, 'cart');

      // A stranger who read this cart's reference (a receipt, a support chat) sends it as theirs:
      // their cheap order carries their own cart's reference, and this cart's shipment stays one.
      const stranger = await browserWith(running, [{ product_id: 'adinkra-scarf', quantity: 1 }]);
      const forged = { id: cartId, reference: cartId, items: [{ product_id: 'adinkra-scarf', quantity: 1 }] };
      const cheap = await create(running, stranger.browser, forged, '0241110011');
      assert.equal(cheap.status, 200, JSON.stringify(cheap.body));
      assert.equal(cheap.body.reference, stranger.reference);
      const cheapId = cheap.body.order?.id as string;
      await approve(running, cheapId);
      await running.line(
        (line) => line === `Shipment recorded for order ${cheapId}, cart ${stranger.reference}`,
      );

      // The same browser buys again after paying: a new cart with its own reference, shipped too.
      const next = await chooseItems(running, browser, [{ product_id: 'adinkra-scarf', quantity: 3 }]);
      assert.equal(next.status, 200);
      assert.notEqual(next.cart.reference, cartId, 'a paid cart is closed');
      const again = await create(running, browser, next.cart, '0241110012');
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.reference, next.cart.reference);
      const againId = again.body.order?.id as string;
      await approve(running, againId);
      await running.line(
        (line) => line === `Shipment recorded for order ${againId}, cart ${next.cart.reference}`,
      );

      const exited = new Promise((resolve) => running.child.once('exit', (...end) => resolve(end)));
      running.child.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null], 'a clean exit');
      assert.deepEqual(running.errors, [], 'no warning');
      const shipped = new Map(shipmentsIn(shop).map((shipment) => [shipment.cart_id, shipment]));
      assert.deepEqual(shipped.get(cartId), {
        cart_id: cartId,
        order_id: orderId,
        items: [{ name: TOTE.name, quantity: 2 }],
        amount: 25_000,
      });
      assert.deepEqual(
        [shipped.get(stranger.reference)?.order_id, shipped.get(next.cart.reference)?.order_id],
        [cheapId, againId],
      );
      assert.deepEqual(shipped.get(next.cart.reference)?.items, [{ name: SCARF.name, quantity: 3 }]);
      assert.equal(shipped.size, 3);
      assert.equal(
        running.lines.filter((line) => line.startsWith('Shipment recorded')).length,
        3,
        running.lines.join('\n'),
      );
    } catch (error) {
      t.diagnostic(`the shop printed:\n${[...running.lines, ...running.errors].join('\n')}`);
      throw error;
    } finally {
      running.child.kill('SIGKILL');
    }

    // onPaid again for the same order, as after a crash inside it; then another order paying the
    // same cart, as a shopper who paid from a second number too: nothing more is shipped.
    const again = await runCommand(
      process.execPath,
      [
        '--input-type=module',
        '--eval',
        `import { database } from './database.js';
import { shipOnce } from './shipments.js';
const order = { id: ${JSON.stringify(shippedOrderId(shipmentsIn(shop), cartId))}, reference: ${JSON.stringify(cartId)},
  lineItems: [], amount: { currency: 'ghs', value: 25000 }, settledAt: Date.now() };
shipOnce(order);
shipOnce({ ...order, id: 'or_secondPayment' });
database.close();`,
      ],
      { cwd: shop },
    );
    assert.equal(again.code, 0, again.transcript);
    assert.equal(again.stdout, `Refund order or_secondPayment: cart ${cartId} was paid by another order\n`);
    assert.equal(shipmentsIn(shop).length, 3, 'no second shipment recorded');
  });

  it('its page, in Chromium: pays a cart, keeps the receipt on reload, and ships a second purchase in the same tab', {
    timeout: 120_000,
  }, async (t) => {
    const running = await startShop(shop, { PAY_LOOKUP_SECRET: LOOKUP_SECRET });
    const browser = await launchChromium();
    t.after(async () => {
      await browser.close();
      running.child.kill('SIGKILL');
    });
    const page = await (await browser.newContext()).newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.addInitScript(() => {
      const created: string[] = [];
      (window as unknown as { created: string[] }).created = created;
      document.addEventListener('pay-created', (event) => {
        created.push((event as CustomEvent<{ orderId: string }>).detail.orderId);
      });
    });
    const checkout = page.locator('pay-checkout');
    /** Pays from `number` in the page, approves at the sandbox, waits for the receipt: the order id. */
    const payFrom = async (number: string) => {
      await page.locator('pay-checkout:not([disabled])').waitFor();
      await checkout.locator('[name="customer_name"]').fill('Ama Mensah');
      await checkout.locator('[name="number"]').fill(number);
      await checkout.locator('button[type="submit"]').click();
      await page.locator('pay-checkout[state="requires_action"]').waitFor();
      const orderId = await page.evaluate(() => (window as unknown as { created: string[] }).created.at(-1));
      assert.ok(orderId);
      await approve(running, orderId);
      await page.locator('pay-checkout[state="paid"]').waitFor({ timeout: 30_000 });
      return orderId;
    };
    await page.goto(`${running.url}/`);
    const first = await payFrom(NEVER_ANSWERS);
    await page.reload();
    await page.locator('pay-checkout[state="paid"]').waitFor();
    // The shopper picks another product: the paid cart is closed, and this is a new checkout.
    await page.locator('#product').selectOption('adinkra-scarf');
    await page.locator('pay-checkout[state="idle"]').waitFor();
    const second = await payFrom('0241110021');
    const shipped = (orderId: string) =>
      running.line((line) => line.startsWith(`Shipment recorded for order ${orderId}, cart `));
    const carts = [await shipped(first), await shipped(second)].map((line) => line.split(', cart ')[1]);
    assert.notEqual(carts[0], carts[1], 'the second purchase is a cart of its own');
    const byOrder = new Map(shipmentsIn(shop).map((shipment) => [shipment.order_id, shipment]));
    assert.deepEqual(byOrder.get(first)?.items, [{ name: TOTE.name, quantity: 1 }]);
    assert.deepEqual(byOrder.get(second)?.items, [{ name: SCARF.name, quantity: 1 }]);
    assert.deepEqual(pageErrors, []);
  });

  it('stops within 10 s, its port free, when npm start is sent SIGTERM', { timeout: 60_000 }, async () => {
    const running = await startShop(shop, { PAY_LOOKUP_SECRET: LOOKUP_SECRET }, 'npm start');
    const exited = new Promise((resolve) => running.child.once('exit', (...end) => resolve(end)));
    const started = performance.now();
    running.child.kill('SIGTERM');
    const end = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(resolve, 10_000, 'still running')),
    ]);
    assert.notEqual(end, 'still running', running.lines.join('\n'));
    assert.ok(performance.now() - started < 10_000);
    // The shop itself stopped, not only npm: its port takes a new server.
    const probe = createServer();
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(running.port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => probe.close(resolve));
  });

  it('ships each paid cart once, with its items, after SIGKILLs at each crash point', {
    timeout: 240_000,
  }, async (t) => {
    // A copy of the installed shop whose onPaid, in this test only, stops after its shipment when told.
    const crashShop = join(workDirectory, 'crash-shop');
    await cp(shop, crashShop, { recursive: true, filter: (path) => !path.includes(`${shop}/.data`) });
    await writeFile(
      join(crashShop, 'hang-in-onpaid.js'),
      `// Test only: with HANG_IN_ONPAID set, onPaid ships, says so, and never returns.
export const hangAfter = (ship) => async (order) => {
  ship(order);
  if (!process.env.HANG_IN_ONPAID) return;
  console.log(\`hanging in onPaid \${order.id}\`);
  await new Promise(() => {});
};\n`,
    );
    // And its watcher resends an unanswered create after 15 s instead of a minute, and passes on a
    // dead process's claim after 10 s instead of 30: the same recovery, sooner.
    const server = await readFile(join(crashShop, 'server.js'), 'utf8');
    assert.ok(server.includes('  onPaid: shipOnce,\n'));
    assert.ok(!server.includes('watch:'), 'the shop sets no watch timing of its own');
    await writeFile(
      join(crashShop, 'server.js'),
      `import { hangAfter } from './hang-in-onpaid.js';\n${server.replace(
        '  onPaid: shipOnce,\n',
        `  onPaid: hangAfter(shipOnce),\n  watch: { createGraceMs: ${CRASH_CREATE_GRACE_MS}, leaseMs: ${CRASH_LEASE_MS} },\n`,
      )}`,
    );

    const sandbox = createSandbox({ approveAfterMs: 1_000 });
    const served = await serveSandbox(sandbox);
    after(() => served.close());
    // In the first life: the first create is held before the service sees it, the second's
    // answer after the service created the order; their retries are held too. Later, all pass.
    let firstLife = true;
    const heldKeys = new Map<string, FaultPlan['kind']>();
    const held: Record<'request' | 'answer', () => void> = { request: () => {}, answer: () => {} };
    const holding = {
      request: new Promise<void>((resolve) => {
        held.request = resolve;
      }),
      answer: new Promise<void>((resolve) => {
        held.answer = resolve;
      }),
    };
    const proxy = await startFaultProxy(served.url, (_index, request) => {
      if (!firstLife || !request.path.endsWith('/orders/new')) return { kind: 'forward' };
      const key = String(request.headers['idempotency-key']);
      if (heldKeys.has(key)) return { kind: 'keep-request' };
      if (heldKeys.size === 0) {
        heldKeys.set(key, 'keep-request');
        return { kind: 'keep-request', onHeld: held.request };
      }
      if (heldKeys.size === 1) {
        heldKeys.set(key, 'keep-answer');
        return { kind: 'keep-answer', onHeld: held.answer };
      }
      return { kind: 'forward' };
    });
    after(() => proxy.close());
    const env = {
      PAY_LOOKUP_SECRET: LOOKUP_SECRET,
      PAY_API_BASE_URL: proxy.url,
      PAY_SECRET_KEY: SANDBOX_KEYS.secret,
    };

    const first = await startShop(crashShop, { ...env, HANG_IN_ONPAID: '1' });
    const items = {
      journalled: [{ product_id: 'kente-tote', quantity: 1 }],
      answered: [{ product_id: 'adinkra-scarf', quantity: 2 }],
      inOnPaid: [
        { product_id: 'kente-tote', quantity: 1 },
        { product_id: 'adinkra-scarf', quantity: 1 },
      ],
    };
    const carts = {
      journalled: await browserWith(first, items.journalled),
      answered: await browserWith(first, items.answered),
      inOnPaid: await browserWith(first, items.inOnPaid),
    };
    let second: RunningShop | undefined;
    try {
      // (a) journalled, never sent; (b) created by the service, its answer never back.
      void create(first, carts.journalled.browser, {}, '0241110001').catch(() => undefined);
      await holding.request;
      void create(first, carts.answered.browser, {}, '0241110002').catch(() => undefined);
      await holding.answer;
      assert.equal(sandbox.createdOrderCount, 1, 'the service created the second order only');
      // (c) paid, and onPaid has written its shipment and not returned.
      const paid = await create(first, carts.inOnPaid.browser, {}, '0241110003');
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      const paidId = paid.body.order?.id as string;
      await first.line((line) => line === `hanging in onPaid ${paidId}`);
      await killShop(first);
      firstLife = false;
      assert.deepEqual(
        shipmentsIn(crashShop).map((shipment) => shipment.order_id),
        [paidId],
      );

      second = await startShop(crashShop, env);
      // The watcher resends the two creates once their grace has passed (15 s after them).
      for (const cart of [carts.journalled, carts.answered]) {
        await second.line(
          (line) => line.startsWith('Shipment recorded') && line.endsWith(`cart ${cart.reference}`),
        );
      }
      const exited = new Promise((resolve) => second?.child.once('exit', (...end) => resolve(end)));
      second.child.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null], 'a clean exit');
      // The order killed inside onPaid was called again once its lease ran out: every order is delivered.
      assert.deepEqual(
        journalRows(crashShop).filter((row) => row.delivered_at === null),
        [],
      );
      const byCart = new Map(shipmentsIn(crashShop).map((shipment) => [shipment.cart_id, shipment]));
      assert.equal(byCart.size, 3, 'three carts shipped, once each');
      assert.deepEqual(
        [byCart.get(carts.journalled.reference)?.items, byCart.get(carts.journalled.reference)?.amount],
        [[{ name: TOTE.name, quantity: 1 }], TOTE.pesewas],
      );
      assert.deepEqual(
        [byCart.get(carts.answered.reference)?.items, byCart.get(carts.answered.reference)?.amount],
        [[{ name: SCARF.name, quantity: 2 }], 2 * SCARF.pesewas],
      );
      assert.deepEqual(byCart.get(carts.inOnPaid.reference), {
        cart_id: carts.inOnPaid.reference,
        order_id: paidId,
        items: [
          { name: TOTE.name, quantity: 1 },
          { name: SCARF.name, quantity: 1 },
        ],
        amount: TOTE.pesewas + SCARF.pesewas,
      });
      assert.equal(sandbox.createdOrderCount, 3, 'each order created once at the service');
      const shipped = [...first.lines, ...second.lines].filter((line) =>
        line.startsWith('Shipment recorded'),
      );
      assert.equal(shipped.length, 3, shipped.join('\n'));
      assert.deepEqual([...first.errors, ...second.errors], [], 'no warning');
    } catch (error) {
      const printed = [...first.lines, ...first.errors, '--- restarted ---', ...(second?.lines ?? [])];
      t.diagnostic(`the shop printed:\n${[...printed, ...(second?.errors ?? [])].join('\n')}`);
      throw error;
    }
  });
});

/** The order id of the shipment of cart `reference`. */
function shippedOrderId(shipments: { cart_id: string; order_id: string }[], reference: string): string {
  const shipment = shipments.find((row) => row.cart_id === reference);
  assert.ok(shipment, `no shipment for ${reference}`);
  return shipment.order_id;
}
