/**
 * The PHP and the Python example shops (examples/php-shop/,
 * examples/python-shop/), from nothing as docs/no-javascript.md takes a
 * merchant there: the packed package installed, the page's commands run in
 * bash (the keys into `.env`, `npx pay-checkout serve` with its embedded
 * sandbox, `php -S …` on Debian's php-cli, `python3 shop.py`). In Chromium,
 * the product page loads the embed from serve under its integrity, shows the
 * checkout's price, and pays; the payer approves through the sandbox's control
 * surface; the page goes to the thank-you page, which verifies the order with
 * serve and records it once, with its items, however often it is loaded. What
 * the shops print is escaped, their key never reaches a page, and a thank-you
 * page believes serve only. serve tells each shop's webhook receiver of the
 * payment, signed: an order whose thank-you page is never loaded is recorded
 * once all the same, and a request not signed by the shop's secret, or signed
 * too long ago, records nothing; the page's `webhooks test` and `webhooks
 * list` commands ping the receiver and show the delivered event.
 *
 * Needs `npm run build` first (the `test` script runs it).
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../e2e/helpers/browser.js';
import { eventually } from '../fixtures/wait.js';
import {
  configureServe,
  freePorts,
  type GuideProcess,
  type InstalledShops,
  installShops,
  killRunningGroups,
  makeKeys,
  payAtServe,
  productPage,
  receivedWebhooks,
  recordedOrders,
  runWebhookCommands,
  type ShopLanguage,
  signalGroup,
  startServeCommand,
  startShopCommand,
} from './language-shop.js';

/** The sandbox's payer who never answers by itself: the test approves for them. */
const NEVER_ANSWERS = '0244000003';

/** Approves `orderId` at serve's embedded sandbox, as its payer would. */
async function approve(serve: GuideProcess, orderId: string): Promise<void> {
  const approved = await fetch(`${serve.url}/sandbox/_sandbox/payments/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: orderId }),
  });
  assert.equal(approved.status, 200, await approved.text());
}

/** The orders serve holds for `reference`, asked as a shop's backend does. */
async function ordersOf(serve: GuideProcess, apiKey: string, reference: string) {
  const response = await fetch(`${serve.url}/v1/orders?reference=${encodeURIComponent(reference)}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { data: { id: string; outcome: string }[] }).data;
}

/** serve and a shop started from the page's commands, in the shop's folder. */
interface Running {
  folder: string;
  serve: GuideProcess;
  shop: GuideProcess;
  apiKey: string;
}

/** Loads `shop`'s product page and checks it: the embed from serve under the installed embed's hash, no key; no page for an unknown product, no thanks for an unpaid reference. */
async function assertProductPage({ folder, serve, shop, apiKey }: Running) {
  const rendered = await productPage(shop, { product: 'adinkra-scarf', quantity: '3' });
  const embed = await readFile(join(folder, 'node_modules/pay-checkout/dist/pay-checkout.embed.js'));
  const integrity = `sha384-${createHash('sha384').update(embed).digest('base64')}`;
  assert.ok(
    rendered.html.includes(
      `<script src="${serve.url}/pay-checkout.embed.js" integrity="${integrity}" crossorigin="anonymous" defer>`,
    ),
    rendered.html,
  );
  assert.match(rendered.clientSecret, /^cs_[A-Za-z0-9_-]{24}_secret_[A-Za-z0-9_-]{43}$/);
  assert.ok(!rendered.html.includes(apiKey), 'the key never reaches a page');
  assert.equal((await fetch(`${shop.url}/?product=%3Cscript%3E`)).status, 404);
  const unknown = await fetch(`${shop.url}/thank-you?reference=order-${'0'.repeat(16)}`);
  assert.match(await unknown.text(), /Waiting for your payment/, 'a reference nobody paid is not thanked');
  return rendered;
}

