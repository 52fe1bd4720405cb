/**
 * `pay-checkout serve`, installed from the packed package and started with
 * the commands of docs/no-javascript.md, killed with SIGKILL at each crash
 * point while the PHP and the Python example shops sell through it. The
 * payments service is a sandbox in this process behind a fault proxy. In
 * serve's first life, one checkout's create is journalled and held before the
 * service sees it, a second is created by the service and its answer held
 * back from serve, a third is paid at the service and the service's answer
 * saying so is held back from serve's lookup, and a fourth is paid and
 * settled in serve's journal, its shop's thank-you page not loaded yet. serve
 * is killed, then started again: its watcher finishes the two creates and
 * learns of the third payment, and each shop's thank-you page
 * verifies every paid order with serve and records it once, with its items;
 * the service created each order once. Shorter watcher timings (`watch` in
 * pay-checkout.json) make the same recovery sooner. That first run has no
 * webhook endpoint: the thank-you pages alone record. Then, with each shop's
 * receiver an endpoint: serve killed while the PHP shop's receiver holds a
 * delivery (another process holds the lock of its orders file), and the
 * Python shop killed while it holds one; either way the event is delivered
 * again once both run, and each shop records its order once.
 *
 * Needs `npm run build` first (the `test` script runs it).
 */
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox, SANDBOX_KEYS } from '../../src/sandbox/index.js';
import { customerPayingFrom } from '../fixtures/checkout-data.js';
import { type FaultPlan, startFaultProxy } from '../fixtures/fault-proxy.js';
import { serveSandbox } from '../fixtures/sandbox.js';
import { eventually, gate } from '../fixtures/wait.js';
import {
  configureServe,
  freePorts,
  type GuideProcess,
  holdOrdersLock,
  type InstalledShops,
  installShops,
  killRunningGroups,
  makeKeys,
  type ProductPage,
  payAtServe,
  productPage,
  receivedWebhooks,
  recordedOrders,
  signalGroup,
  startServeCommand,
  startShopCommand,
} from './language-shop.js';
import { journalRows } from './running-shop.js';

/** serve's watcher: an unanswered create is resent after 15 s, a dead process's claim passed on after 10 s. */
const WATCH = { createGraceMs: 15_000, leaseMs: 10_000 };
/** The sandbox's payer who never answers by itself: the test approves for them. */
const NEVER_ANSWERS = '0244000003';
const TOTE = { name: 'Kente tote', pesewas: 12_500 };
const SCARF = { name: 'Adinkra scarf', pesewas: 4_000 };

/** Creates an order for `checkout` at serve as the shop's page does, paid from `number`. */
async function pay(serve: GuideProcess, shop: GuideProcess, checkout: ProductPage, number: string) {
  const response = await fetch(`${serve.url}/checkout/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), origin: shop.url },
    body: JSON.stringify({ ...customerPayingFrom(number), checkout: checkout.clientSecret }),
  });
  const body = (await response.json()) as { order?: { id: string }; lookup_token?: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return { orderId: body.order?.id as string, lookupToken: body.lookup_token as string };
}

/** The page's lookup of `orderId` at serve: its payment status. */
async function lookUp(serve: GuideProcess, shop: GuideProcess, orderId: string, lookupToken: string) {
  const response = await fetch(`${serve.url}/checkout/lookup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: shop.url },
    body: JSON.stringify({ order_id: orderId, lookup_token: lookupToken }),
  });
  return ((await response.json()) as { order?: { payment: { status: string } } }).order?.payment.status;
}

