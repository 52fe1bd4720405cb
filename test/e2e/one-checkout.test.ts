/**
 * One checkout on the demo, in real Chromium, through the server `npm start`
 * runs: the amount the shopper sees is the one the relay charges; one
 * checkout is at most one payment, whichever number is paid first and across
 * a reload; the timeout screen is never a dead end; a saved checkout belongs
 * to its cart. The payers are held by the sandbox (prompts answered through
 * its control surface, 0244000003 never answers), never by a timer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { type RunningDemoServer, startDemoServer } from '../../demo/server/start-demo-server.js';
import { EN_STRINGS } from '../../src/element/locale/en.js';
import { SHOPPER } from '../fixtures/checkout-data.js';
import { launchChromium, newDemoContext } from './helpers/browser.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { DemoPage } from './helpers/demo-page.js';

/** A payer who never answers on their own within a test: the control surface answers. */
const HELD_MS = 3_600_000;
/** The second number the shopper tries, on the same network. */
const SECOND_NUMBER = '0241110002';

let browser: Browser;

before(async () => {
  browser = await launchChromium();
});

after(() => browser.close());

/** A demo server whose payers are held, and a watched page on it, both closed after the test. */
async function openDemo(
  t: TestContext,
  query = '?poll-interval=2000',
  beforeOpen?: (context: BrowserContext) => Promise<unknown>,
): Promise<{ server: RunningDemoServer; demo: DemoPage }> {
  const server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, port: 0, sandboxApproveAfterMs: HELD_MS });
  const context = await newDemoContext(browser);
  t.after(async () => {
    await context.close();
    await server.close();
  });
  await beforeOpen?.(context);
  const demo = await new DemoPage(await context.newPage()).watch();
  await demo.open(server.url, query);
  return { server, demo };
}