describe('the PHP and Python shops, from the packed package and the page’s commands', {
  timeout: 300_000,
}, () => {
  let workDirectory: string;
  let shops: InstalledShops;
  let browser: Browser;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-language-shops-'));
    [shops, browser] = await Promise.all([installShops(workDirectory), launchChromium()]);
  });

  after(async () => {
    killRunningGroups();
    await browser?.close();
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  for (const language of ['php', 'python'] as ShopLanguage[]) {
    it(`the ${language} shop: pays a checkout in Chromium and records the order its thank-you page verified, once`, {
      timeout: 120_000,
    }, async (t) => {
      const folder = shops[language];
      const keys = await makeKeys(folder);
      assert.ok((keys.PAY_CHECKOUT_API_KEY ?? '').length >= 32);
      const [servePort, shopPort] = (await freePorts(2)) as [number, number];
      const shopOrigin = `http://127.0.0.1:${shopPort}`;
      await configureServe(folder, servePort, [shopOrigin]);
      const serve = await startServeCommand(folder, servePort);
      const shop = await startShopCommand(folder, language, serve.url, shopPort);
      try {
        await payAndVerify({ folder, serve, shop, apiKey: keys.PAY_CHECKOUT_API_KEY as string });
      } catch (error) {
        const printed = [...serve.lines, ...serve.errors, '--- the shop ---', ...shop.lines, ...shop.errors];
        t.diagnostic(printed.join('\n'));
        throw error;
      } finally {
        await signalGroup(shop, 'SIGKILL');
        await signalGroup(serve, 'SIGTERM');
      }
    });
  }

  for (const language of ['php', 'python'] as ShopLanguage[]) {
    it(`the ${language} shop: records an order once by webhook, its thank-you page never loaded, and refuses an unsigned one`, {
      timeout: 120_000,
    }, async (t) => {
      const folder = shops[language];
      const keys = await makeKeys(folder);
      const [servePort, shopPort] = (await freePorts(2)) as [number, number];
      await configureServe(folder, servePort, [`http://127.0.0.1:${shopPort}`]);
      const serve = await startServeCommand(folder, servePort);
      const shop = await startShopCommand(folder, language, serve.url, shopPort);
      try {
        await refusesForgedWebhooks(folder, shop, keys.SHOP_WEBHOOK_SECRET as string);
        const checkout = await productPage(shop, { product: 'kente-tote', quantity: '2' });
        const { orderId } = await payAtServe(serve, shop, checkout, NEVER_ANSWERS);
        await approve(serve, orderId);
        const recorded = await eventually(
          'the order recorded by webhook',
          () => recordedOrders(folder)[checkout.reference],
          { timeoutMs: 60_000, intervalMs: 100 },
        );
        assert.equal(recorded.order_id, orderId);
        assert.deepEqual(recorded.items, [{ name: 'Kente tote', quantity: 2 }]);
        assert.deepEqual(recorded.amount, { currency: 'ghs', value: 25_000 });
        const received = receivedWebhooks(shop);
        assert.equal(received.length, 1, shop.lines.join('\n'));
        assert.match(received[0]?.id ?? '', /^msg_[A-Za-z0-9_-]{24}$/);
        assert.deepEqual([received[0]?.type, received[0]?.handledBefore], ['order.paid', false]);
        // The page's commands: a signed ping the receiver accepts, and the event serve sent, delivered.
        const commands = await runWebhookCommands(folder, shop.url);
        assert.equal(commands.code, 0, `${commands.stdout}${commands.stderr}`);
        assert.match(
          commands.stdout,
          new RegExp(`^ping msg_\\S+ to ${shop.url}/webhooks/pay: answered 204 in \\d+ ms$`, 'm'),
        );
        assert.match(
          commands.stdout,
          new RegExp(`^${received[0]?.id} order\\.paid order ${orderId} at `, 'm'),
        );
        assert.match(commands.stdout, new RegExp(`^ {4}${shop.url}/webhooks/pay delivered, at `, 'm'));
        await shop.line((line) => /^webhook msg_\S+: ping$/.test(line));
        assert.ok(!commands.stdout.includes(keys.SHOP_WEBHOOK_SECRET as string));
      } catch (error) {
        const printed = [...serve.lines, ...serve.errors, '--- the shop ---', ...shop.lines, ...shop.errors];
        t.diagnostic(printed.join('\n'));
        throw error;
      } finally {
        await signalGroup(shop, 'SIGKILL');
        await signalGroup(serve, 'SIGTERM');
      }
    });
  }

  /** Posts to the shop's receiver what serve never sent: unsigned, signed by another secret, signed too long ago. */
  async function refusesForgedWebhooks(folder: string, shop: GuideProcess, secret: string) {
    const body = JSON.stringify({
      type: 'order.paid',
      timestamp: new Date().toISOString(),
      data: {
        id: 'or_forged',
        reference: 'order-forged',
        line_items: [],
        amount: { currency: 'ghs', value: 1 },
      },
    });
    const signed = (key: string, seconds: number) => {
      const mac = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
        .update(`msg_forged.${seconds}.${body}`)
        .digest('base64');
      return {
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(seconds),
        'webhook-signature': `v1,${mac}`,
      };
    };
    const now = Math.floor(Date.now() / 1000);
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    for (const headers of [{}, signed(other, now), signed(secret, now - 600), signed(secret, now + 600)]) {
      const response = await fetch(`${shop.url}/webhooks/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      assert.equal(response.status, 400, JSON.stringify(headers));
    }
    assert.equal(recordedOrders(folder)['order-forged'], undefined);
    assert.deepEqual(receivedWebhooks(shop), []);
  }

  /** One purchase in Chromium at `shop`, then the checks of what the shop recorded. */
  async function payAndVerify({ folder, serve, shop, apiKey }: Running) {
    const rendered = await assertProductPage({ folder, serve, shop, apiKey });

    const context = await browser.newContext();
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.addInitScript(() => {
      document.addEventListener('pay-created', (event) => {
        (window as unknown as { created: string }).created = (
          event as CustomEvent<{ orderId: string }>
        ).detail.orderId;
      });
    });
    await page.goto(`${shop.url}/?product=adinkra-scarf&quantity=3`);
    const checkout = page.locator('pay-checkout');
    const paidSecret = (await checkout.getAttribute('checkout')) as string;
    // The Pay button says what the checkout costs, as serve priced it: three scarves.
    await checkout.locator('button[type="submit"]', { hasText: '120.00' }).waitFor();
    await checkout.locator('[name="customer_name"]').fill('Ama Mensah');
    await checkout.locator('[name="number"]').fill(NEVER_ANSWERS);
    await checkout.locator('button[type="submit"]').click();
    await page.locator('pay-checkout[state="requires_action"]').waitFor();
    const orderId = await page.evaluate(() => (window as unknown as { created: string }).created);
    const reference = new URL(
      (await checkout.getAttribute('data-thank-you')) as string,
      shop.url,
    ).searchParams.get('reference') as string;
    assert.deepEqual(recordedOrders(folder), {}, 'nothing recorded before the payment');
    await approve(serve, orderId);
    await page.waitForURL(/\/thank-you\?reference=order-[0-9a-f]{16}$/, { timeout: 30_000 });
    assert.match((await page.locator('#paid').textContent()) ?? '', /is paid: GH₵ 120\.00\./);
    await page.reload();
    await page.locator('#paid').waitFor();
    await context.close();
    assert.deepEqual(pageErrors, []);

    // Three more loads at once, as from three tabs: the lock keeps the record to one.
    const thankYou = new URL(`/thank-you?reference=${reference}`, shop.url);
    const loads = await Promise.all([1, 2, 3].map(() => fetch(thankYou).then((response) => response.text())));
    for (const html of loads) assert.match(html, /<p id="paid">/);
    const recorded = recordedOrders(folder);
    assert.deepEqual(Object.keys(recorded), [reference], 'one order, recorded once');
    assert.equal(recorded[reference]?.order_id, orderId);
    assert.deepEqual(recorded[reference]?.items, [{ name: 'Adinkra scarf', quantity: 3 }]);
    assert.deepEqual(recorded[reference]?.amount, { currency: 'ghs', value: 12_000 });
    assert.deepEqual(
      (await ordersOf(serve, apiKey, reference)).map((order) => [order.id, order.outcome]),
      [[orderId, 'paid']],
    );
    // serve told the shop's receiver too, once; whichever came first recorded the order.
    await eventually('the shop told of the payment by webhook', () => receivedWebhooks(shop).length > 0);
    assert.deepEqual(
      receivedWebhooks(shop).map((received) => [received.type, received.handledBefore]),
      [['order.paid', false]],
    );
    // Neither serve nor the shop printed the key, the client secret, the payer's name or number.
    const printed = [...serve.lines, ...serve.errors, ...shop.lines, ...shop.errors].join('\n');
    for (const secret of [apiKey, rendered.clientSecret, paidSecret, 'Ama Mensah', NEVER_ANSWERS.slice(1)]) {
      assert.ok(!printed.includes(secret), `printed ${secret}`);
    }
  }
});