/** Whether serve holds a paid order of `reference`, asked as a shop's backend does. */
async function isPaid(serve: GuideProcess, apiKey: string, reference: string): Promise<boolean> {
  const response = await fetch(`${serve.url}/v1/orders?reference=${encodeURIComponent(reference)}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const { data } = (await response.json()) as { data: { outcome: string }[] };
  return data.some((order) => order.outcome === 'paid');
}

/** Loads the thank-you page of `checkout` as the browser does after `pay-paid`; fails unless it thanks. */
async function thank(shop: GuideProcess, checkout: ProductPage): Promise<void> {
  const response = await fetch(new URL(checkout.thankYou, shop.url));
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.match(text, /<p id="paid">Order order-[0-9a-f]{16} is paid:/, text);
}

/**
 * The payments service for serve: a sandbox in this process behind a fault proxy that, until
 * `endFirstLife`, holds the first create before the service sees it and the second's answer after
 * the service created the order (their resends held too), and the answers to every lookup of the
 * order `approve` approved (`held.lookup` opens once one was held after the approval); it forwards
 * everything else.
 */
async function holdingService() {
  const sandbox = createSandbox({ approveAfterMs: 1_000 });
  const served = await serveSandbox(sandbox);
  let firstLife = true;
  const heldKeys = new Set<string>();
  let approvedOrderId: string | undefined;
  const held = { request: gate(), answer: gate(), lookup: gate() };
  const proxy = await startFaultProxy(served.url, (_index, request): FaultPlan => {
    if (!firstLife) return { kind: 'forward' };
    if (request.path.endsWith('/orders/lookup')) {
      if (approvedOrderId === undefined || !request.body.includes(approvedOrderId))
        return { kind: 'forward' };
      return { kind: 'keep-answer', onHeld: () => held.lookup.open() };
    }
    if (!request.path.endsWith('/orders/new')) return { kind: 'forward' };
    const key = String(request.headers['idempotency-key']);
    if (heldKeys.has(key)) return { kind: 'keep-request' };
    heldKeys.add(key);
    if (heldKeys.size === 1) return { kind: 'keep-request', onHeld: () => held.request.open() };
    if (heldKeys.size === 2) return { kind: 'keep-answer', onHeld: () => held.answer.open() };
    return { kind: 'forward' };
  });
  return {
    sandbox,
    proxyUrl: proxy.url,
    held,
    /** The payer approves `orderId` at the service; serve hears of it only after the crash. */
    approve: (orderId: string) => {
      sandbox.approve(orderId);
      approvedOrderId = orderId;
    },
    endFirstLife: () => {
      firstLife = false;
    },
    close: async () => {
      await proxy.close();
      await served.close();
    },
  };
}

/** The four checkouts of the crash test, as their shops rendered them. */
interface CrashCheckouts {
  journalled: ProductPage;
  answered: ProductPage;
  paidUnheard: ProductPage;
  settled: ProductPage;
}

/** Fails unless each shop recorded its paid checkouts once, with their items and amounts. */
function assertRecorded(shops: InstalledShops, checkouts: CrashCheckouts, settledOrderId: string) {
  const byPhp = recordedOrders(shops.php);
  const byPython = recordedOrders(shops.python);
  const { journalled, answered, paidUnheard, settled } = checkouts;
  assert.deepEqual(Object.keys(byPhp).sort(), [journalled.reference, settled.reference].sort());
  assert.deepEqual(Object.keys(byPython).sort(), [answered.reference, paidUnheard.reference].sort());
  assert.deepEqual(byPython[paidUnheard.reference]?.items, [{ name: SCARF.name, quantity: 1 }]);
  assert.deepEqual(
    [byPhp[journalled.reference]?.items, byPhp[journalled.reference]?.amount.value],
    [[{ name: TOTE.name, quantity: 1 }], TOTE.pesewas],
  );
  assert.deepEqual(
    [byPython[answered.reference]?.items, byPython[answered.reference]?.amount.value],
    [[{ name: SCARF.name, quantity: 2 }], 2 * SCARF.pesewas],
  );
  assert.deepEqual(byPhp[settled.reference], {
    ...byPhp[settled.reference],
    order_id: settledOrderId,
    items: [{ name: TOTE.name, quantity: 2 }],
    amount: { currency: 'ghs', value: 2 * TOTE.pesewas },
  });
}

describe('serve killed at each crash point, under the PHP and Python shops', { timeout: 300_000 }, () => {
  let workDirectory: string;
  let shops: InstalledShops;

  before(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), 'pay-checkout-language-crash-'));
    shops = await installShops(workDirectory);
  });

  after(async () => {
    killRunningGroups();
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  /**
   * serve (in the PHP shop's folder, its service `serviceUrl`) and both shops, sharing one key and
   * one webhook secret; `more` is added to serve's configuration.
   */
  async function startAll(serviceUrl: string, more: Record<string, unknown> = {}) {
    const keys = await makeKeys(shops.php);
    await copyFile(join(shops.php, '.env'), join(shops.python, '.env'));
    const [servePort, phpPort, pythonPort] = (await freePorts(3)) as [number, number, number];
    const origins = [`http://127.0.0.1:${phpPort}`, `http://127.0.0.1:${pythonPort}`];
    await configureServe(shops.php, servePort, origins, {
      service: { baseUrl: serviceUrl },
      watch: WATCH,
      ...more,
    });
    const startServe = () => startServeCommand(shops.php, servePort, { PAY_SECRET_KEY: SANDBOX_KEYS.secret });
    const serve = await startServe();
    const php = await startShopCommand(shops.php, 'php', serve.url, phpPort);
    const python = await startShopCommand(shops.python, 'python', serve.url, pythonPort);
    const startPython = () => startShopCommand(shops.python, 'python', serve.url, pythonPort);
    return { apiKey: keys.PAY_CHECKOUT_API_KEY as string, serve, startServe, php, python, startPython };
  }

  /** A sandbox service for serve, paying every order a second after its prompt. */
  async function payingService(t: { after(fn: () => Promise<void>): void }) {
    const served = await serveSandbox(createSandbox({ approveAfterMs: 1_000 }));
    t.after(() => served.close());
    return served.url;
  }

  /** Prints what each process printed, for a failed test. */
  function diagnose(t: { diagnostic(message: string): void }, processes: Record<string, GuideProcess>) {
    const printed = Object.entries(processes).flatMap(([name, running]) => [
      `--- ${name} ---`,
      ...running.lines,
      ...running.errors,
    ]);
    t.diagnostic(printed.join('\n'));
  }

  it('verifies every paid order once, with its items, after a SIGKILL with a create journalled, a create’s answer and a paid lookup’s answer held back, and an order settled', {
    timeout: 240_000,
  }, async (t) => {
    const service = await holdingService();
    t.after(() => service.close());
    // The thank-you pages alone record here: no webhook endpoint.
    const {
      apiKey,
      serve: first,
      startServe,
      php,
      python,
    } = await startAll(service.proxyUrl, { webhooks: [] });
    const lives = [first];
    try {
      const checkouts: CrashCheckouts = {
        journalled: await productPage(php, { product: 'kente-tote', quantity: '1' }),
        answered: await productPage(python, { product: 'adinkra-scarf', quantity: '2' }),
        paidUnheard: await productPage(python, { product: 'adinkra-scarf', quantity: '1' }),
        settled: await productPage(php, { product: 'kente-tote', quantity: '2' }),
      };
      // (a) journalled, never sent; (b) created by the service, its answer never back.
      void pay(first, php, checkouts.journalled, '0241110001').catch(() => undefined);
      await service.held.request.promise;
      void pay(first, python, checkouts.answered, '0241110002').catch(() => undefined);
      await service.held.answer.promise;
      assert.equal(service.sandbox.createdOrderCount, 1, 'the service created the second order only');
      // (c) paid at the service, which answered so to serve's lookup; the answer never back.
      const unheard = await pay(first, python, checkouts.paidUnheard, NEVER_ANSWERS);
      service.approve(unheard.orderId);
      void lookUp(first, python, unheard.orderId, unheard.lookupToken).catch(() => undefined);
      await service.held.lookup.promise;
      assert.equal(
        await isPaid(first, apiKey, checkouts.paidUnheard.reference),
        false,
        'serve did not hear it',
      );
      // (d) paid, and settled by the page's lookup; its thank-you page not loaded yet.
      const settled = await pay(first, php, checkouts.settled, '0241110003');
      await eventually(
        'the fourth order paid',
        async () => (await lookUp(first, php, settled.orderId, settled.lookupToken)) === 'paid',
        // As a page polls, within the relay's lookup limit.
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      assert.ok(await isPaid(first, apiKey, checkouts.settled.reference));
      await signalGroup(first, 'SIGKILL');
      service.endFirstLife();
      assert.deepEqual(recordedOrders(shops.php), {}, 'nothing verified before the crash');

      const second = await startServe();
      lives.push(second);
      // The watcher resends the two creates once their grace has passed, and learns they are paid.
      for (const checkout of Object.values(checkouts)) {
        await eventually(
          `order ${checkout.reference} paid`,
          () => isPaid(second, apiKey, checkout.reference),
          {
            timeoutMs: 90_000,
            intervalMs: 250,
          },
        );
      }
      // Each thank-you page loaded twice (a reload): one record each.
      const pages = [
        [php, checkouts.journalled],
        [python, checkouts.answered],
        [python, checkouts.paidUnheard],
        [php, checkouts.settled],
      ] as const;
      for (const [shop, checkout] of [...pages, ...pages]) await thank(shop, checkout);
      assertRecorded(shops, checkouts, settled.orderId);
      assert.equal(service.sandbox.createdOrderCount, 4, 'each order created once at the service');
      // serve's own delivery of each settled order is in its journal too.
      await eventually('every order delivered in serve’s journal', () => {
        const rows = journalRows(shops.php);
        return (
          rows.filter((row) => row.order_id !== null).length === 4 &&
          rows.every((row) => row.delivered_at !== null)
        );
      });
      await signalGroup(second, 'SIGTERM');
    } catch (error) {
      const printed = lives.flatMap((life, index) => [
        `--- serve, life ${index + 1} ---`,
        ...life.lines,
        ...life.errors,
      ]);
      const shopsPrinted = [...php.lines, ...php.errors, '--- python ---', ...python.lines, ...python.errors];
      t.diagnostic([...printed, '--- php ---', ...shopsPrinted].join('\n'));
      throw error;
    }
  });

  it('ships once by webhook after a SIGKILL of serve while the PHP shop’s receiver holds the delivery', {
    timeout: 180_000,
  }, async (t) => {
    const { serve: first, startServe, php, python } = await startAll(await payingService(t));
    const processes: Record<string, GuideProcess> = { 'serve, life 1': first, php, python };
    try {
      const lock = await holdOrdersLock(shops.php);
      t.after(() => lock.release());
      const checkout = await productPage(php, { product: 'kente-tote', quantity: '3' });
      const { orderId } = await payAtServe(first, php, checkout, '0241110004');
      // The receiver verified the event and waits for the lock: serve waits for its answer.
      const held = await php.line((line) => /^webhook \S+: order\.paid$/.test(line));
      const eventId = held.split(' ')[1]?.slice(0, -1) as string;
      await signalGroup(first, 'SIGKILL');
      await lock.release();
      const recorded = await eventually(
        'the held delivery recorded',
        () => recordedOrders(shops.php)[checkout.reference],
      );
      assert.equal(recorded.order_id, orderId);
      const second = await startServe();
      processes['serve, life 2'] = second;
      // serve never had the answer: once its claim on the delivery lapses, it sends the event again.
      await php.line((line) => line === `webhook ${eventId}: order.paid, handled before`);
      assert.deepEqual(
        receivedWebhooks(php)
          .filter((received) => received.id === eventId)
          .map((received) => received.handledBefore),
        [false, true],
      );
      assert.deepEqual(recordedOrders(shops.php)[checkout.reference], recorded, 'recorded once, unchanged');
      assert.deepEqual(recorded.items, [{ name: TOTE.name, quantity: 3 }]);
      await signalGroup(second, 'SIGTERM');
    } catch (error) {
      diagnose(t, processes);
      throw error;
    } finally {
      await signalGroup(php, 'SIGKILL');
      await signalGroup(python, 'SIGKILL');
    }
  });

  it('ships once by webhook after a SIGKILL of the Python shop while its receiver holds the delivery', {
    timeout: 180_000,
  }, async (t) => {
    const { serve, php, python, startPython } = await startAll(await payingService(t));
    const processes: Record<string, GuideProcess> = { serve, php, python };
    try {
      const lock = await holdOrdersLock(shops.python);
      t.after(() => lock.release());
      const checkout = await productPage(python, { product: 'adinkra-scarf', quantity: '4' });
      const { orderId } = await payAtServe(serve, python, checkout, '0241110005');
      const held = await python.line((line) => /^webhook \S+: order\.paid$/.test(line));
      const eventId = held.split(' ')[1]?.slice(0, -1) as string;
      await signalGroup(python, 'SIGKILL');
      await lock.release();
      assert.equal(recordedOrders(shops.python)[checkout.reference], undefined, 'killed before it recorded');
      const again = await startPython();
      processes['python, life 2'] = again;
      // serve's attempt failed with the connection: its next one reaches the shop started again.
      const recorded = await eventually(
        'the order recorded by the shop started again',
        () => recordedOrders(shops.python)[checkout.reference],
        { timeoutMs: 120_000, intervalMs: 250 },
      );
      assert.equal(recorded.order_id, orderId);
      assert.deepEqual(recorded.items, [{ name: SCARF.name, quantity: 4 }]);
      assert.deepEqual(
        receivedWebhooks(again).map((received) => [received.id, received.handledBefore]),
        [[eventId, false]],
      );
      await signalGroup(again, 'SIGKILL');
      await signalGroup(serve, 'SIGTERM');
    } catch (error) {
      diagnose(t, processes);
      throw error;
    } finally {
      await signalGroup(php, 'SIGKILL');
    }
  });
});
