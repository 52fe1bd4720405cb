/**
 * The whole path in real Chromium: the demo page, `<pay-checkout>`, the
 * relay and the sandbox, all through the server `npm start` runs, on a free
 * port. Each test has its own server (its own sandbox and rate limits) and its
 * own browser context (its own sessionStorage).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser } from 'playwright-core';
import { type RunningDemoServer, startDemoServer } from '../../demo/server/start-demo-server.js';
import { SHOPPER } from '../fixtures/checkout-data.js';
import { launchChromium, newDemoContext } from './helpers/browser.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { DemoPage } from './helpers/demo-page.js';

/**
 * The sandbox's payer approves this long after the prompt. Only tests that
 * look at the end state use it; a test that looks at `requires_action` holds
 * the payer with {@link HELD_MS} and answers through the control surface.
 */
const APPROVE_AFTER_MS = 1500;
/** A payer who never answers on their own within a test. */
const HELD_MS = 3_600_000;
const SECRET_KEY_PATTERN = /sk_(?:test|live)_[A-Za-z0-9]/;

let browser: Browser;

before(async () => {
  browser = await launchChromium();
});

after(() => browser.close());

/** A demo server and a watched page on it, both closed after the test. */
async function openDemo(
  t: TestContext,
  options: { approveAfterMs?: number; query?: string } = {},
): Promise<{ server: RunningDemoServer; demo: DemoPage }> {
  const server = await startDemoServer({
    pageRoot: E2E_PAGE_ROOT,
    port: 0,
    sandboxApproveAfterMs: options.approveAfterMs ?? APPROVE_AFTER_MS,
  });
  const context = await newDemoContext(browser);
  t.after(async () => {
    await context.close();
    await server.close();
  });
  const demo = await new DemoPage(await context.newPage()).watch();
  await demo.open(server.url, options.query ?? '?poll-interval=2000');
  return { server, demo };
}

