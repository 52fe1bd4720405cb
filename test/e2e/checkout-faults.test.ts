/**
 * Faults on the real wire and shoppers at the same time: a create whose
 * answer is lost after the server acted must not charge twice, and two tabs
 * paying at once get two orders, each paid once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startDemoServer } from '../../demo/server/start-demo-server.js';
import type { CheckoutRelayEvent } from '../../src/server/index.js';
import { SHOPPER } from '../fixtures/checkout-data.js';
import { launchChromium, newDemoContext } from './helpers/browser.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { DemoPage, STATE_TIMEOUT_MS } from './helpers/demo-page.js';
import { startLossyProxy } from './helpers/lossy-proxy.js';

const FAST_POLLS = '?poll-interval=2000';

let browser: Browser;

before(async () => {
  browser = await launchChromium();
});

after(() => browser.close());

describe('the demo page on a bad network', () => {
  it('loses the first create answer after the server acted: one order in the sandbox, paid once', async (t) => {
    const relayEvents: CheckoutRelayEvent[] = [];
    const server = await startDemoServer({
      pageRoot: E2E_PAGE_ROOT,
      port: 0,
      sandboxApproveAfterMs: 1500,
      onRelayEvent: (event) => {
        relayEvents.push(event);
      },
    });
    const proxy = await startLossyProxy(server.url, { requestLine: 'POST /api/checkout/orders' });
    const context = await newDemoContext(browser);
    t.after(async () => {
      await context.close();
      await proxy.close();
      await server.close();
    });
    const demo = new DemoPage(await context.newPage());
    await demo.open(proxy.url, FAST_POLLS);
    await demo.pay(SHOPPER);

    // The element retries the create by itself with the same key; if it gives
    // up first, "Try again" is the shopper's retry, with the same key too.
    const outcome = await Promise.race([
      demo.waitForState('requires_action').then(() => 'requires_action'),
      demo.waitForState('paid').then(() => 'paid'),
      demo.waitForState('error').then(() => 'error'),
    ]);
    if (outcome === 'error') await demo.elementButton(/try again/i).click();
    await demo.waitForState('paid', STATE_TIMEOUT_MS);

    assert.equal(proxy.dropped, 1, 'the first answer was cut on the wire');
    assert.ok(proxy.matched >= 2, `the create was sent again (${proxy.matched} sends)`);
    const created = relayEvents.filter((event) => event.type === 'order_created');
    assert.ok(created.length >= 2, 'the relay answered the retry too');
    assert.equal(new Set(created.map((event) => event.orderId)).size, 1, 'every send got the same order');
    assert.equal(server.sandbox?.createdOrderCount, 1, 'one order in the sandbox');
    assert.equal(await demo.eventCount('pay-created'), 1);
    assert.equal(await demo.eventCount('pay-paid'), 1);
  });

  it('two tabs paying at once: two orders, each paid once', async (t) => {
    const server = await startDemoServer({
      pageRoot: E2E_PAGE_ROOT,
      port: 0,
      sandboxApproveAfterMs: 1500,
    });
    const contexts = await Promise.all([newDemoContext(browser), newDemoContext(browser)]);
    t.after(async () => {
      await Promise.all(contexts.map((context) => context.close()));
      await server.close();
    });
    const tabs = await Promise.all(
      contexts.map(async (context) => new DemoPage(await context.newPage()).watch()),
    );
    await Promise.all(tabs.map((tab) => tab.open(server.url, FAST_POLLS)));
    const shoppers = [SHOPPER, { name: 'Kwame Nkrumah', number: '0201234567' }];
    await Promise.all(tabs.map((tab, index) => tab.fill(shoppers[index] as (typeof shoppers)[number])));
    await Promise.all(tabs.map((tab) => tab.submitButton().click()));
    await Promise.all(tabs.map((tab) => tab.waitForState('paid')));

    assert.equal(server.sandbox?.createdOrderCount, 2);
    const orderIds = await Promise.all(tabs.map((tab) => tab.orderId()));
    assert.notEqual(orderIds[0], orderIds[1]);
    for (const tab of tabs) {
      assert.equal(await tab.eventCount('pay-created'), 1);
      assert.equal(await tab.eventCount('pay-paid'), 1);
      assert.deepEqual(tab.problems.consoleErrors, []);
    }
    // Each tab's phone shows its own shopper's network.
    assert.equal(await tabs[1]?.phone().getAttribute('data-issuer'), 'telecel');
  });
});
