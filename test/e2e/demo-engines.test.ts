/**
 * The demo's payment in Firefox and in WebKit, the engines besides Chromium
 * a shopper's phone may run (the other end-to-end files drive Chromium): the
 * shopper pays with a test number, reloads the page while the payer decides
 * and finds the same order waiting, and sees the receipt once the payer
 * approves. The server is the one `npm start` runs; the payer answers only
 * when the test says so, through the sandbox's control surface.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { type RunningDemoServer, startDemoServer } from '../../demo/server/start-demo-server.js';
import { EN_STRINGS } from '../../src/index.js';
import { SHOPPER } from '../fixtures/checkout-data.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { type Engine, type EngineTab, firefox, waitInPage, webkit } from './helpers/engines.js';

/** A payer who never answers on their own within a test. */
const HELD_MS = 3_600_000;

const CHECKOUT = "document.querySelector('pay-checkout')";
const READY = "document.querySelector('pay-checkout:not([disabled])[state]')";
const stateIs = (state: string) => `${CHECKOUT}.getAttribute('state') === '${state}'`;

/** The names of the events in the demo's log, oldest first. */
function events(tab: EngineTab): Promise<string[]> {
  return tab.evaluate(
    "[...document.querySelectorAll('#event-log > li')].map((item) => item.getAttribute('data-event'))",
  );
}

/** The `detail` of the first logged `name` event. */
async function eventDetail(tab: EngineTab, name: string): Promise<{ orderId?: string }> {
  const text = await tab.evaluate<string | null>(
    `document.querySelector('#event-log > li[data-event="${name}"] .event-log__detail')?.textContent ?? null`,
  );
  assert.ok(text, `no ${name} in the log`);
  return JSON.parse(text) as { orderId?: string };
}

async function approve(server: RunningDemoServer, orderId: string): Promise<void> {
  const response = await fetch(`${server.url}/sandbox/_sandbox/payments/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: orderId }),
  });
  assert.equal(response.status, 200, await response.text());
}

async function openDemo(
  t: TestContext,
  engine: Engine,
): Promise<{ server: RunningDemoServer; tab: EngineTab }> {
  const server = await startDemoServer({ pageRoot: E2E_PAGE_ROOT, port: 0, sandboxApproveAfterMs: HELD_MS });
  let tab: EngineTab;
  try {
    tab = await engine.open();
  } catch (error) {
    await server.close();
    throw error;
  }
  t.after(async () => {
    await tab.close();
    await server.close();
  });
  await tab.open(`${server.url}/?poll-interval=2000`);
  await waitInPage(tab, READY, 'the shop to be ready');
  return { server, tab };
}

for (const engine of [firefox, webkit]) {
  describe(`the demo page in ${engine.name}`, () => {
    it('pays with a test number, resumes the same order after a reload, and shows the receipt', async (t) => {
      const { server, tab } = await openDemo(t, engine);
      await tab.fill('customer_name', SHOPPER.name);
      await tab.fill('number', SHOPPER.number);
      assert.equal(
        await tab.evaluate(`${CHECKOUT}.shadowRoot.querySelector('[name="number"]').value`),
        SHOPPER.number,
      );
      await tab.clickPay();
      await waitInPage(tab, stateIs('requires_action'), 'the payer to be asked');
      const { orderId } = await eventDetail(tab, 'pay-created');
      assert.ok(orderId, 'pay-created names the order');

      await tab.reload();
      await waitInPage(tab, READY, 'the shop to be ready after the reload');
      await waitInPage(tab, stateIs('requires_action'), 'the checkout to resume the waiting order');
      assert.ok(!(await events(tab)).includes('pay-created'), 'a reload does not fire pay-created again');
      assert.equal(server.sandbox?.createdOrderCount, 1, 'the reload created nothing');

      await approve(server, orderId);
      await waitInPage(tab, stateIs('paid'), 'the receipt');
      const receipt = await tab.evaluate<string>(`${CHECKOUT}.shadowRoot.textContent.replace(/\\s+/g, ' ')`);
      assert.ok(receipt.includes(EN_STRINGS.paidTitle), receipt);
      assert.ok(receipt.includes(orderId), `the receipt names order ${orderId}: ${receipt}`);
      const logged = await events(tab);
      assert.equal(logged.filter((name) => name === 'pay-paid').length, 1, String(logged));
      assert.equal((await eventDetail(tab, 'pay-paid')).orderId, orderId);
      assert.equal(server.sandbox?.createdOrderCount, 1);
    });
  });
}