async function approveFromControlSurface(server: RunningDemoServer, orderId: string): Promise<void> {
  const response = await fetch(`${server.url}/sandbox/_sandbox/payments/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: orderId }),
  });
  assert.equal(response.status, 200, await response.text());
}

describe('the demo page', () => {
  it('pays: the phone rings with the prompt, the payer approves, the checkout shows paid', async (t) => {
    // The payer answers only when the test says so: the prompt is held on the phone, however busy the machine.
    const { server, demo } = await openDemo(t, { approveAfterMs: HELD_MS });
    await demo.pay(SHOPPER);
    await demo.waitForState('requires_action');
    await demo.waitForPhone('prompt');
    const phone = demo.phone();
    assert.equal(await phone.getAttribute('data-issuer'), 'mtn');
    assert.match((await phone.textContent()) ?? '', /Kente & Co\. is asking you to pay/);
    assert.equal(await demo.page.getByTestId('phone-amount').textContent(), 'GH₵\u00a050.00');
    assert.equal(await demo.page.getByTestId('phone-number').textContent(), '024•••4567');

    await approveFromControlSurface(server, await demo.orderId());
    await demo.waitForState('paid');
    await demo.waitForPhone('paid');
    const events = await demo.events();
    for (const name of ['pay-submit', 'pay-created', 'pay-requires-action', 'pay-paid']) {
      assert.equal(events.filter((event) => event === name).length, 1, `${name} fires once: ${events}`);
    }
    assert.ok(!events.includes('pay-failed') && !events.includes('pay-error'), String(events));
    assert.equal(server.sandbox?.createdOrderCount, 1);
    assert.ok(await demo.page.locator('#start-over').isVisible(), 'offers a new payment after paid');
    assert.ok(await demo.page.locator('#quantity').isDisabled(), 'the cart is locked once paid');

    // The run must have been clean: nothing in the console, nothing blocked by the CSP.
    assert.deepEqual(demo.problems.consoleErrors, []);
    assert.deepEqual(demo.problems.pageErrors, []);
    assert.deepEqual(await demo.cspViolations(), []);
    const loaded = await demo.loadedResponses();
    assert.ok(
      loaded.some((response) => response.contentType.startsWith('text/javascript')),
      'saw the scripts',
    );
    assert.ok(
      loaded.some((response) => response.url.endsWith('/api/checkout/lookup')),
      'saw a lookup',
    );
    for (const response of loaded) {
      assert.doesNotMatch(response.body, SECRET_KEY_PATTERN, `a key-shaped string in ${response.url}`);
      assert.ok(!response.body.includes('sk_test_sandbox'), `the key is in ${response.url}`);
    }

    // A new payment: a fresh form with the focus in it, the phone back home, the cart free again.
    await demo.page.locator('#start-over').click();
    await demo.waitForState('idle');
    await demo.waitForPhone('home');
    assert.ok(await demo.page.locator('#quantity').isEnabled());
    assert.equal(
      await demo.checkout.evaluate((host) => host.shadowRoot?.activeElement?.getAttribute('name')),
      'customer_name',
    );
  });

  it('charges what the server’s catalogue says for the quantity chosen', async (t) => {
    const { demo } = await openDemo(t, { approveAfterMs: HELD_MS });
    await demo.page.locator('#quantity').selectOption('3');
    assert.equal(await demo.checkout.getAttribute('amount'), '15000');
    await demo.pay(SHOPPER);
    await demo.waitForPhone('prompt');
    assert.equal(await demo.page.getByTestId('phone-amount').textContent(), 'GH₵\u00a0150.00');
    assert.ok(
      await demo.page.locator('#quantity').isDisabled(),
      'the cart is locked while the payer decides',
    );
  });

  it('a payer who declines (0244000002): failed, pay-failed once, and the phone agrees', async (t) => {
    const { server, demo } = await openDemo(t);
    await demo.pay({ name: 'Kofi Boateng', number: '0244000002' });
    await demo.waitForState('failed');
    await demo.waitForPhone('failed');
    assert.equal(await demo.eventCount('pay-failed'), 1);
    assert.equal(await demo.eventCount('pay-paid'), 0);
    assert.equal(server.sandbox?.createdOrderCount, 1);
    assert.deepEqual(demo.problems.consoleErrors, []);
    assert.deepEqual(await demo.cspViolations(), []);
  });

  it('the visitor approves on the phone mock-up: paid', async (t) => {
    const { demo } = await openDemo(t);
    await demo.pay({ name: 'Esi Owusu', number: '0244000003' });
    await demo.waitForPhone('prompt');
    await demo.phoneButton('approve').click();
    await demo.waitForPhone('paid');
    await demo.waitForState('paid');
    assert.equal(await demo.eventCount('pay-paid'), 1);
  });

  it('the visitor declines on the phone mock-up: failed', async (t) => {
    const { demo } = await openDemo(t);
    await demo.pay({ name: 'Esi Owusu', number: '0244000003' });
    await demo.waitForPhone('prompt');
    await demo.phoneButton('decline').click();
    await demo.waitForPhone('failed');
    await demo.waitForState('failed');
    assert.equal(await demo.eventCount('pay-failed'), 1);
    assert.equal(await demo.eventCount('pay-paid'), 0);
  });

  it('a prompt never answered times out; "Check again" finds paid after an approval from the control surface', async (t) => {
    const { server, demo } = await openDemo(t, { query: '?poll-interval=2000&poll-timeout=4000' });
    await demo.pay({ name: 'Yaw Asante', number: '0244000003' });
    await demo.waitForState('timeout');
    assert.equal(await demo.eventCount('pay-timeout'), 1);
    assert.equal(await demo.eventCount('pay-paid'), 0);
    const orderId = await demo.orderId();
    // The phone keeps the prompt open: money may still move after a timeout.
    assert.equal(await demo.phone().getAttribute('data-screen'), 'prompt');

    // "Check again" waits for the same order anew (the timeout screen would also find it by itself).
    await demo.elementButton(/check again/i).click();
    await demo.waitForState('requires_action');
    await approveFromControlSurface(server, orderId);
    await demo.waitForState('paid');
    assert.equal(await demo.eventCount('pay-paid'), 1);
    assert.equal(await demo.eventCount('pay-created'), 1, 'checking again never creates a second order');
    assert.equal(server.sandbox?.createdOrderCount, 1);
  });

  it('a reload while the payer decides resumes the same order and reaches paid', async (t) => {
    const { server, demo } = await openDemo(t);
    await demo.pay({ name: 'Abena Darko', number: '0244000003' });
    await demo.waitForState('requires_action');
    const orderId = await demo.orderId();

    await demo.page.reload();
    await demo.ready();
    await demo.waitForState('requires_action');
    await demo.waitForPhone('prompt');
    assert.equal(await demo.eventCount('pay-created'), 0, 'a reload does not fire pay-created again');

    await demo.phoneButton('approve').click();
    await demo.waitForState('paid');
    assert.equal(await demo.eventCount('pay-paid'), 1);
    assert.equal(server.sandbox?.createdOrderCount, 1, 'the reload created nothing');
    const paidDetail = await demo.page
      .locator('#event-log > li[data-event="pay-paid"] .event-log__detail')
      .textContent();
    assert.equal((JSON.parse(paidDetail ?? '') as { orderId: string }).orderId, orderId);
  });

  it('switches the checkout to French and the theme to dark, and the snippet follows', async (t) => {
    const { demo } = await openDemo(t);
    const page = demo.page;
    await page.getByRole('radio', { name: 'Français' }).check();
    assert.equal(await demo.checkout.getAttribute('locale'), 'fr');
    assert.match((await demo.submitButton().textContent()) ?? '', /Payer/);
    assert.match((await page.locator('#snippet-html').textContent()) ?? '', /locale="fr"/);
    assert.equal(await page.locator('#product-name').textContent(), 'Sac cabas motif kente');
    // The demo's own controls speak French too: its switches, its panels' buttons, the phone.
    const settings = page.getByRole('form', { name: 'Réglages de la démo' });
    for (const group of ['Thème', 'Couleur', 'Langue']) {
      assert.ok(await settings.getByRole('group', { name: group }).isVisible(), group);
    }
    for (const name of ['Clair', 'Sombre', 'Or', 'Indigo', 'English', 'Français']) {
      assert.equal(await settings.getByRole('radio', { name, exact: true }).count(), 1, name);
    }
    const words = async (selector: string) =>
      ((await page.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ').trim();
    assert.equal(await words('#clear-log'), 'Effacer les événements');
    assert.equal(await words('#copy-html'), 'Copier le HTML');
    assert.match((await page.locator('#phone-screen').textContent()) ?? '', /Aucune demande de paiement/);
    assert.match((await page.locator('.product__image').getAttribute('alt')) ?? '', /^Un sac cabas/);

    const lightAccent = await page.locator('#snippet-css').textContent();
    await page.getByRole('radio', { name: 'Sombre' }).check();
    await page.getByRole('radio', { name: 'Indigo' }).check();
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
    const darkCss = (await page.locator('#snippet-css').textContent()) ?? '';
    assert.notEqual(darkCss, lightAccent);
    assert.match(darkCss, /--pay-checkout-accent-color: #aeabf7;/);
    assert.match(page.url(), /theme=dark/);
    // Every property the snippet offers must be one the element reads: no dead theming advice.
    const offered = [...darkCss.matchAll(/(--pay-checkout-[a-z-]+):/g)].map((match) => match[1] as string);
    const elementCss = await page.evaluate(() =>
      (
        customElements.get('pay-checkout') as unknown as { elementStyles: { cssText: string }[] }
      ).elementStyles
        .map((style) => style.cssText)
        .join('\n'),
    );
    assert.ok(offered.length >= 8, offered.join());
    for (const property of offered)
      assert.ok(elementCss.includes(`var(${property}`), `${property} is not read`);

    const snippet = (await page.locator('#snippet-html').textContent()) ?? '';
    assert.match(
      snippet,
      /<script\s+src="https:\/\/cdn\.jsdelivr\.net\/npm\/pay-checkout@[\d.]+\/dist\/pay-checkout\.embed\.js"/,
    );
    assert.match(snippet, /crossorigin="anonymous"/);
    assert.match(snippet, /integrity="sha384-/);
  });
});
