/**
 * axe on every state of the demo page, element included (axe reads open
 * shadow roots): no serious or critical violation in idle, requires_action
 * with the phone's prompt, paid, failed, timeout, the dark theme, French, and
 * on a phone-sized screen. Keyboard: the whole payment can be made without a mouse.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { type RunningDemoServer, startDemoServer } from '../../demo/server/start-demo-server.js';
import { SHOPPER } from '../fixtures/checkout-data.js';
import { launchChromium, newDemoContext } from './helpers/browser.js';
import { E2E_PAGE_ROOT } from './helpers/demo-build.js';
import { DemoPage } from './helpers/demo-page.js';

let browser: Browser;
let server: RunningDemoServer;

before(async () => {
  browser = await launchChromium();
  // The payer never answers on their own here: each test decides the outcome.
  server = await startDemoServer({
    pageRoot: E2E_PAGE_ROOT,
    port: 0,
    sandboxApproveAfterMs: 600_000,
  });
});

after(async () => {
  await browser.close();
  await server.close();
});

async function openDemo(
  t: TestContext,
  query: string,
  options: { phone?: boolean; width?: number } = {},
): Promise<DemoPage> {
  const context = await newDemoContext(browser, options);
  t.after(() => context.close());
  const demo = new DemoPage(await context.newPage());
  await demo.open(server.url, query);
  return demo;
}

/** Runs axe and fails with a readable list of every serious or critical violation. */
async function assertNoSeriousViolations(demo: DemoPage, what: string): Promise<void> {
  // Entrance animations end first, so colour contrast is measured on final colours (spinners never end).
  await demo.page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  const results = await new AxeBuilder({ page: demo.page }).analyze();
  const serious = results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  const report = serious
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}\n` +
        violation.nodes.map((node) => `    ${node.target.join(' ')}: ${node.failureSummary}`).join('\n'),
    )
    .join('\n');
  assert.equal(serious.length, 0, `${what}:\n${report}`);
  assert.ok(results.passes.length > 0, 'axe ran its checks');
}

describe('accessibility of the demo page (axe)', () => {
  it('idle, light theme', async (t) => {
    const demo = await openDemo(t, '?theme=light');
    await assertNoSeriousViolations(demo, 'idle');
  });

  it('idle on a phone-sized screen, dark theme, indigo brand', async (t) => {
    const demo = await openDemo(t, '?theme=dark&brand=indigo', { phone: true });
    await assertNoSeriousViolations(demo, 'phone, dark');
    const overflow = await demo.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px on a phone`);
  });

  for (const width of [360, 320]) {
    it(`fits a ${width} px screen without sideways scrolling, the test numbers still a table`, async (t) => {
      const demo = await openDemo(t, '?theme=light', { phone: true, width });
      const scrollWidth = await demo.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide on a ${width} px screen`);
      // Stacked for the phone, the rows and cells are still a table's to assistive technology.
      const numbers = demo.page.getByRole('table', { name: /test number/ });
      assert.equal(await numbers.getByRole('row').count(), 6, 'the heading row and five numbers');
      assert.equal(await numbers.getByRole('columnheader').count(), 3);
      await numbers.getByRole('cell', { name: '024 400 0002' }).waitFor();
      await assertNoSeriousViolations(demo, `${width} px`);
    });
  }

  it('requires_action, with the prompt on the phone', async (t) => {
    const demo = await openDemo(t, '?theme=light');
    await demo.pay(SHOPPER);
    await demo.waitForState('requires_action');
    await demo.waitForPhone('prompt');
    await assertNoSeriousViolations(demo, 'requires_action');
  });

  it('paid, in French and dark', async (t) => {
    const demo = await openDemo(t, '?theme=dark&locale=fr&poll-interval=2000');
    await demo.pay(SHOPPER);
    await demo.waitForPhone('prompt');
    await demo.phoneButton('approve').click();
    await demo.waitForState('paid');
    await assertNoSeriousViolations(demo, 'paid (fr, dark)');
  });

  it('failed', async (t) => {
    const demo = await openDemo(t, '?theme=light&brand=indigo&poll-interval=2000');
    await demo.pay({ name: 'Kofi Boateng', number: '0244000003' });
    await demo.waitForPhone('prompt');
    await demo.phoneButton('decline').click();
    await demo.waitForState('failed');
    await assertNoSeriousViolations(demo, 'failed');
  });

  it('timeout', async (t) => {
    const demo = await openDemo(t, '?theme=light&poll-interval=2000&poll-timeout=3000');
    await demo.pay({ name: 'Yaw Asante', number: '0244000003' });
    await demo.waitForState('timeout');
    await assertNoSeriousViolations(demo, 'timeout');
  });

  it('can be paid with the keyboard alone, from the skip link to the phone’s Approve', async (t) => {
    const demo = await openDemo(t, '?poll-interval=2000');
    const page = demo.page;
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip-link');
    await page.keyboard.press('Enter');
    // From the shop: Tab to the quantity, then into the element's fields.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'quantity');
    await page.keyboard.press('Tab');
    await page.keyboard.type(SHOPPER.name);
    await page.keyboard.press('Tab');
    await page.keyboard.type(SHOPPER.number);
    await page.keyboard.press('Enter');
    await demo.waitForPhone('prompt');
    await demo.phoneButton('approve').focus();
    await page.keyboard.press('Enter');
    await demo.waitForState('paid');
  });
});