/** The payer approves or declines the order now, through the sandbox's control surface. */
async function payerAnswers(
  server: RunningDemoServer,
  orderId: string,
  answer: 'approve' | 'decline',
): Promise<void> {
  const response = await fetch(`${server.url}/sandbox/_sandbox/payments/${answer}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: orderId }),
  });
  assert.equal(response.status, 200, await response.text());
}

/** The `detail`s of one event in the page's log, oldest first. */
async function details(demo: DemoPage, name: string): Promise<Record<string, unknown>[]> {
  const texts = await demo.page
    .locator(`#event-log > li[data-event="${name}"] .event-log__detail`)
    .allTextContents();
  return texts.map((text) => JSON.parse(text) as Record<string, unknown>);
}

/** The order id the checkout's status panel shows. */
function shownOrderId(demo: DemoPage): Promise<string | null> {
  return demo.checkout.locator('[part~="status"] dd').first().textContent();
}

/** "Use another number": the question first (the earlier request may still be paid), then the confirmation. */
async function chooseAnotherNumber(demo: DemoPage): Promise<void> {
  await demo.elementButton('Use another number').click();
  await demo.checkout.locator('#confirm').waitFor();
  await demo.elementButton('Use another number').click();
  await demo.waitForState('idle');
}

/** Pays with the shopper's number, then "Use another number" and pays with a second: both orders wait. */
async function twoOrdersWaiting(demo: DemoPage): Promise<[string, string]> {
  await demo.pay(SHOPPER);
  await demo.waitForState('requires_action');
  await chooseAnotherNumber(demo);
  // The note on the form; the live region says it too.
  await demo.checkout.locator('p', { hasText: EN_STRINGS.earlierRequestOpen }).waitFor();
  await demo.control('number').fill(SECOND_NUMBER);
  await demo.submitButton().click();
  await demo.page.waitForFunction(
    () => document.querySelectorAll('#event-log > li[data-event="pay-created"]').length === 2,
  );
  await demo.waitForState('requires_action');
  const [first, second] = (await details(demo, 'pay-created')).map((detail) => String(detail.orderId));
  assert.ok(first && second && first !== second, `two orders: ${first}, ${second}`);
  return [first, second];
}

describe('the demo, one checkout at most one payment', () => {
  it('paid with the first of two numbers: one receipt, one pay-paid, and the shopper told to decline the other prompt', async (t) => {
    const { server, demo } = await openDemo(t);
    const [first, second] = await twoOrdersWaiting(demo);
    await payerAnswers(server, first, 'approve');
    await demo.waitForState('paid');
    assert.equal(await shownOrderId(demo), first);
    const declineNote = demo.checkout.getByText(EN_STRINGS.declineOtherRequest, { exact: true });
    await declineNote.waitFor();
    assert.deepEqual(
      (await details(demo, 'pay-paid')).map((detail) => detail.orderId),
      [first],
    );
    // The second prompt is declined: the note goes; the receipt and its one pay-paid stay.
    await payerAnswers(server, second, 'decline');
    await declineNote.waitFor({ state: 'detached' });
    assert.equal(await demo.state(), 'paid');
    assert.equal(await shownOrderId(demo), first);
    assert.equal(await demo.eventCount('pay-paid'), 1);
    assert.equal(await demo.eventCount('pay-failed'), 0);
    assert.equal(server.sandbox?.createdOrderCount, 2);
    assert.deepEqual(demo.problems.consoleErrors, []);
    assert.deepEqual(await demo.cspViolations(), []);
  });

  it('both numbers approved: the receipt tells both payments, and a second pay-paid names the first', async (t) => {
    const { server, demo } = await openDemo(t);
    const [first, second] = await twoOrdersWaiting(demo);
    await payerAnswers(server, first, 'approve');
    await demo.waitForState('paid');
    await payerAnswers(server, second, 'approve');
    await demo.checkout.locator('[part~="status"] p', { hasText: EN_STRINGS.paidMoreThanOnce }).waitFor();
    await demo.page.waitForFunction(
      () => document.querySelectorAll('#event-log > li[data-event="pay-paid"]').length === 2,
    );
    const paid = await details(demo, 'pay-paid');
    assert.deepEqual(
      paid.map((detail) => detail.orderId),
      [first, second],
    );
    assert.equal(paid[0]?.otherPaidOrderIds, undefined);
    assert.deepEqual(paid[1]?.otherPaidOrderIds, [first]);
    const told = await demo.checkout.locator('li').allTextContents();
    assert.equal(told.length, 2);
    assert.match(told[0] ?? '', new RegExp(`^GH₵\\s[\\d.,]+ · 024 ••• 4567 · ${first}$`));
    assert.match(
      told[1] ?? '',
      new RegExp(
        `^GH₵\\s[\\d.,]+ · ${SECOND_NUMBER.slice(0, 3)} ••• ${SECOND_NUMBER.slice(-4)} · ${second}$`,
      ),
    );
    assert.deepEqual(demo.problems.consoleErrors, []);
  });

  it('a reload with two orders waiting still finds the paid one', async (t) => {
    const { server, demo } = await openDemo(t);
    const [first] = await twoOrdersWaiting(demo);
    await demo.page.reload();
    await demo.ready();
    await demo.waitForState('requires_action');
    await payerAnswers(server, first, 'approve');
    await demo.waitForState('paid');
    assert.equal(await shownOrderId(demo), first);
    assert.deepEqual(
      (await details(demo, 'pay-paid')).map((detail) => detail.orderId),
      [first],
    );
    await demo.checkout.getByText(EN_STRINGS.declineOtherRequest, { exact: true }).waitFor();
    assert.equal(server.sandbox?.createdOrderCount, 2, 'the reload created nothing');
  });
});

describe('the demo, the timeout screen', () => {
  it('offers "Check again", "Use another number" and the network’s USSD menu', async (t) => {
    const { demo } = await openDemo(t, '?poll-interval=2000&poll-timeout=4000');
    await demo.pay({ name: 'Yaw Asante', number: '0244000003' });
    await demo.waitForState('timeout');
    assert.ok(await demo.elementButton('Check again').isVisible());
    assert.ok(await demo.elementButton('Use another number').isVisible());
    await demo.checkout.getByText(/\*170#/).waitFor();
    // "Check again" waits for the same order; when it times out again, another number.
    await demo.elementButton('Check again').click();
    await demo.waitForState('requires_action');
    await demo.waitForState('timeout');
    await chooseAnotherNumber(demo);
    assert.equal(
      await demo.checkout.evaluate((host) => host.shadowRoot?.activeElement?.getAttribute('name')),
      'number',
    );
    assert.equal(await demo.eventCount('pay-created'), 1, 'checking again never creates an order');
  });
});

describe('the demo, a saved checkout belongs to its cart', () => {
  it('keeps the receipt for the same cart after a reload, and gives a fresh form for a new cart', async (t) => {
    const { server, demo } = await openDemo(t);
    await demo.pay(SHOPPER);
    await demo.waitForState('requires_action');
    const orderId = await demo.orderId();
    await payerAnswers(server, orderId, 'approve');
    await demo.waitForState('paid');
    // The same page again: the demo sets the same cart once it has its catalogue.
    await demo.page.reload();
    await demo.ready();
    assert.equal(await demo.state(), 'paid');
    assert.equal(await shownOrderId(demo), orderId);
    // The same tab opens a new cart.
    await demo.checkout.evaluate((host) => {
      (host as HTMLElement & { cart: unknown }).cart = { items: [{ product_id: 'kente-tote', quantity: 2 }] };
    });
    await demo.waitForState('idle');
    await demo.control('number').waitFor();
    assert.equal(await demo.eventCount('pay-paid'), 0, 'nothing fired again');
    // The Pay button shows the relay's price of the new cart before the shopper pays it.
    await demo.submitButton().getByText('GH₵\u00a0100.00').waitFor();
    await demo.pay({ name: 'Esi Owusu', number: '0244000003' });
    await demo.waitForState('requires_action');
    assert.equal(server.sandbox?.createdOrderCount, 2);
  });
});

describe('the demo, the amount the shopper sees', () => {
  it('corrects the page’s amount before any prompt, and shows the server’s on the waiting screen and the receipt', async (t) => {
    // The relay's price never reaches the page, so the button keeps the page's estimate whatever the timing.
    let priceRequests = 0;
    const { server, demo } = await openDemo(t, undefined, (context) =>
      context.route('**/api/checkout/price', (route) => {
        priceRequests += 1;
        return route.abort();
      }),
    );
    // The page's estimate says GH₵ 1.00; the server prices the cart at GH₵ 50.00.
    await demo.checkout.evaluate((host) => host.setAttribute('amount', '100'));
    await demo.submitButton().getByText('GH₵\u00a01.00').waitFor();
    await demo.pay(SHOPPER);
    // The create carried the button's amount: the relay refuses it before any prompt and says its own.
    await demo.submitButton().getByText('GH₵\u00a050.00').waitFor();
    assert.equal(await demo.state(), 'idle');
    assert.equal(server.sandbox?.createdOrderCount, 0, 'no prompt for the wrong amount');
    assert.ok(priceRequests > 0, 'the element asked the relay for its price');
    await demo.submitButton().click();
    await demo.waitForState('requires_action');
    const amount = demo.checkout.locator('[part~="status"] [part~="amount"]');
    assert.equal(await amount.textContent(), 'GH₵\u00a050.00');
    const [created] = await details(demo, 'pay-created');
    assert.deepEqual(created?.amount, { currency: 'ghs', value: 5000 });
    await payerAnswers(server, await demo.orderId(), 'approve');
    await demo.waitForState('paid');
    await demo.checkout.locator('[part~="status"]').getByText('You paid GH₵\u00a050.00').waitFor();
    const [paid] = await details(demo, 'pay-paid');
    assert.deepEqual(paid?.amount, { currency: 'ghs', value: 5000 });
  });
});
